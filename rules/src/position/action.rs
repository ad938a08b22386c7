//! Every decision a player can take, as a small JSON object (docs/protocol.md: "every element of
//! `legal_actions` is a small JSON object that the client may send back as it is"). Decisions
//! are split into small steps — select a unit, choose its destination, stop, end the phase — so
//! that no list ever grows combinatorially.
//!
//! On the wire an action is `{"type": "<snake_case name>", ...fields}`; hexes are `CCRR`
//! strings and units are their numeric ids from the counter mix.

use crate::position::state::EntryKind;
use crate::vocabulary::hex::{Direction, Hex};
use crate::vocabulary::units::UnitId;
use serde::{Deserialize, Serialize};

/// One decision. See `docs/protocol.md` for the step each one belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    // --- Setup (22) -------------------------------------------------------------------
    /// Place every Allied unit at its default hex / enter every Chinese unit on a default
    /// spread of edge hexes.
    DeployDefault,
    /// Select a unit: to place it (setup), to move it (movement, withdrawal, bayonet charge).
    SelectUnit { unit: UnitId },
    /// Narrow the setup placement of the selected unit to one named area of the map.
    ChooseArea { area: String },
    /// Place the selected unit in a hex of the chosen area (22).
    Place { hex: Hex },
    /// Choose which kind of off-map Chinese unit to bring on next (19, 22).
    SelectEntry { kind: EntryKind },
    /// Bring one unit of the selected kind onto this map-edge hex (19, 22); with `units`, bring
    /// those units of the selected kind on together (the next ones waiting, within the 30
    /// points a hex of 7 and ruling R6).
    Enter {
        hex: Hex,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        units: Vec<UnitId>,
    },

    // --- Movement (5, 6, 7, 11.2, 12) ---------------------------------------------------
    /// Select every unit in the hex that may still move, to move them as one stack.
    SelectStack { hex: Hex },
    /// Drop a unit from the moving stack before it moves.
    UnselectUnit { unit: UnitId },
    /// Move the selected stack to `to` by the cheapest legal path, spending `mp`.
    Move { to: Hex, mp: u8 },
    /// The selected stack stops moving.
    Stop,

    // --- Start of turn ----------------------------------------------------------------------
    /// A reduced unit in the hospital rolls for recovery (8.6).
    AttemptRecovery { unit: UnitId },
    /// Place a Big Gun (10).
    PlaceGun { hex: Hex },
    /// Fire the next Big Gun shot in this direction (10); with `shots`, fire that many shots of
    /// the same gun in this direction, one after another — every shot the gun has left — stopping
    /// early after a shot that leaves someone a choice (a step loss).
    Fire {
        direction: Direction,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shots: Option<u8>,
    },
    /// Explode a mine in this hex (16).
    Detonate { hex: Hex },
    /// Restore this reduced Boxer unit to full strength in place (19).
    Restore { unit: UnitId },
    /// Remove this unit to attrition (14).
    RemoveUnit { unit: UnitId },
    /// Snipe at this Allied leader (8.1.4).
    Snipe { leader: UnitId },
    /// Build a fortification under the stack in this hex (13).
    Fortify { hex: Hex },
    /// Roll for this leader's withdrawal (12).
    AttemptWithdrawal { leader: UnitId },
    /// Charge the selected units into this enemy hex (8.1.3).
    Charge { hex: Hex, mp: u8 },

    // --- Combat (8, 9, 11.1) ------------------------------------------------------------
    /// Begin an attack on the enemy units in this hex.
    Attack { hex: Hex },
    /// Add another defending hex to the attack (multi-hex combat, 8.1.2).
    AddDefender { hex: Hex },
    /// Add an attacking unit (adjacent: normal combat; 2+ hexes: ranged fire).
    AddAttacker { unit: UnitId },
    /// Add every unit adjacent to the defending hexes that may join, leaders with the units of
    /// their hex, in one decision (8.1.2, 11.1).
    AddAttackers { units: Vec<UnitId> },
    /// Take an attacking unit back out of the attack.
    RemoveAttacker { unit: UnitId },
    /// Add an Allied artillery piece's odds bonus (9).
    AddArtillery { unit: UnitId },
    /// Take an artillery piece back out of the attack.
    RemoveArtillery { unit: UnitId },
    /// How a leader in the combat lends his strength of 1 (11.1).
    SetLeaderUse {
        leader: UnitId,
        #[serde(rename = "use")]
        leader_use: LeaderUse,
    },
    /// Roll the die and apply the result.
    Resolve,
    /// Abandon the attack being declared.
    CancelAttack,

    // --- Results --------------------------------------------------------------------------
    /// Take a step loss on this unit (8.2, 8.6, 10, 16).
    LoseStep { unit: UnitId },
    /// Retreat the retreating stack one hex (8.3, 12).
    Retreat { to: Hex },
    /// End a retreat early (from a building, 8.3 note 2; withdrawal, 12).
    StopRetreat,
    /// Retreat a Chinese stack off the map from an edge hex; it may re-enter next turn (8.3, 22).
    LeaveMap,
    /// Advance this unit into the vacated hex (8.4).
    Advance { unit: UnitId, to: Hex },
    /// Move a leader whose stack was eliminated to the nearest friendly unit (11.1).
    PlaceLeader { leader: UnitId, hex: Hex },
    /// Eliminate this unit from an over-stacked hex (7).
    Eliminate { unit: UnitId },

    // --- End of turn ----------------------------------------------------------------------
    /// Lift the Chinese units in this hex off the map, to re-enter next turn (22).
    Lift { hex: Hex },

    // --- Ending things ------------------------------------------------------------------
    /// Decline an optional step: no sniper shot, no mine, no fortification, no withdrawal,
    /// no bayonet charge, no advance.
    Pass,
    /// End the current phase (or setup step).
    EndPhase,

    // --- Taking back ----------------------------------------------------------------------
    /// Take back the side's last decision: offered while nothing has been rolled and the
    /// opponent has not decided since (the game keeps the positions; docs/protocol.md).
    Undo,
    // --- Outside the sequence ---------------------------------------------------------------
    /// Concede the game: the other side wins at once. Either seated player may send it at any
    /// moment before the end, whoever is to act; it is never listed in `legal_actions`
    /// (docs/protocol.md, "Always-allowed actions").
    Resign,
    /// Claim a win on time against the side to act, whose clock has run out. The rules know no
    /// clock: only the server, which keeps the time, accepts this from a client, and only from
    /// the side not to act; it is never listed in `legal_actions`.
    ClaimTimeout,
}

impl Action {
    /// The wire name of the action's type (`move`, `end_phase`, …), read from its serde form so
    /// that there is one spelling.
    pub fn kind(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
            .unwrap_or_default()
    }

    /// Whether the action stands outside the sequence of play: taken by a side whether or not
    /// it is to act, and never in a legal list (`resign`, `claim_timeout`).
    pub fn outside_sequence(&self) -> bool {
        matches!(self, Action::Resign | Action::ClaimTimeout)
    }

    /// Whether two actions are of the same type, whatever their fields.
    pub fn same_kind(&self, other: &Action) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_travel_as_small_tagged_objects() {
        let a = Action::Move {
            to: "1512".parse().unwrap(),
            mp: 3,
        };
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"{"type":"move","to":"1512","mp":3}"#);
        assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), a);
        assert_eq!(a.kind(), "move");
        let u = Action::SetLeaderUse {
            leader: UnitId(20),
            leader_use: LeaderUse::Modifier,
        };
        assert_eq!(
            serde_json::to_string(&u).unwrap(),
            r#"{"type":"set_leader_use","leader":20,"use":"modifier"}"#
        );
        assert_eq!(
            serde_json::to_string(&Action::EndPhase).unwrap(),
            r#"{"type":"end_phase"}"#
        );
    }

    #[test]
    fn unknown_fields_and_types_are_refused() {
        assert!(serde_json::from_str::<Action>(r#"{"type":"teleport"}"#).is_err());
        assert!(
            serde_json::from_str::<Action>(r#"{"type":"move","to":"1512","mp":1,"x":1}"#).is_err()
        );
        assert!(serde_json::from_str::<Action>(r#"{"type":"move","to":"9999","mp":1}"#).is_err());
    }
}

/// How a leader lends his strength of 1 to a combat (11.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeaderUse {
    /// Adds 1 to the attack or defence strength.
    Strength,
    /// +1 to the die when the Allies attack, −1 when they defend.
    Modifier,
}
