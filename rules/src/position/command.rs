//! Command control (11.2): an Allied unit uses its full movement allowance only if, at the
//! start of the Allied movement (or reaction) phase, a leader of its nationality is within 4
//! hexes, a leader of another nationality within 3, or — for volunteers — any leader within 2,
//! along a line of hexes that does not pass through enemy ZOC unless a friendly unit occupies
//! the hex. Out of command a unit has 3 MP instead of 6, and 2 instead of 3 in reaction.
//! Leaders are always in command of themselves; Chinese units are never subject to it.

use crate::position::hex_index::HexIndex;
use crate::position::state::State;
use crate::vocabulary::hex::{HEX_COUNT, Hex};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{Counter, UnitId, UnitKind};
use siege_protocol::{Phase, Side};
use std::collections::VecDeque;

/// Movement allowance out of command in the Allied movement phase (11.2).
const OUT_OF_COMMAND_FULL: u8 = 3;
/// Movement allowance out of command in the Allied reaction phase (11.2).
const OUT_OF_COMMAND_REACTION: u8 = 2;

/// How far a leader commands this unit (11.2).
pub fn radius(unit: &Counter, leader: &Counter) -> u32 {
    if unit.kind == UnitKind::Volunteer {
        2
    } else if unit.nationality.is_some() && unit.nationality == leader.nationality {
        4
    } else {
        3
    }
}

/// Whether command control matters for this counter: Allied units that move on their own
/// (combat units, volunteers, doctors). Leaders command themselves; artillery and civilians
/// move only with a combat unit.
pub fn subject_to_command(c: &Counter) -> bool {
    matches!(
        c.kind,
        UnitKind::Combat | UnitKind::Volunteer | UnitKind::Doctor
    )
}

/// Whether unit `u` is under command control now (11.2).
pub fn in_command(scn: &Scenario, st: &State, board: &HexIndex, u: UnitId) -> bool {
    let c = scn.counters.get(u);
    if !subject_to_command(c) {
        return true;
    }
    let Some(start) = st.unit(u).hex() else {
        return false;
    };
    let leaders: Vec<(Hex, &Counter)> = scn
        .counters
        .leaders()
        .iter()
        .map(|&l| scn.counters.get(l))
        .filter_map(|l| st.unit(l.id).hex().map(|h| (h, l)))
        .filter(|(h, l)| h.distance(start) <= radius(c, l))
        .collect();
    if leaders.is_empty() {
        return false;
    }
    // Breadth-first trace from the unit: a hex in enemy ZOC passes the line only if a friendly
    // unit occupies it; the leader's own hex is occupied by the leader.
    let mut depth = vec![u8::MAX; HEX_COUNT];
    depth[start.index()] = 0;
    let mut queue = VecDeque::from([start]);
    while let Some(h) = queue.pop_front() {
        let d = depth[h.index()];
        if leaders
            .iter()
            .any(|(lh, l)| *lh == h && u32::from(d) <= radius(c, l))
        {
            return true;
        }
        if d >= 4 {
            continue;
        }
        for n in h.neighbours() {
            if depth[n.index()] != u8::MAX {
                continue;
            }
            let info = board.at(n);
            let blocked = board.in_zoc_of(Side::Chinese, n) && info.side != Some(Side::Allied);
            if !blocked {
                depth[n.index()] = d + 1;
                queue.push_back(n);
            }
        }
    }
    false
}

/// Mark every Allied unit that is out of command at the start of an Allied movement phase.
pub fn mark(scn: &Scenario, st: &mut State) {
    let board = HexIndex::of(scn, st);
    let marks: Vec<bool> = scn
        .counters
        .counters
        .iter()
        .map(|c| {
            c.side == Side::Allied
                && st.unit(c.id).hex().is_some()
                && !in_command(scn, st, &board, c.id)
        })
        .collect();
    for (m, out) in st.units.marks_mut().zip(marks) {
        m.out_of_command = out;
    }
}

/// The movement allowance of unit `u` in `phase` (5.2, 11.2; half in reaction, 4).
pub fn allowance(scn: &Scenario, st: &State, u: UnitId, phase: Phase) -> u8 {
    let c = scn.counters.get(u);
    if c.side == Side::Chinese {
        return c.movement;
    }
    let out = st.unit(u).marks.out_of_command && subject_to_command(c);
    match (phase, out) {
        (Phase::AlliedReaction, true) => OUT_OF_COMMAND_REACTION,
        (Phase::AlliedReaction, false) => c.movement / 2,
        (_, true) => OUT_OF_COMMAND_FULL,
        (_, false) => c.movement,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn a_unit_within_4_hexes_of_its_own_leader_is_in_command_11_2() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 4));
        let gb1 = kit.put("gb1", h);
        let far = kit.hex_at_distance(h, 4);
        kit.put("strouts", far);
        assert!(in_command(&kit.scn, &kit.st, &kit.board(), gb1));
        let mut kit2 = Kit::open();
        let gb1 = kit2.put("gb1", h);
        kit2.put("myers", far);
        assert!(
            !in_command(&kit2.scn, &kit2.st, &kit2.board(), gb1),
            "another nationality reaches only 3"
        );
        let near = kit2.hex_at_distance(h, 3);
        kit2.put("hall", near);
        assert!(in_command(&kit2.scn, &kit2.st, &kit2.board(), gb1));
    }

    #[test]
    fn doctors_take_command_from_leaders_of_their_printed_nationality_11_2_r7() {
        // Dr Velde is German and Dr Poole British (R7): each is commanded from 4 hexes by a
        // leader of his own nationality, from 3 by any other.
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 4));
        let velde = kit.put("velde", h);
        let far = kit.hex_at_distance(h, 4);
        kit.put("von_soden", far);
        assert!(in_command(&kit.scn, &kit.st, &kit.board(), velde));
        let mut kit = Kit::open();
        let velde = kit.put("velde", h);
        let poole = kit.put("poole", h);
        kit.put("strouts", far);
        assert!(!in_command(&kit.scn, &kit.st, &kit.board(), velde));
        assert!(in_command(&kit.scn, &kit.st, &kit.board(), poole));
    }

    #[test]
    fn volunteers_need_a_leader_within_2_hexes_11_2() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 4));
        let vol = kit.put("vol1", h);
        kit.put("strouts", kit.hex_at_distance(h, 3));
        assert!(!in_command(&kit.scn, &kit.st, &kit.board(), vol));
        kit.put("myers", kit.hex_at_distance(h, 2));
        assert!(in_command(&kit.scn, &kit.st, &kit.board(), vol));
    }

    #[test]
    fn command_is_not_traced_through_enemy_zoc_unless_a_friend_holds_the_hex_11_2() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 4));
        let gb1 = kit.put("gb1", h);
        // Leader two hexes south, Boxers placed so that every hex between is in their ZOC.
        let mid = kit.hex_at_distance(h, 1);
        let leader_hex = kit.hex_at_distance(h, 2);
        kit.put("strouts", leader_hex);
        assert!(in_command(&kit.scn, &kit.st, &kit.board(), gb1));
        // Surround the unit's ring with Boxer ZOC: put Boxers two hexes away on every side.
        for ring in kit.ring(h, 2) {
            if ring != leader_hex && kit.board().at(ring).side.is_none() {
                kit.place(UnitKind::Boxer, Side::Chinese, ring);
            }
        }
        let board = kit.board();
        assert!(h.neighbours().all(|n| board.in_zoc_of(Side::Chinese, n)));
        assert!(!in_command(&kit.scn, &kit.st, &board, gb1));
        // A friendly unit in the hex between restores the line.
        kit.put("gb2", mid);
        assert!(in_command(&kit.scn, &kit.st, &kit.board(), gb1));
    }

    #[test]
    fn out_of_command_units_move_3_not_6_and_2_not_3_in_reaction_11_2() {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex();
        let gb1 = kit.put("gb1", h);
        kit.st.unit_mut(gb1).marks.out_of_command = true;
        assert_eq!(allowance(&kit.scn, &kit.st, gb1, Phase::AlliedMovement), 3);
        assert_eq!(allowance(&kit.scn, &kit.st, gb1, Phase::AlliedReaction), 2);
        kit.st.unit_mut(gb1).marks.out_of_command = false;
        assert_eq!(allowance(&kit.scn, &kit.st, gb1, Phase::AlliedMovement), 6);
        assert_eq!(allowance(&kit.scn, &kit.st, gb1, Phase::AlliedReaction), 3);
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, kit.some_clear_hex());
        assert_eq!(allowance(&kit.scn, &kit.st, bx, Phase::ChineseMovement), 8);
    }
}
