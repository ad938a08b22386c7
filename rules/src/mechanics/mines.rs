//! Chinese mines (16): from turn 4 the Chinese player has two mines, exploded before his movement
//! phase in any non-clear hex (not the Tartar Wall) adjacent to a Chinese unit. A ruin marker is
//! placed there; each Allied unit in the hex loses a step on a roll of 1–3, one roll per unit.
//! Allied artillery, having no steps (R5), is not affected.

use crate::mechanics::losses;
use crate::mechanics::ruins;
use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::state::State;
use crate::position::state::ground;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::Ground;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// The first turn mines may be used (16).
const FROM_TURN: u8 = 4;

/// Whether a mine may go off in `hex` (16).
fn mineable(scn: &Scenario, st: &State, board: &HexIndex, hex: Hex) -> bool {
    let g = ground(&scn.map, st, hex);
    let non_clear = !g.is_clear() || st.fortification(hex).is_some();
    non_clear
        && !matches!(g, Ground::TartarWall | Ground::Canal)
        && board.at(hex).side != Some(Side::Chinese)
        && hex
            .neighbours()
            .any(|n| board.at(n).side == Some(Side::Chinese))
}

/// The hexes a mine may go off in, and passing.
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    if st.turn >= FROM_TURN && st.mines_left > 0 {
        let board = HexIndex::of(scn, st);
        out.extend(
            Hex::all()
                .filter(|h| mineable(scn, st, &board, *h))
                .map(|hex| Action::Detonate { hex }),
        );
    }
    out.push(Action::Pass);
}

/// Explode a mine.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Action::Detonate { hex } = action else {
        return;
    };
    ctx.st.mines_left = ctx.st.mines_left.saturating_sub(1);
    let left = ctx.st.mines_left;
    ctx.emit(
        EventKind::Mine { hex: *hex },
        format!("A Chinese mine explodes under {hex} ({left} left) (16)"),
    );
    ruins::place(ctx, *hex, "a mine");
    let victims: Vec<UnitId> = ctx
        .st
        .units_at(*hex)
        .filter(|u| ctx.scn.counters.get(*u).kind != UnitKind::Artillery)
        .collect();
    for u in victims {
        let die = ctx.roll();
        let lost = die <= 3;
        let verdict = if lost { "loses a step" } else { "is unhurt" };
        let text = format!(
            "{} roll {die} for the mine: {verdict} (1-3 loses a step, 16)",
            ctx.name(u)
        );
        ctx.emit(EventKind::MineRoll { unit: u, die, lost }, text);
        if lost {
            losses::lose_step(ctx, u, "mine (16)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn mines_go_off_only_from_turn_4_in_non_clear_hexes_next_to_chinese_units_16() {
        let mut kit = Kit::new();
        let (b, clear) = kit.building_next_to_clear();
        kit.place(UnitKind::Boxer, Side::Chinese, clear);
        kit.st.turn = 3;
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &mut out);
        assert_eq!(out, vec![Action::Pass]);
        kit.st.turn = 4;
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &mut out);
        assert!(out.contains(&Action::Detonate { hex: b }));
        assert!(!out.contains(&Action::Detonate { hex: clear }));
        let board = kit.board();
        for a in &out {
            if let Action::Detonate { hex } = a {
                assert!(!kit.ground(*hex).is_clear() || kit.st.fortification(*hex).is_some());
                assert_ne!(kit.ground(*hex), Ground::TartarWall);
                assert!(
                    hex.neighbours()
                        .any(|n| board.at(n).side == Some(Side::Chinese))
                );
            }
        }
    }

    #[test]
    fn a_mine_ruins_the_hex_and_each_allied_unit_rolls_for_a_step_16() {
        let mut kit = Kit::new();
        let (b, clear) = kit.building_next_to_clear();
        kit.place(UnitKind::Boxer, Side::Chinese, clear);
        let gb = kit.put("gb1", b);
        kit.st.turn = 4;
        let events = kit.run(|ctx| apply(ctx, &Action::Detonate { hex: b }));
        assert!(kit.st.is_ruin(b));
        assert_eq!(kit.st.mines_left, 1);
        let rolls: Vec<(u8, bool)> = events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::MineRoll { die, lost, .. } => Some((die, lost)),
                _ => None,
            })
            .collect();
        assert_eq!(rolls.len(), 1);
        assert_eq!(kit.st.unit(gb).reduced, rolls[0].1);
        assert_eq!(rolls[0].1, rolls[0].0 <= 3);
    }
}
