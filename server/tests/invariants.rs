//! Property tests: random legal play never breaks an invariant (stacking, one side a hex,
//! nothing in the canal, every unit accounted for, always a legal action), and an action that
//! is not legal is refused without changing the state.

use proptest::prelude::*;
use siege::rules::hex::Hex;
use siege::rules::random::Bot;
use siege::rules::units::UnitId;
use siege::rules::{Action, Game, Scenario};
use std::sync::Arc;

fn scenario() -> Arc<Scenario> {
    Scenario::shipped().expect("the shipped scenario loads")
}

/// Actions that are often not legal, to throw at the engine.
fn probes(rng_pick: u64) -> Vec<Action> {
    let h = Hex::from_index((rng_pick % 1560) as usize).expect("an index on the map");
    let u = UnitId((rng_pick % 170) as u16);
    vec![
        Action::EndPhase,
        Action::Pass,
        Action::Resolve,
        Action::Move { to: h, mp: 1 },
        Action::Attack { hex: h },
        Action::SelectUnit { unit: u },
        Action::LoseStep { unit: u },
        Action::Retreat { to: h },
        Action::Place { hex: h },
        Action::Enter {
            hex: h,
            units: Vec::new(),
        },
    ]
}

/// More actions than random play takes to reach turn 4 by far (it takes about 1,000).
const RUNAWAY: u64 = 30_000;

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_play_keeps_every_invariant(seed in any::<u64>(), probe in any::<u64>()) {
        let scn = scenario();
        let mut game = Game::new(scn.clone(), seed.to_le_bytes().repeat(4).try_into().expect("32 bytes"));
        let mut bot = Bot::new(seed, scn.map.hospital().to_vec());
        let mut n = 0u64;
        while game.result().is_none() && game.state().turn < 4 {
            let side = game.to_act().expect("someone acts");
            // A random walk that never leaves a step is a bug to see, not a test to wait on.
            prop_assert!(n < RUNAWAY, "seed {}: still at {:?} after {} actions", seed, game.state().step, RUNAWAY);
            let legal = game.legal_actions(side);
            prop_assert!(!legal.is_empty());
            // An illegal action is refused and changes nothing.
            if n.is_multiple_of(50) {
                for a in probes(probe.wrapping_add(n)) {
                    if !legal.contains(&a) {
                        let before = game.state_hash();
                        prop_assert!(game.apply(side, &a).is_err());
                        prop_assert_eq!(game.state_hash(), before);
                    }
                }
            }
            let action = bot.choose(&game, &legal).expect("a legal action").clone();
            game.apply(side, &action).map_err(|e| TestCaseError::fail(format!("{action:?}: {e}")))?;
            if let Some(why) = siege::sim::check(&game) {
                return Err(TestCaseError::fail(why));
            }
            n += 1;
        }
    }
}
