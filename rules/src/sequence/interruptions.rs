//! Interruptions: decisions a resolution leaves to settle before the phase goes on, in order —
//! which unit takes a step loss (8.2, 10), each hex of a retreat (8.3) or withdrawal (12), the
//! advance after combat (8.4), where a displaced leader goes (11.1), which units an over-stacked
//! hex loses (7), and the defending Allied leaders' choice before a Chinese attack is rolled
//! (11.1). Each belongs to one side, which may not be the side in phase.

use crate::position::action::Action;
use crate::position::ctx::{Ctx, names};
use crate::position::pending::Pending;
use crate::position::state::State;
use crate::vocabulary::scenario::Scenario;
use crate::{
    mechanics::advance, mechanics::bayonet, mechanics::combat, mechanics::leaders,
    mechanics::losses, mechanics::retreat, mechanics::stacking_loss,
};

/// The legal actions of an interruption.
pub fn legal(scn: &Scenario, st: &State, p: &Pending, out: &mut Vec<Action>) {
    match p {
        Pending::StepLoss { units, free, .. } => losses::legal(scn, st, units, *free, out),
        Pending::Retreat(r) => retreat::legal(scn, st, r, out),
        Pending::Advance { units, hexes, .. } => advance::legal(scn, st, units, hexes, out),
        Pending::PlaceLeader { leader, from } => leaders::legal(scn, st, *leader, *from, out),
        Pending::Overstack { hex, .. } => stacking_loss::legal(scn, st, *hex, out),
        Pending::DefenderLeaders => combat::defender_leaders_legal(scn, st, out),
        Pending::Occupy { .. } => {}
    }
}

/// Apply a legal action to the first interruption.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Some(p) = ctx.st.pending.first().cloned() else {
        return;
    };
    match p {
        Pending::StepLoss { .. } => losses::apply_choice(ctx, action),
        Pending::Retreat(_) => retreat::apply(ctx, action),
        Pending::Advance { .. } => advance::apply(ctx, action),
        Pending::PlaceLeader { .. } => leaders::apply(ctx, action),
        Pending::Overstack { .. } => stacking_loss::apply(ctx, action),
        Pending::DefenderLeaders => combat::defender_leaders_apply(ctx, action),
        Pending::Occupy { .. } => {}
    }
}

/// Drop or settle the first interruption if events have made it moot (its units gone, nothing
/// left to choose). Returns whether anything changed.
pub fn prune(ctx: &mut Ctx<'_>) -> bool {
    let Some(p) = ctx.st.pending.first().cloned() else {
        return false;
    };
    match p {
        Pending::StepLoss { .. } => losses::prune(ctx),
        Pending::Retreat(_) => retreat::prune(ctx),
        Pending::Advance { .. } => advance::prune(ctx),
        Pending::PlaceLeader { .. } => leaders::prune(ctx),
        Pending::Overstack { .. } => stacking_loss::prune(ctx),
        Pending::DefenderLeaders => false,
        Pending::Occupy { .. } => bayonet::occupy(ctx),
    }
}

/// What the side settling an interruption is asked, in words.
pub fn prompt(scn: &Scenario, p: &Pending) -> String {
    match p {
        Pending::StepLoss { units, steps, points, cause, .. } => {
            let what = if *points > 0 { format!("at least {points} more strength points") } else { format!("{steps} step") };
            format!("{cause}: choose which of {} loses {what} (8.2, 8.6).", names(scn, units))
        }
        Pending::Retreat(r) => {
            let gone = r.visited.len() - 1;
            let verb = if r.withdrawal { "Withdraw" } else { "Retreat" };
            format!(
                "{verb} {} from {}: {gone} of {} hexes so far; never into enemy ZOC (8.3, 12).",
                names(scn, &r.units),
                r.at,
                r.max
            )
        }
        Pending::Advance { .. } => "You may advance one unit that took part into the vacated hex, or pass (8.4).".into(),
        Pending::PlaceLeader { leader, from } => format!(
            "{}'s stack at {from} is gone: move him to the nearest friendly unit (11.1).",
            scn.counters.get(*leader).name
        ),
        Pending::Overstack { hex, .. } => format!("{hex} is over-stacked after a retreat: choose units to eliminate (7)."),
        Pending::DefenderLeaders => {
            "The Chinese attack your leaders' stack: choose each leader's use (strength 1 or die −1), then roll (11.1).".into()
        }
        Pending::Occupy { .. } => "The chargers take the hex (8.1.3).".into(),
    }
}
