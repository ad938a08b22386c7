//! Where a game stands in the sequence of play (4, 20, 22): one slot per step, in the order
//! the steps are played, with the phase each belongs to. The state keeps its slot
//! ([`crate::position::state::State::slot`]); the step's behaviour — who decides it, its legal
//! actions, how it applies one, its prompt — is its descriptor in `sequence/steps.rs`.
//!
//! Adding a step is a variant here, its row in [`SEQUENCE`] (which places it in the turn and
//! gives its phase and its starting data), and its descriptor; the compiler asks for the
//! descriptor, and a test checks the rows follow the variants.

use crate::position::state::{GameResult, Step};
use siege_protocol::Phase;

/// A slot of the sequence of play. The variants are declared in the order they are played, so
/// a slot's number is its row in [`SEQUENCE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StepId {
    AlliedSetup,
    ChineseSetup,
    Recovery,
    BigGunPlace,
    BigGunFire,
    Mines,
    Restore,
    ChineseEntry,
    ChineseMove,
    Reaction,
    Sniper,
    ChineseFortify,
    Withdrawal,
    ChineseCombat,
    Attrition,
    AlliedMove,
    AlliedFortify,
    Bayonet,
    AlliedCombat,
    LiftOff,
    /// The game is over (21): the state's step holds the result.
    Over,
}

/// A slot's place in the sequence: its phase, and the step's data as it begins.
pub struct Place {
    pub id: StepId,
    pub phase: Phase,
    pub fresh: fn() -> Step,
}

/// Every slot in the order of play: the setup (22), then one game turn (4), then the end of
/// the game.
pub const SEQUENCE: [Place; 21] = [
    Place {
        id: StepId::AlliedSetup,
        phase: Phase::AlliedSetup,
        fresh: || Step::AlliedSetup {
            selected: None,
            area: None,
        },
    },
    Place {
        id: StepId::ChineseSetup,
        phase: Phase::ChineseSetup,
        fresh: || Step::Entry { selected: None },
    },
    Place {
        id: StepId::Recovery,
        phase: Phase::BigGun,
        fresh: || Step::Recovery { rolled: 0 },
    },
    Place {
        id: StepId::BigGunPlace,
        phase: Phase::BigGun,
        fresh: || Step::BigGunPlace,
    },
    Place {
        id: StepId::BigGunFire,
        phase: Phase::BigGun,
        fresh: || Step::BigGunFire { shot: 0 },
    },
    Place {
        id: StepId::Mines,
        phase: Phase::ChineseMovement,
        fresh: || Step::Mines,
    },
    Place {
        id: StepId::Restore,
        phase: Phase::ChineseMovement,
        fresh: || Step::Restore,
    },
    Place {
        id: StepId::ChineseEntry,
        phase: Phase::ChineseMovement,
        fresh: || Step::Entry { selected: None },
    },
    Place {
        id: StepId::ChineseMove,
        phase: Phase::ChineseMovement,
        fresh: || Step::Move { group: None },
    },
    Place {
        id: StepId::Reaction,
        phase: Phase::AlliedReaction,
        fresh: || Step::Move { group: None },
    },
    Place {
        id: StepId::Sniper,
        phase: Phase::Sniper,
        fresh: || Step::Sniper,
    },
    Place {
        id: StepId::ChineseFortify,
        phase: Phase::ChineseCombat,
        fresh: || Step::Fortify,
    },
    Place {
        id: StepId::Withdrawal,
        phase: Phase::ChineseCombat,
        fresh: || Step::Withdrawal,
    },
    Place {
        id: StepId::ChineseCombat,
        phase: Phase::ChineseCombat,
        fresh: || Step::Combat,
    },
    Place {
        id: StepId::Attrition,
        phase: Phase::AlliedMovement,
        fresh: || Step::Attrition,
    },
    Place {
        id: StepId::AlliedMove,
        phase: Phase::AlliedMovement,
        fresh: || Step::Move { group: None },
    },
    Place {
        id: StepId::AlliedFortify,
        phase: Phase::AlliedCombat,
        fresh: || Step::Fortify,
    },
    Place {
        id: StepId::Bayonet,
        phase: Phase::AlliedCombat,
        fresh: || Step::Bayonet { group: None },
    },
    Place {
        id: StepId::AlliedCombat,
        phase: Phase::AlliedCombat,
        fresh: || Step::Combat,
    },
    Place {
        id: StepId::LiftOff,
        phase: Phase::EndOfTurn,
        fresh: || Step::LiftOff,
    },
    Place {
        id: StepId::Over,
        phase: Phase::GameOver,
        fresh: || Step::Over {
            result: GameResult::unknown(),
        },
    },
];

impl StepId {
    /// The first step of a game turn.
    pub const TURN_BEGINS: StepId = StepId::Recovery;

    /// The phase the step belongs to.
    pub fn phase(self) -> Phase {
        SEQUENCE[self as usize].phase
    }

    /// The step played after this one within the setup or a game turn; `None` where the turn
    /// (or the setup) ends, and after the end of the game.
    pub fn next(self) -> Option<StepId> {
        match self {
            StepId::ChineseSetup | StepId::LiftOff | StepId::Over => None,
            _ => Some(SEQUENCE[self as usize + 1].id),
        }
    }

    /// The step's data as it begins.
    pub fn fresh(self) -> Step {
        (SEQUENCE[self as usize].fresh)()
    }

    /// Every slot in the order of play.
    #[cfg(test)]
    fn all() -> impl Iterator<Item = StepId> {
        SEQUENCE.iter().map(|p| p.id)
    }

    /// The slot of a step of `phase` whose data has the shape of `step`: how a state stored
    /// as a phase and a step (its serialized form) finds its slot. Each pair names one slot.
    pub fn find(phase: Phase, step: &Step) -> Option<StepId> {
        let shape = std::mem::discriminant(step);
        SEQUENCE
            .iter()
            .find(|p| p.phase == phase && std::mem::discriminant(&(p.fresh)()) == shape)
            .map(|p| p.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_of_the_sequence_is_its_slots_own_4() {
        for (i, p) in SEQUENCE.iter().enumerate() {
            assert_eq!(p.id as usize, i, "{:?} is in row {i}", p.id);
        }
    }

    #[test]
    fn a_turn_runs_through_the_seven_phases_in_order_and_ends_with_the_lift_off_4() {
        let mut at = StepId::TURN_BEGINS;
        let mut phases = vec![at.phase()];
        while let Some(next) = at.next() {
            phases.push(next.phase());
            at = next;
        }
        assert_eq!(at, StepId::LiftOff);
        phases.dedup();
        let mut expected = Phase::TURN.to_vec();
        expected.push(Phase::EndOfTurn);
        assert_eq!(
            phases, expected,
            "each phase once, in the order of section 4"
        );
        assert_eq!(StepId::AlliedSetup.next(), Some(StepId::ChineseSetup));
        assert_eq!(
            StepId::ChineseSetup.next(),
            None,
            "the setup ends into turn 1"
        );
        assert_eq!(StepId::Over.next(), None);
    }

    #[test]
    fn each_slot_is_found_again_from_its_phase_and_its_fresh_step_4() {
        for id in StepId::all() {
            assert_eq!(StepId::find(id.phase(), &id.fresh()), Some(id), "{id:?}");
        }
        assert_eq!(StepId::find(Phase::Sniper, &Step::Combat), None);
    }
}
