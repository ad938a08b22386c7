//! Retreat after combat (8.3; ruling R6) and the Allied withdrawal's moves (12): the owner moves
//! the stack hex by hex among legal hexes — never into an enemy hex or enemy ZOC (friendly units
//! do not cancel it), never into the canal, never off the map for the Allies, never the same hex
//! twice — exactly 3 hexes, or 1 to 3 from a building; a withdrawal goes up to 3. Only steps
//! from which the retreat can still end legally are offered; a stack that cannot retreat at all
//! is eliminated (surrounded, forced into the canal, off the map or into enemy ZOC). Chinese
//! units on a map edge may retreat off the map, returning to the off-map pool to re-enter.

use crate::mechanics::losses;
use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::pending::{Pending, Retreat};
use crate::position::stacking;
use crate::position::state::ground;
use crate::position::state::{Loc, State};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::Ground;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// Start a retreat of `units` from `hex` (8.3): 3 hexes, or 1–3 from a building.
pub fn push(ctx: &mut Ctx<'_>, side: Side, units: Vec<UnitId>, hex: Hex) {
    if units.is_empty() {
        return;
    }
    let min = if ground(&ctx.scn.map, ctx.st, hex) == Ground::Building {
        1
    } else {
        3
    };
    ctx.st.pending.push(Pending::Retreat(Retreat {
        side,
        units,
        at: hex,
        visited: vec![hex],
        min,
        max: 3,
        withdrawal: false,
    }));
}

/// Whether the stack may step into `n` (8.3).
fn open(scn: &Scenario, st: &State, board: &HexIndex, r: &Retreat, n: Hex) -> bool {
    !r.visited.contains(&n)
        && ground(&scn.map, st, n) != Ground::Canal
        && board.at(n).side != Some(r.side.other())
        && !board.in_zoc_of(r.side.other(), n)
}

/// Whether a retreat standing in `at` having gone `gone` hexes can still end legally.
#[allow(clippy::too_many_arguments)]
fn completes(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    r: &Retreat,
    at: Hex,
    gone: u8,
    visited: &mut Vec<Hex>,
    strict: bool,
) -> bool {
    let (points, guns) = stacking::load(scn, st, &r.units);
    if gone > 0
        && gone >= r.min
        && (!strict || stacking::fits(board, r.side, at, points, guns).is_ok())
    {
        return true;
    }
    if r.side == Side::Chinese && at.is_edge() && !r.withdrawal {
        return true; // may leave the map
    }
    if gone >= r.max {
        return false;
    }
    for n in at.neighbours() {
        if visited.contains(&n) || !open(scn, st, board, r, n) {
            continue;
        }
        visited.push(n);
        let ok = completes(scn, st, board, r, n, gone + 1, visited, strict);
        visited.pop();
        if ok {
            return true;
        }
    }
    false
}

/// The next hexes offered: those from which the retreat can end within the stacking limit, or
/// if there are none, those from which it can end at all (the excess then eliminated, 7).
fn next_hexes(scn: &Scenario, st: &State, r: &Retreat) -> Vec<Hex> {
    let board = HexIndex::of(scn, st);
    let gone = (r.visited.len() - 1) as u8;
    if gone >= r.max {
        return Vec::new();
    }
    for strict in [true, false] {
        let found: Vec<Hex> =
            r.at.neighbours()
                .filter(|n| open(scn, st, &board, r, *n))
                .filter(|n| {
                    let mut visited = r.visited.clone();
                    visited.push(*n);
                    completes(scn, st, &board, r, *n, gone + 1, &mut visited, strict)
                })
                .collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

fn gone(r: &Retreat) -> u8 {
    u8::try_from(r.visited.len() - 1).unwrap_or(u8::MAX)
}

/// The legal choices of a retreat.
pub fn legal(scn: &Scenario, st: &State, r: &Retreat, out: &mut Vec<Action>) {
    for to in next_hexes(scn, st, r) {
        out.push(Action::Retreat { to });
    }
    if gone(r) >= r.min && gone(r) > 0 {
        out.push(Action::StopRetreat);
    }
    if r.side == Side::Chinese && r.at.is_edge() && !r.withdrawal {
        out.push(Action::LeaveMap);
    }
}

/// Apply one retreat choice.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Some(Pending::Retreat(mut r)) = ctx.st.pending.first().cloned() else {
        return;
    };
    match action {
        Action::Retreat { to } => {
            for &u in &r.units {
                ctx.st.unit_mut(u).loc = Loc::Map(*to);
            }
            let names = ctx.names(&r.units);
            let verb = if r.withdrawal { "withdraw" } else { "retreat" };
            let rule = if r.withdrawal { "12" } else { "8.3" };
            ctx.emit(
                EventKind::Retreated {
                    units: r.units.clone(),
                    from: r.at,
                    to: *to,
                },
                format!("{names} {verb} from {} to {to} ({rule})", r.at),
            );
            r.at = *to;
            r.visited.push(*to);
            if gone(&r) >= r.max {
                finish(ctx);
            } else {
                ctx.st.pending[0] = Pending::Retreat(r);
            }
        }
        Action::StopRetreat => finish(ctx),
        Action::LeaveMap => {
            ctx.st.pending.remove(0);
            for &u in &r.units {
                ctx.st.unit_mut(u).loc = Loc::OffMap;
            }
            let names = ctx.names(&r.units);
            ctx.emit(
                EventKind::Lifted {
                    units: r.units.clone(),
                    hex: r.at,
                },
                format!(
                    "{names} retreat off the map at {} and may re-enter next turn (8.3, 22)",
                    r.at
                ),
            );
        }
        _ => {}
    }
}

/// The retreat ends where it stands; if that hex is over-stacked, the after-action checks ask
/// the owner which units are lost (7).
fn finish(ctx: &mut Ctx<'_>) {
    ctx.st.pending.remove(0);
}

/// Drop units no longer in the retreating stack; eliminate a stack that cannot retreat (8.3).
pub fn prune(ctx: &mut Ctx<'_>) -> bool {
    let Some(Pending::Retreat(mut r)) = ctx.st.pending.first().cloned() else {
        return false;
    };
    let before = r.units.len();
    r.units.retain(|u| ctx.st.unit(*u).loc == Loc::Map(r.at));
    if r.units.is_empty() {
        ctx.st.pending.remove(0);
        return true;
    }
    if r.units.len() != before {
        ctx.st.pending[0] = Pending::Retreat(r.clone());
    }
    let mut options = Vec::new();
    legal(ctx.scn, ctx.st, &r, &mut options);
    if !options.is_empty() {
        return r.units.len() != before;
    }
    ctx.st.pending.remove(0);
    if r.withdrawal {
        return true;
    }
    let why = if r.side == Side::Allied && r.at.is_edge() {
        "no retreat open: surrounded, or forced off the map, into the canal or into enemy ZOC (8.3)"
    } else {
        "no retreat open: surrounded, or forced into the canal or into enemy ZOC (8.3)"
    };
    let combat_units = r.units.iter().any(|u| {
        matches!(
            ctx.scn.counters.get(*u).kind,
            UnitKind::Combat | UnitKind::Volunteer | UnitKind::Boxer | UnitKind::Imperial
        )
    });
    for &u in &r.units {
        let is_leader = ctx.scn.counters.get(u).kind == UnitKind::Leader;
        if !(is_leader && combat_units) {
            losses::eliminate(ctx, u, why);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;
    use siege_protocol::Side;

    fn retreat_of(_kit: &Kit, units: Vec<UnitId>, at: Hex) -> Retreat {
        Retreat {
            side: Side::Allied,
            units,
            at,
            visited: vec![at],
            min: 3,
            max: 3,
            withdrawal: false,
        }
    }

    #[test]
    fn a_retreat_never_enters_enemy_zoc_even_beside_friends_8_3() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 4));
        let gb = kit.put("gb1", h);
        let n = kit.hex_at_distance(h, 1);
        let bx_at = kit.hex_at_distance(n, 1);
        if bx_at != h {
            kit.place(UnitKind::Boxer, Side::Chinese, bx_at);
        }
        kit.put("gb2", n);
        let r = retreat_of(&kit, vec![gb], h);
        let board = kit.board();
        for to in next_hexes(&kit.scn, &kit.st, &r) {
            assert!(
                !board.in_zoc_of(Side::Chinese, to),
                "{to} is in Chinese ZOC"
            );
        }
    }

    #[test]
    fn a_surrounded_stack_is_eliminated_8_3() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 2));
        let gb = kit.put("gb1", h);
        for n in h.neighbours().collect::<Vec<_>>() {
            kit.place(UnitKind::Boxer, Side::Chinese, n);
        }
        kit.st
            .pending
            .push(Pending::Retreat(retreat_of(&kit, vec![gb], h)));
        kit.run(|ctx| while prune(ctx) {});
        assert_eq!(kit.st.unit(gb).loc, Loc::Eliminated);
        assert!(kit.st.pending.is_empty());
    }

    #[test]
    fn a_retreat_goes_three_hexes_and_never_the_same_hex_twice_8_3() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 4));
        let gb = kit.put("gb1", h);
        kit.st
            .pending
            .push(Pending::Retreat(retreat_of(&kit, vec![gb], h)));
        let mut seen = vec![h];
        for _ in 0..3 {
            let Some(Pending::Retreat(r)) = kit.st.pending.first().cloned() else {
                panic!()
            };
            let mut out = Vec::new();
            legal(&kit.scn, &kit.st, &r, &mut out);
            assert!(
                !out.contains(&Action::StopRetreat),
                "must go the full 3 hexes in the open"
            );
            let Action::Retreat { to } = out[0].clone() else {
                panic!("{out:?}")
            };
            assert!(!seen.contains(&to));
            seen.push(to);
            kit.run(|ctx| apply(ctx, &Action::Retreat { to }));
        }
        assert!(kit.st.pending.is_empty());
        assert_eq!(kit.st.unit(gb).loc, Loc::Map(seen[3]));
    }

    #[test]
    fn from_a_building_a_retreat_may_stop_after_one_hex_8_3() {
        let mut kit = Kit::open();
        let b = kit.some_clear_hex();
        kit.paint(b, crate::vocabulary::map::Terrain::Building);
        let gb = kit.put("gb1", b);
        kit.run(|ctx| push(ctx, Side::Allied, vec![gb], b));
        let Some(Pending::Retreat(r)) = kit.st.pending.first().cloned() else {
            panic!()
        };
        assert_eq!(r.min, 1);
    }
}
