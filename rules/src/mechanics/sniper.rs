//! Sniper fire (8.1.4): once a turn, in the sniper phase, the Chinese player may fire at one Allied
//! leader within range (2 hexes, 8.1.1) and line of sight of a Chinese combat unit; a 6 removes the
//! leader permanently, 1–5 has no effect.

use crate::mechanics::combat;
use crate::mechanics::losses;
use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::los;
use crate::position::state::State;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// The Chinese unit hex a sniper could fire at `leader` from, if any.
pub fn firer(scn: &Scenario, st: &State, board: &HexIndex, leader: UnitId) -> Option<Hex> {
    let target = st.unit(leader).hex()?;
    scn.counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Chinese && c.kind.is_combat_unit())
        .filter_map(|c| st.unit(c.id).hex())
        .find(|h| {
            h.distance(target) <= combat::range(Side::Chinese)
                && los::line_of_sight(scn, st, board, *h, target).clear
        })
}

/// The leaders the sniper may fire at, and passing.
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    if !st.sniper_used {
        let board = HexIndex::of(scn, st);
        for c in scn
            .counters
            .counters
            .iter()
            .filter(|c| c.kind == UnitKind::Leader)
        {
            if firer(scn, st, &board, c.id).is_some() {
                out.push(Action::Snipe { leader: c.id });
            }
        }
    }
    out.push(Action::Pass);
}

/// Fire at the chosen leader, then the phase is over.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Action::Snipe { leader } = action else {
        return;
    };
    let board = HexIndex::of(ctx.scn, ctx.st);
    let Some(from) = firer(ctx.scn, ctx.st, &board, *leader) else {
        return;
    };
    ctx.st.sniper_used = true;
    let die = ctx.roll();
    let hit = die == 6;
    let name = ctx.name(*leader);
    let text = if hit {
        format!("A sniper at {from} fires at {name}: rolled 6, {name} is killed (8.1.4)")
    } else {
        format!(
            "A sniper at {from} fires at {name}: rolled {die}, no effect (a 6 is needed, 8.1.4)"
        )
    };
    ctx.emit(
        EventKind::Sniper {
            leader: *leader,
            from,
            die,
            hit,
        },
        text,
    );
    if hit {
        losses::eliminate(ctx, *leader, "sniper (8.1.4)");
    }
    ctx.step_done = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn the_sniper_needs_a_chinese_unit_within_2_hexes_with_line_of_sight_8_1_4() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 3));
        let myers = kit.put("myers", h);
        kit.place(UnitKind::Boxer, Side::Chinese, kit.hex_at_distance(h, 3));
        assert!(firer(&kit.scn, &kit.st, &kit.board(), myers).is_none());
        kit.place(UnitKind::Boxer, Side::Chinese, kit.hex_at_distance(h, 2));
        assert!(firer(&kit.scn, &kit.st, &kit.board(), myers).is_some());
    }

    #[test]
    fn only_a_6_kills_and_only_one_shot_a_turn_8_1_4() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 3));
        let myers = kit.put("myers", h);
        kit.place(UnitKind::Boxer, Side::Chinese, kit.hex_at_distance(h, 2));
        kit.set(
            siege_protocol::Phase::Sniper,
            crate::position::state::Step::Sniper,
        );
        let events = kit.run(|ctx| apply(ctx, &Action::Snipe { leader: myers }));
        let EventKind::Sniper { die, hit, .. } = events[0].kind else {
            panic!()
        };
        assert_eq!(hit, die == 6);
        assert_eq!(kit.st.unit(myers).hex().is_none(), hit);
        assert!(kit.st.sniper_used);
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &mut out);
        assert_eq!(out, vec![Action::Pass]);
    }
}
