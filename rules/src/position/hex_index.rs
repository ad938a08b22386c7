//! A per-hex summary of the position — who occupies each hex, its stacking points, whether an
//! Allied combat unit mans it, which side's zone of control covers it — built once from the
//! state so that movement searches and legality checks read arrays instead of scanning units.

use crate::position::state::{Loc, State};
use crate::position::zoc;
use crate::vocabulary::hex::{HEX_COUNT, Hex};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::{Ground, printed_ground};
use crate::vocabulary::units::UnitKind;
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

/// One hex's summary packed into a word, so that a fresh board is a zeroed allocation.
/// Bits: 0–1 side (0 none, 1 Allied, 2 Chinese), 2–9 points, 10–13 artillery, then flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Packed(u32);

const MANNED: u32 = 1 << 14;
const NOT_ONLY_GUNS: u32 = 1 << 15;
const BLOCKS_LOS: u32 = 1 << 16;
const ALLIED_ZOC: u32 = 1 << 17;
const CHINESE_ZOC: u32 = 1 << 18;
const EXERTS: u32 = 1 << 19;

impl Packed {
    fn side(self) -> Option<Side> {
        match self.0 & 3 {
            1 => Some(Side::Allied),
            2 => Some(Side::Chinese),
            _ => None,
        }
    }

    fn set_side(&mut self, side: Side) {
        self.0 = (self.0 & !3) | if side == Side::Allied { 1 } else { 2 };
    }

    fn points(self) -> u8 {
        ((self.0 >> 2) & 0xff) as u8
    }

    fn add_points(&mut self, p: u8) {
        let total = u32::from(self.points())
            .saturating_add(u32::from(p))
            .min(0xff);
        self.0 = (self.0 & !(0xff << 2)) | (total << 2);
    }

    fn artillery(self) -> u8 {
        ((self.0 >> 10) & 0xf) as u8
    }

    fn add_gun(&mut self) {
        let guns = (u32::from(self.artillery()) + 1).min(0xf);
        self.0 = (self.0 & !(0xf << 10)) | (guns << 10);
    }

    fn has(self, flag: u32) -> bool {
        self.0 & flag != 0
    }

    fn info(self) -> HexInfo {
        let side = self.side();
        HexInfo {
            side,
            points: self.points(),
            artillery: self.artillery(),
            manned: self.has(MANNED),
            only_guns: side.is_some() && !self.has(NOT_ONLY_GUNS),
            blocks_los: self.has(BLOCKS_LOS) || (self.artillery() > 0 && self.has(MANNED)),
            allied_zoc: self.has(ALLIED_ZOC),
            chinese_zoc: self.has(CHINESE_ZOC),
        }
    }
}

/// The per-hex summary of a position.
#[derive(Clone, Debug)]
pub struct HexIndex {
    /// [`Packed`] words by hex index; a plain `u32` vector so that it starts zeroed.
    hexes: Vec<u32>,
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

impl HexIndex {
    /// Summarise the position: one pass over the units on the map, then the zones of control
    /// of each occupied hex.
    pub fn new(scn: &Scenario, st: &State) -> HexIndex {
        let mut hexes = vec![0u32; HEX_COUNT];
        let mut ruins = HexSet::default();
        for h in &st.ruins {
            ruins.insert(*h);
        }
        let mut forts = HexSet::default();
        for f in &st.fortifications {
            forts.insert(f.hex);
        }
        let mut occupied: Vec<Hex> = Vec::with_capacity(st.units.len());
        for (i, u) in st.units.iter().enumerate() {
            let Loc::Map(h) = u.loc else { continue };
            let c = &scn.counters.counters[i];
            let mut info = Packed(hexes[h.index()]);
            if info.side().is_none() {
                occupied.push(h);
            }
            info.set_side(c.side);
            if c.kind.counts_for_stacking() {
                info.add_points(c.strength_when(u.reduced));
            }
            let mut flags = 0;
            match c.kind {
                UnitKind::Artillery => info.add_gun(),
                UnitKind::Combat | UnitKind::Volunteer => flags |= MANNED,
                _ => {}
            }
            if !matches!(c.kind, UnitKind::Leader | UnitKind::Artillery) {
                flags |= BLOCKS_LOS;
            }
            if c.kind != UnitKind::Artillery {
                flags |= NOT_ONLY_GUNS;
            }
            if c.kind.exerts_zoc() {
                flags |= EXERTS;
            }
            info.0 |= flags;
            hexes[h.index()] = info.0;
        }
        for &h in &occupied {
            let info = Packed(hexes[h.index()]);
            if !info.has(EXERTS) {
                continue;
            }
            let flag = if info.side() == Some(Side::Allied) {
                ALLIED_ZOC
            } else {
                CHINESE_ZOC
            };
            hexes[h.index()] |= flag;
            let from = ground_in(scn, &ruins, h);
            for n in h.neighbours() {
                if zoc::reaches(scn, from, ground_in(scn, &ruins, n)) {
                    hexes[n.index()] |= flag;
                }
            }
        }
        HexIndex {
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
    pub fn at(&self, hex: Hex) -> HexInfo {
        Packed(self.hexes[hex.index()]).info()
    }

    /// Whether `hex` is in the zone of control of `side`'s units (6).
    pub fn in_zoc_of(&self, side: Side, hex: Hex) -> bool {
        let flag = if side == Side::Allied {
            ALLIED_ZOC
        } else {
            CHINESE_ZOC
        };
        Packed(self.hexes[hex.index()]).has(flag)
    }

    /// Whether `hex` holds units of the side opposed to `side`.
    pub fn enemy_in(&self, side: Side, hex: Hex) -> bool {
        Packed(self.hexes[hex.index()]).side() == Some(side.other())
    }

    /// Whether a unit of `side` may enter `hex` as far as its occupants go (5.1): not into
    /// enemy units, except that Chinese units pass over unmanned Allied artillery (9, R6).
    pub fn enterable_by(&self, side: Side, hex: Hex) -> bool {
        let info = Packed(self.hexes[hex.index()]);
        match info.side() {
            None => true,
            Some(s) if s == side => true,
            Some(_) => side == Side::Chinese && !info.has(NOT_ONLY_GUNS),
        }
    }
}
