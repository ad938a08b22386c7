//! Games load when first touched and from their snapshots: nothing is loaded at start-up, two
//! first touches of a cold game start one task, an idle game unloads and loads again, a cold
//! game loads with the hashes after its snapshot checked (a tampered entry there is refused as
//! `corrupt_log`), the background audit catches what a snapshot hides (and its checkpoints never
//! take an undo offer away), and the state after every N of a finished game served from the
//! nearest snapshot is the state a replay from the seed gives.

use serde_json::json;
use siege::replay::Replayer;
use siege::rules::{HashVersion, Scenario};
use siege_protocol::GameLog;
use siege_tests::TestServer;
use siege_tests::client::{Ws, play_random};
use std::sync::Arc;
use std::time::Duration;

/// Snapshots this often, so that short test games have several.
const EVERY: u64 = 25;

/// Snapshots as often as the game allows (only where nothing can be taken back), for the test of
/// every N: the dice are the server's, so a game may end after a few hundred actions, and it
/// must still hold snapshots at many points.
const DENSE: u64 = 5;

fn small_snapshots(c: &mut siege::server::Config) {
    c.frame_rate = 1_000_000;
    c.snapshot_every = EVERY;
    c.audit = None;
}

/// Run SQL on a stopped server's database (the append-only triggers dropped first).
async fn tamper(dir: &std::path::Path, sql: &[&str], id: &str) {
    let pool = TestServer::raw_database(dir).await;
    for s in sql {
        // The statements are the tests' own, with the game id bound where they take it.
        let query = sqlx::query(sqlx::AssertSqlSafe(s.to_string()));
        let query = if s.contains("$1") {
            query.bind(id)
        } else {
            query
        };
        query.execute(&pool).await.unwrap();
    }
    pool.close().await;
}

/// The seqs of a game's stored snapshots.
async fn snapshot_seqs(dir: &std::path::Path, id: &str) -> Vec<i64> {
    let pool = TestServer::raw_database(dir).await;
    let rows: Vec<(i64,)> =
        sqlx::query_as("SELECT seq FROM snapshots WHERE game_id = $1 ORDER BY seq")
            .bind(id)
            .fetch_all(&pool)
            .await
            .unwrap();
    pool.close().await;
    rows.into_iter().map(|(s,)| s).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_load_on_first_touch_once_and_unload_when_idle() {
    let server = TestServer::start_with(|c| {
        small_snapshots(c);
        c.idle_unload = Duration::from_millis(300);
    })
    .await;
    let (id, last) = play_random(&server.http, 60, 1).await;
    let dir = server.stop_keeping_data().await;

    let server = TestServer::start_in(dir, |c| {
        small_snapshots(c);
        c.idle_unload = Duration::from_millis(300);
    })
    .await;
    assert_eq!(server.games.loaded_count(), 0, "start-up loads no game");
    let (status, _) = server.http.get("/api/games").await;
    assert_eq!(status, 200);
    assert_eq!(
        server.games.loaded_count(),
        0,
        "the listing comes from the store"
    );

    // Many first touches at once, over HTTP and sockets: one task.
    let url = server.http.ws_url(&id);
    let mut touches = Vec::new();
    for i in 0..24 {
        let (http, id, url) = (server.http.clone(), id.clone(), url.clone());
        touches.push(tokio::spawn(async move {
            if i % 2 == 0 {
                let (status, info) = http.get(&format!("/api/games/{id}")).await;
                assert_eq!(status, 200, "{info}");
                (info["seq"].clone(), None)
            } else {
                let mut ws = Ws::open(&url, json!({"type": "spectate"})).await;
                let seq = ws.next_state().await.1["seq"].clone();
                (seq, Some(ws))
            }
        }));
    }
    // The spectators stay connected until the count is read: with nobody connected the game
    // may unload after the short idle spell, before a slow machine reaches the assertion.
    let mut watching = Vec::new();
    for t in touches {
        let (seq, ws) = t.await.unwrap();
        assert_eq!(seq, last["seq"]);
        watching.extend(ws);
    }
    assert_eq!(server.games.loaded_count(), 1, "one task for the game");
    drop(watching);

    // With nobody connected it unloads, and the next touch loads it again.
    let mut waited = 0;
    while server.games.loaded_count() > 0 {
        waited += 1;
        assert!(waited < 600, "the idle game never unloaded");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, info) = server.http.get(&format!("/api/games/{id}")).await;
    assert_eq!((status, &info["seq"]), (200, &last["seq"]));
    assert_eq!(
        info["view"], last["view"],
        "the reloaded game is the same game"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_game_loads_from_its_snapshot_with_the_tail_hashes_checked() {
    let server = TestServer::start_with(small_snapshots).await;
    // Long enough to pass the setup: no snapshot is taken while a decision can still be taken
    // back (undo), and the hand-made setup can be, all of it.
    let first = play_random(&server.http, 300, 2).await;
    let second = play_random(&server.http, 300, 3).await;
    let dir = server.stop_keeping_data().await;
    // The game to tamper with needs a tail after its last snapshot; the dice are the server's,
    // so the 300th action may itself have been snapshotted (about one game in a hundred): then
    // the other game takes that part.
    let tail_of = |snaps: &[i64], state: &serde_json::Value| {
        let last = *snaps.last().expect("snapshots were stored");
        (last < state["seq"].as_i64().unwrap()).then_some(last)
    };
    let first_snaps = snapshot_seqs(&dir, &first.0).await;
    let second_snaps = snapshot_seqs(&dir, &second.0).await;
    let ((tampered, _), (intact, intact_state), last_snapshot) =
        match tail_of(&second_snaps, &second.1) {
            Some(last) => (second, first, last),
            None => {
                let last = tail_of(&first_snaps, &first.1)
                    .expect("one of the two games has a tail after its last snapshot");
                (first, second, last)
            }
        };
    // An entry after the last snapshot, changed behind the server's back.
    let edit = format!(
        "UPDATE actions SET state_hash = '00' WHERE seq = {} AND game_id = $1",
        last_snapshot + 1
    );
    tamper(&dir, &[TestServer::drop_update_trigger(), &edit], &tampered).await;
    // And an entry of the other game long before its last snapshot: a load that replayed from
    // the seed would stop there, one from the snapshot never reads it (the audit, off here,
    // is what finds it — see below).
    let early = "UPDATE actions SET state_hash = '00' WHERE seq = 5 AND game_id = $1";
    tamper(&dir, &[early], &intact).await;

    let server = TestServer::start_in(dir, small_snapshots).await;
    let (status, info) = server.http.get(&format!("/api/games/{intact}")).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(
        info["view"], intact_state["view"],
        "loaded from its snapshot, the same game"
    );
    let (status, body) = server.http.get(&format!("/api/games/{tampered}")).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (500, &json!("corrupt_log"))
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_finds_what_a_snapshot_hides_and_holds_the_game() {
    let server = TestServer::start_with(small_snapshots).await;
    let (id, _) = play_random(&server.http, 120, 4).await;
    let dir = server.stop_keeping_data().await;
    // An entry before the last snapshot: loading replays only after the snapshot, so only the
    // audit, replaying from the seed, can see it.
    tamper(
        &dir,
        &[
            TestServer::drop_update_trigger(),
            "UPDATE actions SET state_hash = '00' WHERE seq = 5 AND game_id = $1",
        ],
        &id,
    )
    .await;
    let server = TestServer::start_in(dir.clone(), |c| {
        small_snapshots(c);
        c.audit = Some(siege::audit::AuditConfig {
            pause: Duration::ZERO,
            rest: Duration::from_millis(50),
        });
    })
    .await;
    let mut waited = 0;
    loop {
        let (status, body) = server.http.get(&format!("/api/games/{id}")).await;
        if status == 500 {
            assert_eq!(body["error"]["code"], "corrupt_log");
            assert!(body["error"]["message"].is_string());
            break;
        }
        assert_eq!(status, 200, "{body}");
        waited += 1;
        assert!(waited < 1200, "the audit never held the game");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let dir = server.stop_keeping_data().await;
    // The mark is stored: a restarted server holds the game at once.
    let server = TestServer::start_in(dir, small_snapshots).await;
    let (status, body) = server.http.get(&format!("/api/games/{id}")).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (500, &json!("corrupt_log"))
    );
    server.stop().await;
}

/// The audit stores a checkpoint for its next pass, and a game loads from its latest snapshot
/// with no undo history: a checkpoint taken while a decision could still be taken back would
/// lose the offer on the next load. The audit checks a game whose last decisions are
/// undoable (setup placements, no die yet); after a restart the same decision is on offer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_checkpoint_never_takes_an_undo_offer_away_after_a_restart() {
    let server = TestServer::start_with(|c| {
        c.frame_rate = 1_000_000;
        c.audit = Some(siege::audit::AuditConfig {
            pause: Duration::ZERO,
            rest: Duration::from_millis(50),
        });
    })
    .await;
    let (id, last) = play_random(&server.http, 12, 7).await;
    let offered = last["view"]["undo"].clone();
    assert!(offered.is_object(), "the test needs an undo offer: {last}");
    let seq = last["seq"].as_i64().unwrap();
    // Wait for the audit to have checked the whole log.
    let pool = TestServer::raw_database(&server.dir).await;
    let mut waited = 0;
    loop {
        let (audited,): (i64,) = sqlx::query_as("SELECT audited_seq FROM games WHERE id = $1")
            .bind(&id)
            .fetch_one(&pool)
            .await
            .unwrap();
        if audited == seq {
            break;
        }
        waited += 1;
        assert!(waited < 600, "the audit never reached the end of the log");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    pool.close().await;
    let dir = server.stop_keeping_data().await;
    let server = TestServer::start_in(dir, small_snapshots).await;
    let (status, info) = server.http.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["seq"], last["seq"]);
    assert_eq!(
        info["view"]["undo"], offered,
        "the same decision is on offer"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_after_every_n_from_snapshots_is_the_replayed_state() {
    let server = TestServer::start_with(|c| {
        small_snapshots(c);
        c.snapshot_every = DENSE;
    })
    .await;
    let (id, last) = play_random(&server.http, 100_000, 5).await;
    assert!(last["view"]["to_act"].is_null(), "the game finished");
    let (_, log) = server.http.get(&format!("/api/games/{id}/log")).await;
    let log: GameLog = serde_json::from_value(log).unwrap();
    assert_eq!(log.hash_version, 2, "new games hash with version 2");
    let dir = server.dir.clone();
    let snaps = snapshot_seqs(&dir, &id).await;
    // The shortest games seen (~400 actions, the dice being the server's) hold 8; the answers
    // below then start from several different snapshots, not only from the start.
    assert!(snaps.len() >= 4, "{} snapshots", snaps.len());

    // Every state, replayed here from the seed.
    let scn = Arc::new(Scenario::load_default().unwrap());
    let seed = siege::replay::parse_seed(log.seed.as_deref().unwrap()).unwrap();
    let mut replayer = Replayer::new(scn, seed, true, HashVersion::Compact);
    let mut views = vec![serde_json::to_value(replayer.game().view()).unwrap()];
    for entry in &log.entries {
        replayer.step(entry).expect("the published log audits");
        views.push(serde_json::to_value(replayer.game().view()).unwrap());
    }
    // Asked from the last N down, so that no cached position helps: each answer starts from
    // the nearest stored snapshot at or before N.
    for n in (0..views.len()).rev() {
        let (status, view) = server
            .http
            .get(&format!("/api/games/{id}/state?at={n}"))
            .await;
        assert_eq!(status, 200);
        assert_eq!(view, views[n], "the state after {n} actions");
    }

    // That they came from the snapshots: with the hash of the first entry changed behind the
    // server's back, a state at or after a later snapshot is still answered (its replay starts
    // there and never reads that entry), and one before it is refused — a server that replayed
    // from the seed would refuse them all, one that checked no hash would refuse none.
    let dir = server.stop_keeping_data().await;
    let edit = "UPDATE actions SET state_hash = '00' WHERE seq = 1 AND game_id = $1";
    tamper(&dir, &[TestServer::drop_update_trigger(), edit], &id).await;
    let after = *snaps
        .iter()
        .find(|&&s| s > 1)
        .expect("a snapshot after seq 1") as usize;
    let server = TestServer::start_in(dir, small_snapshots).await;
    for n in [after, after + 1, views.len() - 1] {
        let (status, view) = server
            .http
            .get(&format!("/api/games/{id}/state?at={n}"))
            .await;
        assert_eq!(status, 200, "{view}");
        assert_eq!(
            view, views[n],
            "the state after {n} actions, from a snapshot"
        );
    }
    for n in [1, after - 1] {
        let (status, body) = server
            .http
            .get(&format!("/api/games/{id}/state?at={n}"))
            .await;
        assert_eq!(
            (status, &body["error"]["code"]),
            (500, &json!("corrupt_log")),
            "the state after {n} actions replays the tampered entry"
        );
    }
    server.stop().await;
}
