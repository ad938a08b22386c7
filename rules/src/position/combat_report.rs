//! The numbers of one combat as the state keeps them (8.2, 9, 11.1, 18): strengths, terrain
//! and multiplier with the reason, odds before and after artillery shifts, the die, its
//! modifier and the result. `mechanics/report.rs` computes it; the view and the log show it.

use crate::vocabulary::crt::CrtResult;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::units::UnitId;
use serde::{Deserialize, Serialize};
use siege_protocol::Side;

/// Every number of a combat, before or after the roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CombatReport {
    /// The side attacking.
    pub attacker: Side,
    pub defenders: Vec<Hex>,
    /// Units attacking from adjacent hexes (normal combat).
    pub adjacent: Vec<UnitId>,
    /// Units firing from two or more hexes away (ranged fire, 8.1.1).
    pub ranged: Vec<UnitId>,
    pub artillery: Vec<UnitId>,
    pub bayonet: bool,
    /// Total attack strength (quadrupled in a bayonet charge).
    pub attack: u32,
    /// How the attack strength adds up, in words.
    pub attack_detail: String,
    /// Defence strength before the terrain multiplier.
    pub defence_base: u32,
    /// The terrain that gave the best defence (18.4, last paragraph).
    pub terrain: String,
    pub multiplier: u32,
    /// Why that multiplier applied (or did not), in words.
    pub terrain_reason: String,
    /// Defence strength after the multiplier.
    pub defence: u32,
    /// Odds column before artillery, e.g. `2-1`.
    pub odds: String,
    /// Artillery column shifts (9).
    pub shift: u8,
    /// The column read, e.g. `4-1`.
    pub column: String,
    /// Die modifier from a leader (11.1, R4).
    pub modifier: i8,
    /// Whether this attack may be resolved now, and if not why (8.1.2).
    pub legal: bool,
    pub why_not: Option<String>,
    /// The die rolled, once resolved.
    pub die: Option<u8>,
    /// The die after the modifier, read between 1 and 6.
    pub modified: Option<u8>,
    pub result: Option<CrtResult>,
}
