//! What an action did, as data and in words. Every event carries a sentence a wargamer can check
//! against the board ("Boxers 12 attack 1719 at 3-1, rolled 5: DL1"); every die roll appears in
//! an event. On the wire an event is `{"kind": "<snake_case>", "text": "...", ...fields}`.

use crate::position::combat_report::CombatReport;
use crate::vocabulary::hex::{Direction, Hex};
use crate::vocabulary::units::UnitId;
use serde::Serialize;
use siege_protocol::{Phase, Side};

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    #[serde(flatten)]
    pub kind: EventKind,
    /// The event in words.
    pub text: String,
}

/// The data of an event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    /// A new game turn began (4, 20).
    TurnBegan { turn: u8 },
    /// A phase began (4).
    PhaseBegan { turn: u8, phase: Phase },
    /// A step had nothing to decide and was passed over.
    Skipped { phase: Phase, step: String },
    /// An Allied unit was placed at setup (22).
    Placed { unit: UnitId, hex: Hex },
    /// A side took the default deployment (22): `units` were placed by it (`count` of them);
    /// `kept` had been placed by hand and stayed where they were.
    DeployedDefault {
        side: Side,
        count: u16,
        units: Vec<UnitId>,
        kept: Vec<UnitId>,
    },
    /// A Chinese unit entered at a map edge (19, 22).
    Entered { unit: UnitId, hex: Hex },
    /// A stack moved along a path (5).
    Moved {
        units: Vec<UnitId>,
        path: Vec<Hex>,
        mp: u8,
    },
    /// A victory hex changed hands (21).
    ControlChanged { hex: Hex, side: Side },
    /// Unmanned Allied artillery was overrun by Chinese movement (9, R6).
    Overrun { unit: UnitId, hex: Hex },
    /// A unit was eliminated.
    Eliminated {
        unit: UnitId,
        hex: Option<Hex>,
        cause: String,
    },
    /// A unit lost a step and flipped to its reduced side (8.6).
    StepLost { unit: UnitId, hex: Hex },
    /// A combat was resolved (8.2): every number that went into it.
    Combat { report: Box<CombatReport> },
    /// A stack retreated one hex (8.3) or withdrew (12).
    Retreated {
        units: Vec<UnitId>,
        from: Hex,
        to: Hex,
    },
    /// A unit advanced after combat (8.4).
    Advanced { unit: UnitId, from: Hex, to: Hex },
    /// A leader whose stack was eliminated joined the nearest friendly unit (11.1).
    LeaderMoved { leader: UnitId, from: Hex, to: Hex },
    /// A hospital recovery roll (8.6).
    Recovery {
        unit: UnitId,
        die: u8,
        modified: u8,
        recovered: bool,
    },
    /// A Big Gun was placed (10).
    GunPlaced { hex: Hex },
    /// A Big Gun shot (10).
    Shot {
        gun: Hex,
        direction: Direction,
        die: u8,
        distance: u32,
        hit: Option<Hex>,
        damage_die: Option<u8>,
        effect: String,
    },
    /// A ruin marker was placed (17).
    Ruined { hex: Hex },
    /// A fortification was destroyed and its counter returned to its owner (10, 13).
    FortificationDestroyed { hex: Hex, built_by: Side },
    /// A mine exploded (16).
    Mine { hex: Hex },
    /// A unit in a mined hex rolled for a step loss (16).
    MineRoll { unit: UnitId, die: u8, lost: bool },
    /// A fortification was built (13).
    Fortified { hex: Hex, side: Side },
    /// An Allied unit was removed to attrition (14).
    Attrition { unit: UnitId, hex: Option<Hex> },
    /// A sniper shot at a leader (8.1.4).
    Sniper {
        leader: UnitId,
        from: Hex,
        die: u8,
        hit: bool,
    },
    /// A leader rolled for withdrawal (12).
    Withdrawal {
        leader: UnitId,
        die: u8,
        success: bool,
        units: Vec<UnitId>,
    },
    /// Chinese replacements arrived from the pool of eliminated units (19).
    Replacements { boxers: u8, imperials: u8 },
    /// A reduced Boxer unit was restored in place (19).
    Restored { unit: UnitId },
    /// Chinese units were lifted off the map (22).
    Lifted { units: Vec<UnitId>, hex: Hex },
    /// The game ended (21).
    GameOver { winner: Side, reason: String },
    /// The side to act took back its last decision: the position is as it was before the
    /// action numbered `seqs` (the log keeps that action, marked as taken back).
    Undone { seqs: Vec<u64> },
}

impl EventKind {
    /// The snake_case name of the kind, for counting.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::TurnBegan { .. } => "turn_began",
            EventKind::PhaseBegan { .. } => "phase_began",
            EventKind::Skipped { .. } => "skipped",
            EventKind::Placed { .. } => "placed",
            EventKind::DeployedDefault { .. } => "deployed_default",
            EventKind::Entered { .. } => "entered",
            EventKind::Moved { .. } => "moved",
            EventKind::ControlChanged { .. } => "control_changed",
            EventKind::Overrun { .. } => "overrun",
            EventKind::Eliminated { .. } => "eliminated",
            EventKind::StepLost { .. } => "step_lost",
            EventKind::Combat { .. } => "combat",
            EventKind::Retreated { .. } => "retreated",
            EventKind::Advanced { .. } => "advanced",
            EventKind::LeaderMoved { .. } => "leader_moved",
            EventKind::Recovery { .. } => "recovery",
            EventKind::GunPlaced { .. } => "gun_placed",
            EventKind::Shot { .. } => "shot",
            EventKind::Ruined { .. } => "ruined",
            EventKind::FortificationDestroyed { .. } => "fortification_destroyed",
            EventKind::Mine { .. } => "mine",
            EventKind::MineRoll { .. } => "mine_roll",
            EventKind::Fortified { .. } => "fortified",
            EventKind::Attrition { .. } => "attrition",
            EventKind::Sniper { .. } => "sniper",
            EventKind::Withdrawal { .. } => "withdrawal",
            EventKind::Replacements { .. } => "replacements",
            EventKind::Restored { .. } => "restored",
            EventKind::Lifted { .. } => "lifted",
            EventKind::GameOver { .. } => "game_over",
            EventKind::Undone { .. } => "undone",
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::face::game::Game;
    use crate::face::random::Bot;
    use crate::face::testkit::scenario;
    use std::collections::BTreeSet;

    /// The counting name of every kind of event random games produce is its wire name.
    #[test]
    fn an_event_kinds_name_is_its_wire_name() {
        let mut seen = BTreeSet::new();
        for seed in 1..=3u8 {
            let mut game = Game::new(scenario(), [seed; 32]);
            let mut bot = Bot::new(u64::from(seed), Vec::new());
            while let Some(side) = game.to_act() {
                let legal = game.legal_actions(side);
                let action = bot.choose(&game, &legal).expect("a legal action").clone();
                for event in game.apply(side, &action).expect("legal actions apply") {
                    let wire = serde_json::to_value(&event.kind).unwrap();
                    assert_eq!(wire["kind"], event.kind.name(), "{wire}");
                    seen.insert(event.kind.name());
                }
            }
        }
        assert!(seen.len() > 20, "only {seen:?}");
    }
}
