//! Zones of control (6, 18.1, 18.2, 15; rulings R3, R6). A unit's ZOC is its own hex and the
//! six around it, except that it never extends into a building hex (so never from one building
//! hex to another), never into or across the canal, into the Tartar Wall only from a unit
//! already on the wall; civilians and doctors exert it only in their own hex, artillery not at
//! all. Ruins replace the terrain they fall on (17), so a ruined building takes a ZOC.

use crate::position::state::State;
use crate::position::state::ground;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::{Ground, ZocInto};

/// Whether a unit exerting a zone of control in `from` projects it into the adjacent `into`.
pub fn projects(scn: &Scenario, st: &State, from: Hex, into: Hex) -> bool {
    from == into || reaches(scn, ground(&scn.map, st, from), ground(&scn.map, st, into))
}

/// Whether a ZOC reaches from a unit on ground `from` into an adjacent hex of ground `into`
/// (the chart's ZOC column, R3; the Tartar Wall only from the wall, 6).
pub fn reaches(scn: &Scenario, from: Ground, into: Ground) -> bool {
    match scn.terrain.line(into).zoc {
        ZocInto::Yes => true,
        ZocInto::No => false,
        ZocInto::FromWall => from == Ground::TartarWall,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};
    use crate::vocabulary::units::UnitKind;
    use siege_protocol::Side;

    #[test]
    fn zoc_does_not_extend_into_buildings_6_18_2() {
        let kit = Kit::new();
        let (b, clear) = kit.building_next_to_clear();
        assert!(!projects(&kit.scn, &kit.st, clear, b));
        assert!(
            projects(&kit.scn, &kit.st, b, clear),
            "units in a building exert ZOC outward"
        );
    }

    #[test]
    fn zoc_never_runs_from_one_building_hex_to_another_6() {
        let kit = Kit::new();
        let (a, b) = kit.two_adjacent(|g| g == Ground::Building);
        assert!(!projects(&kit.scn, &kit.st, a, b));
    }

    #[test]
    fn zoc_does_not_extend_into_the_canal_6() {
        let kit = Kit::new();
        let canal = hex("2110");
        assert_eq!(kit.ground(canal), Ground::Canal);
        let bank = canal
            .neighbours()
            .find(|n| kit.ground(*n) != Ground::Canal)
            .unwrap();
        assert!(!projects(&kit.scn, &kit.st, bank, canal));
    }

    #[test]
    fn zoc_enters_the_tartar_wall_only_from_the_wall_6() {
        let kit = Kit::new();
        let (w1, w2) = kit.two_adjacent(|g| g == Ground::TartarWall);
        assert!(projects(&kit.scn, &kit.st, w1, w2));
        let below = w1
            .neighbours()
            .find(|n| kit.ground(*n) != Ground::TartarWall)
            .unwrap();
        assert!(!projects(&kit.scn, &kit.st, below, w1));
        assert!(projects(&kit.scn, &kit.st, w1, below));
    }

    #[test]
    fn a_ruined_building_takes_a_zoc_17() {
        let mut kit = Kit::new();
        let (b, clear) = kit.building_next_to_clear();
        kit.st.ruins.push(b);
        kit.st.ruins.sort();
        assert!(projects(&kit.scn, &kit.st, clear, b));
    }

    #[test]
    fn civilians_doctors_and_artillery_exert_no_zoc_beyond_their_hex_15() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let civ = kit.place(UnitKind::Civilian, Side::Allied, h);
        let board = kit.board();
        for n in h.neighbours() {
            assert!(!board.in_zoc_of(Side::Allied, n), "{n}");
        }
        let _ = civ;
        let mut kit = Kit::new();
        kit.place(UnitKind::Combat, Side::Allied, h);
        let board = kit.board();
        assert!(h.neighbours().any(|n| board.in_zoc_of(Side::Allied, n)));
    }
}
