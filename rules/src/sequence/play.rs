//! Playing the sequence (4, 20, 22): whose decision it is, what they may do, applying it, and
//! then settling everything that needs no decision — the checks that follow every action,
//! interruptions with one choice, steps that ended by themselves or have nothing to decide —
//! until a real decision is pending or the game is over. A settling loop that never ends would
//! be an engine bug: it stops after [`SETTLE_LIMIT`] rounds with [`RuleError::Runaway`].

use crate::mechanics::{replacements, victory};
use crate::position::action::Action;
use crate::position::command;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::state::{State, phasing_side};
use crate::position::step_id::StepId;
use crate::sequence::after_action;
use crate::sequence::interruptions;
use crate::sequence::steps::StepDef;
use crate::vocabulary::error::RuleError;
use crate::vocabulary::scenario::{LAST_TURN, Scenario};
use siege_protocol::{Phase, Side};

/// Rounds of settling after one action beyond which the engine gives up. A whole game is
/// about 2,500 decisions and one action settles in a few dozen rounds at most.
pub const SETTLE_LIMIT: usize = 10_000;

/// The descriptor of the step the state is in; `None` once the game is over.
fn current(st: &State) -> Option<StepDef> {
    (!st.is_over()).then(|| st.slot.def())
}

/// The side whose decision it is; `None` once the game is over.
pub fn to_act(st: &State) -> Option<Side> {
    if st.is_over() {
        return None;
    }
    match st.pending.first() {
        Some(p) => Some(p.side()),
        None => Some(st.slot.side()),
    }
}

/// The legal actions of the side to act.
pub fn legal(scn: &Scenario, st: &State) -> Vec<Action> {
    let mut out = Vec::new();
    if st.is_over() {
        return out;
    }
    if let Some(p) = st.pending.first() {
        interruptions::legal(scn, st, p, &mut out);
    } else {
        (st.slot.def().legal)(scn, st, &mut out);
    }
    out
}

/// What the side to act is asked, in words.
pub fn prompt(scn: &Scenario, st: &State) -> String {
    match st.pending.first() {
        Some(p) if !st.is_over() => interruptions::prompt(scn, p),
        _ => (st.slot.def().prompt)(scn, st),
    }
}

/// The wire name of the state's step (`move`, `big_gun_fire`, …): serde's name for it
/// ([`crate::position::state::Step::name`]).
pub fn step_name(st: &State) -> String {
    st.step.name().to_string()
}

/// Apply a legal action, then settle. Fails only if settling runs away (an engine bug); the
/// caller then discards the changed state.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) -> Result<(), RuleError> {
    if !ctx.st.pending.is_empty() {
        interruptions::apply(ctx, action);
    } else if matches!(action, Action::EndPhase | Action::Pass) {
        next_step(ctx);
    } else if let Some(def) = current(ctx.st) {
        (def.apply)(ctx, action);
        if std::mem::take(&mut ctx.step_done) {
            next_step(ctx);
        }
    }
    settle(ctx)
}

/// After an action: run the after-action checks, settle interruptions that leave no choice,
/// and pass over steps that ended by themselves or have nothing to decide, until a real
/// decision is pending or the game is over.
pub fn settle(ctx: &mut Ctx<'_>) -> Result<(), RuleError> {
    settle_within(ctx, SETTLE_LIMIT)
}

/// [`settle`] with the bound given: at most `limit` rounds, then [`RuleError::Runaway`]; the
/// same error where the after-action checks ran out of their own rounds on the way
/// ([`Ctx::unsettled`]).
fn settle_within(ctx: &mut Ctx<'_>, limit: usize) -> Result<(), RuleError> {
    let settled = settle_rounds(ctx, limit);
    if ctx.unsettled {
        return Err(RuleError::Runaway {
            rounds: after_action::ROUNDS,
        });
    }
    settled
}

/// The rounds of [`settle_within`].
fn settle_rounds(ctx: &mut Ctx<'_>, limit: usize) -> Result<(), RuleError> {
    for _ in 0..limit {
        if ctx.st.is_over() {
            return Ok(());
        }
        after_action::run(ctx);
        if ctx.st.is_over() {
            return Ok(());
        }
        if !ctx.st.pending.is_empty() {
            if interruptions::prune(ctx) {
                continue;
            }
            let legal = legal(ctx.scn, ctx.st);
            if legal.len() == 1 {
                interruptions::apply(ctx, &legal[0]);
                continue;
            }
            return Ok(());
        }
        let Some(def) = current(ctx.st) else {
            return Ok(());
        };
        if (def.done)(ctx.scn, ctx.st) {
            next_step(ctx);
            continue;
        }
        if nothing_to_decide(ctx.scn, ctx.st) {
            let phase = ctx.st.phase();
            let step = step_name(ctx.st);
            let text = format!(
                "{}: nothing to decide in the {} step",
                phase.title(),
                step.replace('_', " ")
            );
            ctx.emit(EventKind::Skipped { phase, step }, text);
            next_step(ctx);
            continue;
        }
        return Ok(());
    }
    Err(RuleError::Runaway { rounds: limit })
}

/// Whether the only legal action of the current step is to end it (`end_phase` or `pass`).
pub fn nothing_to_decide(scn: &Scenario, st: &State) -> bool {
    let Some(def) = current(st) else {
        return false;
    };
    (def.idle)(scn, st).unwrap_or_else(|| {
        let mut legal = Vec::new();
        (def.legal)(scn, st, &mut legal);
        only_ends_the_step(&legal)
    })
}

/// Whether a legal list offers nothing but ending the step (`end_phase` or `pass`).
pub fn only_ends_the_step(legal: &[Action]) -> bool {
    matches!(legal, [Action::EndPhase | Action::Pass])
}

/// Move on to the next step of the sequence of play, or end the turn after the last.
pub fn next_step(ctx: &mut Ctx<'_>) {
    if !ctx.st.is_over() {
        (ctx.st.slot.def().end)(ctx);
    }
    match ctx.st.slot {
        StepId::Over => {}
        StepId::ChineseSetup => begin_turn(ctx, 1),
        slot => match slot.next() {
            Some(next) => enter(ctx, next),
            None => end_turn(ctx),
        },
    }
}

/// Enter a step: its phase begins if it is a new one, then the step's own beginning.
fn enter(ctx: &mut Ctx<'_>, slot: StepId) {
    if slot.phase() != ctx.st.phase() {
        begin_phase(ctx, slot.phase());
    }
    ctx.st.go_to(slot, slot.fresh());
    (slot.def().begin)(ctx);
}

/// What happens as a phase begins: it is announced, and the marks it resets are reset.
fn begin_phase(ctx: &mut Ctx<'_>, phase: Phase) {
    let turn = ctx.st.turn;
    let text = match phase {
        Phase::ChineseSetup => {
            "The Allies are in position; the Chinese enter at the map edge (22)".to_string()
        }
        _ => format!("Turn {turn}: {}", phase.title()),
    };
    ctx.emit(EventKind::PhaseBegan { turn, phase }, text);
    match phase {
        Phase::ChineseMovement | Phase::AlliedReaction | Phase::AlliedMovement => {
            let side = phasing_side(phase);
            for (i, marks) in ctx.st.units.marks_mut().enumerate() {
                if ctx.scn.counters.counters[i].side == side {
                    marks.moved = false;
                    if phase != Phase::AlliedReaction {
                        marks.moved_full = false;
                    }
                }
            }
            if side == Side::Allied {
                command::mark(ctx.scn, ctx.st);
            }
        }
        Phase::ChineseCombat | Phase::AlliedCombat => {
            for marks in ctx.st.units.marks_mut() {
                marks.attacked = false;
                marks.defended = false;
            }
        }
        _ => {}
    }
}

/// Start game turn `turn` (4, 20): per-turn counters reset, replacements arrive (19).
pub fn begin_turn(ctx: &mut Ctx<'_>, turn: u8) {
    ctx.st.turn = turn;
    ctx.st.sniper_used = false;
    ctx.st.charge_points = 0;
    ctx.st.withdrawal_rolled.clear();
    ctx.st.withdrawal_allowed.clear();
    ctx.st.big_guns.clear();
    for marks in ctx.st.units.marks_mut() {
        marks.recovery_failed = false;
    }
    ctx.emit(
        EventKind::TurnBegan { turn },
        format!("Game turn {turn} of 11 begins (20)"),
    );
    replacements::arrive(ctx);
    enter(ctx, StepId::TURN_BEGINS);
}

/// The end of a turn: after turn 11 the game ends (20, 21); otherwise the next turn begins.
/// The after-action checks run first, so that victory is judged on the position as it stands —
/// civilians left without escort are lost before the thresholds are read (15, R7).
fn end_turn(ctx: &mut Ctx<'_>) {
    if ctx.st.turn >= LAST_TURN {
        after_action::run(ctx);
        victory::check_final(ctx);
    } else {
        let next = ctx.st.turn + 1;
        begin_turn(ctx, next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;
    use crate::position::state::Step;

    /// Turn 11's Allied combat with one British unit on an open map and no Chinese: ending it
    /// passes over the lift-off and ends the game — settling that takes a few rounds.
    fn last_combat() -> Kit {
        let mut kit = Kit::open();
        kit.at(11, Phase::AlliedCombat, Step::Combat);
        kit.put("gb1", crate::face::testkit::hex("1010"));
        kit
    }

    #[test]
    fn settling_stops_at_its_bound_with_a_runaway_error_4() {
        // How many rounds the real settling takes here.
        let mut kit = last_combat();
        let needed = (1..100)
            .find(|&limit| {
                let mut st = kit.st.clone();
                let mut ctx = Ctx::new(&kit.scn, &mut st);
                next_step(&mut ctx);
                settle_within(&mut ctx, limit).is_ok()
            })
            .expect("the game ends within 100 rounds");
        assert!(needed > 1, "a loop that runs more than once");
        // One round short of it, the loop stops and says so: a loop that would never end stops
        // the same way at SETTLE_LIMIT.
        let mut ctx = Ctx::new(&kit.scn, &mut kit.st);
        next_step(&mut ctx);
        assert_eq!(
            settle_within(&mut ctx, needed - 1),
            Err(RuleError::Runaway { rounds: needed - 1 })
        );
        assert!(
            needed < SETTLE_LIMIT / 100,
            "no real game comes near the bound"
        );
    }

    #[test]
    fn the_checks_run_before_the_final_victory_is_judged_15_21_r7() {
        // Turn 11 ends. Three civilians were lost; the fourth stands alone at 0101 — a custom
        // position can start so — and the Chinese hold five of the seven primary hexes. Lost
        // before the judgement, the last civilians lower the Chinese need to five (15, 21).
        let mut kit = last_combat();
        for code in ["civ1", "civ2", "civ3"] {
            let u = kit.id(code);
            kit.st.unit_mut(u).loc = crate::position::state::Loc::Eliminated;
        }
        let civ = kit.put("civ4", crate::face::testkit::hex("0101"));
        let primaries: Vec<usize> = kit
            .scn
            .map
            .victory_hexes()
            .iter()
            .enumerate()
            .filter(|(_, (_, k))| *k == crate::vocabulary::map::VictoryKind::Primary)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(primaries.len(), 7);
        for &i in &primaries[..5] {
            kit.st.control[i] = Side::Chinese;
        }
        // From the turn's last step, the end of the turn comes straight from the action.
        kit.at(11, Phase::EndOfTurn, Step::LiftOff);
        let mut game = kit.game();
        game.apply(Side::Chinese, &Action::EndPhase).unwrap();
        assert_eq!(
            game.state().unit(civ).loc,
            crate::position::state::Loc::Eliminated
        );
        let result = game.result().expect("the game is over");
        assert_eq!(
            (result.winner, result.reason.as_str()),
            (Side::Chinese, "primary_hexes")
        );
    }
}
