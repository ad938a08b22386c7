//! Chinese replacements (19): from turn 2 the Chinese player receives 3 Boxer and 3 Imperial
//! units a turn from the pool of eliminated units; they enter at any map-edge hex and move
//! normally that turn. When the pool holds too few Boxers, reduced Boxer units may be restored
//! to full strength in place instead.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::state::{Loc, State};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};

/// Replacements of each kind a turn (19).
const PER_TURN: u8 = 3;

fn pool(scn: &Scenario, st: &State, kind: UnitKind) -> Vec<UnitId> {
    scn.counters
        .counters
        .iter()
        .filter(|c| {
            c.kind == kind && st.unit(c.id).loc == Loc::Eliminated && !st.absent.contains(&c.id)
        })
        .map(|c| c.id)
        .collect()
}

/// At the start of a turn from turn 2: replacements leave the pool for the off-map area, to
/// enter at the map edge; any Boxer shortfall becomes restores in place (19).
pub fn arrive(ctx: &mut Ctx<'_>) {
    ctx.st.restores_left = 0;
    if ctx.st.turn < 2 {
        return;
    }
    let boxers: Vec<UnitId> = pool(ctx.scn, ctx.st, UnitKind::Boxer)
        .into_iter()
        .take(PER_TURN.into())
        .collect();
    let imperials: Vec<UnitId> = pool(ctx.scn, ctx.st, UnitKind::Imperial)
        .into_iter()
        .take(PER_TURN.into())
        .collect();
    for &u in boxers.iter().chain(&imperials) {
        let us = ctx.st.unit_mut(u);
        us.loc = Loc::OffMap;
        us.reduced = false;
    }
    let b = u8::try_from(boxers.len()).unwrap_or(PER_TURN);
    let i = u8::try_from(imperials.len()).unwrap_or(PER_TURN);
    ctx.st.restores_left = PER_TURN - b;
    if b + i > 0 {
        ctx.emit(
            EventKind::Replacements { boxers: b, imperials: i },
            format!("Chinese replacements: {b} Boxer and {i} Imperial units return from the pool to enter at the map edge (19)"),
        );
    }
}

/// Reduced Boxers the Chinese may restore in place.
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    if st.restores_left > 0 {
        for c in scn
            .counters
            .counters
            .iter()
            .filter(|c| c.kind == UnitKind::Boxer)
        {
            let u = st.unit(c.id);
            if u.reduced && matches!(u.loc, Loc::Map(_)) {
                out.push(Action::Restore { unit: c.id });
            }
        }
    }
    out.push(Action::Pass);
}

/// Restore the chosen Boxer unit to full strength in place.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    if let Action::Restore { unit } = action {
        ctx.st.unit_mut(*unit).reduced = false;
        ctx.st.restores_left = ctx.st.restores_left.saturating_sub(1);
        let at = ctx
            .st
            .unit(*unit)
            .hex()
            .map_or(String::new(), |h| format!(" at {h}"));
        let text = format!(
            "{}{at} are restored to full strength in place (19)",
            ctx.name(*unit)
        );
        ctx.emit(EventKind::Restored { unit: *unit }, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn three_boxers_and_three_imperials_return_from_the_pool_from_turn_2_19() {
        let mut kit = Kit::new();
        for code in ["bx01", "bx02", "bx03", "bx04", "im01"] {
            let u = kit.id(code);
            kit.st.unit_mut(u).loc = Loc::Eliminated;
        }
        kit.st.turn = 1;
        kit.run(arrive);
        assert_eq!(kit.st.unit(kit.id("bx01")).loc, Loc::Eliminated);
        kit.st.turn = 2;
        kit.run(arrive);
        let back: Vec<&str> = ["bx01", "bx02", "bx03", "bx04", "im01"]
            .into_iter()
            .filter(|c| kit.st.unit(kit.id(c)).loc == Loc::OffMap)
            .collect();
        assert_eq!(back, ["bx01", "bx02", "bx03", "im01"]);
        assert_eq!(kit.st.restores_left, 0);
    }

    #[test]
    fn a_short_pool_lets_reduced_boxers_be_restored_in_place_19() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let bx = kit.place(UnitKind::Boxer, siege_protocol::Side::Chinese, h);
        kit.st.unit_mut(bx).reduced = true;
        kit.st.turn = 3;
        kit.run(arrive);
        assert_eq!(kit.st.restores_left, 3);
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &mut out);
        assert!(out.contains(&Action::Restore { unit: bx }));
        kit.run(|ctx| apply(ctx, &Action::Restore { unit: bx }));
        assert!(!kit.st.unit(bx).reduced);
        assert_eq!(kit.st.unit(bx).loc, Loc::Map(h));
    }
}
