//! Fortifications (13; rulings R3, R7): before his combat phase a player may place a
//! fortification under at least 5 (Allied) or 10 (Chinese) strength points that did not move in
//! his movement phase — units that entered the map this turn have moved — in a clear or ruined
//! hex, even in an enemy ZOC. Twelve counters a side; a fortification protects whoever occupies it (×3, as a wall), blocks line of sight, and is removed only by the
//! Big Gun, whose counter the builder may use again.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::state::ground;
use crate::position::state::phasing_side;
use crate::position::state::{Fortification, State};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use siege_protocol::Side;

/// Strength points that must stay put to build (13).
fn points_needed(side: Side) -> u32 {
    match side {
        Side::Allied => 5,
        Side::Chinese => 10,
    }
}

/// Counters of `side` still off the map.
pub fn left(scn: &Scenario, st: &State, side: Side) -> usize {
    let total = match side {
        Side::Allied => scn.counters.markers.fortifications_allied,
        Side::Chinese => scn.counters.markers.fortifications_chinese,
    };
    let used = st
        .fortifications
        .iter()
        .filter(|f| f.built_by == side)
        .count();
    usize::from(total).saturating_sub(used)
}

/// Whether `side` may fortify `hex` now (13).
pub fn can_build(scn: &Scenario, st: &State, side: Side, hex: Hex) -> bool {
    if st.fortification(hex).is_some() || !ground(&scn.map, st, hex).takes_fortification() {
        return false;
    }
    let mut points: u32 = 0;
    for u in st.units_at(hex) {
        let c = scn.counters.get(u);
        if c.side != side {
            return false;
        }
        if c.kind.counts_for_stacking() && !st.unit(u).marks.moved_full {
            points += u32::from(c.strength_when(st.unit(u).reduced));
        }
    }
    points >= points_needed(side)
}

/// The hexes the phasing side may fortify, and passing.
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    let side = phasing_side(st.phase());
    if left(scn, st, side) > 0 {
        out.extend(
            occupied(scn, st, side)
                .into_iter()
                .filter(|h| can_build(scn, st, side, *h))
                .map(|hex| Action::Fortify { hex }),
        );
    }
    out.push(Action::Pass);
}

/// The hexes holding units of `side`, in hex order.
fn occupied(scn: &Scenario, st: &State, side: Side) -> Vec<Hex> {
    let mut hexes: Vec<Hex> = scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == side)
        .filter_map(|c| st.unit(c.id).hex())
        .collect();
    hexes.sort();
    hexes.dedup();
    hexes
}

/// Whether the phasing side can build anywhere now (13): where it cannot, the step has
/// nothing to decide but passing. Stops at the first hex found.
pub fn any_buildable(scn: &Scenario, st: &State) -> bool {
    let side = phasing_side(st.phase());
    left(scn, st, side) > 0
        && occupied(scn, st, side)
            .into_iter()
            .any(|h| can_build(scn, st, side, h))
}

/// Build a fortification.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Action::Fortify { hex } = action else {
        return;
    };
    let side = phasing_side(ctx.st.phase());
    let f = Fortification {
        hex: *hex,
        built_by: side,
    };
    let at = ctx
        .st
        .fortifications
        .binary_search(&f)
        .unwrap_or_else(|i| i);
    ctx.st.fortifications.insert(at, f);
    let remaining = left(ctx.scn, ctx.st, side);
    ctx.emit(
        EventKind::Fortified { hex: *hex, side },
        format!("The {side} player fortifies {hex} ({remaining} fortifications left) (13)"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;
    use crate::vocabulary::units::UnitKind;

    #[test]
    fn the_allies_need_5_unmoved_points_in_clear_terrain_13() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let gb = kit.put("gb1", h);
        assert!(
            !can_build(&kit.scn, &kit.st, Side::Allied, h),
            "4 points are not enough"
        );
        kit.put("myers", h);
        assert!(can_build(&kit.scn, &kit.st, Side::Allied, h));
        kit.st.unit_mut(gb).marks.moved_full = true;
        assert!(
            !can_build(&kit.scn, &kit.st, Side::Allied, h),
            "the points must not have moved"
        );
    }

    #[test]
    fn the_chinese_need_10_points_and_never_in_a_building_13() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        kit.place(UnitKind::Boxer, Side::Chinese, h);
        assert!(can_build(&kit.scn, &kit.st, Side::Chinese, h));
        let (b, _) = kit.building_next_to_clear();
        kit.place(UnitKind::Boxer, Side::Chinese, b);
        assert!(!can_build(&kit.scn, &kit.st, Side::Chinese, b));
        kit.st.ruins.push(b);
        kit.st.ruins.sort();
        assert!(
            can_build(&kit.scn, &kit.st, Side::Chinese, b),
            "ruins take fortifications (17)"
        );
    }

    #[test]
    fn units_that_entered_this_turn_may_not_fortify_13_r7() {
        let mut kit = Kit::open();
        kit.st.turn = 3;
        let edge = crate::face::testkit::hex("0120");
        kit.set(
            siege_protocol::Phase::ChineseMovement,
            crate::position::state::Step::Entry {
                selected: Some(crate::position::state::EntryKind::Boxer),
            },
        );
        kit.run(|ctx| {
            crate::mechanics::entry::apply(
                ctx,
                &Action::Enter {
                    hex: edge,
                    units: vec![],
                },
            )
        });
        assert_eq!(kit.board().at(edge).points, 10, "a full Boxer unit entered");
        assert!(
            !can_build(&kit.scn, &kit.st, Side::Chinese, edge),
            "entering the map is moving (13, R7)"
        );
        // The same unit a turn later, not having moved, may.
        for u in &mut kit.st.units {
            u.marks.moved_full = false;
        }
        assert!(can_build(&kit.scn, &kit.st, Side::Chinese, edge));
    }

    #[test]
    fn each_side_has_twelve_fortifications_13() {
        let mut kit = Kit::new();
        assert_eq!(left(&kit.scn, &kit.st, Side::Allied), 12);
        for h in kit.clear_hexes(12) {
            kit.st.fortifications.push(Fortification {
                hex: h,
                built_by: Side::Allied,
            });
        }
        assert_eq!(left(&kit.scn, &kit.st, Side::Allied), 0);
        assert_eq!(left(&kit.scn, &kit.st, Side::Chinese), 12);
    }
}
