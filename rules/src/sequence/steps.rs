//! The steps of the sequence of play (4, 20, 22), one descriptor each: who decides it, what
//! happens as it begins, its legal actions, how it applies one, its prompt, and when it ends by
//! itself. Where a step stands — its slot, its phase and its data as it begins — is its row in
//! `position/step_id.rs`; the state keeps the slot. Adding a step is that row and one arm of
//! [`StepId::def`]; the rest of the engine reads the two.
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
use crate::position::step_id::StepId;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use siege_protocol::Side;

/// Which player decides a step: the one whose phase it is, or the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decider {
    Phasing,
    Opponent,
}

/// Everything about one step of the sequence of play but its place (its phase and its
/// starting data, in `position/step_id.rs`).
pub struct StepDef {
    pub decider: Decider,
    /// What happens as the step begins, before anyone decides.
    pub begin: fn(&mut Ctx<'_>),
    /// What happens as the step ends, however it ends.
    pub end: fn(&mut Ctx<'_>),
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

/// A quick answer that must be the one the legal list gives (`legal` offering only `pass` or
/// `end_phase`): debug builds — every test game — list the actions too and check.
fn exactly(
    scn: &Scenario,
    st: &State,
    legal: fn(&Scenario, &State, &mut Vec<Action>),
    idle: bool,
) -> Option<bool> {
    debug_assert!(
        {
            let mut listed = Vec::new();
            legal(scn, st, &mut listed);
            idle == crate::sequence::play::only_ends_the_step(&listed)
        },
        "the quick answer of {:?} ({idle}) is not its legal list's",
        st.slot
    );
    Some(idle)
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

fn move_step() -> StepDef {
    StepDef {
        decider: Decider::Phasing,
        begin: nothing,
        end: nothing,
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

fn fortify_step() -> StepDef {
    StepDef {
        decider: Decider::Phasing,
        begin: nothing,
        end: nothing,
        legal: fortifications::legal,
        apply: fortifications::apply,
        prompt: |scn, st| {
            format!(
                "Build fortifications under unmoved stacks in clear or ruined hexes, or pass ({} left) (13).",
                fortifications::left(scn, st, phasing_side(st.phase()))
            )
        },
        idle: |scn, st| {
            let idle = !fortifications::any_buildable(scn, st);
            exactly(scn, st, fortifications::legal, idle)
        },
        done: never,
    }
}

fn combat_step() -> StepDef {
    StepDef {
        decider: Decider::Phasing,
        begin: nothing,
        // An attack declared and not resolved lapses with the step (8).
        end: |ctx| ctx.st.declaration = None,
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

fn entry_step() -> StepDef {
    StepDef {
        decider: Decider::Phasing,
        begin: nothing,
        end: nothing,
        legal: |scn, st, out| entry::legal(scn, st, selected_entry(st), out),
        apply: entry::apply,
        prompt: |scn, st| entry::prompt(scn, st, selected_entry(st)),
        // The Chinese setup ends only when the Chinese player ends it, every unit entered or
        // not (22): the default entry leaves room to look it over and take it back.
        idle: |scn, st| Some(st.slot != StepId::ChineseSetup && !entry::any_waiting(scn, st)),
        done: never,
    }
}

impl StepId {
    /// The side that decides the step.
    pub fn side(self) -> Side {
        let phasing = phasing_side(self.phase());
        match self.def().decider {
            Decider::Phasing => phasing,
            Decider::Opponent => phasing.other(),
        }
    }

    /// The step's descriptor.
    pub fn def(self) -> StepDef {
        match self {
            StepId::AlliedSetup => StepDef {
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
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
            StepId::ChineseSetup => entry_step(),
            StepId::Recovery => StepDef {
                decider: Decider::Opponent,
                // Nothing is rolled until the Allied player chooses (R7).
                begin: nothing,
                end: nothing,
                legal: recovery::legal,
                apply: recovery::apply,
                prompt: |_, st| {
                    let rolled = match st.step {
                        Step::Recovery { rolled } => rolled,
                        _ => 0,
                    };
                    format!(
                        "Choose a reduced unit in the hospital to roll for recovery ({rolled} of 3 tried this turn), or pass to try no more (8.6, R7)."
                    )
                },
                idle: list_them,
                done: |scn, st| match st.step {
                    Step::Recovery { rolled } => recovery::finished(scn, st, rolled),
                    _ => false,
                },
            },
            StepId::BigGunPlace => StepDef {
                decider: Decider::Phasing,
                // The guns of the last turn were lifted as the turn began (10).
                begin: nothing,
                end: nothing,
                legal: big_gun::legal,
                apply: big_gun::apply,
                prompt: |_, st| {
                    format!(
                        "Place Big Gun {} within 3 hexes of a map edge, not in an Allied ZOC (10).",
                        st.big_guns.len() + 1
                    )
                },
                idle: |scn, st| {
                    let idle = !big_gun::any_placeable(scn, st);
                    exactly(scn, st, big_gun::legal, idle)
                },
                done: |scn, st| st.big_guns.len() >= usize::from(scn.counters.markers.big_guns),
            },
            StepId::BigGunFire => StepDef {
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
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
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
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
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
                legal: replacements::legal,
                apply: replacements::apply,
                prompt: |_, st| {
                    format!(
                        "The replacement pool is short: restore up to {} reduced Boxer units in place, or pass (19, R7).",
                        st.restores_left
                    )
                },
                idle: list_them,
                done: never,
            },
            StepId::ChineseEntry => entry_step(),
            StepId::ChineseMove => move_step(),
            StepId::Reaction => move_step(),
            StepId::Sniper => StepDef {
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
                legal: sniper::legal,
                apply: sniper::apply,
                prompt: |_, _| {
                    "Choose an Allied leader for the sniper to fire at, or pass (8.1.4).".into()
                },
                idle: list_them,
                done: never,
            },
            StepId::ChineseFortify => fortify_step(),
            StepId::Withdrawal => StepDef {
                decider: Decider::Opponent,
                begin: nothing,
                end: nothing,
                legal: withdrawal::legal,
                apply: withdrawal::apply,
                prompt: |_, _| {
                    "Before Chinese combat: roll for a leader's withdrawal, withdraw units allowed to, or pass (12).".into()
                },
                idle: list_them,
                done: never,
            },
            StepId::ChineseCombat => combat_step(),
            StepId::Attrition => StepDef {
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
                legal: attrition::legal,
                apply: attrition::apply,
                prompt: |_, _| {
                    "Attrition: choose a combat unit or volunteers to remove from the game (14)."
                        .into()
                },
                idle: list_them,
                done: never,
            },
            StepId::AlliedMove => move_step(),
            StepId::AlliedFortify => fortify_step(),
            StepId::Bayonet => StepDef {
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
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
            StepId::AlliedCombat => combat_step(),
            StepId::LiftOff => StepDef {
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
                legal: entry::lift_legal,
                apply: entry::lift_apply,
                prompt: |_, _| {
                    "End of turn: lift Chinese stacks off the map to re-enter next turn, or end the turn (22).".into()
                },
                idle: list_them,
                done: never,
            },
            // Nothing is decided once the game is over; the engine asks no one (`play.rs`).
            StepId::Over => StepDef {
                decider: Decider::Phasing,
                begin: nothing,
                end: nothing,
                legal: |_, _, _| {},
                apply: |_, _| {},
                prompt: |_, st| match st.result() {
                    Some(r) => format!("Game over. {}", r.text),
                    None => String::new(),
                },
                idle: busy,
                done: never,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allies_decide_recovery_and_withdrawal_in_chinese_phases_8_6_12() {
        assert_eq!(StepId::Recovery.side(), Side::Allied);
        assert_eq!(StepId::Withdrawal.side(), Side::Allied);
        assert_eq!(StepId::BigGunFire.side(), Side::Chinese);
        assert_eq!(StepId::Reaction.side(), Side::Allied);
        assert_eq!(StepId::ChineseFortify.side(), Side::Chinese);
    }
}
