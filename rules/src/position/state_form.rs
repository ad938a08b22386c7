//! The serialized form of a [`State`]: what is hashed (state-hash version 1 is its JSON), kept
//! in snapshots and sent to tools. In memory the state keeps the slot of its step and holds the
//! result inside the last step; its form has always been the phase, the step's data and the
//! result as three fields, and stays so, so that every game stored verifies byte for byte.
//! Reading a form finds the slot from the phase and the step's shape ([`StepId::find`]) and
//! refuses a form whose three fields disagree.

use crate::position::combat_report::CombatReport;
use crate::position::declaration::Declaration;
use crate::position::pending::Pending;
use crate::position::state::{Fortification, GameResult, State, Step, UnitState};
use crate::position::step_id::StepId;
use crate::vocabulary::dice::Dice;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::units::UnitId;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use siege_protocol::{Phase, Side};
use std::sync::Arc;

fn is_false(b: &bool) -> bool {
    !*b
}

/// The form, borrowed from a state, for writing. Field order is the form's order.
#[derive(Serialize)]
struct Written<'a> {
    turn: u8,
    phase: Phase,
    step: &'a Step,
    units: &'a [UnitState],
    ruins: &'a [Hex],
    fortifications: &'a [Fortification],
    mines_left: u8,
    control: &'a [Side],
    pending: &'a [Pending],
    declaration: &'a Option<Declaration>,
    last_combat: &'a Option<Arc<CombatReport>>,
    big_guns: &'a [Hex],
    sniper_used: bool,
    charge_points: u8,
    withdrawal_rolled: &'a [UnitId],
    withdrawal_allowed: &'a [UnitId],
    restores_left: u8,
    #[serde(skip_serializing_if = "is_false")]
    custom_start: bool,
    #[serde(skip_serializing_if = "<[UnitId]>::is_empty")]
    absent: &'a [UnitId],
    result: Option<&'a GameResult>,
    dice: &'a Dice,
}

/// The form, owned, as read.
#[derive(Deserialize)]
struct Read {
    turn: u8,
    phase: Phase,
    step: Step,
    units: Vec<UnitState>,
    ruins: Vec<Hex>,
    fortifications: Vec<Fortification>,
    mines_left: u8,
    control: Vec<Side>,
    pending: Vec<Pending>,
    declaration: Option<Declaration>,
    last_combat: Option<Arc<CombatReport>>,
    big_guns: Vec<Hex>,
    sniper_used: bool,
    charge_points: u8,
    withdrawal_rolled: Vec<UnitId>,
    withdrawal_allowed: Vec<UnitId>,
    restores_left: u8,
    #[serde(default)]
    custom_start: bool,
    #[serde(default)]
    absent: Vec<UnitId>,
    result: Option<GameResult>,
    dice: Dice,
}

impl Serialize for State {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Written {
            turn: self.turn,
            phase: self.phase(),
            step: &self.step,
            units: &self.units,
            ruins: &self.ruins,
            fortifications: &self.fortifications,
            mines_left: self.mines_left,
            control: &self.control,
            pending: &self.pending,
            declaration: &self.declaration,
            last_combat: &self.last_combat,
            big_guns: &self.big_guns,
            sniper_used: self.sniper_used,
            charge_points: self.charge_points,
            withdrawal_rolled: &self.withdrawal_rolled,
            withdrawal_allowed: &self.withdrawal_allowed,
            restores_left: self.restores_left,
            custom_start: self.custom_start,
            absent: &self.absent,
            result: self.result(),
            dice: &self.dice,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for State {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<State, D::Error> {
        let r = Read::deserialize(d)?;
        let Some(slot) = StepId::find(r.phase, &r.step) else {
            return Err(D::Error::custom(format!(
                "no step of the {:?} phase has the shape {:?}",
                r.phase, r.step
            )));
        };
        let step = match (slot, r.result) {
            (StepId::Over, Some(result)) => Step::Over { result },
            (StepId::Over, None) => {
                return Err(D::Error::custom("a game over without a result"));
            }
            (_, Some(_)) => {
                return Err(D::Error::custom(format!(
                    "a result while the game is in the {slot:?} step"
                )));
            }
            (_, None) => r.step,
        };
        Ok(State {
            turn: r.turn,
            slot,
            step,
            units: r.units.into(),
            ruins: r.ruins,
            fortifications: r.fortifications,
            mines_left: r.mines_left,
            control: r.control,
            pending: r.pending,
            declaration: r.declaration,
            last_combat: r.last_combat,
            big_guns: r.big_guns,
            sniper_used: r.sniper_used,
            charge_points: r.charge_points,
            withdrawal_rolled: r.withdrawal_rolled,
            withdrawal_allowed: r.withdrawal_allowed,
            restores_left: r.restores_left,
            custom_start: r.custom_start,
            absent: r.absent,
            dice: r.dice,
            board: Default::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::face::game::Game;
    use crate::face::random::Bot;
    use crate::face::testkit::scenario;
    use crate::position::state::State;
    use crate::position::step_id::StepId;

    /// A state read back from its form is the same state, in every step of a game and at its
    /// end; and the form keeps the phase, the step and the result as fields of their own.
    #[test]
    fn a_state_read_back_from_its_form_is_the_same_state_4_21() {
        let mut game = Game::new(scenario(), [3; 32]);
        let mut bot = Bot::new(3, Vec::new());
        let mut slots = std::collections::BTreeSet::new();
        loop {
            let st = game.state();
            let json = serde_json::to_string(st).unwrap();
            let back: State = serde_json::from_str(&json).unwrap();
            assert_eq!(&back, st);
            slots.insert(st.slot);
            if st.is_over() {
                let v: serde_json::Value = serde_json::from_str(&json).unwrap();
                assert_eq!(v["phase"], "game_over");
                assert_eq!(v["step"], serde_json::json!({"step": "over"}));
                assert_eq!(
                    v["result"]["winner"],
                    serde_json::json!(game.result().unwrap().winner)
                );
                break;
            }
            let side = game.to_act().expect("someone acts");
            let legal = game.legal_actions(side);
            let action = bot.choose(&game, &legal).expect("a legal action").clone();
            game.apply(side, &action).expect("legal actions apply");
        }
        assert!(
            slots.contains(&StepId::Over) && slots.len() > 10,
            "{slots:?}"
        );
    }

    /// A form whose phase, step and result disagree is refused, not read as some other state.
    #[test]
    fn a_form_whose_fields_disagree_is_refused() {
        let game = Game::new(scenario(), [3; 32]);
        let good: serde_json::Value = serde_json::to_value(game.state()).unwrap();
        let mut bad = good.clone();
        bad["phase"] = "sniper".into();
        let err = serde_json::from_value::<State>(bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no step of the Sniper phase"), "{err}");
        let mut bad = good.clone();
        bad["result"] = serde_json::json!({"winner": "allied", "reason": "held_out", "text": "t"});
        let err = serde_json::from_value::<State>(bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("a result while the game is in"), "{err}");
        let mut bad = good;
        bad["phase"] = "game_over".into();
        bad["step"] = serde_json::json!({"step": "over"});
        let err = serde_json::from_value::<State>(bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("without a result"), "{err}");
    }
}
