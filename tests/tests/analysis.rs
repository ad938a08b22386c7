//! The analysis board over HTTP (`POST /api/analysis`) and games started from a custom position
//! (`POST /api/games` with `"position"`): answers with the rule sections that decided them,
//! invalid positions refused naming the unit and the rule, and a custom start that both players
//! see, that plays, and that replays from its position.

use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Ws, action_frame};

fn example_position() -> Value {
    json!({"turn": 3, "phase": "allied_combat", "units": [
        {"ref": "a", "side": "chinese", "type": "boxer", "hex": "1510", "reduced": false},
        {"ref": "b", "side": "allied", "type": "combat", "nationality": "british", "hex": "1511"},
        {"ref": "L", "side": "allied", "type": "leader", "name": "Myers", "hex": "1511"}
    ], "ruins": ["1219"], "fortifications": []})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_analysis_board_answers_every_query_kind_over_http() {
    let server = TestServer::start().await;
    let body = json!({"position": example_position(), "queries": [
        {"los": {"from": "1511", "to": "1510"}},
        {"zoc": {"side": "chinese"}},
        {"reachable": {"unit": "b"}},
        {"command_control": {"unit": "b"}},
        {"odds": {"attackers": ["b", "L"], "defenders": ["a"], "leader_use": {"L": "modifier"}}},
        {"legal_actions": {"side": "allied"}}
    ]});
    let (status, answer) = server.http.post("/api/analysis", body.to_string()).await;
    assert_eq!(status, 200, "{answer}");
    let answers = answer["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 6);
    assert_eq!(answers[0]["clear"], true);
    assert!(
        answers[1]["hexes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h == "1511")
    );
    assert!(answers[2]["destinations"].is_object());
    assert_eq!(answers[3]["in_command"], true);
    assert_eq!(answers[4]["attack"], 4);
    assert_eq!(answers[4]["modifier"], 1);
    assert!(!answers[5]["legal_actions"].as_array().unwrap().is_empty());
    for a in answers {
        assert!(a["rules"].as_array().is_some_and(|r| !r.is_empty()), "{a}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_position_is_refused_naming_the_unit_and_the_rule() {
    let server = TestServer::start().await;
    let mut bad = example_position();
    bad["units"][0]["hex"] = json!("2110"); // the Jade Canal
    let (status, answer) = server
        .http
        .post(
            "/api/analysis",
            json!({"position": bad, "queries": []}).to_string(),
        )
        .await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "invalid_position");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`a`") && message.contains("5.1"),
        "{message}"
    );
    assert_eq!(answer["error"]["unit"], "a");
    assert_eq!(answer["error"]["rule"], "5.1");
    let (status, answer) = server
        .http
        .post(
            "/api/games",
            json!({"side": "allied", "position": bad}).to_string(),
        )
        .await;
    assert_eq!(status, 422, "{answer}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_started_from_a_position_plays_and_replays_from_it() {
    let server = TestServer::start().await;
    let http = &server.http;
    // A public seek: the listing below shows it to anyone.
    let body = json!({"side": "allied", "name": "custom", "position": example_position(), "visibility": "public"});
    let (status, created) = http.post("/api/games", body.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();
    let joined = http.join(&id).await;
    let (_, list) = http.get("/api/games").await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == id.as_str())
        .unwrap();
    assert_eq!(listed["custom_start"], true);
    assert_eq!(
        (listed["turn"].as_u64(), listed["phase"].as_str()),
        (Some(3), Some("allied_combat"))
    );
    let (_, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(info["view"]["custom_start"], true);
    assert_eq!(info["view"]["phase"], "allied_combat");
    assert_eq!(info["view"]["turn"], 3);
    // Both players are told; the Allied player acts from the position.
    let url = http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let (_, state) = allied.next_state().await;
    let (_, other) = chinese.next_state().await;
    assert_eq!(other["view"]["custom_start"], true);
    let first = state["legal_actions"][0].clone();
    allied.send(action_frame(&state, &first)).await;
    let (events, after) = allied.next_state().await;
    assert!(!events.is_empty());
    assert_eq!(after["seq"], 1);
    // The log carries the position; the state before the first action is the custom start.
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    assert_eq!(log["position"]["phase"], "allied_combat");
    assert_eq!(log["entries"].as_array().unwrap().len(), 1);
    let (status, at0) = http.get(&format!("/api/games/{id}/state?at=0")).await;
    assert_eq!(status, 200, "{at0}");
    assert_eq!(at0["custom_start"], true);
    assert_eq!(at0["phase"], "allied_combat");
    let (_, at1) = http.get(&format!("/api/games/{id}/state?at=1")).await;
    assert_eq!(at1, after["view"]);
    server.stop().await;
}

/// Two British units in a legation building (1614) and a reduced Boxer in the open beside them
/// (1613), in the Chinese combat phase: the Boxer is in their ZOC, so it must attack, at 5
/// against 24 — below 1-3.
fn forced_below_one_to_three() -> Value {
    json!({"turn": 3, "phase": "chinese_combat", "units": [
        {"ref": "g1", "side": "allied", "type": "combat", "nationality": "british", "hex": "1614"},
        {"ref": "g2", "side": "allied", "type": "combat", "nationality": "british", "hex": "1614"},
        {"ref": "x", "side": "chinese", "type": "boxer", "hex": "1613", "reduced": true}
    ], "ruins": [], "fortifications": []})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_attack_below_1_to_3_is_answered_and_declared_as_an_automatic_ae() {
    let server = TestServer::start().await;
    let http = &server.http;
    let odds = |position: Value| {
        json!({"position": position, "queries": [
            {"odds": {"attackers": ["x"], "defenders": ["g1"]}}
        ]})
        .to_string()
    };
    // The analysis board's odds answer: legal (the Boxer is forced) and an automatic AE.
    let (status, answer) = http
        .post("/api/analysis", odds(forced_below_one_to_three()))
        .await;
    assert_eq!(status, 200, "{answer}");
    let a = &answer["answers"][0];
    assert_eq!(
        (a["attack"].as_u64(), a["defence"].as_u64()),
        (Some(5), Some(24)),
        "{a}"
    );
    assert_eq!(a["legal"], true, "{a}");
    assert_eq!(a["automatic"], "automatic AE (8.1.2)", "{a}");
    // At 1-3 or better (a full Boxer against one British unit: 10 against 12) there is a die
    // to read, and no automatic result is claimed.
    let mut better = forced_below_one_to_three();
    better["units"].as_array_mut().unwrap().remove(1);
    better["units"][1]["reduced"] = json!(false);
    let (status, answer) = http.post("/api/analysis", odds(better)).await;
    assert_eq!(status, 200, "{answer}");
    let a = &answer["answers"][0];
    assert_eq!(a["odds"], "1-2", "{a}");
    assert!(a.get("automatic").is_none(), "{a}");

    // The same attack declared in a game started from the position: the declaration's odds in
    // the view say so before the roll.
    let body = json!({"side": "allied", "position": forced_below_one_to_three()});
    let (status, created) = http.post("/api/games", body.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();
    http.remember_code(&created);
    let joined = http.join(&id).await;
    let mut chinese = Ws::open(
        &http.ws_url(&id),
        json!({"type": "join", "token": joined["token"]}),
    )
    .await;
    let (_, mut state) = chinese.next_state().await;
    for kind in ["attack", "add_attacker"] {
        let Some(action) = state["legal_actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["type"] == kind)
            .cloned()
        else {
            continue;
        };
        chinese.send(action_frame(&state, &action)).await;
        state = chinese.next_state().await.1;
    }
    let declared = &state["view"]["declaration"]["odds"];
    assert_eq!(declared["legal"], true, "{declared}");
    assert_eq!(declared["automatic"], "automatic AE (8.1.2)", "{declared}");
    server.stop().await;
}
