//! Allied leaders (11.1; rulings R4, R6): a leader helps only the combat of a unit he is stacked
//! with, lending either his strength of 1 or a die modifier of +1 attacking / −1 defending (never
//! on ranged fire alone, never in a bayonet charge, one modifier a combat); he never attacks
//! alone (7); he is eliminated only when alone, and a leader whose stack is eliminated goes to the
//! nearest friendly unit instead (the owner choosing among equally near ones).

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::pending::Pending;
use crate::position::stacking;
use crate::position::state::{Loc, State};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// After a combat unit in `hex` is eliminated: any leader left there without an Allied combat
/// unit must go to the nearest friendly unit (11.1).
pub fn displace_if_alone(ctx: &mut Ctx<'_>, hex: Hex) {
    let board = HexIndex::of(ctx.scn, ctx.st);
    if board.at(hex).manned {
        return;
    }
    let leaders: Vec<UnitId> = ctx
        .st
        .units_at(hex)
        .filter(|u| ctx.scn.counters.get(*u).kind == UnitKind::Leader)
        .collect();
    for (i, leader) in leaders.into_iter().enumerate() {
        ctx.st
            .pending
            .insert(i, Pending::PlaceLeader { leader, from: hex });
    }
}

/// The nearest hexes holding a friendly unit with room for the leader (11.1, 7).
pub fn destinations(scn: &Scenario, st: &State, leader: UnitId, from: Hex) -> Vec<Hex> {
    let board = HexIndex::of(scn, st);
    let mut best: Vec<Hex> = Vec::new();
    let mut best_d = u32::MAX;
    for c in scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Allied && c.id != leader)
    {
        let Some(h) = st.unit(c.id).hex() else {
            continue;
        };
        if h == from || stacking::fits(&board, Side::Allied, h, 1, 0).is_err() {
            continue;
        }
        let d = h.distance(from);
        if d < best_d {
            best_d = d;
            best.clear();
        }
        if d == best_d && !best.contains(&h) {
            best.push(h);
        }
    }
    best.sort();
    best
}

/// The legal choices for a displaced leader.
pub fn legal(scn: &Scenario, st: &State, leader: UnitId, from: Hex, out: &mut Vec<Action>) {
    for hex in destinations(scn, st, leader, from) {
        out.push(Action::PlaceLeader { leader, hex });
    }
}

/// Move the displaced leader.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Action::PlaceLeader { leader, hex } = action else {
        return;
    };
    let Some(Pending::PlaceLeader { from, .. }) = ctx.st.pending.first().cloned() else {
        return;
    };
    ctx.st.pending.remove(0);
    ctx.st.unit_mut(*leader).loc = Loc::Map(*hex);
    let text = format!(
        "{} loses his stack at {from} and joins the nearest friendly unit at {hex} (11.1)",
        ctx.name(*leader)
    );
    ctx.emit(
        EventKind::LeaderMoved {
            leader: *leader,
            from,
            to: *hex,
        },
        text,
    );
}

/// A displaced leader who is gone, or has nowhere to go, settles himself.
pub fn prune(ctx: &mut Ctx<'_>) -> bool {
    let Some(Pending::PlaceLeader { leader, from }) = ctx.st.pending.first().cloned() else {
        return false;
    };
    if ctx.st.unit(leader).loc != Loc::Map(from) || HexIndex::of(ctx.scn, ctx.st).at(from).manned {
        ctx.st.pending.remove(0);
        return true;
    }
    if destinations(ctx.scn, ctx.st, leader, from).is_empty() {
        ctx.st.pending.remove(0);
        crate::mechanics::losses::eliminate(ctx, leader, "no friendly unit left to join (11.1)");
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn a_leader_whose_stack_is_eliminated_joins_the_nearest_friendly_unit_11_1() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 3));
        let gb = kit.put("gb1", h);
        let myers = kit.put("myers", h);
        let near = kit.hex_at_distance(h, 2);
        let far = kit.hex_at_distance(h, 3);
        kit.put("gb2", near);
        kit.put("gb3", far);
        // The check that follows every action finds him alone (11.1).
        kit.run(|ctx| {
            crate::mechanics::losses::eliminate(ctx, gb, "test");
            crate::sequence::after_action::run(ctx);
        });
        assert_eq!(
            kit.st.pending,
            vec![Pending::PlaceLeader {
                leader: myers,
                from: h
            }]
        );
        assert_eq!(destinations(&kit.scn, &kit.st, myers, h), vec![near]);
        kit.run(|ctx| {
            apply(
                ctx,
                &Action::PlaceLeader {
                    leader: myers,
                    hex: near,
                },
            )
        });
        assert_eq!(kit.st.unit(myers).loc, Loc::Map(near));
        assert!(kit.st.pending.is_empty());
    }

    #[test]
    fn a_leader_with_no_friend_left_is_eliminated_11_1() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex();
        let gb = kit.put("gb1", h);
        let myers = kit.put("myers", h);
        kit.run(|ctx| {
            crate::mechanics::losses::eliminate(ctx, gb, "test");
            crate::sequence::after_action::run(ctx);
            while prune(ctx) {}
        });
        assert_eq!(kit.st.unit(myers).loc, Loc::Eliminated);
    }
}
