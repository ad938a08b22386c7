//! Every kind of bad input gets its own error and changes nothing: broken frames, unknown
//! types, actions that are not legal, actions for the other side, spectators acting, stale
//! seqs, oversized frames, floods, wrong tokens, too many connections — and the HTTP side's
//! 400/404/409/413/422 answers in the `{"error": {...}}` envelope.

use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Http, Read, Ws, action_frame};

/// A game with both seats taken; returns its id and the two tokens.
async fn seated_game(http: &Http) -> (String, Value, Value) {
    let created = http.create("allied").await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let joined = http.join(&id).await;
    (id, created["token"].clone(), joined["token"].clone())
}

/// The game's seq and view, to show nothing changed.
async fn snapshot(http: &Http, id: &str) -> (Value, Value) {
    let (status, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200);
    (info["seq"].clone(), info["view"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_bad_frame_gets_its_error_changes_nothing_and_keeps_the_socket() {
    let server = TestServer::start().await;
    let http = &server.http;
    let (id, allied_token, chinese_token) = seated_game(http).await;
    let url = http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": allied_token})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": chinese_token})).await;
    let mut watcher = Ws::open(&url, json!({"type": "spectate"})).await;
    let (_, state) = allied.next_state().await;
    chinese.next_state().await;
    watcher.next_state().await;
    let before = snapshot(http, &id).await;
    let legal = state["legal_actions"][0].clone();
    assert!(legal.is_object());

    let cases: Vec<(&str, String)> =
        vec![
        ("bad_json", "{not json".into()),
        ("bad_json", "[1, 2]".into()),
        ("unknown_type", json!({"type": "teleport"}).to_string()),
        ("unknown_type", json!({"no": "type"}).to_string()),
        ("bad_json", json!({"type": "action", "seq": 0}).to_string()),
        ("bad_json", json!({"type": "action", "seq": "zero", "action": legal}).to_string()),
        (
            "not_a_legal_choice",
            json!({"type": "action", "seq": 0, "action": {"type": "teleport"}}).to_string(),
        ),
        (
            "not_a_legal_choice",
            json!({"type": "action", "seq": 0, "action": {"type": "move", "to": "9999", "mp": 1}})
                .to_string(),
        ),
        (
            "not_a_legal_choice",
            json!({"type": "action", "seq": 0, "action": {"type": "deploy_default", "extra": 1}})
                .to_string(),
        ),
        ("already_joined", json!({"type": "spectate"}).to_string()),
        ("already_joined", json!({"type": "join", "token": allied_token}).to_string()),
    ];
    for (code, text) in cases {
        allied.send_text(text.clone()).await;
        allied.expect_error(code).await;
        allied.assert_alive().await;
        assert_eq!(snapshot(http, &id).await, before, "{text} changed nothing");
    }

    // An action that parses but is not in the legal list: refused by the rules, with a code.
    allied
        .send(json!({"type": "action", "seq": 0, "action": {"type": "place", "hex": "0101"}}))
        .await;
    let err = allied.recv().await;
    assert_eq!(err["type"], "error");
    assert!(err["code"].as_str().is_some_and(|c| !c.is_empty()), "{err}");
    allied.assert_alive().await;

    // The Chinese player sends the Allied player's legal action: not their decision.
    chinese.send(action_frame(&state, &legal)).await;
    chinese.expect_error("not_your_turn").await;
    chinese.assert_alive().await;

    // A spectator cannot act.
    watcher.send(action_frame(&state, &legal)).await;
    watcher.expect_error("spectator").await;
    watcher.assert_alive().await;

    // A stale seq is refused. This connection was already sent the current state, so no
    // state follows: the next frame is the pong.
    allied
        .send(json!({"type": "action", "seq": 7, "action": legal}))
        .await;
    allied.expect_error("stale").await;
    allied.assert_alive().await;

    // Binary frames and frames over 64 KiB are refused; the socket stays.
    allied.send_binary(b"{}".to_vec()).await;
    allied.expect_error("bad_json").await;
    let big = json!({"type": "ping", "pad": "x".repeat(70 * 1024)}).to_string();
    allied.send_text(big).await;
    allied.expect_error("frame_too_large").await;
    allied.assert_alive().await;
    assert_eq!(snapshot(http, &id).await, before);

    // After all that, the legal action is still accepted, and everyone sees it.
    allied.send(action_frame(&state, &legal)).await;
    let (events, next) = allied.next_state().await;
    assert_eq!(next["seq"], 1);
    assert_eq!(events.len(), 1);
    let (_, seen) = watcher.next_state().await;
    assert_eq!(seen["seq"], 1);

    // A flood is rate limited; the socket survives it.
    for _ in 0..600 {
        allied.send(json!({"type": "ping"})).await;
    }
    let mut pongs = 0;
    let mut limited = 0;
    for _ in 0..600 {
        let f = allied.recv().await;
        match f["type"].as_str() {
            Some("pong") => pongs += 1,
            Some("error") if f["code"] == "rate_limited" => limited += 1,
            _ => panic!("unexpected {f}"),
        }
    }
    assert!(pongs > 0 && limited > 0, "{pongs} pongs, {limited} refused");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_token_cannot_act_or_even_sit_down() {
    let server = TestServer::start().await;
    let http = &server.http;
    let (id, allied_token, _) = seated_game(http).await;
    let url = http.ws_url(&id);
    let before = snapshot(http, &id).await;

    let mut ws = Ws::open(&url, json!({"type": "join", "token": "0".repeat(64)})).await;
    ws.expect_error_and_close("bad_token").await;
    let mut ws = Ws::open(&url, json!({"type": "resume", "token": "nope", "seq": 0})).await;
    ws.expect_error_and_close("bad_token").await;
    // A token of another game is no token here.
    let other = http.create("allied").await;
    let mut ws = Ws::open(&url, json!({"type": "join", "token": other["token"]})).await;
    ws.expect_error_and_close("bad_token").await;

    // The first frame must say who is there.
    let mut ws = Ws::open(
        &url,
        json!({"type": "action", "seq": 0, "action": {"type": "pass"}}),
    )
    .await;
    ws.expect_error_and_close("not_joined").await;
    let mut ws = Ws::open(&url, json!({"type": "ping"})).await;
    ws.expect_error_and_close("not_joined").await;
    let mut ws = Ws::connect(&url).await;
    ws.send_text("garbage").await;
    ws.expect_error_and_close("bad_json").await;
    assert_eq!(snapshot(http, &id).await, before);

    // The right token still works.
    let mut ws = Ws::open(&url, json!({"type": "join", "token": allied_token})).await;
    let (_, state) = ws.next_state().await;
    assert_eq!(state["you"], "allied");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_limit_are_refused() {
    let server = TestServer::start_with(|c| c.max_connections_per_game = 3).await;
    let http = &server.http;
    let (id, _, _) = seated_game(http).await;
    let url = http.ws_url(&id);
    let mut kept = Vec::new();
    for _ in 0..3 {
        let mut ws = Ws::open(&url, json!({"type": "spectate"})).await;
        ws.next_state().await;
        kept.push(ws);
    }
    let mut fourth = Ws::open(&url, json!({"type": "spectate"})).await;
    fourth.expect_error_and_close("too_many_connections").await;
    // A place frees when a connection leaves.
    drop(kept.pop());
    let mut again = loop {
        let mut ws = Ws::open(&url, json!({"type": "spectate"})).await;
        match ws.read().await {
            Read::Frame(f) if f["type"] == "state" => break ws,
            _ => tokio::task::yield_now().await,
        }
    };
    again.assert_alive().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_refusals_use_the_error_envelope_and_fitting_statuses() {
    let server = TestServer::start().await;
    let http = &server.http;
    let check = |status: u16, body: &Value, want_status: u16, want_code: &str| {
        assert_eq!(status, want_status, "{body}");
        assert_eq!(body["error"]["code"], want_code, "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    };
    let (id, _, _) = seated_game(http).await;

    let (s, b) = http.post(&format!("/api/games/{id}/join"), "").await;
    // Private by default: without its code the seat is refused before anything is said of it.
    check(s, &b, 403, "invite_required");
    let one = http.create("chinese").await;
    let one_id = one["game_id"].as_str().unwrap();
    let (s, b) = http
        .post(
            &format!("/api/games/{one_id}/join"),
            json!({"side": "chinese", "code": one["invite_code"]}).to_string(),
        )
        .await;
    check(s, &b, 409, "seat_taken");
    let (s, b) = http
        .post(
            &format!("/api/games/{one_id}/join"),
            json!({"code": one["invite_code"]}).to_string(),
        )
        .await;
    assert_eq!((s, &b["side"]), (200, &json!("allied")));

    let missing = "00000000-0000-4000-8000-000000000000";
    for path in [
        format!("/api/games/{missing}"),
        format!("/api/games/{missing}/log"),
        format!("/api/games/{missing}/state?at=0"),
        format!("/ws/games/{missing}"),
        "/api/games/not-a-uuid".to_string(),
        "/api/nothing".to_string(),
        format!("/api/games/{id}/state?at=99"),
    ] {
        let (s, b) = http.get(&path).await;
        check(s, &b, 404, "not_found");
    }
    let (s, b) = http.post(&format!("/api/games/{missing}/join"), "").await;
    check(s, &b, 404, "not_found");

    let (s, b) = http.get("/api/games?status=sleeping").await;
    check(s, &b, 400, "bad_request");
    let (s, b) = http.get(&format!("/api/games/{id}/state?at=-1")).await;
    check(s, &b, 400, "bad_request");
    let (s, b) = http.post("/api/games", "{oops").await;
    check(s, &b, 400, "bad_json");
    let (s, b) = http.post("/api/games", r#"{"side": "boxers"}"#).await;
    check(s, &b, 422, "bad_json");
    let (s, b) = http
        .post("/api/games", json!({"name": "n".repeat(200)}).to_string())
        .await;
    check(s, &b, 422, "bad_request");
    let (s, b) = http
        .post(
            "/api/games",
            json!({"name": "n".repeat(100 * 1024)}).to_string(),
        )
        .await;
    check(s, &b, 413, "body_too_large");

    // Open games are listed as open; the seed stays private while the game runs.
    let (_, open) = http.get("/api/games?status=open").await;
    let open = open.as_array().unwrap();
    assert!(open.iter().all(|g| g["status"] == "open"));
    assert!(open.iter().all(|g| g["game_id"] != id));
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    assert_eq!(log["seed"], Value::Null);
    assert_eq!(log["entries"], json!([]));
    let (s, health) = http.get("/healthz").await;
    assert_eq!((s, &health["status"]), (200, &json!("ok")));
    let (s, scenario) = http.get("/api/scenario").await;
    assert_eq!(s, 200);
    assert_eq!(scenario["hexes"].as_array().map(Vec::len), Some(1560));
    server.stop().await;
}
