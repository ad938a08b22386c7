//! The steps of the sequence of play (4, 20, 22), one descriptor each: the phase a step belongs
//! to, who decides it, its data when it begins, what happens as it begins, its legal actions,
//! how it applies one, its prompt, and when it ends by itself. Adding a step is one new
//! [`StepId`], one place in [`TURN`] and one arm of [`StepId::def`]; the rest of the engine reads
//! the descriptor.
//!
//! A game turn is Big Gun (hospital recovery, placing and firing the guns), Chinese movement
//! (mines, restored Boxers, entries, movement), Allied reaction, the sniper, Chinese combat
//! (fortifications, the Allied withdrawal, combat), Allied movement (attrition, movement), Allied
//! combat (fortifications, bayonet charges, combat) and the end of the turn (lifting Chinese
//! units off the map). Before turn 1 come the Allied setup and the Chinese entry (22).

use crate::mechanics::{
    attrition, bayonet, big_gun, combat, entry, fortifications, mines, movement, recovery,
    replacements, setup, sniper, withdrawal,
};
use crate::position::action::Action;
use crate::position::ctx::{Ctx, names};
use crate::position::state::{State, Step, phasing_side};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use siege_protocol::{Phase, Side};

/// A step of the sequence of play. The state holds it as its phase and its step's data
/// ([`Step`]); [`StepId::of`] reads it from the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
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
}

/// The steps of a game turn in order (4).
pub const TURN: [StepId; 18] = [
    StepId::Recovery,
    StepId::BigGunPlace,
    StepId::BigGunFire,
    StepId::Mines,
    StepId::Restore,
    StepId::ChineseEntry,
    StepId::ChineseMove,
    StepId::Reaction,
    StepId::Sniper,
    StepId::ChineseFortify,
    StepId::Withdrawal,
    StepId::ChineseCombat,
    StepId::Attrition,
    StepId::AlliedMove,
    StepId::AlliedFortify,
    StepId::Bayonet,
    StepId::AlliedCombat,
    StepId::LiftOff,
];

/// Which player decides a step: the one whose phase it is, or the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decider {
    Phasing,
    Opponent,
}

/// Everything about one step of the sequence of play.
pub struct StepDef {
    pub phase: Phase,
    pub decider: Decider,
    /// The step's data as it begins.
    pub fresh: fn() -> Step,
    /// What happens as the step begins, before anyone decides.
    pub begin: fn(&mut Ctx<'_>),
    /// The legal actions of the step's decision (`end_phase` and `pass` included).
    pub legal: fn(&Scenario, &State, &mut Vec<Action>),
    /// Apply one of those actions (never `end_phase` or `pass`: the sequence moves on).
    pub apply: fn(&mut Ctx<'_>, &Action),
    /// What the decider is asked, in words.
    pub prompt: fn(&Scenario, &State) -> String,
    /// A quick answer to "is there nothing to decide but ending the step?" where listing the
    /// legal actions would be costly; `None` means list them and see.
    pub idle: fn(&Scenario, &State) -> Option<bool>,
    /// The step's work is done and it ends by itself (the eighth gunshot, the last recovery).
    pub done: fn(&Scenario, &State) -> bool,
}

impl StepDef {
    /// The side that decides the step.
    pub fn side(&self) -> Side {
        let phasing = phasing_side(self.phase);
        match self.decider {
            Decider::Phasing => phasing,
            Decider::Opponent => phasing.other(),
        }
    }
}

fn nothing(_: &mut Ctx<'_>) {}
fn never(_: &Scenario, _: &State) -> bool {
    false
}
fn list_them(_: &Scenario, _: &State) -> Option<bool> {
    None
}
fn busy(_: &Scenario, _: &State) -> Option<bool> {
    Some(false)
}

/// The selected stack of a movement or bayonet step.
fn group(st: &State) -> Option<&crate::position::state::Group> {
    match &st.step {
        Step::Move { group } | Step::Bayonet { group } => group.as_ref(),
        _ => None,
    }
}

/// Which gun fires the next shot and which of its shots it is, while the guns fire (10).
pub fn next_shot(st: &State) -> Option<(usize, Hex, usize)> {
    let Step::BigGunFire { shot } = st.step else {
        return None;
    };
    let gun = usize::from(shot) / big_gun::SHOTS;
    st.big_guns
        .get(gun)
        .map(|hex| (gun, *hex, usize::from(shot) % big_gun::SHOTS))
}

fn move_step(phase: Phase) -> StepDef {
    StepDef {
        phase,
        decider: Decider::Phasing,
        fresh: || Step::Move { group: None },
        begin: nothing,
        legal: |scn, st, out| movement::legal(scn, st, group(st), out),
        apply: movement::apply,
        prompt: |scn, st| movement::prompt(scn, st, group(st)),
        idle: |scn, st| match group(st) {
            // A selected stack can always stop.
            Some(_) => Some(false),
            None => Some(!movement::anyone_movable(scn, st)),
        },
        done: never,
    }
}

fn fortify_step(phase: Phase) -> StepDef {
    StepDef {
        phase,
        decider: Decider::Phasing,
        fresh: || Step::Fortify,
        begin: nothing,
        legal: fortifications::legal,
        apply: fortifications::apply,
        prompt: |scn, st| {
            format!(
                "Build fortifications under unmoved stacks in clear or ruined hexes, or pass ({} left) (13).",
                fortifications::left(scn, st, phasing_side(st.phase))
            )
        },
        idle: list_them,
        done: never,
    }
}

fn combat_step(phase: Phase) -> StepDef {
    StepDef {
        phase,
        decider: Decider::Phasing,
        fresh: || Step::Combat,
        begin: nothing,
        legal: combat::legal,
        apply: combat::apply,
        prompt: combat::prompt,
        // A declared attack can always be cancelled or resolved.
        idle: |scn, st| Some(st.declaration.is_none() && combat::nothing_to_attack(scn, st)),
        done: never,
    }
}

/// The kind of Chinese unit selected to enter next (19, 22).
fn selected_entry(st: &State) -> Option<crate::position::state::EntryKind> {
    match st.step {
        Step::Entry { selected } => selected,
        _ => None,
    }
}

fn entry_step(phase: Phase) -> StepDef {
    StepDef {
        phase,
        decider: Decider::Phasing,
        fresh: || Step::Entry { selected: None },
        begin: nothing,
        legal: |scn, st, out| entry::legal(scn, st, selected_entry(st), out),
        apply: entry::apply,
        prompt: |scn, st| entry::prompt(scn, st, selected_entry(st)),
        idle: |scn, st| Some(!entry::any_waiting(scn, st)),
        done: never,
    }
}

impl StepId {
    /// The step a state is in, read from its phase and its step's data; `None` once the game
    /// is over.
    pub fn of(st: &State) -> Option<StepId> {
        use StepId as S;
        Some(match (st.phase, &st.step) {
            (_, Step::Over) => return None,
            (_, Step::AlliedSetup { .. }) => S::AlliedSetup,
            (Phase::ChineseSetup, Step::Entry { .. }) => S::ChineseSetup,
            (_, Step::Entry { .. }) => S::ChineseEntry,
            (_, Step::Recovery { .. }) => S::Recovery,
            (_, Step::BigGunPlace) => S::BigGunPlace,
            (_, Step::BigGunFire { .. }) => S::BigGunFire,
            (_, Step::Mines) => S::Mines,
            (_, Step::Restore) => S::Restore,
            (Phase::ChineseMovement, Step::Move { .. }) => S::ChineseMove,
            (Phase::AlliedReaction, Step::Move { .. }) => S::Reaction,
            (_, Step::Move { .. }) => S::AlliedMove,
            (_, Step::Sniper) => S::Sniper,
            (Phase::ChineseCombat, Step::Fortify) => S::ChineseFortify,
            (_, Step::Fortify) => S::AlliedFortify,
            (_, Step::Withdrawal) => S::Withdrawal,
            (Phase::ChineseCombat, Step::Combat) => S::ChineseCombat,
            (_, Step::Combat) => S::AlliedCombat,
            (_, Step::Attrition) => S::Attrition,
            (_, Step::Bayonet { .. }) => S::Bayonet,
            (_, Step::LiftOff) => S::LiftOff,
        })
    }

    /// The step after this one in a game turn; `None` after the last.
    pub fn next(self) -> Option<StepId> {
        match self {
            StepId::AlliedSetup => Some(StepId::ChineseSetup),
            StepId::ChineseSetup => Some(TURN[0]),
            _ => {
                let at = TURN.iter().position(|s| *s == self)?;
                TURN.get(at + 1).copied()
            }
        }
    }

    /// The step's descriptor.
    pub fn def(self) -> StepDef {
        match self {
            StepId::AlliedSetup => StepDef {
                phase: Phase::AlliedSetup,
                decider: Decider::Phasing,
                fresh: || Step::AlliedSetup {
                    selected: None,
                    area: None,
                },
                begin: nothing,
                legal: |scn, st, out| {
                    if let Step::AlliedSetup { selected, area } = st.step {
                        setup::legal(scn, st, selected, area, out);
                    }
                },
                apply: setup::apply,
                prompt: |scn, st| match st.step {
                    Step::AlliedSetup { selected, area } => setup::prompt(scn, st, selected, area),
                    _ => String::new(),
                },
                // Setup always offers the default deployment.
                idle: busy,
                done: never,
            },
            StepId::ChineseSetup => entry_step(Phase::ChineseSetup),
            StepId::Recovery => StepDef {
                phase: Phase::BigGun,
                decider: Decider::Opponent,
                fresh: || Step::Recovery { rolled: 0 },
                begin: recovery::begin,
                legal: recovery::legal,
                apply: recovery::apply,
                prompt: |_, _| {
                    "Choose which reduced units in the hospital roll for recovery, three at most (8.6).".into()
                },
                idle: list_them,
                done: |scn, st| match st.step {
                    Step::Recovery { rolled } => recovery::finished(scn, st, rolled),
                    _ => false,
                },
            },
            StepId::BigGunPlace => StepDef {
                phase: Phase::BigGun,
                decider: Decider::Phasing,
                fresh: || Step::BigGunPlace,
                begin: |ctx| ctx.st.big_guns.clear(),
                legal: big_gun::legal,
                apply: big_gun::apply,
                prompt: |_, st| {
                    format!(
                        "Place Big Gun {} within 3 hexes of a map edge, not in an Allied ZOC (10).",
                        st.big_guns.len() + 1
                    )
                },
                idle: list_them,
                done: |scn, st| st.big_guns.len() >= usize::from(scn.counters.markers.big_guns),
            },
            StepId::BigGunFire => StepDef {
                phase: Phase::BigGun,
                decider: Decider::Phasing,
                fresh: || Step::BigGunFire { shot: 0 },
                begin: nothing,
                legal: big_gun::legal,
                apply: big_gun::apply,
                prompt: |_, st| match next_shot(st) {
                    Some((gun, hex, shot)) => format!(
                        "Big Gun {} at {hex}: choose the direction of shot {} of 4 (10).",
                        gun + 1,
                        shot + 1
                    ),
                    None => String::new(),
                },
                // A gun always fires.
                idle: busy,
                done: |_, st| next_shot(st).is_none(),
            },
            StepId::Mines => StepDef {
                phase: Phase::ChineseMovement,
                decider: Decider::Phasing,
                fresh: || Step::Mines,
                begin: nothing,
                legal: mines::legal,
                apply: mines::apply,
                prompt: |_, st| {
                    format!(
                        "You may explode a mine ({} left) in a non-clear hex next to a Chinese unit, or pass (16).",
                        st.mines_left
                    )
                },
                idle: list_them,
                done: never,
            },
            StepId::Restore => StepDef {
                phase: Phase::ChineseMovement,
                decider: Decider::Phasing,
                fresh: || Step::Restore,
                begin: nothing,
                legal: replacements::legal,
                apply: replacements::apply,
                prompt: |_, st| {
                    format!(
                        "The pool is short of Boxers: restore up to {} reduced Boxer units in place, or pass (19).",
                        st.restores_left
                    )
                },
                idle: list_them,
                done: never,
            },
            StepId::ChineseEntry => entry_step(Phase::ChineseMovement),
            StepId::ChineseMove => move_step(Phase::ChineseMovement),
            StepId::Reaction => move_step(Phase::AlliedReaction),
            StepId::Sniper => StepDef {
                phase: Phase::Sniper,
                decider: Decider::Phasing,
                fresh: || Step::Sniper,
                begin: nothing,
                legal: sniper::legal,
                apply: sniper::apply,
                prompt: |_, _| {
                    "Choose an Allied leader for the sniper to fire at, or pass (8.1.4).".into()
                },
                idle: list_them,
                done: never,
            },
            StepId::ChineseFortify => fortify_step(Phase::ChineseCombat),
            StepId::Withdrawal => StepDef {
                phase: Phase::ChineseCombat,
                decider: Decider::Opponent,
                fresh: || Step::Withdrawal,
                begin: nothing,
                legal: withdrawal::legal,
                apply: withdrawal::apply,
                prompt: |_, _| {
                    "Before Chinese combat: roll for a leader's withdrawal, withdraw units allowed to, or pass (12).".into()
                },
                idle: list_them,
                done: never,
            },
            StepId::ChineseCombat => combat_step(Phase::ChineseCombat),
            StepId::Attrition => StepDef {
                phase: Phase::AlliedMovement,
                decider: Decider::Phasing,
                fresh: || Step::Attrition,
                begin: nothing,
                legal: attrition::legal,
                apply: attrition::apply,
                prompt: |_, _| {
                    "Attrition: choose a combat unit or volunteers to remove from the game (14)."
                        .into()
                },
                idle: list_them,
                done: never,
            },
            StepId::AlliedMove => move_step(Phase::AlliedMovement),
            StepId::AlliedFortify => fortify_step(Phase::AlliedCombat),
            StepId::Bayonet => StepDef {
                phase: Phase::AlliedCombat,
                decider: Decider::Phasing,
                fresh: || Step::Bayonet { group: None },
                begin: nothing,
                legal: |scn, st, out| bayonet::legal(scn, st, group(st), out),
                apply: bayonet::apply,
                prompt: |scn, st| {
                    match group(st) {
                    None => "Bayonet charges: select a leader and the unmoved units with him to charge, or pass (8.1.3).".into(),
                    Some(g) => format!(
                        "Charge with {}: choose the enemy hex, or add units (15 points a turn, {} used) (8.1.3).",
                        names(scn, &g.units),
                        st.charge_points
                    ),
                }
                },
                idle: list_them,
                done: never,
            },
            StepId::AlliedCombat => combat_step(Phase::AlliedCombat),
            StepId::LiftOff => StepDef {
                phase: Phase::EndOfTurn,
                decider: Decider::Phasing,
                fresh: || Step::LiftOff,
                begin: nothing,
                legal: entry::lift_legal,
                apply: entry::lift_apply,
                prompt: |_, _| {
                    "End of turn: lift Chinese stacks off the map to re-enter next turn, or end the turn (22).".into()
                },
                idle: list_them,
                done: never,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<StepId> {
        let mut v = vec![StepId::AlliedSetup, StepId::ChineseSetup];
        v.extend(TURN);
        v
    }

    #[test]
    fn every_step_is_read_back_from_its_own_fresh_state_4() {
        for id in all() {
            let def = id.def();
            let st = crate::face::testkit::Kit::new().st;
            let st = State {
                phase: def.phase,
                step: (def.fresh)(),
                ..st
            };
            assert_eq!(StepId::of(&st), Some(id), "{id:?}");
        }
    }

    #[test]
    fn the_turn_runs_through_the_seven_phases_in_order_4() {
        let phases: Vec<Phase> = TURN.iter().map(|s| s.def().phase).collect();
        let mut seen: Vec<Phase> = phases.clone();
        seen.dedup();
        let mut expected = Phase::TURN.to_vec();
        expected.push(Phase::EndOfTurn);
        assert_eq!(seen, expected, "each phase once, in the order of section 4");
        assert_eq!(StepId::LiftOff.next(), None);
        assert_eq!(StepId::ChineseSetup.next(), Some(StepId::Recovery));
    }

    #[test]
    fn the_allies_decide_recovery_and_withdrawal_in_chinese_phases_8_6_12() {
        assert_eq!(StepId::Recovery.def().side(), Side::Allied);
        assert_eq!(StepId::Withdrawal.def().side(), Side::Allied);
        assert_eq!(StepId::BigGunFire.def().side(), Side::Chinese);
        assert_eq!(StepId::Reaction.def().side(), Side::Allied);
        assert_eq!(StepId::ChineseFortify.def().side(), Side::Chinese);
    }
}
