//! Allied withdrawal (12, 11.1): before Chinese combat, each Allied leader may roll once; on 1–3
//! every Allied unit stacked with or adjacent to him that is adjacent to an enemy unit may
//! retreat up to 3 hexes, never into enemy ZOC. The roll is per leader, not per unit: a unit one
//! leader fails may still go with another.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::pending::{Pending, Retreat};
use crate::position::state::State;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// Allied units stacked with or adjacent to `leader` that are adjacent to enemy units (12).
fn covered(scn: &Scenario, st: &State, board: &HexIndex, leader: UnitId) -> Vec<UnitId> {
    let Some(lh) = st.unit(leader).hex() else {
        return Vec::new();
    };
    scn.counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Allied)
        .filter(|c| {
            st.unit(c.id).hex().is_some_and(|h| {
                (h == lh || h.is_adjacent(lh))
                    && h.neighbours()
                        .any(|n| board.at(n).side == Some(Side::Chinese))
            })
        })
        .map(|c| c.id)
        .collect()
}

/// Units allowed to withdraw that have not yet moved, grouped by hex.
fn ready(st: &State) -> Vec<(Hex, Vec<UnitId>)> {
    let mut out: Vec<(Hex, Vec<UnitId>)> = Vec::new();
    for &u in &st.withdrawal_allowed {
        let Some(h) = st.unit(u).hex() else { continue };
        match out.iter_mut().find(|(x, _)| *x == h) {
            Some((_, v)) => v.push(u),
            None => out.push((h, vec![u])),
        }
    }
    out.sort();
    out
}

/// Rolls, withdrawals and passing.
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    let board = HexIndex::of(scn, st);
    for c in scn
        .counters
        .counters
        .iter()
        .filter(|c| c.kind == UnitKind::Leader)
    {
        if !st.withdrawal_rolled.contains(&c.id) && !covered(scn, st, &board, c.id).is_empty() {
            out.push(Action::AttemptWithdrawal { leader: c.id });
        }
    }
    for (hex, units) in ready(st) {
        out.push(Action::SelectStack { hex });
        if units.len() > 1 {
            out.extend(units.into_iter().map(|unit| Action::SelectUnit { unit }));
        }
    }
    out.push(Action::Pass);
}

/// Apply a withdrawal action.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    match action {
        Action::AttemptWithdrawal { leader } => {
            let board = HexIndex::of(ctx.scn, ctx.st);
            let units = covered(ctx.scn, ctx.st, &board, *leader);
            ctx.st.withdrawal_rolled.push(*leader);
            let die = ctx.roll();
            let success = die <= 3;
            let name = ctx.name(*leader);
            let text = if success {
                format!(
                    "{name} rolls {die} for withdrawal: success, {} may withdraw up to 3 hexes (12)",
                    ctx.names(&units)
                )
            } else {
                format!("{name} rolls {die} for withdrawal: failure, 1-3 was needed (12)")
            };
            ctx.emit(
                EventKind::Withdrawal {
                    leader: *leader,
                    die,
                    success,
                    units: units.clone(),
                },
                text,
            );
            if success {
                for u in units {
                    if !ctx.st.withdrawal_allowed.contains(&u) {
                        ctx.st.withdrawal_allowed.push(u);
                    }
                }
            }
        }
        Action::SelectStack { hex } => {
            let mut units: Vec<UnitId> = ready(ctx.st)
                .into_iter()
                .find(|(h, _)| h == hex)
                .map(|(_, v)| v)
                .unwrap_or_default();
            // Artillery and civilians in the hex go with a withdrawing combat unit (9, 15).
            let escorted = units.iter().any(|u| {
                matches!(
                    ctx.scn.counters.get(*u).kind,
                    UnitKind::Combat | UnitKind::Volunteer
                )
            });
            if escorted {
                for u in ctx.st.units_at(*hex).collect::<Vec<_>>() {
                    if ctx.scn.counters.get(u).kind.is_passenger() && !units.contains(&u) {
                        units.push(u);
                    }
                }
            } else {
                units.retain(|u| !ctx.scn.counters.get(*u).kind.is_passenger());
            }
            start(ctx, units, *hex);
        }
        Action::SelectUnit { unit } => {
            if let Some(h) = ctx.st.unit(*unit).hex() {
                start(ctx, vec![*unit], h);
            }
        }
        _ => {}
    }
}

fn start(ctx: &mut Ctx<'_>, units: Vec<UnitId>, hex: Hex) {
    ctx.st.withdrawal_allowed.retain(|u| !units.contains(u));
    if units.is_empty() {
        return;
    }
    ctx.st.pending.push(Pending::Retreat(Retreat {
        side: Side::Allied,
        units,
        at: hex,
        visited: vec![hex],
        min: 1,
        max: 3,
        withdrawal: true,
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn a_leader_covers_units_stacked_with_or_next_to_him_that_touch_the_enemy_12() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 3));
        let myers = kit.put("myers", h);
        let gb = kit.put("gb1", h);
        let far = kit.put("gb2", kit.hex_at_distance(h, 3));
        assert!(
            covered(&kit.scn, &kit.st, &kit.board(), myers).is_empty(),
            "nobody touches the enemy"
        );
        kit.place(UnitKind::Boxer, Side::Chinese, kit.hex_at_distance(h, 1));
        let c = covered(&kit.scn, &kit.st, &kit.board(), myers);
        assert!(c.contains(&gb) && c.contains(&myers) && !c.contains(&far));
    }

    #[test]
    fn a_roll_of_1_to_3_lets_the_units_withdraw_12() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 3));
        let myers = kit.put("myers", h);
        kit.put("gb1", h);
        kit.place(UnitKind::Boxer, Side::Chinese, kit.hex_at_distance(h, 1));
        let events = kit.run(|ctx| apply(ctx, &Action::AttemptWithdrawal { leader: myers }));
        let EventKind::Withdrawal { die, success, .. } = events[0].kind else {
            panic!()
        };
        assert_eq!(success, die <= 3);
        assert_eq!(kit.st.withdrawal_allowed.is_empty(), !success);
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &mut out);
        assert!(
            !out.contains(&Action::AttemptWithdrawal { leader: myers }),
            "one roll per leader"
        );
    }

    #[test]
    fn a_withdrawal_follows_the_retreat_rules_and_never_enters_an_enemy_zoc_12_8_3_r7() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 3));
        let myers = kit.put("myers", h);
        kit.put("gb1", h);
        let bx_at = kit.hex_at_distance(h, 1);
        kit.place(UnitKind::Boxer, Side::Chinese, bx_at);
        kit.rig(&[1]);
        kit.run(|ctx| apply(ctx, &Action::AttemptWithdrawal { leader: myers }));
        kit.run(|ctx| apply(ctx, &Action::SelectStack { hex: h }));
        let Some(Pending::Retreat(r)) = kit.st.pending.first().cloned() else {
            panic!("{:?}", kit.st.pending)
        };
        assert!(r.withdrawal);
        let mut out = Vec::new();
        crate::mechanics::retreat::legal(&kit.scn, &kit.st, &r, &mut out);
        let offered: Vec<Hex> = out
            .iter()
            .filter_map(|a| match a {
                Action::Retreat { to } => Some(*to),
                _ => None,
            })
            .collect();
        let board = kit.board();
        // The two hexes beside both the stack and the Boxers are in their ZOC: never offered.
        let in_zoc: Vec<Hex> = h
            .neighbours()
            .filter(|n| *n != bx_at && board.in_zoc_of(Side::Chinese, *n))
            .collect();
        assert_eq!(in_zoc.len(), 2);
        assert!(!offered.is_empty(), "the way back is open");
        for to in &offered {
            assert!(
                !board.in_zoc_of(Side::Chinese, *to),
                "{to} is in Chinese ZOC"
            );
        }
    }
}
