//! Civilians and doctors (15): civilians must be stacked with or adjacent to an Allied combat
//! unit at all times — a leader is not enough — or they are eliminated; they move only with a
//! combat unit, defend with strength 1 only when stacked with one, and exert a ZOC only in their
//! own hex. Doctors need no escort. Losing all four civilians lowers the Chinese victory
//! thresholds by two (21).

use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::state::{Loc, State};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};

/// Eliminate every civilian counter left without an Allied combat unit with or beside it (15).
pub fn check(ctx: &mut Ctx<'_>) {
    // The board's `manned` is exactly "an Allied combat unit or volunteers are here"; it is
    // the board every other after-action check reads too, and this runs after every change.
    let board = HexIndex::of(ctx.scn, ctx.st);
    let stranded: Vec<(UnitId, Hex)> = ctx
        .scn
        .counters
        .counters
        .iter()
        .filter(|c| c.kind == UnitKind::Civilian)
        .filter_map(|c| ctx.st.unit(c.id).hex().map(|h| (c.id, h)))
        .filter(|(_, h)| !escorted(&board, *h))
        .collect();
    for (u, h) in stranded {
        ctx.st.unit_mut(u).loc = Loc::Eliminated;
        let text = format!(
            "{} at {h} are lost: no Allied combat unit is with or beside them (15)",
            ctx.name(u)
        );
        ctx.emit(
            EventKind::Eliminated {
                unit: u,
                hex: Some(h),
                cause: "unescorted".into(),
            },
            text,
        );
    }
}

/// Whether civilians in `hex` have an Allied combat unit or volunteers with or beside them (15).
pub fn escorted(board: &HexIndex, hex: Hex) -> bool {
    board.at(hex).manned || hex.neighbours().any(|n| board.at(n).manned)
}

/// Whether all four civilian counters have been eliminated (15, 21).
pub fn all_lost(scn: &Scenario, st: &State) -> bool {
    let civilians = scn.counters.civilians();
    !civilians.is_empty()
        && civilians
            .iter()
            .all(|c| st.unit(*c).loc == Loc::Eliminated && !st.absent.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn civilians_beside_a_combat_unit_are_safe_alone_they_are_lost_15() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 2));
        let civ = kit.put("civ1", h);
        let n = kit.hex_at_distance(h, 1);
        let gb = kit.put("gb1", n);
        kit.run(check);
        assert_eq!(kit.st.unit(civ).loc, Loc::Map(h));
        kit.st.unit_mut(gb).loc = Loc::Eliminated;
        kit.put("myers", n);
        let events = kit.run(check);
        assert_eq!(
            kit.st.unit(civ).loc,
            Loc::Eliminated,
            "a leader is not enough (15)"
        );
        assert!(events[0].text.contains("(15)"));
    }

    #[test]
    fn losing_all_four_civilians_is_noticed_15() {
        let mut kit = Kit::new();
        assert!(!all_lost(&kit.scn, &kit.st));
        for code in ["civ1", "civ2", "civ3", "civ4"] {
            let u = kit.id(code);
            kit.st.unit_mut(u).loc = Loc::Eliminated;
        }
        assert!(all_lost(&kit.scn, &kit.st));
    }
}
