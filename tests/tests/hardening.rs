//! The smaller limits of docs/security.md, each shown on a real server on loopback: refusals in
//! a row are counted through pings, a stale action is not answered with a whole state each
//! time, a first frame over 1 MiB gets its error, every refusal speaks the JSON envelope,
//! unknown fields are refused by name, a request head over 32 KiB is refused, answers carry the
//! security headers, cross-site writes are refused, a silent socket is closed, `/healthz`
//! reports the writer, `/metrics` counts, and games nobody joined expire while the rest stay.
//! (The attacks on the `siege` binary — floods, stalls, a second server — are in the server
//! package's `abuse` tests.)

use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Read, Ws, action_frame};
use std::time::Duration;

/// A game created and joined, both players connected with their first states.
async fn table(server: &TestServer) -> (String, Ws, Value, Ws, Value) {
    let created = server.http.create("allied").await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let joined = server.http.join(&id).await;
    let url = server.http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let (_, a) = allied.next_state().await;
    let (_, c) = chinese.next_state().await;
    (id, allied, a, chinese, c)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_does_not_reset_the_count_of_refusals_in_a_row() {
    let server = TestServer::start_with(|c| c.frame_rate = 1_000_000).await;
    let (_, mut allied, ..) = table(&server).await;
    for _ in 0..1000 {
        allied.send_text(r#"{"type":"nope"}"#).await;
        allied.expect_error("unknown_type").await;
        allied.assert_alive().await;
    }
    // The 1,001st refusal in a row closes the socket, pings or no pings.
    allied.send_text(r#"{"type":"nope"}"#).await;
    match allied.read().await {
        Read::Closed(code) => assert_eq!(code, Some(1008)),
        Read::Frame(f) => panic!("expected the close, got {f}"),
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_action_does_not_bring_a_whole_state_each_time() {
    let server = TestServer::start_with(|c| c.frame_rate = 1_000_000).await;
    let (_, mut allied, a, mut chinese, _) = table(&server).await;
    let legal = a["legal_actions"][0].clone();
    // Fifty stale actions: fifty small error frames, and no state — this connection has the
    // current one already.
    for _ in 0..50 {
        chinese
            .send(json!({"type": "action", "seq": 9, "action": legal}))
            .await;
        let f = chinese.expect_error("stale").await;
        assert!(f.to_string().len() < 300, "{f}");
    }
    chinese.assert_alive().await;
    // After a new state, a stale action is answered by an error only, for the state came with
    // the broadcast already.
    allied.send(action_frame(&a, &legal)).await;
    let (_, a1) = allied.next_state().await;
    let (_, c1) = chinese.next_state().await;
    assert_eq!((a1["seq"].as_u64(), c1["seq"].as_u64()), (Some(1), Some(1)));
    chinese
        .send(json!({"type": "action", "seq": 0, "action": legal}))
        .await;
    chinese.expect_error("stale").await;
    chinese.assert_alive().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_frame_over_1_mib_is_refused_with_frame_too_large_then_1009() {
    let server = TestServer::start().await;
    let id = server.http.create("allied").await["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    let huge = json!({"type": "spectate", "pad": "x".repeat(1100 * 1024)}).to_string();
    // The server refuses on the frame's header and closes; on a busy machine that can happen
    // before the client has written the whole megabyte, and the client's send then meets a
    // reset instead. Either way the frame was refused: it is never read as a request. The
    // refusal itself must be seen at least once, or this would prove nothing: under a loaded
    // CI machine five tries all met the reset once, so it gets many tries, each a fresh socket.
    const TRIES: usize = 40;
    let mut seen = false;
    for _ in 0..TRIES {
        let mut ws = Ws::connect(&server.http.ws_url(&id)).await;
        if ws.send_text_or_closed(huge.clone()).await {
            ws.expect_error("frame_too_large").await;
            match ws.read().await {
                Read::Closed(code) => assert_eq!(code, Some(1009)),
                Read::Frame(f) => panic!("expected the close, got {f}"),
            }
            seen = true;
            break;
        }
    }
    assert!(
        seen,
        "{TRIES} sends of 1.1 MiB all met a reset: frame_too_large was never seen"
    );
    // The server is unharmed and serves the next client.
    let mut next = Ws::connect(&server.http.ws_url(&id)).await;
    next.send(json!({"type": "spectate"})).await;
    let (_, state) = next.next_state().await;
    assert_eq!(state["you"], "spectator");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_speaks_the_json_envelope() {
    let server = TestServer::start().await;
    let http = &server.http;
    let big = format!(r#"{{"pad":"{}"}}"#, "x".repeat(70 * 1024));
    let cases: Vec<(&str, &str, String, u16, &str)> = vec![
        ("POST", "/api/analysis", String::new(), 422, "bad_json"),
        ("POST", "/api/analysis", "not json".into(), 400, "bad_json"),
        (
            "POST",
            "/api/analysis",
            r#"{"x": 1}"#.into(),
            422,
            "bad_request",
        ),
        ("POST", "/api/analysis", big, 413, "body_too_large"),
        (
            "DELETE",
            "/api/games",
            String::new(),
            405,
            "method_not_allowed",
        ),
        (
            "GET",
            "/api/games?status=open&colour=red",
            String::new(),
            400,
            "bad_request",
        ),
        ("GET", "/api/nowhere", String::new(), 404, "not_found"),
    ];
    let client = reqwest::Client::new();
    for (method, path, body, status, code) in cases {
        let resp = client
            .request(method.parse().unwrap(), format!("{}{path}", http.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), status, "{method} {path}");
        assert!(
            resp.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json"),
            "{method} {path}"
        );
        let answer: Value = resp.json().await.unwrap();
        assert_eq!(answer["error"]["code"], code, "{method} {path}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_over_32_kib_is_refused() {
    let server = TestServer::start().await;
    let resp = reqwest::Client::new()
        .get(format!("{}/api/games", server.http.base))
        .header("x-padding", "x".repeat(40 * 1024))
        .send()
        .await;
    // hyper answers 431 before any handler (or, having read too much, just closes).
    match resp {
        Ok(r) => assert_eq!(r.status().as_u16(), 431),
        Err(e) => assert!(e.is_request() || e.is_connect() || e.is_body(), "{e}"),
    }
    let (status, _) = server.http.get("/api/games").await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_fields_are_refused_by_name() {
    let server = TestServer::start().await;
    let http = &server.http;
    let (status, answer) = http.post("/api/games", r#"{"sied": "chinese"}"#).await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "bad_json");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sied")
    );
    let id = http.create("allied").await["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, answer) = http
        .post(&format!("/api/games/{id}/join"), r#"{"sid": "chinese"}"#)
        .await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("sid"));
    // A first frame with a misspelt field: refused, not read as a plain spectate.
    let url = http.ws_url(&id);
    let mut ws = Ws::open(&url, json!({"type": "spectate", "patchs": true})).await;
    let f = ws.expect_error("bad_json").await;
    assert!(f["message"].as_str().unwrap().contains("patchs"), "{f}");
    // After joining, too.
    let mut ws = Ws::open(&url, json!({"type": "spectate"})).await;
    ws.next_state().await;
    ws.send(json!({"type": "ping", "now": 1})).await;
    ws.expect_error("bad_json").await;
    ws.assert_alive().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_carry_the_security_headers_and_cross_site_writes_are_refused() {
    let server = TestServer::start().await;
    let client = reqwest::Client::new();
    let base = &server.http.base;
    for path in ["/", "/api/games", "/api/nowhere"] {
        let resp = client.get(format!("{base}{path}")).send().await.unwrap();
        let h = resp.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
    }
    let host = base.trim_start_matches("http://");
    let post = |headers: Vec<(&'static str, String)>, body: &'static str| {
        let mut req = client.post(format!("{base}/api/games")).body(body);
        for (k, v) in headers {
            req = req.header(k, v);
        }
        async move {
            let resp = req.send().await.unwrap();
            let status = resp.status().as_u16();
            (status, resp.json::<Value>().await.unwrap())
        }
    };
    let json_type = ("content-type", "application/json".to_string());
    // Another site's page: refused, whatever the body.
    let (status, answer) = post(
        vec![("origin", "https://evil.example".into()), json_type.clone()],
        "{}",
    )
    .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (403, &json!("cross_origin"))
    );
    let (status, _) = post(
        vec![("sec-fetch-site", "cross-site".into()), json_type.clone()],
        "{}",
    )
    .await;
    assert_eq!(status, 403);
    // A form's body type (no preflight needed for it): refused.
    let (status, answer) = post(vec![("content-type", "text/plain".into())], "{}").await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (415, &json!("unsupported_media_type"))
    );
    // The page itself (same origin) and tools (no origin): served.
    let (status, _) = post(
        vec![("origin", format!("http://{host}")), json_type.clone()],
        "{}",
    )
    .await;
    assert_eq!(status, 201);
    let (status, _) = post(vec![json_type], "{}").await;
    assert_eq!(status, 201);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_socket_is_closed_after_the_idle_timeout_and_a_reading_one_is_kept() {
    let server = TestServer::start_with(|c| {
        c.limits.idle_timeout = Duration::from_secs(2);
    })
    .await;
    let id = server.http.create("allied").await["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    let url = server.http.ws_url(&id);
    let mut silent = Ws::open(&url, json!({"type": "spectate"})).await;
    let mut reading = Ws::open(&url, json!({"type": "spectate"})).await;
    silent.next_state().await;
    reading.next_state().await;
    // The reading client's library answers the server's pings while it waits for frames.
    let listen = tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(4), reading.read()).await;
        reading
    });
    tokio::time::sleep(Duration::from_secs(4)).await;
    // Closed: with 1001 "idle", or — when the client's late answer to a ping meets the
    // closed socket — without a code.
    match silent.read().await {
        Read::Closed(code) => assert!(matches!(code, Some(1001) | None), "{code:?}"),
        Read::Frame(f) => panic!("expected the close, got {f}"),
    }
    let mut reading = listen.await.unwrap();
    reading.assert_alive().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_reports_the_writer_and_metrics_count_what_happened() {
    let server = TestServer::start_with(|c| c.frame_rate = 1_000_000).await;
    let (_, mut allied, a, _chinese, _) = table(&server).await;
    allied.send(action_frame(&a, &a["legal_actions"][0])).await;
    allied.next_state().await;
    allied.send_text(r#"{"type":"nope"}"#).await;
    allied.expect_error("unknown_type").await;
    let (status, health) = server.http.get("/healthz").await;
    assert_eq!(status, 200, "{health}");
    assert_eq!(health["status"], "ok");
    assert_eq!(health["writer"]["last_write_ok"], true);
    assert!(health["writer"]["last_write_at"].is_string(), "{health}");
    assert!(health["writer"]["queue_depth"].is_u64(), "{health}");
    let text = reqwest::get(format!("{}/metrics", server.http.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let value = |series: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(series) && !l.starts_with('#'))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {series} in\n{text}"))
    };
    assert!(value("siege_actions_total") >= 1.0);
    assert!(value("siege_commit_seconds_count") >= 1.0);
    assert!(value("siege_refusals_total{code=\"unknown_type\"}") >= 1.0);
    assert!(value("siege_games_loaded") >= 1.0);
    assert!(value("siege_connections") >= 2.0);
    assert!(value("siege_websockets") >= 2.0);
    value("siege_writer_queue_depth");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_nobody_joined_expire_and_the_rest_stay() {
    let server = TestServer::start_with(|c| c.frame_rate = 1_000_000).await;
    let http = server.http.clone();
    let create = || async {
        let g = http.create("allied").await;
        (
            g["game_id"].as_str().unwrap().to_string(),
            g["token"].clone(),
        )
    };
    let (waiting, _) = create().await;
    let (joined, _) = create().await;
    http.join(&joined).await;
    // Open games with an action: one lately, one long ago. No side acts before both seats are
    // taken (R7), so such logs come only from before that ruling: both are written below.
    let (played_lately, _) = create().await;
    let (played_long_ago, _) = create().await;
    let dir = server.stop_keeping_data().await;

    // Fifteen days pass for every game; the one played long ago gets an action of 15 days
    // ago (its log's rows cannot be changed, only added).
    let pool = TestServer::raw_database(&dir).await;
    let days = 15 * 24 * 3600 * 1000_i64;
    sqlx::query("UPDATE games SET created_at = created_at - $1")
        .bind(days)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO actions (game_id, seq, side, action, events, state_hash, turn, phase, at) \
         SELECT id, 1, 'allied', '{\"type\":\"deploy_default\"}', '[]', 'x', 0, 'allied_setup', created_at \
         FROM games WHERE id = $1",
    )
    .bind(&played_long_ago)
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO actions (game_id, seq, side, action, events, state_hash, turn, phase, at) \
         SELECT id, 1, 'allied', '{\"type\":\"deploy_default\"}', '[]', 'x', 0, 'allied_setup', created_at + $1 \
         FROM games WHERE id = $2",
    )
    .bind(days)
    .bind(&played_lately)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    // A new server expires at start-up.
    let server = TestServer::start_in(dir, |c| c.frame_rate = 1_000_000).await;
    let http = server.http.clone();
    let mut gone = false;
    for _ in 0..50 {
        if http.get(&format!("/api/games/{waiting}")).await.0 == 404 {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone, "the game nobody joined for 15 days expired");
    assert_eq!(http.get(&format!("/api/games/{joined}")).await.0, 200);
    let dir = server.stop_keeping_data().await;
    let pool = TestServer::raw_database(&dir).await;
    let expired: Vec<(String,)> = sqlx::query_as("SELECT id FROM expired_games")
        .fetch_all(&pool)
        .await
        .unwrap();
    let (lately,): (i64,) = sqlx::query_as("SELECT count(*) FROM games WHERE id = $1")
        .bind(&played_lately)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(lately, 1, "a game played in lately stays");
    let mut expected = vec![(waiting.clone(),), (played_long_ago.clone(),)];
    expected.sort();
    let mut expired = expired;
    expired.sort();
    assert_eq!(expired, expected);
    let (left,): (i64,) = sqlx::query_as("SELECT count(*) FROM actions WHERE game_id = $1")
        .bind(&played_long_ago)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(left, 0, "an expired game goes with its log");
    // The log is still append-only for every game that was not expired.
    assert!(
        sqlx::query("DELETE FROM actions WHERE game_id = $1")
            .bind(&played_lately)
            .execute(&pool)
            .await
            .is_err()
    );
    pool.close().await;
    let _ = std::fs::remove_dir_all(dir);
}
