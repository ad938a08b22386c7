//! `siege replay --log FILE`: anyone holding a published log can audit it. An honest log
//! passes and prints the result; a changed state hash, a different seed or a changed roll
//! makes the command fail.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use siege::replay::seed_commitment;
use siege::rules::{Game, HashVersion, Scenario};
use siege_protocol::{GameLog, LogEntry};
use std::path::Path;
use std::process::Output;

/// A log of `actions` random actions, as `GET /api/games/{id}/log` publishes it.
fn published_log(actions: u64) -> GameLog {
    let scn = Scenario::shipped().unwrap();
    let seed = [42u8; 32];
    let mut game = Game::new(scn, seed);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut entries = Vec::new();
    for seq in 1..=actions {
        let Some(side) = game.to_act() else { break };
        let legal = game.legal_actions(side);
        let action = siege::rules::random::choose(&mut rng, game.state().phase(), &legal)
            .unwrap()
            .clone();
        let events = game.apply(side, &action).unwrap();
        entries.push(LogEntry {
            seq,
            side,
            action: serde_json::to_value(&action).unwrap(),
            events: serde_json::from_value(serde_json::to_value(&events).unwrap()).unwrap(),
            state_hash: hex::encode(game.state_hash_v(HashVersion::LATEST)),
            at: "2024-01-01T00:00:00.000Z".into(),
        });
    }
    GameLog {
        game_id: "audit-test".into(),
        seed_commitment: seed_commitment(&seed),
        seed: Some(hex::encode(seed)),
        position: None,
        hash_version: HashVersion::LATEST.number(),
        entries,
    }
}

fn replay(dir: &Path, name: &str, log: &GameLog) -> Output {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(log).unwrap()).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_siege"))
        .arg("replay")
        .arg("--log")
        .arg(&path)
        .output()
        .expect("siege replay runs")
}

#[test]
fn an_honest_log_audits_and_a_tampered_one_fails() {
    let dir = std::env::temp_dir().join(format!("siege-replay-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = published_log(150);
    let n = log.entries.len();
    assert!(n > 100, "the sample game lasted {n} actions");

    let out = replay(&dir, "honest.json", &log);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("{n} actions replayed")),
        "{stdout}"
    );
    assert!(stdout.contains("seed matches its commitment"), "{stdout}");

    let mut bad_hash = log.clone();
    bad_hash.entries[99].state_hash = "ab".repeat(32);
    let out = replay(&dir, "bad_hash.json", &bad_hash);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("entry 100"));

    let mut other_seed = log.clone();
    other_seed.seed = Some(hex::encode([41u8; 32]));
    assert!(
        !replay(&dir, "other_seed.json", &other_seed)
            .status
            .success()
    );

    // A roll reported differently from what the dice gave is caught too.
    let mut bad_roll = log.clone();
    let entry = bad_roll
        .entries
        .iter_mut()
        .find(|e| !e.events.is_empty())
        .expect("some action had events");
    entry.events[0]["text"] = Value::String("rolled a 7".into());
    assert!(!replay(&dir, "bad_roll.json", &bad_roll).status.success());

    let mut unpublished = log;
    unpublished.seed = None;
    assert!(!replay(&dir, "no_seed.json", &unpublished).status.success());
    let _ = std::fs::remove_dir_all(&dir);
}
