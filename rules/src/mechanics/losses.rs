//! Steps and losses (8.6, 8.2, 10, 16): a two-step unit flips to its reduced side, a reduced or
//! one-step unit is eliminated. Chinese losses go to the pool of eliminated units that feeds the
//! replacements of section 19; Allied losses are permanent. When a result leaves the owner a
//! choice of unit, the choice is an interruption decided by the owner.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::pending::Pending;
use crate::position::state::{Loc, State};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// Take one step from unit `u`; returns the strength points that loss is worth (the difference
/// between the two sides of the counter, R6's reading of EX).
pub fn lose_step(ctx: &mut Ctx<'_>, u: UnitId, cause: &str) -> u8 {
    let c = ctx.scn.counters.get(u);
    let Some(hex) = ctx.st.unit(u).hex() else {
        return 0;
    };
    let reduced = ctx.st.unit(u).reduced;
    match c.reduced {
        Some(back) if !reduced => {
            ctx.st.unit_mut(u).reduced = true;
            let text = format!(
                "{} at {hex} lose a step ({cause}) and flip to strength {back} (8.6)",
                c.name
            );
            ctx.emit(EventKind::StepLost { unit: u, hex }, text);
            c.strength - back
        }
        _ => {
            let worth = c.strength_when(reduced);
            eliminate(ctx, u, cause);
            worth
        }
    }
}

/// Eliminate unit `u` (8.6): Chinese units go to the pool (19), Allied ones are lost for good.
/// A leader left without the combat units he was stacked with goes to the nearest friendly
/// unit (11.1).
pub fn eliminate(ctx: &mut Ctx<'_>, u: UnitId, cause: &str) {
    let hex = ctx.st.unit(u).hex();
    let c = ctx.scn.counters.get(u);
    ctx.st.unit_mut(u).loc = Loc::Eliminated;
    let fate = if c.side == Side::Chinese {
        "to the pool of eliminated units (19)"
    } else {
        "permanently (8.2)"
    };
    let at = hex.map_or(String::new(), |h| format!(" at {h}"));
    let text = format!("{}{at} eliminated ({cause}), {fate}", c.name);
    ctx.emit(
        EventKind::Eliminated {
            unit: u,
            hex,
            cause: cause.to_string(),
        },
        text,
    );
}

/// Which of `units` may absorb a step loss: combat units first; civilians and doctors only when
/// no combat unit is left; leaders only when alone (11.1). Artillery has no steps.
pub fn candidates(scn: &Scenario, st: &State, units: &[UnitId]) -> Vec<UnitId> {
    let alive: Vec<UnitId> = units
        .iter()
        .copied()
        .filter(|u| st.unit(*u).hex().is_some())
        .collect();
    let tiers: [&[UnitKind]; 3] = [
        &[
            UnitKind::Combat,
            UnitKind::Volunteer,
            UnitKind::Boxer,
            UnitKind::Imperial,
        ],
        &[UnitKind::Civilian, UnitKind::Doctor],
        &[UnitKind::Leader],
    ];
    for tier in tiers {
        let found: Vec<UnitId> = alive
            .iter()
            .copied()
            .filter(|u| tier.contains(&scn.counters.get(*u).kind))
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// Ask `side` to take `steps` single step losses, or losses worth `points`, among `units`.
pub fn push_loss(
    ctx: &mut Ctx<'_>,
    side: Side,
    units: Vec<UnitId>,
    steps: u8,
    points: u8,
    cause: &str,
) {
    if units.is_empty() || (steps == 0 && points == 0) {
        return;
    }
    let cause = cause.to_string();
    ctx.st.pending.push(Pending::StepLoss {
        side,
        units,
        steps,
        points,
        cause,
        free: false,
    });
}

/// The units of a free-choice loss: any unit still on the map (10).
fn free_candidates(st: &State, units: &[UnitId]) -> Vec<UnitId> {
    units
        .iter()
        .copied()
        .filter(|u| st.unit(*u).hex().is_some())
        .collect()
}

/// The legal choices of a step loss.
pub fn legal(scn: &Scenario, st: &State, units: &[UnitId], free: bool, out: &mut Vec<Action>) {
    let choice = if free {
        free_candidates(st, units)
    } else {
        candidates(scn, st, units)
    };
    for unit in choice {
        out.push(Action::LoseStep { unit });
    }
}

/// Apply the owner's choice of unit.
pub fn apply_choice(ctx: &mut Ctx<'_>, action: &Action) {
    let Action::LoseStep { unit } = action else {
        return;
    };
    let Some(Pending::StepLoss {
        side,
        units,
        steps,
        points,
        cause,
        free,
    }) = ctx.st.pending.first().cloned()
    else {
        return;
    };
    ctx.st.pending.remove(0);
    let worth = lose_step(ctx, *unit, &cause);
    let (steps, points) = if points > 0 {
        (0, points.saturating_sub(worth))
    } else {
        (steps.saturating_sub(1), 0)
    };
    if steps > 0 || points > 0 {
        // Keep the rest of this loss ahead of anything queued after it.
        let at = ctx
            .st
            .pending
            .iter()
            .take_while(|p| matches!(p, Pending::PlaceLeader { .. }))
            .count();
        ctx.st.pending.insert(
            at,
            Pending::StepLoss {
                side,
                units,
                steps,
                points,
                cause,
                free,
            },
        );
    }
}

/// Drop a step loss with nobody left to take it.
pub fn prune(ctx: &mut Ctx<'_>) -> bool {
    let Some(Pending::StepLoss { units, free, .. }) = ctx.st.pending.first() else {
        return false;
    };
    let left = if *free {
        free_candidates(ctx.st, units)
    } else {
        candidates(ctx.scn, ctx.st, units)
    };
    if left.is_empty() {
        ctx.st.pending.remove(0);
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn a_two_step_unit_flips_then_dies_8_6() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let gb = kit.put("gb1", h);
        let worth = kit.run_value(|ctx| lose_step(ctx, gb, "test"));
        assert_eq!(worth, 2);
        assert!(kit.st.unit(gb).reduced);
        let worth = kit.run_value(|ctx| lose_step(ctx, gb, "test"));
        assert_eq!(worth, 2);
        assert_eq!(kit.st.unit(gb).loc, Loc::Eliminated);
    }

    #[test]
    fn a_one_step_unit_dies_at_once_and_chinese_losses_go_to_the_pool_8_6_19() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let im = kit.place(UnitKind::Imperial, Side::Chinese, h);
        let events = kit.run(|ctx| {
            lose_step(ctx, im, "test");
        });
        assert_eq!(kit.st.unit(im).loc, Loc::Eliminated);
        assert!(events[0].text.contains("pool"));
    }

    #[test]
    fn leaders_take_losses_only_when_alone_11_1() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let gb = kit.put("gb1", h);
        let myers = kit.put("myers", h);
        let civ = kit.put("civ1", h);
        assert_eq!(candidates(&kit.scn, &kit.st, &[gb, myers, civ]), vec![gb]);
        assert_eq!(candidates(&kit.scn, &kit.st, &[myers, civ]), vec![civ]);
        assert_eq!(candidates(&kit.scn, &kit.st, &[myers]), vec![myers]);
    }
}
