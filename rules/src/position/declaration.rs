//! The attack being declared (8): the attacking side, the defending hexes, the attackers and
//! artillery chosen so far, each leader's use (11.1), and whether it is a bayonet charge
//! (8.1.3). It is part of the state until the die is rolled or the attack is cancelled; the
//! rules that fill it in are in `mechanics/combat.rs`.

use crate::position::action::LeaderUse;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::units::UnitId;
use serde::{Deserialize, Serialize};
use siege_protocol::Side;

/// An attack being declared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declaration {
    /// The attacking side.
    pub side: Side,
    pub defenders: Vec<Hex>,
    pub attackers: Vec<UnitId>,
    pub artillery: Vec<UnitId>,
    /// Each leader's choice, attacking or defending (11.1).
    pub leader_use: Vec<(UnitId, LeaderUse)>,
    /// A bayonet charge, from this hex (8.1.3).
    pub charge_from: Option<Hex>,
    /// The Allied player has chosen his defending leaders' use (11.1).
    pub defender_leaders_chosen: bool,
}

impl Declaration {
    /// A new attack on `hex`.
    pub fn new(side: Side, hex: Hex) -> Declaration {
        Declaration {
            side,
            defenders: vec![hex],
            attackers: Vec::new(),
            artillery: Vec::new(),
            leader_use: Vec::new(),
            charge_from: None,
            defender_leaders_chosen: false,
        }
    }

    /// The use a leader makes of his strength (default: strength).
    pub fn use_of(&self, leader: UnitId) -> LeaderUse {
        self.leader_use
            .iter()
            .find(|(l, _)| *l == leader)
            .map_or(LeaderUse::Strength, |(_, u)| *u)
    }
}
