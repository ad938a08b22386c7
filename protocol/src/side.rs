//! The two sides and the phases of a game turn (rules section 4), named as they travel on the
//! wire.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Allied,
    Chinese,
}

impl Side {
    /// Both sides, Allied first.
    pub const BOTH: [Side; 2] = [Side::Allied, Side::Chinese];

    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::Allied => Side::Chinese,
            Side::Chinese => Side::Allied,
        }
    }

    /// The wire name, `allied` or `chinese`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Allied => "allied",
            Side::Chinese => "chinese",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Allied => "Allied",
            Side::Chinese => "Chinese",
        })
    }
}

/// Where a game stands: the two setup steps of section 22, the seven phases of a turn in the
/// order of section 4, the end of the turn (when the Chinese may lift units off, 22), and the
/// end of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    AlliedSetup,
    ChineseSetup,
    BigGun,
    ChineseMovement,
    AlliedReaction,
    Sniper,
    ChineseCombat,
    AlliedMovement,
    AlliedCombat,
    EndOfTurn,
    GameOver,
}

impl Phase {
    /// The seven phases of a game turn in the order of section 4.
    pub const TURN: [Phase; 7] = [
        Phase::BigGun,
        Phase::ChineseMovement,
        Phase::AlliedReaction,
        Phase::Sniper,
        Phase::ChineseCombat,
        Phase::AlliedMovement,
        Phase::AlliedCombat,
    ];

    /// The wire name, e.g. `chinese_movement`.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::AlliedSetup => "allied_setup",
            Phase::ChineseSetup => "chinese_setup",
            Phase::BigGun => "big_gun",
            Phase::ChineseMovement => "chinese_movement",
            Phase::AlliedReaction => "allied_reaction",
            Phase::Sniper => "sniper",
            Phase::ChineseCombat => "chinese_combat",
            Phase::AlliedMovement => "allied_movement",
            Phase::AlliedCombat => "allied_combat",
            Phase::EndOfTurn => "end_of_turn",
            Phase::GameOver => "game_over",
        }
    }

    /// The name a wargamer reads on the turn track, e.g. `Chinese Movement Phase`.
    pub fn title(self) -> &'static str {
        match self {
            Phase::AlliedSetup => "Allied Setup",
            Phase::ChineseSetup => "Chinese Entry",
            Phase::BigGun => "Big Gun Phase",
            Phase::ChineseMovement => "Chinese Movement Phase",
            Phase::AlliedReaction => "Allied Reaction Phase",
            Phase::Sniper => "Sniper Phase",
            Phase::ChineseCombat => "Chinese Combat Phase",
            Phase::AlliedMovement => "Allied Movement Phase",
            Phase::AlliedCombat => "Allied Combat Phase",
            Phase::EndOfTurn => "End of Turn",
            Phase::GameOver => "Game Over",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}
