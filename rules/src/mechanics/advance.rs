//! Advance after combat (8.4; rulings R6, R7): when a result empties the losing hex — by
//! retreat or by elimination (DR, DL1, DE, the defender's side of EX) — the attacker may at once
//! advance one unit that took part into it; when it empties the attackers' adjacent hexes (AR,
//! AL1, AE, the attacker's side of EX), the defender may advance into one of them. The move may
//! go from one enemy ZOC straight into another. The Allies may advance only if a leader took
//! part, a leader adding ranged fire or his die modifier included; chargers never advance.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::pending::Pending;
use crate::position::state::{Loc, State};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// Offer `side` an advance (8.4, R7). `units` are all of that side's units in the combat —
/// adjacent, firing at range, leaders lending strength or modifier — and `hexes` the other
/// side's hexes; only a unit next to one of them once it is empty can move.
pub fn push(ctx: &mut Ctx<'_>, side: Side, units: Vec<UnitId>, hexes: Vec<Hex>) {
    let leader_took_part = units
        .iter()
        .any(|u| ctx.scn.counters.get(*u).kind == UnitKind::Leader);
    if side == Side::Allied && !leader_took_part {
        return;
    }
    let movers: Vec<UnitId> = units
        .into_iter()
        .filter(|u| {
            !matches!(
                ctx.scn.counters.get(*u).kind,
                UnitKind::Artillery | UnitKind::Civilian | UnitKind::Doctor
            )
        })
        .collect();
    if !movers.is_empty() {
        ctx.st.pending.push(Pending::Advance {
            side,
            units: movers,
            hexes,
        });
    }
}

/// The (unit, hex) pairs open now: a unit still beside an emptied hex.
fn options(scn: &Scenario, st: &State, units: &[UnitId], hexes: &[Hex]) -> Vec<(UnitId, Hex)> {
    let board = HexIndex::of(scn, st);
    let mut out = Vec::new();
    for &u in units {
        let Some(at) = st.unit(u).hex() else { continue };
        for &h in hexes {
            if board.at(h).side.is_none() && at.is_adjacent(h) {
                out.push((u, h));
            }
        }
    }
    out
}

/// The legal choices of an advance.
pub fn legal(scn: &Scenario, st: &State, units: &[UnitId], hexes: &[Hex], out: &mut Vec<Action>) {
    let opts = options(scn, st, units, hexes);
    if opts.is_empty() {
        return;
    }
    for (unit, to) in opts {
        out.push(Action::Advance { unit, to });
    }
    out.push(Action::Pass);
}

/// Apply the winner's choice.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Some(Pending::Advance { side: _, .. }) = ctx.st.pending.first().cloned() else {
        return;
    };
    ctx.st.pending.remove(0);
    if let Action::Advance { unit, to } = action {
        let from = ctx.st.unit(*unit).hex();
        ctx.st.unit_mut(*unit).loc = Loc::Map(*to);
        let from = from.unwrap_or(*to);
        let text = format!(
            "{} advance after combat from {from} to {to} (8.4)",
            ctx.name(*unit)
        );
        ctx.emit(
            EventKind::Advanced {
                unit: *unit,
                from,
                to: *to,
            },
            text,
        );
    }
}

/// Drop an advance nobody can make.
pub fn prune(ctx: &mut Ctx<'_>) -> bool {
    let Some(Pending::Advance { units, hexes, .. }) = ctx.st.pending.first().cloned() else {
        return false;
    };
    if options(ctx.scn, ctx.st, &units, &hexes).is_empty() {
        ctx.st.pending.remove(0);
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};
    use siege_protocol::Side;

    #[test]
    fn the_winner_advances_one_unit_into_the_vacated_hex_even_zoc_to_zoc_8_4() {
        let mut kit = Kit::open();
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1012"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1012"));
        // The vacated hex 1013 lies between two Allied units: it is in their ZOC, as is 1012.
        kit.put("gb1", hex("1014"));
        kit.put("gb2", hex("1112"));
        assert!(kit.board().in_zoc_of(Side::Allied, hex("1012")));
        kit.run(|ctx| push(ctx, Side::Chinese, vec![bx], vec![hex("1013")]));
        let Some(Pending::Advance { units, hexes, .. }) = kit.st.pending.first().cloned() else {
            panic!()
        };
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &units, &hexes, &mut out);
        assert_eq!(
            out,
            vec![
                Action::Advance {
                    unit: bx,
                    to: hex("1013")
                },
                Action::Pass
            ]
        );
        kit.run(|ctx| {
            apply(
                ctx,
                &Action::Advance {
                    unit: bx,
                    to: hex("1013"),
                },
            )
        });
        assert_eq!(kit.st.unit(bx).loc, Loc::Map(hex("1013")));
        assert!(kit.st.pending.is_empty(), "only one unit advances");
    }

    #[test]
    fn the_allies_advance_only_if_a_leader_took_part_8_4() {
        let mut kit = Kit::open();
        let gb = kit.put("gb1", hex("1012"));
        kit.run(|ctx| push(ctx, Side::Allied, vec![gb], vec![hex("1013")]));
        assert!(kit.st.pending.is_empty());
        let myers = kit.put("myers", hex("1012"));
        kit.run(|ctx| push(ctx, Side::Allied, vec![gb, myers], vec![hex("1013")]));
        assert_eq!(kit.st.pending.len(), 1);
    }

    #[test]
    fn no_advance_into_a_hex_that_is_not_empty_8_4() {
        let mut kit = Kit::open();
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1012"));
        kit.put("gb1", hex("1013"));
        kit.run(|ctx| {
            push(ctx, Side::Chinese, vec![bx], vec![hex("1013")]);
            while prune(ctx) {}
        });
        assert!(kit.st.pending.is_empty());
    }
}
