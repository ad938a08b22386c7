//! Terrain in combat (18; ruling R3): a defender in a building is always tripled (18.2); on a
//! wall, barricade or fortification tripled unless an attacker stands on the same wall or
//! attackers stand on both sides of it (18.4); on the Tartar Wall quadrupled unless an attacker
//! is on the Tartar Wall (18.1 as R3 reads it); in a ruin doubled (17). Effects do not add up:
//! the defender takes the best one present (18.4, last paragraph).

use crate::position::state::State;
use crate::position::state::ground;
use crate::vocabulary::hex::{Direction, Hex, LineCell, line};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::Ground;

/// The terrain effect that applied to one defending hex, with the reason in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TerrainEffect {
    pub terrain: String,
    pub multiplier: u32,
    pub reason: String,
}

/// The direction from `hex` towards the neighbour `n`.
fn direction_to(hex: Hex, n: Hex) -> Option<Direction> {
    Direction::ALL
        .into_iter()
        .find(|d| hex.neighbour(*d) == Some(n))
}

/// Which neighbour of `target` the attack from `attacker` arrives through: the attacker's own
/// hex when adjacent, otherwise the last hex the line of fire crosses before the target.
fn arrival(attacker: Hex, target: Hex) -> Option<Hex> {
    if attacker.is_adjacent(target) {
        return Some(attacker);
    }
    let cells = line(attacker, target);
    cells.iter().rev().skip(1).find_map(|c| match c {
        LineCell::Through(a) => a.to_hex(),
        LineCell::Along(a, b) => a.to_hex().or(b.to_hex()),
    })
}

/// Whether attacks from `attackers` come from both sides of the wall in `hex` (18.4).
///
/// The neighbours of the wall hex that are not part of the same wall fall into arcs between the
/// wall's own hexes; each arc is a side. At the end of a wall the two flanks either side of the
/// end-on hex are the sides; a lone barricade or fortification is flanked only by attacks from
/// opposite directions.
fn both_sides(scn: &Scenario, hex: Hex, attackers: &[Hex]) -> bool {
    let group = scn.map.wall_group(hex);
    let is_wall = |d: Direction| {
        group.is_some() && hex.neighbour(d).and_then(|n| scn.map.wall_group(n)) == group
    };
    let walls: Vec<usize> = (0..6).filter(|&i| is_wall(Direction::ALL[i])).collect();
    let side_of = |dir: usize| -> Option<usize> {
        match walls.as_slice() {
            [] => Some(dir),
            [w] => {
                let rel = (dir + 6 - w) % 6;
                match rel {
                    1 | 2 => Some(0),
                    4 | 5 => Some(1),
                    _ => None,
                }
            }
            _ => {
                if walls.contains(&dir) {
                    return None;
                }
                // Arc index: how many wall directions lie clockwise before `dir` from the first wall.
                let first = walls[0];
                let rel = (dir + 6 - first) % 6;
                Some(walls.iter().filter(|&&w| (w + 6 - first) % 6 < rel).count())
            }
        }
    };
    let sides: Vec<usize> = attackers
        .iter()
        .filter_map(|a| arrival(*a, hex))
        .filter_map(|n| direction_to(hex, n))
        .filter_map(|d| side_of(Direction::ALL.iter().position(|x| *x == d).unwrap_or(0)))
        .collect();
    match walls.as_slice() {
        [] => sides.iter().any(|a| sides.contains(&((a + 3) % 6))),
        _ => sides.iter().any(|a| *a != sides[0]),
    }
}

/// The terrain effect for units defending in `hex` against attackers standing in
/// `attackers` (adjacent or firing from range): the best of the effects present (18.4).
pub fn effect(scn: &Scenario, st: &State, hex: Hex, attackers: &[Hex]) -> TerrainEffect {
    let g = ground(&scn.map, st, hex);
    let te = |terrain: &str, multiplier: u32, reason: &str| TerrainEffect {
        terrain: terrain.to_string(),
        multiplier,
        reason: reason.to_string(),
    };
    let line_mult = u32::from(scn.terrain.line(g).defence);
    let same_wall = |a: &Hex| {
        scn.map.wall_group(*a).is_some() && scn.map.wall_group(*a) == scn.map.wall_group(hex)
    };
    let mut options: Vec<TerrainEffect> = Vec::new();
    match g {
        Ground::Building => options.push(te(
            "building",
            line_mult,
            "defenders in a building are always tripled (18.2)",
        )),
        Ground::Ruin => options.push(te(
            "ruin",
            line_mult,
            "a ruin doubles the defender (17, R3)",
        )),
        Ground::TartarWall => {
            if attackers
                .iter()
                .any(|a| ground(&scn.map, st, *a) == Ground::TartarWall)
            {
                options.push(te(
                    "Tartar Wall",
                    1,
                    "not quadrupled: an attacker is on the Tartar Wall (18.1, R3)",
                ));
            } else {
                options.push(te(
                    "Tartar Wall",
                    line_mult,
                    "quadrupled on the Tartar Wall against attackers off it (18.1, R3)",
                ));
            }
        }
        Ground::Wall => {
            if attackers.iter().any(same_wall) {
                options.push(te(
                    "wall",
                    1,
                    "not tripled: an attacker is on the same wall (18.4)",
                ));
            } else if both_sides(scn, hex, attackers) {
                options.push(te(
                    "wall",
                    1,
                    "not tripled: attackers stand on both sides of the wall (18.4)",
                ));
            } else {
                options.push(te("wall", line_mult, "tripled behind the wall (18.4)"));
            }
        }
        _ => options.push(te(
            g.name(),
            line_mult,
            &format!("{} gives no defensive benefit (R3)", g.name()),
        )),
    }
    if st.fortification(hex).is_some() {
        let fort = u32::from(scn.terrain.fortification.defence);
        if both_sides_of_fortification(scn, hex, attackers) {
            options.push(te(
                "fortification",
                1,
                "not tripled: the fortification is attacked from both sides (13, 18.4)",
            ));
        } else {
            options.push(te(
                "fortification",
                fort,
                "a fortification triples the defender, as a wall (13, 18.4)",
            ));
        }
    }
    let best = options.iter().map(|o| o.multiplier).max().unwrap_or(1);
    options
        .into_iter()
        .find(|o| o.multiplier == best)
        .unwrap_or_else(|| te(g.name(), 1, "no defensive benefit (R3)"))
}

/// A fortification is a lone hex: flanked only by attacks from opposite directions (18.4).
fn both_sides_of_fortification(_scn: &Scenario, hex: Hex, attackers: &[Hex]) -> bool {
    let dirs: Vec<usize> = attackers
        .iter()
        .filter_map(|a| arrival(*a, hex))
        .filter_map(|n| direction_to(hex, n))
        .filter_map(|d| Direction::ALL.iter().position(|x| *x == d))
        .collect();
    dirs.iter().any(|a| dirs.contains(&((a + 3) % 6)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;
    use crate::position::state::Fortification;
    use siege_protocol::Side;

    #[test]
    fn buildings_always_triple_even_from_the_same_building_18_2() {
        let kit = Kit::new();
        let (a, b) = kit.two_adjacent(|g| g == Ground::Building);
        let e = effect(&kit.scn, &kit.st, a, &[b]);
        assert_eq!(e.multiplier, 3);
        assert!(e.reason.contains("18.2"));
    }

    #[test]
    fn a_wall_triples_unless_an_attacker_is_on_the_same_wall_18_4() {
        let kit = Kit::new();
        let (w, w2) = kit.two_adjacent(|g| g == Ground::Wall);
        let outside = w
            .neighbours()
            .find(|n| kit.ground(*n) != Ground::Wall && kit.ground(*n) != Ground::Canal)
            .unwrap();
        assert_eq!(effect(&kit.scn, &kit.st, w, &[outside]).multiplier, 3);
        let e = effect(&kit.scn, &kit.st, w, &[outside, w2]);
        assert_eq!(e.multiplier, 1);
        assert!(e.reason.contains("same wall"));
    }

    #[test]
    fn a_wall_attacked_from_both_sides_is_not_tripled_18_4() {
        let kit = Kit::new();
        // A wall hex in a straight run with open ground on both flanks.
        let (w, a, b) = Hex::all()
            .filter(|h| kit.ground(*h) == Ground::Wall)
            .find_map(|h| {
                let n = h.neighbour(Direction::N)?;
                let s = h.neighbour(Direction::S)?;
                let ne = h.neighbour(Direction::Ne)?;
                let sw = h.neighbour(Direction::Sw)?;
                let walls = |x: Hex| kit.scn.map.wall_group(x) == kit.scn.map.wall_group(h);
                (walls(n)
                    && walls(s)
                    && !walls(ne)
                    && !walls(sw)
                    && kit.ground(ne) != Ground::Canal
                    && kit.ground(sw) != Ground::Canal)
                    .then_some((h, ne, sw))
            })
            .expect("a north-south wall run exists");
        assert_eq!(effect(&kit.scn, &kit.st, w, &[a]).multiplier, 3);
        let e = effect(&kit.scn, &kit.st, w, &[a, b]);
        assert_eq!(e.multiplier, 1, "{}", e.reason);
        assert!(e.reason.contains("both sides"));
    }

    #[test]
    fn the_tartar_wall_quadruples_unless_an_attacker_is_on_it_18_1_r3() {
        let kit = Kit::new();
        let (w, w2) = kit.two_adjacent(|g| g == Ground::TartarWall);
        let below = w
            .neighbours()
            .find(|n| kit.ground(*n) != Ground::TartarWall)
            .unwrap();
        assert_eq!(effect(&kit.scn, &kit.st, w, &[below]).multiplier, 4);
        assert_eq!(effect(&kit.scn, &kit.st, w, &[below, w2]).multiplier, 1);
    }

    #[test]
    fn a_ruin_doubles_and_a_fortification_triples_without_adding_up_17_13_18_4() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex_where(|k, h| k.open_around(h, 1));
        let n = h.neighbour(Direction::N).unwrap();
        assert_eq!(effect(&kit.scn, &kit.st, h, &[n]).multiplier, 1);
        kit.st.ruins.push(h);
        assert_eq!(effect(&kit.scn, &kit.st, h, &[n]).multiplier, 2);
        kit.st.fortifications.push(Fortification {
            hex: h,
            built_by: Side::Allied,
        });
        let e = effect(&kit.scn, &kit.st, h, &[n]);
        assert_eq!((e.multiplier, e.terrain.as_str()), (3, "fortification"));
        let s = h.neighbour(Direction::S).unwrap();
        assert_eq!(
            effect(&kit.scn, &kit.st, h, &[n, s]).multiplier,
            2,
            "flanked fortification: the ruin still doubles"
        );
    }
}
