//! Line of sight (8.5, 18.1, 18.3, 18.4; ruling R6): a straight line from the centre of the
//! firer's hex to the centre of the target's, laid like a thread on the map. It is blocked by
//! the Tartar Wall, buildings, walls, fortifications and the stone bridge, and by units of either
//! side and civilians — not by a lone leader or unmanned artillery. Every hex whose inside the
//! line crosses counts; a line running exactly along a hexside is blocked only if the hexes on
//! both sides block; the firer's and target's hexes never block. A unit on a wall (the Tartar
//! Wall included) sees along the wall it occupies; no fire crosses over the Tartar Wall, because
//! its hexes block every line that does not start on it.

use crate::position::hex_index::HexIndex;
use crate::position::state::State;
use crate::position::state::ground;
use crate::vocabulary::hex::{Hex, LineCell, line};
use crate::vocabulary::scenario::Scenario;
use serde::Serialize;

/// The answer to "can a unit in `from` see `to`?".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sight {
    pub from: Hex,
    pub to: Hex,
    pub clear: bool,
    /// The first hex (nearest the firer) that blocks, if any; for a hexside both of whose
    /// hexes block, the first of the two.
    pub blocked_at: Option<Hex>,
    /// Every map hex the line crosses or runs beside, from firer to target.
    pub path: Vec<Hex>,
    /// Why the line is blocked, in words (8.5).
    pub reason: Option<String>,
}

/// Why a hex blocks a line from `from`, if it does.
fn blocker(scn: &Scenario, st: &State, board: &HexIndex, from: Hex, h: Hex) -> Option<String> {
    if board.at(h).blocks_los {
        return Some(format!("units in {h} block the line (8.5)"));
    }
    if st.fortification(h).is_some() && scn.terrain.fortification.blocks_los {
        return Some(format!("the fortification in {h} blocks the line (8.5)"));
    }
    let g = ground(&scn.map, st, h);
    if !scn.terrain.line(g).blocks_los {
        return None;
    }
    // A unit on a wall sees along the wall it occupies (18.4; the Tartar Wall, 8.5).
    let own_wall = scn.map.wall_group(from);
    if own_wall.is_some() && own_wall == scn.map.wall_group(h) && !st.is_ruin(h) {
        return None;
    }
    Some(format!("the {} in {h} blocks the line (8.5, 18)", g.name()))
}

/// Line of sight from `from` to `to` in the current position.
pub fn line_of_sight(scn: &Scenario, st: &State, board: &HexIndex, from: Hex, to: Hex) -> Sight {
    let mut path: Vec<Hex> = Vec::new();
    let mut blocked: Option<(Hex, String)> = None;
    for cell in line(from, to) {
        match cell {
            LineCell::Through(a) => {
                let Some(h) = a.to_hex() else { continue };
                path.push(h);
                if h != from && h != to && blocked.is_none() {
                    blocked = blocker(scn, st, board, from, h).map(|why| (h, why));
                }
            }
            LineCell::Along(a, b) => {
                let (ha, hb) = (a.to_hex(), b.to_hex());
                path.extend(ha);
                path.extend(hb);
                if blocked.is_some() {
                    continue;
                }
                // Along a hexside: blocked only if both sides block (R6). Off-map hexes never do.
                if let (Some(ha), Some(hb)) = (ha, hb) {
                    let wa = blocker(scn, st, board, from, ha);
                    let wb = blocker(scn, st, board, from, hb);
                    if let (Some(wa), Some(wb)) = (wa, wb) {
                        blocked = Some((
                            ha.min(hb),
                            format!("{wa}; and {wb}: both sides of the hexside block (R6)"),
                        ));
                    }
                }
            }
        }
    }
    Sight {
        from,
        to,
        clear: blocked.is_none(),
        blocked_at: blocked.as_ref().map(|(h, _)| *h),
        path,
        reason: blocked.map(|(_, why)| why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};
    use crate::vocabulary::terrain::Ground;
    use crate::vocabulary::units::UnitKind;
    use siege_protocol::Side;

    fn sight(kit: &Kit, a: Hex, b: Hex) -> Sight {
        line_of_sight(&kit.scn, &kit.st, &kit.board(), a, b)
    }

    /// A straight column of `n` hexes southward from `top` all of the given ground.
    fn column_of(kit: &Kit, n: u8, want: impl Fn(Ground) -> bool) -> Hex {
        Hex::all()
            .find(|h| {
                (0..n).all(|i| Hex::new(h.col(), h.row() + i).is_some_and(|x| want(kit.ground(x))))
            })
            .expect("such a column exists on the map")
    }

    #[test]
    fn units_block_line_of_sight_but_the_firer_and_target_hexes_do_not_8_5() {
        let mut kit = Kit::new();
        let top = column_of(&kit, 4, |g| g.is_clear());
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| Hex::new(top.col(), top.row() + i).unwrap());
        kit.place(UnitKind::Combat, Side::Allied, a);
        kit.place(UnitKind::Boxer, Side::Chinese, d);
        assert!(sight(&kit, a, d).clear);
        kit.place(UnitKind::Boxer, Side::Chinese, c);
        let s = sight(&kit, a, d);
        assert!(!s.clear);
        assert_eq!(s.blocked_at, Some(c));
        assert_eq!(s.path, vec![a, b, c, d]);
    }

    #[test]
    fn a_lone_leader_and_unmanned_artillery_do_not_block_but_civilians_do_8_5() {
        let mut kit = Kit::new();
        let top = column_of(&kit, 3, |g| g.is_clear());
        let [a, b, c] = [0, 1, 2].map(|i| Hex::new(top.col(), top.row() + i).unwrap());
        kit.put("myers", b);
        assert!(sight(&kit, a, c).clear);
        kit.put("betsy", b);
        assert!(sight(&kit, a, c).clear, "unmanned artillery does not block");
        kit.put("civ1", b);
        assert!(!sight(&kit, a, c).clear, "civilians block");
    }

    #[test]
    fn buildings_may_be_fired_on_but_not_through_8_5() {
        let kit = Kit::new();
        let top = column_of(&kit, 3, |g| g == Ground::Building);
        let [a, b, c] = [0, 1, 2].map(|i| Hex::new(top.col(), top.row() + i).unwrap());
        assert!(
            sight(&kit, a, b).clear,
            "adjacent building hex can be fired on"
        );
        let s = sight(&kit, a, c);
        assert_eq!(s.blocked_at, Some(b));
        assert!(s.reason.unwrap().contains("building"));
    }

    #[test]
    fn a_line_along_a_hexside_is_blocked_only_if_both_sides_block_r6() {
        let mut kit = Kit::open();
        // 0305 -> 0505 runs along the side between 0404 and 0405.
        let (a, b) = (hex("0305"), hex("0505"));
        let (s1, s2) = (hex("0404"), hex("0405"));
        for h in [a, b, s1, s2] {
            assert!(
                kit.ground(h).is_clear(),
                "{h} should be open ground in the Carriage Park"
            );
        }
        kit.place(UnitKind::Boxer, Side::Chinese, s1);
        assert!(sight(&kit, a, b).clear, "one side blocking is not enough");
        kit.place(UnitKind::Boxer, Side::Chinese, s2);
        let s = sight(&kit, a, b);
        assert!(!s.clear);
        assert_eq!(s.blocked_at, Some(s1));
    }

    #[test]
    fn a_unit_on_the_tartar_wall_sees_along_it_and_others_cannot_fire_over_it_8_5() {
        let kit = Kit::new();
        // (c,36) -> (c+2,36) for odd c runs along the hexside between (c+1,35) and (c+1,36):
        // both Tartar Wall, so only the firer's seeing along the wall keeps it clear.
        let c = (1..=35u8)
            .step_by(2)
            .find(|c| {
                (0..=2u8).all(|d| {
                    [35u8, 36]
                        .iter()
                        .all(|r| kit.ground(Hex::new(c + d, *r).unwrap()) == Ground::TartarWall)
                })
            })
            .unwrap();
        let (from, to) = (Hex::new(c, 36).unwrap(), Hex::new(c + 2, 36).unwrap());
        let s = sight(&kit, from, to);
        assert!(s.clear, "along the wall: {:?}", s.reason);
        assert_eq!(s.path.len(), 4);
        // From the legation side (row 33) to the Chinese City (row 38): the wall is in between.
        let north = Hex::new(c, 33).unwrap();
        let south = Hex::new(c, 38).unwrap();
        let s = sight(&kit, north, south);
        assert!(!s.clear);
        assert_eq!(kit.ground(s.blocked_at.unwrap()), Ground::TartarWall);
    }
}
