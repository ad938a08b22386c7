//! A per-hex summary of the position — who occupies each hex, its stacking points, whether an
//! Allied combat unit mans it, which side's zone of control covers it — built once from the
//! state so that movement searches and legality checks read arrays instead of scanning units.

use super::hex::{HEX_COUNT, Hex};
use super::scenario::Scenario;
use super::state::{Loc, State};
use super::terrain::{Ground, printed_ground};
use super::units::UnitKind;
use super::zoc;
use siege_protocol::Side;

/// What the board knows about one hex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HexInfo {
    /// The side whose units are in the hex (never both).
    pub side: Option<Side>,
    /// Stacking points in the hex (7).
    pub points: u8,
    /// Allied artillery pieces in the hex (7: at most one).
    pub artillery: u8,
    /// An Allied combat unit or volunteers are in the hex: artillery here is manned (9) and
    /// civilians here are escorted (15).
    pub manned: bool,
    /// Every unit in the hex is Allied artillery: unmanned guns do not stop Chinese movement
    /// and are overrun (9, R6).
    pub only_guns: bool,
    /// Units in the hex block line of sight: anything but lone leaders and unmanned artillery
    /// (8.5).
    pub blocks_los: bool,
    /// Covered by the Allied zone of control (6).
    pub allied_zoc: bool,
    /// Covered by the Chinese zone of control (6).
    pub chinese_zoc: bool,
}

/// The ground of `hex` given the ruined hexes.
fn ground_in(scn: &Scenario, ruins: &HexSet, hex: Hex) -> Ground {
    if ruins.contains(hex) {
        Ground::Ruin
    } else {
        printed_ground(scn.map.terrain(hex))
    }
}

/// The per-hex summary of a position.
#[derive(Clone, Debug)]
pub struct Board {
    hexes: Vec<HexInfo>,
    /// Ruin markers as a bit per hex (17), for the searches that ask for every hex.
    ruins: HexSet,
    /// Fortifications as a bit per hex (13).
    forts: HexSet,
}

/// A set of hexes as one bit per hex.
#[derive(Clone, Debug, Default)]
struct HexSet([u64; HEX_COUNT.div_ceil(64)]);

impl HexSet {
    fn insert(&mut self, h: Hex) {
        self.0[h.index() / 64] |= 1 << (h.index() % 64);
    }

    fn contains(&self, h: Hex) -> bool {
        self.0[h.index() / 64] & (1 << (h.index() % 64)) != 0
    }
}

impl Board {
    /// Summarise the position: one pass over the units on the map, then the zones of control
    /// of each occupied hex.
    pub fn new(scn: &Scenario, st: &State) -> Board {
        let mut hexes = vec![HexInfo::default(); HEX_COUNT];
        let mut ruins = HexSet::default();
        for h in &st.ruins {
            ruins.insert(*h);
        }
        let mut forts = HexSet::default();
        for f in &st.fortifications {
            forts.insert(f.hex);
        }
        // Occupied hexes, each once, with whether a unit there exerts a ZOC and whether any
        // unit there is not artillery.
        let mut occupied: Vec<(Hex, bool, bool)> = Vec::with_capacity(st.units.len());
        for (i, u) in st.units.iter().enumerate() {
            let Loc::Map(h) = u.loc else { continue };
            let c = &scn.counters.counters[i];
            let info = &mut hexes[h.index()];
            let first = info.side.is_none();
            info.side = Some(c.side);
            if c.kind.counts_for_stacking() {
                info.points += c.strength_when(u.reduced);
            }
            match c.kind {
                UnitKind::Artillery => info.artillery += 1,
                UnitKind::Combat | UnitKind::Volunteer => info.manned = true,
                _ => {}
            }
            if !matches!(c.kind, UnitKind::Leader | UnitKind::Artillery) {
                info.blocks_los = true;
            }
            let exerts = c.kind.exerts_zoc();
            let not_gun = c.kind != UnitKind::Artillery;
            if first {
                occupied.push((h, exerts, not_gun));
            } else if let Some(o) = occupied.iter_mut().rev().find(|o| o.0 == h) {
                o.1 |= exerts;
                o.2 |= not_gun;
            }
        }
        for &(h, exerts, not_gun) in &occupied {
            let info = &mut hexes[h.index()];
            info.only_guns = !not_gun;
            if info.artillery > 0 && info.manned {
                info.blocks_los = true;
            }
            if !exerts {
                continue;
            }
            let side = info.side;
            let from = ground_in(scn, &ruins, h);
            for n in std::iter::once(h).chain(h.neighbours()) {
                if n == h || zoc::reaches(scn, from, ground_in(scn, &ruins, n)) {
                    let target = &mut hexes[n.index()];
                    match side {
                        Some(Side::Allied) => target.allied_zoc = true,
                        Some(Side::Chinese) => target.chinese_zoc = true,
                        None => {}
                    }
                }
            }
        }
        Board {
            hexes,
            ruins,
            forts,
        }
    }

    /// The terrain in play in `hex` (a ruin replaces the printed terrain, 17).
    pub fn ground(&self, scn: &Scenario, hex: Hex) -> Ground {
        ground_in(scn, &self.ruins, hex)
    }

    /// Whether `hex` holds a fortification (13).
    pub fn fortified(&self, hex: Hex) -> bool {
        self.forts.contains(hex)
    }

    /// What the board knows about `hex`.
    pub fn at(&self, hex: Hex) -> &HexInfo {
        &self.hexes[hex.index()]
    }

    /// Whether `hex` is in the zone of control of `side`'s units (6).
    pub fn in_zoc_of(&self, side: Side, hex: Hex) -> bool {
        let info = self.at(hex);
        match side {
            Side::Allied => info.allied_zoc,
            Side::Chinese => info.chinese_zoc,
        }
    }

    /// Whether `hex` holds units of the side opposed to `side`.
    pub fn enemy_in(&self, side: Side, hex: Hex) -> bool {
        self.at(hex).side == Some(side.other())
    }

    /// Whether a unit of `side` may enter `hex` as far as its occupants go (5.1): not into
    /// enemy units, except that Chinese units pass over unmanned Allied artillery (9, R6).
    pub fn enterable_by(&self, side: Side, hex: Hex) -> bool {
        let info = self.at(hex);
        match info.side {
            None => true,
            Some(s) if s == side => true,
            Some(_) => side == Side::Chinese && info.only_guns,
        }
    }
}
