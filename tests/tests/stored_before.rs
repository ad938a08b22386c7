//! Games stored before the state hash had versions still load and verify: a database written by
//! the server as it was then (`tests/fixtures/v1-games.db`: a finished game, a finished custom
//! start, and two unfinished games of 450 and 40 actions, with their players' tokens in
//! `v1-games.json`) is migrated, each game is loaded on first touch with its version-1 hashes
//! checked, the finished logs pass a full audit, play continues under version 1, and the
//! background audit finds every log sound.
//!
//! The fixture is recorded by `tests/fixtures/make-v1.sh` (the server of then, built with today's
//! rules, played by the ignored `record_v1.rs`); re-record it when a rules correction makes its
//! logs no longer replay.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use siege::replay::{self, Replayer};
use siege::rules::{HashVersion, Scenario};
use siege_protocol::GameLog;
use siege_tests::TestServer;
use siege_tests::client::{Ws, action_frame, choose, temp_dir};
use std::sync::Arc;
use std::time::Duration;

/// A copy of the fixture database in a fresh folder, and the fixture's games.
fn fixture() -> (std::path::PathBuf, Vec<Value>) {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let dir = temp_dir("v1");
    std::fs::copy(here.join("v1-games.db"), dir.join("siege.db")).expect("fixture copied");
    let games = std::fs::read_to_string(here.join("v1-games.json")).expect("fixture games");
    (dir, serde_json::from_str(&games).expect("fixture JSON"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_stored_before_hash_versions_load_verify_and_play_on() {
    let (dir, games) = fixture();
    let server = TestServer::start_in(dir, |c| {
        c.frame_rate = 100_000;
        c.audit = Some(siege::audit::AuditConfig {
            pause: Duration::ZERO,
            rest: Duration::from_millis(50),
        });
    })
    .await;
    let http = &server.http;
    assert_eq!(
        server.games.loaded_count(),
        0,
        "nothing is loaded at start-up"
    );
    let (status, listed) = http.get("/api/games?limit=10").await;
    assert_eq!(status, 200);
    assert_eq!(listed.as_array().unwrap().len(), games.len());
    assert_eq!(server.games.loaded_count(), 0, "listing loads nothing");

    let scn = Arc::new(Scenario::load_default().unwrap());
    let mut compared = 0;
    for g in &games {
        let id = g["game_id"].as_str().unwrap();
        let (status, info) = http.get(&format!("/api/games/{id}")).await;
        assert_eq!(status, 200, "{info}");
        assert_eq!(info["seq"], g["seq"], "game {id} loaded to its last entry");
        let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
        assert_eq!(log["hash_version"], 1, "stored games keep version 1");
        let finished_log = (g["finished"] == true).then(|| {
            let log: GameLog = serde_json::from_value(log).unwrap();
            let audit = replay::audit(scn.clone(), &log).expect("the old log audits");
            assert_eq!(audit.entries, g["seq"].as_u64().unwrap());
            log
        });
        // A state in the middle, replayed from the seed (no snapshot existed then): for a
        // finished game, the state its published log gives after as many actions.
        let mid = g["seq"].as_u64().unwrap() / 2;
        let (status, view) = http.get(&format!("/api/games/{id}/state?at={mid}")).await;
        assert_eq!(status, 200, "{view}");
        if let Some(log) = &finished_log {
            let seed = replay::parse_seed(log.seed.as_deref().unwrap()).unwrap();
            let mut replayer = Replayer::from_start(
                scn.clone(),
                seed,
                log.position.as_ref(),
                true,
                HashVersion::Json,
            )
            .expect("the old log's start");
            for entry in &log.entries[..mid as usize] {
                replayer.step(entry).expect("the old log replays");
            }
            let expected = serde_json::to_value(replayer.game().view()).unwrap();
            assert_eq!(view, expected, "game {id}: the state after {mid} actions");
            compared += 1;
        }
        // And the state at its last entry is the one the loaded game shows.
        let (status, last) = http
            .get(&format!("/api/games/{id}/state?at={}", g["seq"]))
            .await;
        assert_eq!(status, 200, "{last}");
        assert_eq!(last, info["view"], "game {id}: the state at its last entry");
    }
    assert!(compared > 0, "the fixture holds a finished game to compare");

    // Play on in the unfinished game of 450 actions: new entries are hashed with version 1.
    let g = games
        .iter()
        .find(|g| g["seq"] == 450)
        .expect("the mid-game");
    let id = g["game_id"].as_str().unwrap();
    let url = http.ws_url(id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": g["allied_token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": g["chinese_token"]})).await;
    let (_, mut a) = allied.next_state().await;
    let (_, mut c) = chinese.next_state().await;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..60 {
        let (ws, state) = match a["view"]["to_act"].as_str() {
            Some("allied") => (&mut allied, &a),
            Some("chinese") => (&mut chinese, &c),
            _ => break,
        };
        let action = choose(&mut rng, state).unwrap();
        ws.send(action_frame(state, &action)).await;
        a = allied.next_state().await.1;
        c = chinese.next_state().await.1;
    }
    let seq = a["seq"].as_u64().unwrap();
    assert!(seq > 450);
    drop((allied, chinese));

    // The background audit replays every log from its seed and finds each sound, the game
    // played on included.
    let db = TestServer::database_url(&server.dir);
    let pool = sqlx::SqlitePool::connect(&db).await.unwrap();
    let expected = games.len() as i64;
    let mut waited = 0;
    loop {
        let (sound, broken): (i64, i64) = sqlx::query_as(
            "SELECT count(*) FILTER (WHERE audit_error IS NULL AND audited_seq = \
               (SELECT max(seq) FROM actions a WHERE a.game_id = g.id)), \
             count(*) FILTER (WHERE audit_error IS NOT NULL) FROM games g",
        )
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!(broken, 0, "the audit found an old log unsound");
        if sound == expected {
            break;
        }
        waited += 1;
        assert!(
            waited < 1200,
            "the audit never finished ({sound} of {expected})"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    pool.close().await;

    // And after a restart the game loads again, to the same seq.
    let dir = server.stop_keeping_data().await;
    let server = TestServer::start_in(dir, |_| {}).await;
    let (status, info) = server.http.get(&format!("/api/games/{id}")).await;
    assert_eq!((status, info["seq"].as_u64()), (200, Some(seq)));
    server.stop().await;
}
