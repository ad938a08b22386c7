//! `POST /api/games/{id}/explain`: why the rules would refuse an action in a game as it stands,
//! in the same words and with the same rule an `action` frame would get — and nothing changes:
//! no entry in the log, the same seq. The page asks it when a player clicks a hex that is no
//! choice. Also the CRT published with the scenario (R4) for the page's tables.

use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Ws, action_frame};

/// A British unit alone in the open in the Allied movement phase of turn 1 (no attrition yet),
/// Boxers two hexes north.
fn position() -> Value {
    json!({"turn": 1, "phase": "allied_movement", "units": [
        {"ref": "a", "side": "chinese", "type": "boxer", "hex": "0810"},
        {"ref": "b", "side": "allied", "type": "combat", "nationality": "british", "hex": "0812"}
    ]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_action_is_explained_with_its_rule_and_nothing_changes_5_1() {
    let server = TestServer::start().await;
    let http = &server.http;
    let body = json!({"side": "allied", "name": "explain", "position": position()});
    let (status, created) = http.post("/api/games", body.to_string()).await;
    assert_eq!(status, 201, "{created}");
    http.remember_code(&created);
    let id = created["game_id"].as_str().unwrap().to_string();
    http.join(&id).await;
    let explain = |action: Value| {
        let path = format!("/api/games/{id}/explain");
        async move {
            http.post(&path, json!({ "action": action }).to_string())
                .await
        }
    };

    // Not the step for it: the rules list what is legal now (4).
    let (status, answer) = explain(json!({"type": "place", "hex": "0812"})).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["legal"], false);
    assert_eq!(answer["code"], "not_legal_now");
    assert_eq!(answer["rule"], "4");
    assert_eq!(answer["side"], "allied");
    assert_eq!(answer["seq"], 0);

    // A legal action is only looked up, not taken.
    let (_, info) = http.get(&format!("/api/games/{id}")).await;
    let british = info["view"]["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["hex"] == "0812")
        .unwrap()["id"]
        .clone();
    let select = json!({"type": "select_unit", "unit": british});
    let (status, answer) = explain(select.clone()).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["legal"], true, "{answer}");
    assert!(answer.get("code").is_none(), "{answer}");
    let (_, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(info["seq"], 0, "explaining a legal action does not take it");

    // With the stack selected, a hex out of reach is explained by the movement rules (5.1), as
    // the refusal of an action frame would be.
    let url = http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let (_, state) = allied.next_state().await;
    allied.send(action_frame(&state, &select)).await;
    let (_, state) = allied.next_state().await;
    assert_eq!(state["seq"], 1);
    let far = json!({"type": "move", "to": "0840", "mp": 1});
    let (status, answer) = explain(far.clone()).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["legal"], false);
    assert_eq!(answer["code"], "movement_points", "{answer}");
    assert_eq!(answer["rule"], "5.1");
    assert!(
        answer["message"].as_str().unwrap().contains("0840"),
        "{answer}"
    );
    allied.send(action_frame(&state, &far)).await;
    let refused = allied.expect_error("movement_points").await;
    assert_eq!(refused["message"], answer["message"]);

    // Onto the Boxers themselves: no unit enters an enemy hex (5.1).
    let (_, answer) = explain(json!({"type": "move", "to": "0810", "mp": 1})).await;
    assert_eq!(answer["code"], "enemy_hex", "{answer}");

    // Nothing of this reached the log.
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    assert_eq!(log["entries"].as_array().unwrap().len(), 1);
    let (_, after) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(after["seq"], 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_refuses_what_is_not_an_action_and_unknown_games() {
    let server = TestServer::start().await;
    let http = &server.http;
    let created = http.create("allied").await;
    let id = created["game_id"].as_str().unwrap();
    let (status, answer) = http
        .post(
            &format!("/api/games/{id}/explain"),
            json!({"action": {"type": "teleport"}}).to_string(),
        )
        .await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "bad_request");
    let (status, answer) = http
        .post(
            "/api/games/00000000-0000-4000-8000-000000000000/explain",
            json!({"action": {"type": "end_phase"}}).to_string(),
        )
        .await;
    assert_eq!(status, 404, "{answer}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scenario_publishes_the_crt_the_engine_resolves_with_r4() {
    let server = TestServer::start().await;
    let (status, scenario) = server.http.get("/api/scenario").await;
    assert_eq!(status, 200);
    let crt = &scenario["crt"];
    assert_eq!(crt["columns"].as_array().unwrap().len(), 8);
    // R4 as printed: 2-1 on a 4 is DL1; 1-3 on a 1 is AE.
    assert_eq!(crt["die"]["4"][3], "DL1");
    assert_eq!(crt["die"]["1"][0], "AE");
    assert!(crt["results"].as_array().unwrap().iter().any(|r| {
        r["code"] == "DL1"
            && r["text"]
                .as_str()
                .unwrap()
                .contains("defender loses a step")
    }));
    server.stop().await;
}
