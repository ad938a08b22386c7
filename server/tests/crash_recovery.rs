//! Kill -9 loses nothing that was acknowledged: the real `siege` binary is killed mid-game
//! (with an action in flight), restarted on the same database, rebuilds the game from its log,
//! and the clients resume from the seq they had. Then a SIGTERM shuts it down gracefully,
//! closing the sockets with "going away". On SQLite, or on PostgreSQL with
//! `SIEGE_TEST_STORE=postgres` (docs/scaling.md).

#[path = "../../tests/src/client.rs"]
mod client;

use client::{Http, Read, Table, Ws, temp_dir};
use serde_json::json;
use siege::store::scratch::Kind;
use tokio::process::Child;

/// Actions played before the kill.
const BEFORE_KILL: u64 = 120;
/// Actions played after the restart.
const AFTER_RESTART: u64 = 40;

/// Start `siege serve` on port 0 on `db`.
async fn spawn_server(db: &str) -> (Child, Http) {
    let (child, base) = client::spawn_siege(env!("CARGO_BIN_EXE_siege"), db, &[]).await;
    (child, Http::new(&base))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_loses_no_acknowledged_action_and_clients_resume() {
    let dir = temp_dir("crash");
    // SQLite unless SIEGE_TEST_STORE=postgres (a fresh database on the test cluster).
    let db = match Kind::from_env() {
        Kind::Sqlite => format!("sqlite://{}", dir.join("siege.db").display()),
        Kind::Postgres => siege::store::scratch::postgres_database().await,
    };
    let (mut first, http) = spawn_server(&db).await;
    // A random game may end early (rarely): then sit down at a new one.
    let mut tries = 0;
    let (mut table, id, a_token, c_token) = loop {
        let (mut table, id, a_token, c_token) = Table::sit_down(&http, tries).await;
        table.play(BEFORE_KILL).await;
        if table.seq() == BEFORE_KILL && !table.over() {
            break (table, id, a_token, c_token);
        }
        tries += 1;
        assert!(
            tries < 10,
            "ten random games in a row ended within {BEFORE_KILL} actions"
        );
    };
    let acknowledged = table.seq();

    // One more action in flight, and the server is killed without a chance to clean up.
    table.send_next().await.expect("the game goes on");
    first.start_kill().expect("SIGKILL");
    first.wait().await.expect("the killed server is reaped");

    let (mut second, http) = spawn_server(&db).await;
    let (status, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200);
    let seq = info["seq"].as_u64().unwrap();
    assert!(
        seq == acknowledged || seq == acknowledged + 1,
        "the restarted game is at {seq}; {acknowledged} were acknowledged"
    );
    let (_, log) = http.get(&format!("/api/games/{id}/log")).await;
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len() as u64, seq);
    for e in entries {
        let n = e["seq"].as_u64().unwrap();
        assert_eq!(
            e["action"],
            client::as_logged(&table.sent[&n]),
            "entry {n} is the action sent"
        );
    }

    // The clients resume from what they had: the missed events, then the current state.
    let url = http.ws_url(&id);
    let mut allied = Ws::open(
        &url,
        json!({"type": "resume", "token": a_token, "seq": acknowledged}),
    )
    .await;
    let (missed, a_state) = allied.next_state().await;
    assert_eq!(a_state["seq"], seq);
    assert_eq!(a_state["you"], "allied");
    assert_eq!(missed.len() as u64, seq - acknowledged);
    let mut chinese = Ws::open(
        &url,
        json!({"type": "resume", "token": c_token, "seq": acknowledged}),
    )
    .await;
    let (_, c_state) = chinese.next_state().await;
    assert_eq!(c_state["you"], "chinese");
    let from = acknowledged - 10;
    let mut spectator = Ws::open(&url, json!({"type": "resume", "seq": from})).await;
    let (replayed, s_state) = spectator.next_state().await;
    assert_eq!(s_state["you"], "spectator");
    assert_eq!(replayed.len() as u64, seq - from);
    for e in &replayed {
        let n = e["seq"].as_u64().unwrap();
        if let Some(seen) = table.events.get(&n) {
            assert_eq!(
                e, seen,
                "the resumed events of {n} are those broadcast before"
            );
        }
    }

    // The game goes on where it stopped.
    table.allied = allied;
    table.chinese = chinese;
    table.spectator = spectator;
    table.a_state = a_state;
    table.c_state = c_state;
    table.play(AFTER_RESTART).await;
    assert!(
        table.seq() > seq || table.over(),
        "the game went on after the restart"
    );

    // SIGTERM: a graceful stop closes every socket with 1001 "going away" and exits cleanly.
    let pid = second.id().expect("pid").to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill -TERM");
    assert!(killed.success());
    for ws in [&mut table.allied, &mut table.chinese, &mut table.spectator] {
        match ws.read().await {
            Read::Closed(code) => assert_eq!(code, Some(1001)),
            Read::Frame(f) => panic!("expected a close, got {f}"),
        }
    }
    let status = second.wait().await.expect("the server exits");
    assert!(status.success(), "graceful shutdown exits 0: {status}");

    // The database, audited offline, replays to the last state everyone saw.
    client::replay_stored(env!("CARGO_BIN_EXE_siege"), &id, &db, table.seq());
    let _ = std::fs::remove_dir_all(&dir);
}
