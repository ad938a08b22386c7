//! Golden replays: a stored action list from a fixed seed must give exactly the stored state
//! hashes and result. Guards determinism (same seed + same actions ⇒ same states, byte for
//! byte) and flags any change in the rules' outcome. Regenerate deliberately with
//! `SIEGE_BLESS=1 cargo test -p siege-rules --test golden` after a rules change, and say why in the
//! commit message.

use serde::{Deserialize, Serialize};
use siege_protocol::Side;
use siege_rules::random::Bot;
use siege_rules::{Action, Game, Scenario};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Serialize, Deserialize)]
struct Golden {
    seed: String,
    actions: Vec<(Side, Action)>,
    /// State hash after every 500th action, and after the last.
    checkpoints: Vec<(usize, String)>,
    winner: Side,
    reason: String,
}

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn scenario() -> Arc<Scenario> {
    Scenario::shipped().expect("the shipped scenario loads")
}

fn record(seed: [u8; 32], bot_seed: u64) -> Golden {
    let scn = scenario();
    let mut game = Game::new(scn.clone(), seed);
    let mut bot = Bot::new(bot_seed, scn.map.hospital().to_vec());
    let mut actions = Vec::new();
    let mut checkpoints = Vec::new();
    while game.result().is_none() {
        let side = game.to_act().expect("someone acts");
        let legal = game.legal_actions(side);
        let action = bot.choose(&game, &legal).expect("a legal action").clone();
        game.apply(side, &action).expect("legal actions apply");
        actions.push((side, action));
        if actions.len() % 500 == 0 {
            checkpoints.push((actions.len(), game.state_hash_hex()));
        }
    }
    checkpoints.push((actions.len(), game.state_hash_hex()));
    let r = game.result().expect("finished");
    Golden {
        seed: hex::encode(seed),
        actions,
        checkpoints,
        winner: r.winner,
        reason: r.reason.clone(),
    }
}

fn check(name: &str, seed: [u8; 32], bot_seed: u64) {
    let file = path(name);
    if std::env::var("SIEGE_BLESS").is_ok() {
        let g = record(seed, bot_seed);
        std::fs::write(&file, serde_json::to_string(&g).expect("serializes"))
            .expect("writes the golden file");
    }
    let text =
        std::fs::read_to_string(&file).expect("golden file present (bless it with SIEGE_BLESS=1)");
    let g: Golden = serde_json::from_str(&text).expect("golden file parses");
    assert_eq!(g.seed, hex::encode(seed));
    let mut game = Game::new(scenario(), seed);
    let mut next = g.checkpoints.iter().peekable();
    for (i, (side, action)) in g.actions.iter().enumerate() {
        game.apply(*side, action)
            .unwrap_or_else(|e| panic!("action {} {action:?} refused: {e}", i + 1));
        if let Some((n, hash)) = next.peek()
            && *n == i + 1
        {
            assert_eq!(&game.state_hash_hex(), hash, "state hash after {n} actions");
            next.next();
        }
    }
    let r = game.result().expect("the stored game ends");
    assert_eq!((r.winner, r.reason.as_str()), (g.winner, g.reason.as_str()));
}

#[test]
fn a_whole_stored_game_replays_to_the_same_hashes_and_result() {
    check("whole_game_seed_42.json", [42; 32], 42);
}
