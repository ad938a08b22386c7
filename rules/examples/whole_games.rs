//! A fixed amount of engine work, for counting instructions: whole random games from seeds
//! 1..=N (the legal list asked at every decision, as the `whole_game` criterion benchmark
//! does), then each recorded game replayed trusted from its seed (as the server rebuilds a
//! game). The same seeds always do the same work, so `valgrind --tool=callgrind` gives a
//! count that does not move with the machine's load — how docs/benchmarks.md compares two
//! versions of the engine on a busy machine:
//!
//! ```sh
//! cargo build --release -p siege-rules --example whole_games
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
//!     target/release/examples/whole_games 5
//! ```
//!
//! A second argument `play` skips the replays: the difference of the two counts is the
//! replays' share.

use siege_protocol::Side;
use siege_rules::{Action, Game, Scenario, random::Bot};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let games: u8 = std::env::args()
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(5);
    let replay = std::env::args().nth(2).as_deref() != Some("play");
    let scn = Scenario::shipped()?;
    let mut logs: Vec<(u8, Vec<(Side, Action)>)> = Vec::new();
    let mut played = 0;
    for seed in 1..=games {
        let mut game = Game::new(scn.clone(), [seed; 32]);
        let mut bot = Bot::new(u64::from(seed), scn.map.hospital().to_vec());
        let mut log = Vec::new();
        while let Some(side) = game.to_act() {
            let legal = game.legal_actions(side);
            let action = bot.choose(&game, &legal).ok_or("no legal action")?.clone();
            game.apply(side, &action)?;
            log.push((side, action));
        }
        played += log.len();
        logs.push((seed, log));
    }
    let mut replayed = 0;
    for (seed, log) in logs.iter().filter(|_| replay) {
        let mut game = Game::new(scn.clone(), [*seed; 32]);
        for (side, action) in log {
            game.apply_trusted(*side, action)?;
        }
        replayed += log.len();
    }
    println!("{games} games: {played} actions played, {replayed} replayed");
    Ok(())
}
