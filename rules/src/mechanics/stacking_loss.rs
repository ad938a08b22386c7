//! Over-stacking at the end of a retreat (7, 8.3): units that end a retreat over the stacking
//! limit are eliminated, the owner choosing which, until the hex is within the limit.

use crate::mechanics::losses;
use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::hex_index::HexIndex;
use crate::position::pending::Pending;
use crate::position::stacking;
use crate::position::state::State;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::UnitKind;

/// The units the owner may eliminate from an over-stacked hex.
pub fn legal(scn: &Scenario, st: &State, hex: Hex, out: &mut Vec<Action>) {
    let board = HexIndex::of(scn, st);
    let too_many_guns = board.at(hex).artillery > 1;
    for unit in st.units_at(hex) {
        let kind = scn.counters.get(unit).kind;
        if kind.counts_for_stacking() || (too_many_guns && kind == UnitKind::Artillery) {
            out.push(Action::Eliminate { unit });
        }
    }
}

/// Eliminate the chosen unit.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    if let Action::Eliminate { unit } = action {
        losses::eliminate(ctx, *unit, "over-stacked at the end of a retreat (7, 8.3)");
    }
}

/// The hex is within the limit again.
pub fn prune(ctx: &mut Ctx<'_>) -> bool {
    let Some(Pending::Overstack { hex, .. }) = ctx.st.pending.first().cloned() else {
        return false;
    };
    if stacking::is_legal(&HexIndex::of(ctx.scn, ctx.st), hex) {
        ctx.st.pending.remove(0);
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};
    use crate::position::state::Loc;
    use siege_protocol::Side;

    #[test]
    fn the_owner_eliminates_units_until_the_hex_is_within_the_limit_7_8_3() {
        let mut kit = Kit::open();
        let h = hex("1012");
        let units: Vec<_> = (0..4)
            .map(|_| kit.place(UnitKind::Boxer, Side::Chinese, h))
            .collect();
        kit.st.pending.push(Pending::Overstack {
            side: Side::Chinese,
            hex: h,
        });
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, h, &mut out);
        assert_eq!(out.len(), 4);
        kit.run(|ctx| {
            apply(ctx, &Action::Eliminate { unit: units[2] });
            while prune(ctx) {}
        });
        assert_eq!(kit.st.unit(units[2]).loc, Loc::Eliminated);
        assert!(kit.st.pending.is_empty(), "30 points: legal again");
    }
}
