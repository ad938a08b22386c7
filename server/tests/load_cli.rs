//! `siege load` against a real `siege serve` on port 0: a short run with a few tables, their
//! spectators, the bare and durable echoes, the fan-out floor and the raw-SQLite baseline
//! completes with zero errors and prints a summary and one JSON line; `--seed-games` leaves unfinished games behind. No timing is
//! asserted — only that the figures are there and the run was clean.

#[path = "../../tests/src/client.rs"]
mod client;

use serde_json::Value;
use tokio::process::{Child, Command};

/// Start `siege serve --bench-routes` on port 0 on `db`, without the per-client limits (the
/// load comes from one address).
async fn spawn_server(db: &str) -> (Child, String) {
    let mut flags = vec!["--bench-routes"];
    flags.extend(client::NO_CLIENT_LIMITS);
    client::spawn_siege(env!("CARGO_BIN_EXE_siege"), db, &flags).await
}

/// Run `siege load` with `args`; returns the exit status, the whole output and the JSON line.
async fn load(base: &str, args: &[&str]) -> (bool, String, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_siege"))
        .args(["load", "--url", base])
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .await
        .expect("siege load runs");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let json = text
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no JSON line in {text}"));
    (out.status.success(), text, json)
}

#[tokio::test]
async fn a_short_load_run_is_clean_and_reports_every_figure() {
    let dir = std::env::temp_dir().join(format!("siege-load-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let db = format!("sqlite://{}", dir.join("siege.db").display());
    let (mut server, base) = spawn_server(&db).await;

    let (ok, text, report) = load(
        &base,
        &[
            "--games",
            "3",
            "--spectators",
            "2",
            "--think-ms",
            "5",
            "--duration",
            "2",
            "--sqlite-rows",
            "20",
            "--sqlite-dir",
            dir.to_str().expect("utf-8 path"),
            "--fanout-floor-sockets",
            "4",
            "--fanout-floor-interval-ms",
            "200",
        ],
    )
    .await;
    assert!(ok, "siege load failed:\n{text}");
    assert_eq!(report["errors"], 0, "{text}");
    assert_eq!(report["mode"], "play");
    assert!(report["actions"].as_u64().is_some_and(|n| n > 0), "{text}");
    assert_eq!(
        report["rtt_ms"]["count"], report["actions"],
        "one round trip per action"
    );
    assert!(report["fanout_ms"]["count"].as_u64().is_some_and(|n| n > 0));
    assert_eq!(report["fanout_unmatched"], 0);
    let started = report["games_started"].as_u64().expect("games_started");
    let finished = report["games_finished"].as_u64().expect("games_finished");
    assert!(started >= 3 && finished <= started, "{text}");
    // The server's own account of the window (GET /bench/stages) came back and adds up.
    let stages = &report["server_stages"];
    let commits = stages["commits"].as_u64().expect("server_stages.commits");
    assert!(commits > 0, "{text}");
    assert_eq!(stages["apply_ms"]["count"], report["actions"], "{text}");
    let mean = stages["mean_batch"].as_f64().expect("mean_batch");
    assert!(mean >= 1.0 && mean <= stages["max_batch"].as_f64().expect("max_batch"));
    assert!(report["echo_ms"]["count"].as_u64().is_some_and(|n| n > 0));
    assert!(report["rtt_p50_over_echo_p50"].is_number());
    // The durable echo (GET /bench/durable-echo) beside it, and set beside probe + echo.
    assert!(
        report["durable_echo_ms"]["count"]
            .as_u64()
            .is_some_and(|n| n > 0),
        "{text}"
    );
    assert!(
        report["rtt_p50_over_durable_echo_p50"].is_number(),
        "{text}"
    );
    assert!(
        report["durable_echo_p50_over_probe_plus_echo_p50"].is_number(),
        "{text}"
    );
    // The fan-out floor (GET /bench/fanout): each update the sender had back reached the
    // three other sockets once (in two frames), the warm-up untimed.
    let updates = report["fanout_floor_updates"]
        .as_u64()
        .expect("fanout_floor_updates");
    assert!(updates >= 5, "{text}");
    assert_eq!(report["fanout_floor_ms"]["count"], updates * 3, "{text}");
    assert_eq!(report["fanout_floor_unmatched"], 0, "{text}");
    assert_eq!(report["fanout_floor_missing"], 0, "{text}");
    assert!(report["sqlite"]["single_row_tx_per_s"].is_number());
    assert!(
        report["server_pid"].is_number(),
        "found the server by its port"
    );
    assert!(report["rss_kib"]["loaded"].is_number());
    // Players follow patches (as the page does); spectators here take full states. Every
    // frame's size is counted by type, and the server's CPU per action is reported.
    let players = &report["player_frame_bytes"];
    assert!(
        players["patch"]["count"].as_u64().is_some_and(|n| n > 0),
        "{text}"
    );
    assert!(
        players["events"]["p50"].as_u64().is_some_and(|n| n > 0),
        "{text}"
    );
    assert!(
        players["state_or_patch"]["count"].as_u64() >= players["patch"]["count"].as_u64(),
        "{text}"
    );
    let spectators = &report["spectator_frame_bytes"];
    assert!(
        spectators["state"]["count"].as_u64().is_some_and(|n| n > 0),
        "{text}"
    );
    assert!(
        spectators["patch"].is_null(),
        "spectators did not ask for patches: {text}"
    );
    assert!(report["server_cpu_ms_per_action"].is_number(), "{text}");
    // The server's CPU by thread: its runtime's workers ran the games, SQLite's thread the
    // commits (their names, tokio's and sqlx's, are what the split goes by).
    let threads = &report["cpu_s"]["server_threads"];
    assert!(
        threads["workers"].as_f64().is_some_and(|s| s > 0.0),
        "{text}"
    );
    assert!(threads["sqlite"].is_number(), "{text}");
    for line in [
        "server threads:",
        "round trip",
        "bare echo",
        "durable echo",
        "SQLite probe + bare echo",
        "fan-out",
        "fan-out floor",
        "errors       0",
        "player    patch",
    ] {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }

    let (ok, text, report) = load(
        &base,
        &[
            "--games",
            "2",
            "--seed-games",
            "4",
            "--seed-actions",
            "12",
            "--sqlite-rows",
            "0",
        ],
    )
    .await;
    assert!(ok, "seeding failed:\n{text}");
    assert_eq!(report["mode"], "seed");
    assert_eq!(report["games_started"], 4);
    assert_eq!(report["errors"], 0, "{text}");
    let listed = reqwest::get(format!("{base}/api/games?status=active&limit=1000"))
        .await
        .expect("list")
        .json::<Vec<Value>>()
        .await
        .expect("JSON");
    let seeded = listed
        .iter()
        .filter(|g| g["name"].as_str().is_some_and(|n| n.starts_with("seeded ")))
        .count();
    assert_eq!(seeded, 4, "four unfinished seeded games");

    server.kill().await.expect("kill the server");
    let _ = std::fs::remove_dir_all(dir);
}

/// Flags that could not measure what they ask are refused before anything runs, naming the
/// flag: a fan-out floor with a sender and no reader, or with frames the server could not
/// take, or asked beside a run that does not play; seeding and touching games at once.
#[tokio::test]
async fn load_flags_that_cannot_measure_are_refused() {
    for (args, flag) in [
        (
            &["--fanout-floor-sockets", "1"][..],
            "--fanout-floor-sockets 1",
        ),
        (
            &[
                "--fanout-floor-sockets",
                "3",
                "--fanout-floor-bytes",
                "4000000",
            ][..],
            "--fanout-floor-bytes 4000000",
        ),
        // The floor is measured beside a play: not while seeding or touching games.
        (
            &["--fanout-floor-sockets", "3", "--seed-games", "1"][..],
            "--seed-games",
        ),
        (
            &["--fanout-floor-sockets", "3", "--touch-games", "1"][..],
            "--touch-games",
        ),
        (
            &["--seed-games", "1", "--touch-games", "1"][..],
            "--touch-games",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_siege"))
            .args(["load", "--url", "http://127.0.0.1:9", "--games", "0"])
            .args(args)
            .output()
            .await
            .expect("siege load runs");
        assert!(!out.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}
