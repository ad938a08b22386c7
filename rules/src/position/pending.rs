//! Interruptions as the state keeps them: decisions a resolution leaves to settle before the
//! phase goes on — which unit takes a step loss (8.2, 10), each hex of a retreat (8.3) or
//! withdrawal (12), the advance after combat (8.4), where a displaced leader goes (11.1), which
//! units an over-stacked hex loses (7), and the defending Allied leaders' choice (11.1). Each
//! belongs to one side, which may not be the side in phase. The sequence of play
//! (`sequence/interruptions.rs`) offers and settles them.

use crate::vocabulary::hex::Hex;
use crate::vocabulary::units::UnitId;
use serde::{Deserialize, Serialize};
use siege_protocol::Side;

/// A retreat in progress (8.3, 12).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retreat {
    pub side: Side,
    pub units: Vec<UnitId>,
    /// Where the stack is now.
    pub at: Hex,
    /// Hexes already passed, start included: never the same hex twice (8.3 note 3).
    pub visited: Vec<Hex>,
    /// Fewest hexes it must go: 3, or 1 from a building (8.3 note 2); 1 for a withdrawal (12).
    pub min: u8,
    /// Most hexes it may go: 3.
    pub max: u8,
    /// A voluntary withdrawal (12) rather than a retreat after combat.
    pub withdrawal: bool,
}

/// One interruption.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "pending")]
pub enum Pending {
    /// `side` chooses which of `units` loses a step: `steps` more single losses, or losses until
    /// at least `points` more strength points are gone (EX, 8.2).
    StepLoss {
        side: Side,
        units: Vec<UnitId>,
        steps: u8,
        points: u8,
        cause: String,
        /// Any unit may take it, leaders included (the Big Gun's SL, 10); otherwise combat units
        /// first and leaders only when alone (11.1).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        free: bool,
    },
    /// A stack retreating hex by hex.
    Retreat(Retreat),
    /// One of `units` may advance into one of `hexes` (8.4).
    Advance {
        side: Side,
        units: Vec<UnitId>,
        hexes: Vec<Hex>,
    },
    /// A leader whose stack was eliminated goes to the nearest friendly unit (11.1).
    PlaceLeader { leader: UnitId, from: Hex },
    /// `side` eliminates units from an over-stacked hex (7).
    Overstack { side: Side, hex: Hex },
    /// The Allied player chooses how defending leaders help before the die is rolled (11.1).
    DefenderLeaders,
    /// Bayonet chargers take the charged hex if its defenders are gone; otherwise they stay in
    /// the hex they charged from (8.1.3, R6). Settles itself.
    Occupy {
        side: Side,
        units: Vec<UnitId>,
        hex: Hex,
    },
}

impl Pending {
    /// The side that decides.
    pub fn side(&self) -> Side {
        match self {
            Pending::StepLoss { side, .. }
            | Pending::Advance { side, .. }
            | Pending::Overstack { side, .. }
            | Pending::Occupy { side, .. } => *side,
            Pending::Retreat(r) => r.side,
            Pending::PlaceLeader { .. } | Pending::DefenderLeaders => Side::Allied,
        }
    }

    /// Short snake_case name for the view.
    pub fn name(&self) -> &'static str {
        match self {
            Pending::StepLoss { .. } => "step_loss",
            Pending::Retreat(r) if r.withdrawal => "withdrawal",
            Pending::Retreat(_) => "retreat",
            Pending::Advance { .. } => "advance",
            Pending::PlaceLeader { .. } => "place_leader",
            Pending::Overstack { .. } => "overstack",
            Pending::DefenderLeaders => "defender_leaders",
            Pending::Occupy { .. } => "occupy",
        }
    }
}
