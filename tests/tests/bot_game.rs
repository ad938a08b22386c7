//! Playing the computer over the real protocol (docs/protocol.md, "Playing the computer"): a
//! whole game against a `normal` bot with the person's side played by the engine's random player
//! to its result, with no action of either side refused; a spectator watches; the log holds the
//! bot's actions like any other; and a bot whose decision it was when the server stopped acts
//! after a restart without anyone touching its game.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use siege::games::bots::BotConfig;
use siege_tests::TestServer;
use siege_tests::client::{Ws, action_frame, choose};
use std::time::Duration;

/// A server whose bots answer at once (no pace) and search briefly.
fn quick_bots(c: &mut siege::server::Config) {
    c.frame_rate = 100_000;
    c.bots = BotConfig {
        workers: 1,
        think: Duration::from_millis(20),
        pace: Duration::ZERO,
    };
}

/// Read frames until the next `state` or `patch`, bringing `current` up to date; any `error`
/// frame (a refused action) fails the test.
async fn next_position(ws: &mut Ws, current: &mut Value) {
    loop {
        let f = ws.recv().await;
        match f["type"].as_str() {
            Some("state") => {
                *current = f;
                return;
            }
            Some("patch") => {
                let ops = f["ops"].as_array().expect("ops");
                siege_protocol::patch::apply(current, ops).expect("the patch applies");
                return;
            }
            Some("events") => {}
            _ => panic!("no refusal or other frame expected, got {f}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_a_whole_game_against_the_normal_bot_with_no_refusal() {
    let server = TestServer::start_with(quick_bots).await;
    let http = &server.http;
    let (status, created) = http
        .post(
            "/api/games",
            json!({"side": "allied", "opponent": {"bot": "normal"}}).to_string(),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();

    // The bot's seat is taken and named, in the game and in the listing.
    let (_, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(info["status"], "active");
    assert_eq!(info["seats"], json!({"allied": true, "chinese": true}));
    assert_eq!(info["bots"], json!({"chinese": "normal"}));
    let (_, list) = http.get("/api/games").await;
    let listed = list
        .as_array()
        .and_then(|l| l.iter().find(|g| g["game_id"] == id.as_str()))
        .cloned()
        .expect("listed");
    assert_eq!(listed["bots"], json!({"chinese": "normal"}));
    // Nobody can join the computer's seat.
    let (status, _) = http
        .post(
            &format!("/api/games/{id}/join"),
            json!({"side": "chinese"}).to_string(),
        )
        .await;
    assert_eq!(status, 409);

    let url = http.ws_url(&id);
    let mut me = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut spectator = Ws::open(&url, json!({"type": "spectate"})).await;
    let mut state = Value::Null;
    next_position(&mut me, &mut state).await;
    assert_eq!(state["you"], "allied");

    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut sent_at: Option<u64> = None;
    let mut mine = 0u64;
    loop {
        let seq = state["seq"].as_u64().unwrap();
        match state["view"]["to_act"].as_str() {
            None => break,
            Some("allied") if sent_at != Some(seq) => {
                let action = choose(&mut rng, &state).expect("a legal action");
                me.send(action_frame(&state, &action)).await;
                sent_at = Some(seq);
                mine += 1;
            }
            _ => {}
        }
        next_position(&mut me, &mut state).await;
    }
    assert!(
        state["view"]["result"].is_object(),
        "the game ended with a result: {}",
        state["view"]
    );
    assert!(mine > 0, "the person acted");

    // The log holds both sides' actions, the bot's like a person's, and replays to the end.
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    let entries = log["entries"].as_array().expect("entries");
    assert_eq!(entries.len() as u64, state["seq"].as_u64().unwrap());
    let by_bot = entries.iter().filter(|e| e["side"] == "chinese").count();
    assert!(by_bot > 0, "the bot acted");
    eprintln!(
        "{} actions ({mine} by the random player, {by_bot} by the bot): {}",
        entries.len(),
        state["view"]["result"]
    );
    let (_, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(info["status"], "finished");

    // The spectator saw the same end.
    let mut watched = Value::Null;
    while watched["seq"] != state["seq"] {
        next_position(&mut spectator, &mut watched).await;
    }
    assert_eq!(watched["view"]["result"], state["view"]["result"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_whose_decision_it_was_acts_after_a_restart_untouched() {
    // The first server's bot waits an hour before acting: it has not moved when the server
    // stops (the shutdown does not wait for it).
    let server = TestServer::start_with(|c| {
        quick_bots(c);
        c.bots.pace = Duration::from_secs(3600);
    })
    .await;
    let (status, created) = server
        .http
        .post(
            "/api/games",
            json!({"side": "chinese", "opponent": {"bot": "easy"}}).to_string(),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();
    let (_, info) = server.http.get(&format!("/api/games/{id}")).await;
    assert_eq!(
        info["view"]["to_act"], "allied",
        "the Allied setup comes first"
    );
    assert_eq!(info["seq"], 0);
    let dir = server.stop_keeping_data().await;

    // The second server acts without the game being touched: the log (read from the store,
    // which loads no game) grows with Allied actions.
    let server = TestServer::start_in(dir, quick_bots).await;
    let mut entries = Vec::new();
    for _ in 0..600 {
        let (_, log) = server.http.get(&format!("/api/games/{id}/log")).await;
        entries = log["entries"].as_array().cloned().unwrap_or_default();
        if !entries.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!entries.is_empty(), "the bot resumed after the restart");
    assert!(entries.iter().all(|e| e["side"] == "allied"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_between_two_bots_is_watched_to_its_end_across_a_restart() {
    // The first server's bots wait an hour before acting: nothing moves before it stops.
    let server = TestServer::start_with(|c| {
        quick_bots(c);
        c.bots.pace = Duration::from_secs(3600);
    })
    .await;
    let http = &server.http;
    // `opponents` takes no `side` and no `opponent`: the creator has no seat.
    for bad in [
        json!({"side": "allied", "opponents": {"allied": "easy", "chinese": "easy"}}),
        json!({"opponent": {"bot": "easy"}, "opponents": {"allied": "easy", "chinese": "easy"}}),
        json!({"opponents": {"allied": "easy", "chinese": "brilliant"}}),
        json!({"opponents": {"allied": "easy"}}),
    ] {
        let (status, body) = http.post("/api/games", bad.to_string()).await;
        assert_eq!(status, 422, "{bad} refused: {body}");
    }
    let (_, list) = http.get("/api/games").await;
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(0),
        "nothing was created"
    );

    let (status, created) = http
        .post(
            "/api/games",
            json!({"name": "bots", "opponents": {"allied": "easy", "chinese": "easy"}}).to_string(),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert!(created.get("token").is_none(), "no seat for the creator");
    assert_eq!(
        created["bots"],
        json!({"allied": "easy", "chinese": "easy"})
    );
    let id = created["game_id"].as_str().unwrap().to_string();
    let (_, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(info["status"], "active");
    let (_, list) = http.get("/api/games").await;
    assert!(
        list.as_array()
            .is_some_and(|l| l.iter().any(|g| g["game_id"] == id.as_str())),
        "listed for watching: {list}"
    );
    assert_eq!(info["seats"], json!({"allied": true, "chinese": true}));
    assert_eq!(info["bots"], json!({"allied": "easy", "chinese": "easy"}));
    assert_eq!(info["seq"], 0);
    for side in ["allied", "chinese"] {
        let (status, _) = http
            .post(
                &format!("/api/games/{id}/join"),
                json!({ "side": side }).to_string(),
            )
            .await;
        assert_eq!(status, 409, "nobody sits in the computer's {side} seat");
    }
    let dir = server.stop_keeping_data().await;

    // After the restart both computers play with nobody touching the game; a spectator
    // follows every position to the result, and no action is refused (an `error` frame fails
    // `next_position`).
    let server = TestServer::start_in(dir, |c| {
        quick_bots(c);
        c.bots.pace = Duration::from_millis(2);
    })
    .await;
    let http = &server.http;
    let mut spectator = Ws::open(&http.ws_url(&id), json!({"type": "spectate"})).await;
    let mut state = Value::Null;
    next_position(&mut spectator, &mut state).await;
    assert_eq!(state["you"], "spectator");
    let mut positions = 1u64;
    while state["view"]["result"].is_null() {
        next_position(&mut spectator, &mut state).await;
        positions += 1;
    }
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    let entries = log["entries"].as_array().expect("entries");
    assert_eq!(entries.len() as u64, state["seq"].as_u64().unwrap());
    for side in ["allied", "chinese"] {
        assert!(
            entries.iter().any(|e| e["side"] == side),
            "the {side} computer acted"
        );
    }
    let (_, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(info["status"], "finished");
    eprintln!(
        "{} actions, {positions} positions watched: {}",
        entries.len(),
        state["view"]["result"]
    );
    server.stop().await;
}
