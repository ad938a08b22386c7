//! The analysis board against the engine: `legal_actions` asked of a position must equal what
//! the game offers in the same position. Positions are taken from random games at the start of
//! a phase's main step, turned into position JSON and asked about.

use proptest::prelude::*;
use siege_rules::analysis::{Query, Request, answer};
use siege_rules::custom::Position;
use siege_rules::random::Bot;
use siege_rules::state::{State, Step};
use siege_rules::{Action, Game, Scenario};
use std::sync::Arc;

fn scenario() -> Arc<Scenario> {
    Scenario::shipped().expect("the shipped scenario loads")
}

/// A state a position can express exactly: a main step just begun, nothing selected or pending,
/// and none of the marks that step reads (moves of the side moving; attacks of this phase).
fn expressible(game: &Game) -> bool {
    let st: &State = game.state();
    if st.turn < 1 || !st.pending.is_empty() || st.declaration.is_some() {
        return false;
    }
    let scn = game.scenario();
    match st.step {
        Step::Move { group: None } => {
            let mover = siege_rules::state::phasing_side(st.phase());
            scn.counters
                .counters
                .iter()
                .all(|c| c.side != mover || !st.unit(c.id).marks.moved)
        }
        Step::Combat => st
            .units
            .iter()
            .all(|u| !u.marks.attacked && !u.marks.defended && !u.marks.recovery_failed),
        Step::Sniper => !st.sniper_used,
        Step::BigGunPlace => st.big_guns.is_empty(),
        _ => false,
    }
}

/// More actions than random play takes to reach turn 5 by far (it takes about 1,500).
const RUNAWAY: u32 = 30_000;

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    #[test]
    fn legal_actions_of_an_analysed_position_are_those_the_game_offers(seed in any::<u64>()) {
        let scn = scenario();
        let mut game = Game::new(scn.clone(), seed.to_le_bytes().repeat(4).try_into().expect("32 bytes"));
        let mut bot = Bot::new(seed, scn.map.hospital().to_vec());
        let mut compared = 0;
        let mut played = 0u32;
        while game.result().is_none() && game.state().turn <= 4 {
            let side = game.to_act().expect("someone acts");
            // A random walk that never leaves a step is a bug to see, not a test to wait on.
            played += 1;
            prop_assert!(played <= RUNAWAY, "seed {}: still at {:?} after {} actions", seed, game.state().step, RUNAWAY);
            if expressible(&game) {
                let position = Position::from_state(&scn, game.state());
                let json = serde_json::to_string(&position).expect("serializes");
                let request = Request {
                    position: serde_json::from_str(&json).expect("a position parses back"),
                    queries: vec![Query::LegalActions { side }],
                };
                let answers = answer(&scn, &request).map_err(|e| TestCaseError::fail(e.to_string()))?;
                // Offered actions carry warnings beside them; the actions are the rest.
                let offered: Vec<Action> = answers[0]["legal_actions"]
                    .as_array()
                    .expect("a list")
                    .iter()
                    .map(|a| {
                        let mut a = a.clone();
                        a.as_object_mut().expect("an object").remove("warning");
                        serde_json::from_value(a).expect("an action")
                    })
                    .collect();
                // A position has no past: what the game could take back is not on the board.
                let mut played = game.legal_actions(side);
                played.retain(|a| *a != Action::Undo);
                prop_assert_eq!(offered, played, "phase {:?}", game.state().phase());
                compared += 1;
            }
            let legal = game.legal_actions(side);
            let action = bot.choose(&game, &legal).expect("a legal action").clone();
            game.apply(side, &action).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        prop_assert!(compared > 3, "only {} positions compared", compared);
    }
}
