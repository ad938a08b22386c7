//! The walls as they stand (17, 18.4, 8.5; ruling R7): the printed wall runs of the map less
//! every ruined hex. A ruined wall hex is a ruin and nothing else: a unit there is not "on the
//! same wall" as a defender (18.4) and does not see along the wall (8.5), and a ruin in the
//! middle of a run cuts it in two.

use crate::position::state::State;
use crate::vocabulary::hex::{HEX_COUNT, Hex};
use crate::vocabulary::map::Map;

/// Whether `a` and `b` stand on the same wall now: hexes of one printed wall run (ordinary
/// walls and the Tartar Wall are separate runs), neither ruined, joined through unruined hexes
/// of that run.
pub fn same_wall(map: &Map, st: &State, a: Hex, b: Hex) -> bool {
    let Some(group) = map.wall_group(a) else {
        return false;
    };
    if map.wall_group(b) != Some(group) || st.is_ruin(a) || st.is_ruin(b) {
        return false;
    }
    if a == b || !st.ruins.iter().any(|r| map.wall_group(*r) == Some(group)) {
        return true;
    }
    // A ruin stands somewhere on the run: walk from `a` along unruined hexes of it.
    let mut seen = vec![false; HEX_COUNT];
    seen[a.index()] = true;
    let mut stack = vec![a];
    while let Some(h) = stack.pop() {
        for n in h.neighbours() {
            if seen[n.index()] || map.wall_group(n) != Some(group) || st.is_ruin(n) {
                continue;
            }
            if n == b {
                return true;
            }
            seen[n.index()] = true;
            stack.push(n);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};

    #[test]
    fn a_ruin_takes_its_hex_off_the_wall_and_cuts_the_run_17_18_4_r7() {
        let mut kit = Kit::new();
        // 0310 to 0315 are one printed wall run (column 03 of the map, open ground either side).
        let (a, mid, b) = (hex("0310"), hex("0311"), hex("0312"));
        assert!(same_wall(&kit.scn.map, &kit.st, a, b));
        assert!(same_wall(&kit.scn.map, &kit.st, a, mid));
        kit.st.ruins.push(mid);
        assert!(
            !same_wall(&kit.scn.map, &kit.st, a, mid),
            "a ruin is off the wall"
        );
        assert!(!same_wall(&kit.scn.map, &kit.st, mid, mid));
        let around = Hex::all().any(|h| {
            h != mid
                && kit.scn.map.wall_group(h) == kit.scn.map.wall_group(a)
                && h.is_adjacent(a)
                && h.is_adjacent(b)
        });
        assert_eq!(
            same_wall(&kit.scn.map, &kit.st, a, b),
            around,
            "joined only through standing wall hexes"
        );
    }
}
