//! Resigning, time controls and claims on time against a real server (docs/protocol.md,
//! "Always-allowed actions" and "Time controls"): either player may resign whoever is to act;
//! a live bank runs only for the side to decide; a correspondence window that ran out while
//! the server was down can be claimed after the restart, and is found out of time without the
//! game being loaded; an unjoined timed game still expires.

use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Http, Ws, action_frame};
use std::time::Duration;

fn fast(c: &mut siege::server::Config) {
    c.frame_rate = 1_000_000;
}

/// Read until a `state` frame, keeping the `events` and `clock` frames before it.
async fn next_state(ws: &mut Ws) -> (Vec<Value>, Value) {
    let mut others = Vec::new();
    loop {
        let f = ws.recv().await;
        match f["type"].as_str() {
            Some("state") => return (others, f),
            Some("events" | "clock") => others.push(f),
            _ => panic!("expected events, clock or state, got {f}"),
        }
    }
}

/// Read until a `clock` frame.
async fn next_clock(ws: &mut Ws) -> Value {
    loop {
        let f = ws.recv().await;
        if f["type"] == "clock" {
            return f["clock"].clone();
        }
    }
}

/// A game with both seats taken.
struct Seated {
    id: String,
    allied: Ws,
    chinese: Ws,
    /// The Allied player's first state.
    first: Value,
    /// The Allied and Chinese seats' tokens.
    tokens: [Value; 2],
}

/// A game created with `time_control` (none when `Null`) and both seats taken.
async fn seated(http: &Http, time_control: Value) -> Seated {
    // Public: the tests read the games back from the listing, as anyone may.
    let mut body = json!({"side": "allied", "name": "timed", "visibility": "public"});
    let timed = !time_control.is_null();
    if timed {
        body["time_control"] = time_control;
    }
    let (status, created) = http.post("/api/games", body.to_string()).await;
    assert_eq!(status, 201, "{created}");
    http.remember_code(&created);
    let id = created["game_id"].as_str().unwrap().to_string();
    let joined = http.join(&id).await;
    let url = http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let (_, first) = next_state(&mut allied).await;
    next_state(&mut chinese).await;
    if timed {
        // A timed game's clock frame follows the first state of each connection.
        next_clock(&mut allied).await;
        next_clock(&mut chinese).await;
    }
    Seated {
        id,
        allied,
        chinese,
        first,
        tokens: [created["token"].clone(), joined["token"].clone()],
    }
}

async fn game(http: &Http, id: &str) -> Value {
    let (status, g) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200, "{g}");
    g
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn either_player_resigns_at_any_time_and_the_game_ends_with_the_reason() {
    let server = TestServer::start_with(fast).await;
    let http = server.http.clone();
    let Seated {
        id,
        mut allied,
        mut chinese,
        ..
    } = seated(&http, Value::Null).await;
    // The Allies are to act; the Chinese resign all the same.
    let g = game(&http, &id).await;
    assert_eq!(g["view"]["to_act"], "allied");
    assert!(
        g.get("clock").is_none(),
        "an untimed game has no clock: {g}"
    );
    chinese
        .send(json!({"type": "action", "seq": 0, "action": {"type": "resign"}}))
        .await;
    for ws in [&mut allied, &mut chinese] {
        let (events, state) = next_state(ws).await;
        let over = events
            .iter()
            .flat_map(|e| e["events"].as_array().cloned().unwrap_or_default())
            .find(|e| e["kind"] == "game_over")
            .unwrap_or_else(|| panic!("a game_over event: {events:?}"));
        assert!(over.to_string().contains("resigned"), "{over}");
        assert_eq!(state["view"]["phase"], "game_over", "{}", state["view"]);
        assert!(state["legal_actions"].as_array().unwrap().is_empty());
    }
    // Logged like any action, with the side that took it; the result says why.
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    let last = log["entries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["action"], json!({"type": "resign"}));
    assert_eq!(last["side"], "chinese");
    assert!(log["seed"].is_string(), "the seed is published at the end");
    let (_, list) = http.get("/api/games?status=finished").await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == id.as_str())
        .unwrap();
    assert_eq!(listed["result"]["reason"], "resigned");
    assert_eq!(listed["result"]["winner"], "allied");
    assert_eq!(
        listed["result"]["text"],
        "Allied win: Chinese player resigned"
    );
    // Nothing more: a second resignation is refused.
    allied
        .send(json!({"type": "action", "seq": 1, "action": {"type": "resign"}}))
        .await;
    allied.expect_error("game_over").await;
    // A restarted server replays the log to the same end.
    let dir = server.stop_keeping_data().await;
    let server = TestServer::start_in(dir, fast).await;
    let g = game(&server.http, &id).await;
    assert_eq!(g["status"], "finished");
    assert_eq!(g["view"]["phase"], "game_over");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_clock_runs_only_for_the_side_to_decide() {
    let server = TestServer::start_with(fast).await;
    let http = server.http.clone();
    let control = json!({"kind": "live", "bank_seconds": 100, "increment_seconds": 2});
    let Seated {
        id,
        mut allied,
        first: mut state,
        ..
    } = seated(&http, control.clone()).await;
    let first = game(&http, &id).await["clock"].clone();
    assert_eq!(first["control"], control);
    assert_eq!(first["running"], "allied");
    assert_eq!(first["chinese_ms"], 100_000);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let later = game(&http, &id).await["clock"].clone();
    let allied_ms = later["allied_ms"].as_i64().unwrap();
    assert!(allied_ms <= 98_800, "the Allied bank runs: {later}");
    assert_eq!(
        later["chinese_ms"], 100_000,
        "the waiting side's bank stands still"
    );
    // The Allies finish their setup: the decision passes to the Chinese.
    // The default deployment stays offered once made (it fills only what is unplaced), so it is
    // taken once, then the phase is ended.
    let mut deployed = false;
    while state["view"]["to_act"] == "allied" {
        let legal = state["legal_actions"].as_array().unwrap();
        let action = legal
            .iter()
            .find(|a| !deployed && a["type"] == "deploy_default")
            .or_else(|| legal.iter().find(|a| a["type"] == "end_phase"))
            .unwrap_or(&legal[0])
            .clone();
        deployed |= action["type"] == "deploy_default";
        allied.send(action_frame(&state, &action)).await;
        state = next_state(&mut allied).await.1;
    }
    let to_act = state["view"]["to_act"].clone();
    assert_eq!(to_act, "chinese", "{}", state["view"]);
    let passed = game(&http, &id).await["clock"].clone();
    assert_eq!(passed["running"], "chinese");
    let allied_kept = passed["allied_ms"].as_i64().unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let later = game(&http, &id).await["clock"].clone();
    assert_eq!(
        later["allied_ms"], allied_kept,
        "the Allied bank stopped: {later}"
    );
    assert!(
        later["chinese_ms"].as_i64().unwrap() <= 98_800,
        "the Chinese bank runs: {later}"
    );
    // The lobby lists the clocks too.
    let (_, list) = http.get("/api/games?status=active").await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(listed["clock"]["running"], "chinese", "{listed}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_game_is_claimed_after_its_window_ran_out_across_a_restart() {
    let server = TestServer::start_with(fast).await;
    let http = server.http.clone();
    // Windows long enough that the "too early" claims below are made inside them on a slow
    // machine; the waits after them are longer still.
    let control = json!({"kind": "correspondence", "window_seconds": 5});
    let Seated {
        id,
        mut allied,
        mut chinese,
        tokens,
        ..
    } = seated(&http, control).await;
    let clock = game(&http, &id).await["clock"].clone();
    assert_eq!(clock["running"], "allied", "{clock}");
    assert!(clock["out_of_time"].is_null());
    // Too early: the Allied window is still open.
    chinese
        .send(json!({"type": "action", "seq": 0, "action": {"type": "claim_timeout"}}))
        .await;
    let refused = chinese.expect_error("time_left").await;
    assert!(
        refused["message"].as_str().unwrap().contains("Allied"),
        "{refused}"
    );
    // The side to act cannot claim against the waiting side.
    allied
        .send(json!({"type": "action", "seq": 0, "action": {"type": "claim_timeout"}}))
        .await;
    allied.expect_error("time_left").await;
    drop(allied);
    drop(chinese);
    let dir = server.stop_keeping_data().await;

    // The server is down while the Allied window runs out.
    tokio::time::sleep(Duration::from_millis(5300)).await;
    let server = TestServer::start_in(dir, fast).await;
    let http = server.http.clone();
    let (_, list) = http.get("/api/games?status=active").await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(listed["clock"]["out_of_time"], "allied", "{listed}");
    let store = siege::store::Store::open_reader(&TestServer::database_url(&server.dir))
        .await
        .unwrap();
    let out = store.out_of_time(siege::store::now_ms(), 10).await.unwrap();
    assert_eq!(out, vec![id.clone()], "found by query");
    assert!(
        server.games.loaded(id.parse().unwrap()).is_none(),
        "found out of time without loading the game"
    );
    // The Chinese claim the win on time; the Allies see the game end.
    let url = http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": tokens[0]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": tokens[1]})).await;
    let (_, state) = next_state(&mut chinese).await;
    let clock = next_clock(&mut chinese).await;
    assert_eq!(clock["out_of_time"], "allied", "{clock}");
    next_state(&mut allied).await;
    chinese
        .send(json!({"type": "action", "seq": state["seq"], "action": {"type": "claim_timeout"}}))
        .await;
    let (events, over) = next_state(&mut allied).await;
    assert_eq!(over["view"]["phase"], "game_over");
    assert!(
        events.iter().any(|e| e.to_string().contains("timeout")),
        "{events:?}"
    );
    let g = game(&http, &id).await;
    assert_eq!(g["status"], "finished");
    assert!(
        g["clock"]["running"].is_null(),
        "the clocks stop at the end: {}",
        g["clock"]
    );
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    let last = log["entries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["action"], json!({"type": "claim_timeout"}));
    assert_eq!(last["side"], "chinese");
    let (_, list) = http.get("/api/games?status=finished").await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(listed["result"]["reason"], "timeout");
    assert_eq!(listed["result"]["winner"], "chinese");
    assert!(
        store
            .out_of_time(siege::store::now_ms(), 10)
            .await
            .unwrap()
            .is_empty()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_game_nobody_joined_expires_with_its_clock() {
    let server = TestServer::start_with(fast).await;
    let http = server.http.clone();
    let body = json!({"time_control": {"kind": "correspondence", "window_seconds": 86400}});
    let (status, created) = http.post("/api/games", body.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();
    // Refused: a time control out of bounds, named.
    let bad = json!({"time_control": {"kind": "live", "bank_seconds": 0}});
    let (status, refused) = http.post("/api/games", bad.to_string()).await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["error"]["code"], "bad_time_control");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("bank_seconds")
    );
    let dir = server.stop_keeping_data().await;
    let pool = TestServer::raw_database(&dir).await;
    // Fifteen days pass (the default expiry age is 14).
    sqlx::query("UPDATE games SET created_at = created_at - $1, updated_at = updated_at - $2")
        .bind(15 * 24 * 3600 * 1000_i64)
        .bind(15 * 24 * 3600 * 1000_i64)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let server = TestServer::start_in(dir, |c| {
        fast(c);
        c.limits.expire_unjoined = Some(Duration::from_secs(14 * 24 * 3600));
    })
    .await;
    assert_eq!(server.http.get(&format!("/api/games/{id}")).await.0, 404);
    server.stop().await;
}

/// A game without a clock can be abandoned too (`--abandon-days`, here 5 s): until the side to
/// act has let the decision wait that long, a claim is refused with `no_clock` saying how long
/// is left; after it, the waiting side's claim ends the game as a win on time. The side to act
/// can never claim.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untimed_game_left_waiting_is_claimed_as_abandoned() {
    let server = TestServer::start_with(|c| {
        fast(c);
        c.limits.abandon_after = Some(Duration::from_secs(5));
    })
    .await;
    let http = server.http.clone();
    let Seated {
        id,
        mut allied,
        mut chinese,
        ..
    } = seated(&http, Value::Null).await;
    // The game says from when it may be claimed: after its decision began to wait (both
    // times in the same RFC 3339 form, so they sort as text).
    let g = game(&http, &id).await;
    let (since, at) = (g["waiting_since"].as_str(), g["abandon_at"].as_str());
    assert!(since.is_some() && at > since, "{g}");
    chinese
        .send(json!({"type": "action", "seq": 0, "action": {"type": "claim_timeout"}}))
        .await;
    let refused = chinese.expect_error("no_clock").await;
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("Allied") && message.contains("abandoned"),
        "{refused}"
    );
    allied
        .send(json!({"type": "action", "seq": 0, "action": {"type": "claim_timeout"}}))
        .await;
    allied.expect_error("no_clock").await;
    tokio::time::sleep(Duration::from_millis(5300)).await;
    allied
        .send(json!({"type": "action", "seq": 0, "action": {"type": "claim_timeout"}}))
        .await;
    allied.expect_error("no_clock").await;
    chinese
        .send(json!({"type": "action", "seq": 0, "action": {"type": "claim_timeout"}}))
        .await;
    let (_, over) = next_state(&mut allied).await;
    assert_eq!(over["view"]["phase"], "game_over", "{}", over["view"]);
    let g = game(&http, &id).await;
    assert_eq!(g["status"], "finished");
    assert!(
        g.get("abandon_at").is_none(),
        "nothing to claim once over: {g}"
    );
    assert_eq!(g["view"]["result"]["winner"], "chinese", "{}", g["view"]);
    assert_eq!(g["view"]["result"]["reason"], "timeout");
    server.stop().await;

    // With abandoning off (0 days), an untimed game cannot be claimed at all.
    let server = TestServer::start_with(|c| {
        fast(c);
        c.limits.abandon_after = None;
    })
    .await;
    let Seated { mut chinese, .. } = seated(&server.http, Value::Null).await;
    chinese
        .send(json!({"type": "action", "seq": 0, "action": {"type": "claim_timeout"}}))
        .await;
    let refused = chinese.expect_error("no_clock").await;
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("nobody can win on time"),
        "{refused}"
    );
    server.stop().await;
}
