//! Stacking (7): at most 10 Allied strength points in a hex, leaders included, and at most 30
//! Chinese; artillery, civilians and doctors do not count; one Allied artillery piece a hex.
//! Checked where a move, placement, entry or retreat ends; a stack may pass through an
//! over-stacked hex (7, 8.3).

use crate::position::hex_index::HexIndex;
use crate::position::state::State;
use crate::vocabulary::error::RuleError;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;
use siege_protocol::codes;

pub use crate::vocabulary::units::stacking_limit as limit;

/// Stacking points and artillery pieces of a set of units.
pub fn load(scn: &Scenario, st: &State, units: &[UnitId]) -> (u8, u8) {
    let mut points = 0u8;
    let mut guns = 0u8;
    for &u in units {
        let c = scn.counters.get(u);
        if c.kind.counts_for_stacking() {
            points = points.saturating_add(c.strength_when(st.unit(u).reduced));
        }
        if c.kind == UnitKind::Artillery {
            guns += 1;
        }
    }
    (points, guns)
}

/// Strength points and artillery pieces of `side` already in `hex`.
fn held(board: &HexIndex, side: Side, hex: Hex) -> (u8, u8) {
    let info = board.at(hex);
    if info.side == Some(side) {
        (info.points, info.artillery)
    } else {
        (0, 0)
    }
}

/// Whether `side` may end a move in `hex` bringing `points` and `guns` more (7): [`fits`]
/// without the reason, for the searches that ask it of every hex a stack can reach.
pub fn has_room(board: &HexIndex, side: Side, hex: Hex, points: u8, guns: u8) -> bool {
    let (have, have_guns) = held(board, side, hex);
    u16::from(have) + u16::from(points) <= u16::from(limit(side))
        && (side != Side::Allied || have_guns + guns <= 1)
}

/// Whether `side` may end a move in `hex` bringing `points` and `guns` more (7).
pub fn fits(board: &HexIndex, side: Side, hex: Hex, points: u8, guns: u8) -> Result<(), RuleError> {
    if has_room(board, side, hex, points, guns) {
        return Ok(());
    }
    let (have, _) = held(board, side, hex);
    let total = u16::from(have) + u16::from(points);
    if total > u16::from(limit(side)) {
        return Err(RuleError::illegal(
            codes::STACKING,
            "7",
            format!(
                "{hex} would hold {total} {side} strength points; the limit is {} (7)",
                limit(side)
            ),
        ));
    }
    Err(RuleError::illegal(
        codes::STACKING,
        "7",
        format!("{hex} would hold two Allied artillery pieces; one is the limit (7)"),
    ))
}

/// Whether the units in `hex` are within the limits of section 7.
pub fn is_legal(board: &HexIndex, hex: Hex) -> bool {
    board.within_limits(hex)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    /// `has_room` answers as `fits` does, for both sides, every load up to past the limits,
    /// in an empty hex and in hexes holding either side's units (7).
    #[test]
    fn has_room_is_fits_without_the_reason_7() {
        let mut kit = Kit::new();
        let ours = kit.some_clear_hex();
        kit.place(UnitKind::Combat, Side::Allied, ours);
        kit.place(UnitKind::Artillery, Side::Allied, ours);
        let theirs = kit.some_clear_hex();
        kit.place(UnitKind::Boxer, Side::Chinese, theirs);
        let empty = kit.some_clear_hex();
        let board = HexIndex::new(&kit.scn, &kit.st);
        let mut refused = 0;
        for hex in [ours, theirs, empty] {
            for side in [Side::Allied, Side::Chinese] {
                for points in 0..=32 {
                    for guns in 0..=2 {
                        let fits = fits(&board, side, hex, points, guns).is_ok();
                        assert_eq!(has_room(&board, side, hex, points, guns), fits);
                        refused += usize::from(!fits);
                    }
                }
            }
        }
        assert!(refused > 100, "{refused} loads refused");
    }

    #[test]
    fn ten_allied_points_with_leaders_fit_eleven_do_not_7() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        kit.place(UnitKind::Combat, Side::Allied, h);
        kit.place(UnitKind::Combat, Side::Allied, h);
        kit.place(UnitKind::Leader, Side::Allied, h);
        let board = kit.board();
        assert_eq!(board.at(h).points, 9);
        assert!(fits(&board, Side::Allied, h, 1, 0).is_ok());
        let err = fits(&board, Side::Allied, h, 2, 0).unwrap_err();
        assert_eq!(err.code(), "stacking");
        assert_eq!(err.rule(), Some("7"));
    }

    #[test]
    fn thirty_chinese_points_fit_forty_do_not_7() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        for _ in 0..3 {
            kit.place(UnitKind::Boxer, Side::Chinese, h);
        }
        let board = kit.board();
        assert_eq!(board.at(h).points, 30);
        assert!(is_legal(&board, h));
        assert!(fits(&board, Side::Chinese, h, 10, 0).is_err());
        assert!(fits(&board, Side::Chinese, h, 0, 0).is_ok());
    }

    #[test]
    fn artillery_civilians_and_doctors_do_not_count_but_one_gun_a_hex_7() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        kit.place(UnitKind::Volunteer, Side::Allied, h);
        kit.place(UnitKind::Combat, Side::Allied, h);
        kit.place(UnitKind::Artillery, Side::Allied, h);
        kit.place(UnitKind::Civilian, Side::Allied, h);
        kit.place(UnitKind::Doctor, Side::Allied, h);
        let board = kit.board();
        assert_eq!(board.at(h).points, 10);
        assert!(is_legal(&board, h));
        assert!(fits(&board, Side::Allied, h, 0, 1).is_err());
    }

    #[test]
    fn a_reduced_unit_counts_its_reduced_strength_7() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let u = kit.place(UnitKind::Boxer, Side::Chinese, h);
        kit.st.unit_mut(u).reduced = true;
        assert_eq!(kit.board().at(h).points, 5);
    }
}
