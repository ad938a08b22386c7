//! A per-hex summary of the position — who occupies each hex, its stacking points, whether an
//! Allied combat unit mans it, which side's zone of control covers it — built once from the
//! state so that movement searches and legality checks read arrays instead of scanning units.
//!
//! A state keeps the board last built for it ([`HexIndexMemo`], read through [`HexIndex::of`]):
//! the legal list of a state, the apply that follows it and every check inside that apply read
//! one board, made again only once the units, ruins or fortifications it summarises differ
//! from those it was made from. When only a few units moved or turned over, the last board is
//! brought up to date — the hexes they left and entered counted again, the zones of control
//! around those hexes worked out again — instead of summarising every counter anew. The memo
//! is checked against exactly what [`HexIndex::new`] reads, so a remembered or updated board
//! is always the board a fresh build would give (debug builds build it afresh on every use and
//! assert so); the units are read for that check only when they were written since the last
//! one (their stamp, [`Units`](crate::position::state::Units)). The board also keeps the hexes
//! over the stacking limits (7), which the after-action checks ask after every change.

use crate::position::state::{Loc, State, UnitState};
use crate::position::zoc;
use crate::vocabulary::hex::{HEX_COUNT, Hex};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::{Ground, printed_ground};
use crate::vocabulary::units::{UnitKind, stacking_limit};
use siege_protocol::Side;
use std::sync::{Arc, Mutex};

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

/// One hex's summary packed into a word: what a movement search reads of a hex is one load.
/// Bits: 0–1 side (0 none, 1 Allied, 2 Chinese), 2–9 points, 10–13 artillery, 14–20 flags,
/// 21–24 the ground in play ([`GROUNDS`]), 25 a fortification.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Packed(u32);

const MANNED: u32 = 1 << 14;
const NOT_ONLY_GUNS: u32 = 1 << 15;
const BLOCKS_LOS: u32 = 1 << 16;
const ALLIED_ZOC: u32 = 1 << 17;
const CHINESE_ZOC: u32 = 1 << 18;
const EXERTS: u32 = 1 << 19;
const EXERTS_IN_OWN_HEX: u32 = 1 << 20;
const GROUND_SHIFT: u32 = 21;
const GROUND_BITS: u32 = 0xf << GROUND_SHIFT;
const FORTIFIED: u32 = 1 << 25;
/// What recounting a hex's units leaves as it was: its ground, its fortification, and the
/// zones of control, which are worked out after.
const NOT_UNITS: u32 = ALLIED_ZOC | CHINESE_ZOC | GROUND_BITS | FORTIFIED;

/// Every ground, in the order of its discriminant: the number kept in a [`Packed`] word.
const GROUNDS: [Ground; 9] = [
    Ground::Clear,
    Ground::Outside,
    Ground::Bridge,
    Ground::StoneBridge,
    Ground::Building,
    Ground::Wall,
    Ground::TartarWall,
    Ground::Canal,
    Ground::Ruin,
];

/// Entries of [`HexIndex::steps`]: every ground left, every ground entered, fortified or not.
const STEPS: usize = GROUNDS.len() * GROUNDS.len() * 2;

/// A step that may not be taken, in [`HexIndex::steps`].
const NO_ENTRY: u8 = u8::MAX;

/// The index in [`HexIndex::steps`] of a step from ground number `from` to `to`.
fn step_index(from: u32, to: u32, fortified: bool) -> usize {
    (from as usize * GROUNDS.len() + to as usize) * 2 + usize::from(fortified)
}

/// The ground bits of `g` in a [`Packed`] word.
fn ground_bits(g: Ground) -> u32 {
    (g as u32) << GROUND_SHIFT
}

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

/// The zone-of-control flag of the side whose units are in a hex.
fn zoc_flag(info: Packed) -> u32 {
    if info.side() == Some(Side::Allied) {
        ALLIED_ZOC
    } else {
        CHINESE_ZOC
    }
}

/// Units changing hexes in one step, at most, for which bringing the last board up to date is
/// cheaper than building a new one (a whole stack moving, a combat's losses and retreats).
const UPDATE_AT_MOST: usize = 16;

/// The per-hex summary of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HexIndex {
    /// [`Packed`] words by hex index.
    hexes: Vec<u32>,
    /// The scenario's movement costs (5.1, 18.1, R3) by ground left, ground entered and
    /// fortification, as [`HexIndex::entry_cost`] reads them; [`NO_ENTRY`] where entry is
    /// prohibited. A movement search asks it of every hex side it crosses.
    steps: [u8; STEPS],
    /// Hexes over the stacking limits (7), in hex order: asked after every change, and almost
    /// always empty.
    over: Vec<Hex>,
}

impl HexIndex {
    /// The board of `st`: the one remembered in the state if what it was built from is
    /// unchanged, otherwise built afresh with [`HexIndex::new`] and remembered. Shared, so that
    /// a board read before a change stays the board of the position it was read in.
    pub fn of(scn: &Scenario, st: &State) -> Arc<HexIndex> {
        st.board.get(scn, st)
    }

    /// Summarise the position: one pass over the units on the map, then the zones of control
    /// of each occupied hex.
    pub fn new(scn: &Scenario, st: &State) -> HexIndex {
        let mut board = HexIndex {
            hexes: Hex::all()
                .map(|h| ground_bits(printed_ground(scn.map.terrain(h))))
                .collect(),
            steps: [NO_ENTRY; STEPS],
            over: Vec::new(),
        };
        for (f, from) in GROUNDS.iter().enumerate() {
            for (t, to) in GROUNDS.iter().enumerate() {
                for fortified in [false, true] {
                    if let Some(mp) = scn.terrain.entry_cost(*from, *to, fortified) {
                        board.steps[step_index(f as u32, t as u32, fortified)] = mp;
                    }
                }
            }
        }
        for h in &st.ruins {
            let word = &mut board.hexes[h.index()];
            *word = (*word & !GROUND_BITS) | ground_bits(Ground::Ruin);
        }
        board.set_forts(&[], st.fortifications.iter().map(|f| f.hex));
        let mut occupied: Vec<Hex> = Vec::with_capacity(st.units.len());
        for (i, u) in st.units.iter().enumerate() {
            let Loc::Map(h) = u.loc else { continue };
            if Packed(board.hexes[h.index()]).side().is_none() {
                occupied.push(h);
            }
            board.add_unit(scn, i, u.reduced, h);
        }
        board.over = occupied
            .iter()
            .copied()
            .filter(|h| !board.within_limits(*h))
            .collect();
        board.over.sort_unstable();
        for &h in &occupied {
            let info = Packed(board.hexes[h.index()]);
            if !info.has(EXERTS | EXERTS_IN_OWN_HEX) {
                continue;
            }
            let flag = zoc_flag(info);
            board.hexes[h.index()] |= flag;
            if !info.has(EXERTS) {
                continue;
            }
            let from = board.ground(scn, h);
            for n in h.neighbours() {
                if zoc::reaches(scn, from, board.ground(scn, n)) {
                    board.hexes[n.index()] |= flag;
                }
            }
        }
        board
    }

    /// Count unit number `i` of the counter mix, showing its reduced side or not, in `h`.
    fn add_unit(&mut self, scn: &Scenario, i: usize, reduced: bool, h: Hex) {
        let c = &scn.counters.counters[i];
        let mut info = Packed(self.hexes[h.index()]);
        info.set_side(c.side);
        if c.kind.counts_for_stacking() {
            info.add_points(c.strength_when(reduced));
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
        match zoc::extent(c.kind) {
            zoc::Extent::Around => flags |= EXERTS,
            zoc::Extent::OwnHex => flags |= EXERTS_IN_OWN_HEX,
            zoc::Extent::None => {}
        }
        info.0 |= flags;
        self.hexes[h.index()] = info.0;
    }

    /// This board brought up to date after the units in `touched` changed (the hexes some
    /// unit left, entered or turned over in): their occupants, listed by `occupants`, are
    /// counted again from the units' keys `keys` ([`unit_key`]), and the zones of control of
    /// those hexes and their neighbours worked out again — the only hexes whose summary such a
    /// change can alter. The ruins must be those the board was built with.
    fn update(&mut self, scn: &Scenario, keys: &[u32], occupants: &Occupants, touched: &[Hex]) {
        for &h in touched {
            self.hexes[h.index()] &= NOT_UNITS;
            for i in occupants.of(h) {
                self.add_unit(scn, i, keys[i] & 1 != 0, h);
            }
        }
        self.over.retain(|h| !touched.contains(h));
        for &h in touched {
            if !self.within_limits(h) {
                self.over.push(h);
            }
        }
        self.over.sort_unstable();
        let mut around: Vec<Hex> = touched
            .iter()
            .flat_map(|h| std::iter::once(*h).chain(h.neighbours()))
            .collect();
        around.sort_unstable();
        around.dedup();
        for n in around {
            let into = self.ground(scn, n);
            let own = Packed(self.hexes[n.index()]);
            let mut flags = 0;
            if own.has(EXERTS | EXERTS_IN_OWN_HEX) {
                flags |= zoc_flag(own);
            }
            for m in n.neighbours() {
                let info = Packed(self.hexes[m.index()]);
                if info.has(EXERTS) && zoc::reaches(scn, self.ground(scn, m), into) {
                    flags |= zoc_flag(info);
                }
            }
            self.hexes[n.index()] = (own.0 & !(ALLIED_ZOC | CHINESE_ZOC)) | flags;
        }
    }

    /// Whether the units in `hex` are within the limits of section 7: strength points up to the
    /// side's limit, and one Allied artillery piece.
    pub fn within_limits(&self, hex: Hex) -> bool {
        let info = Packed(self.hexes[hex.index()]);
        match info.side() {
            None => true,
            Some(side) => info.points() <= stacking_limit(side) && info.artillery() <= 1,
        }
    }

    /// The hexes whose units are over the limits of section 7, in hex order.
    pub fn over_limit(&self) -> &[Hex] {
        &self.over
    }

    /// Mark the fortified hexes: `was` are unmarked, `now` marked (13).
    fn set_forts(&mut self, was: &[Hex], now: impl Iterator<Item = Hex>) {
        for h in was {
            self.hexes[h.index()] &= !FORTIFIED;
        }
        for h in now {
            self.hexes[h.index()] |= FORTIFIED;
        }
    }

    /// The terrain in play in `hex` (a ruin replaces the printed terrain, 17), on the scenario
    /// the board was built from.
    pub fn ground(&self, scn: &Scenario, hex: Hex) -> Ground {
        let g = GROUNDS[((self.hexes[hex.index()] & GROUND_BITS) >> GROUND_SHIFT) as usize];
        debug_assert!(
            g == Ground::Ruin || g == printed_ground(scn.map.terrain(hex)),
            "the board of another scenario"
        );
        g
    }

    /// Movement points to move from `from` into the adjacent `to` given the ground in play
    /// and any fortification in `to` (5.1, 18.1, the terrain chart's `entry_cost`), or `None`
    /// where entry is prohibited.
    pub fn entry_cost(&self, from: Hex, to: Hex) -> Option<u8> {
        let ground = |w: u32| (w & GROUND_BITS) >> GROUND_SHIFT;
        let (a, b) = (self.hexes[from.index()], self.hexes[to.index()]);
        let mp = self.steps[step_index(ground(a), ground(b), b & FORTIFIED != 0)];
        (mp != NO_ENTRY).then_some(mp)
    }

    /// Whether `hex` holds a fortification (13).
    pub fn fortified(&self, hex: Hex) -> bool {
        Packed(self.hexes[hex.index()]).has(FORTIFIED)
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

/// What the board reads of one unit, as one word: its hex (or that it is off the map) and
/// whether it shows its reduced side. Equal words, equal contributions to the board.
fn unit_key(u: &UnitState) -> u32 {
    let at = match u.loc {
        Loc::Map(h) => h.index() as u32 + 1,
        _ => 0,
    };
    at << 1 | u32::from(u.reduced)
}

/// The hex of a [`unit_key`], if the unit was on the map.
fn key_hex(key: u32) -> Option<Hex> {
    (key >> 1)
        .checked_sub(1)
        .and_then(|i| Hex::from_index(i as usize))
}

/// What a board was built from: the scenario's address and, of the state, every unit's
/// location and side shown, the ruins and the fortified hexes — everything [`HexIndex::new`]
/// reads. Equal inputs, equal boards.
#[derive(Clone, Debug)]
struct Memo {
    scenario: usize,
    /// Each unit's [`unit_key`]: comparing words is what makes a remembered board cheap to
    /// trust, and this is asked several times for every action.
    units: Vec<u32>,
    /// The units in each hex, by their keys: a hex's occupants are counted again without
    /// reading every key.
    occupants: Occupants,
    ruins: Vec<Hex>,
    forts: Vec<Hex>,
    board: Arc<HexIndex>,
}

/// The units in each hex as lists threaded through two arrays: the first unit of each hex
/// and, for each unit, the next in its hex. A unit that moves is unlinked from one short list
/// and put at the head of another; the order within a hex does not matter, since counting a
/// hex's units adds and ors.
#[derive(Clone, Debug)]
struct Occupants {
    first: Vec<u16>,
    next: Vec<u16>,
}

/// The end of an [`Occupants`] list.
const NONE: u16 = u16::MAX;

impl Occupants {
    /// The occupants of the units whose keys are `keys`.
    fn of_keys(keys: &[u32]) -> Occupants {
        let mut occupants = Occupants {
            first: vec![NONE; HEX_COUNT],
            next: vec![NONE; keys.len()],
        };
        for (i, &key) in keys.iter().enumerate() {
            occupants.link(i, key);
        }
        occupants
    }

    /// Unit `i`, whose key was `was`, now has key `now`.
    fn moved(&mut self, i: usize, was: u32, now: u32) {
        if key_hex(was) == key_hex(now) {
            return;
        }
        if let Some(h) = key_hex(was) {
            let after = self.next[i];
            let head = self.first[h.index()];
            if usize::from(head) == i {
                self.first[h.index()] = after;
            } else {
                let mut at = usize::from(head);
                while usize::from(self.next[at]) != i {
                    debug_assert!(self.next[at] != NONE, "unit {i} is listed in {h}");
                    at = usize::from(self.next[at]);
                }
                self.next[at] = after;
            }
        }
        self.link(i, now);
    }

    /// Put unit `i` at the head of the list of the hex of its key `key`, if on the map.
    fn link(&mut self, i: usize, key: u32) {
        self.next[i] = NONE;
        if let Some(h) = key_hex(key) {
            self.next[i] = self.first[h.index()];
            self.first[h.index()] = u16::try_from(i).expect("fewer units than u16::MAX");
        }
    }

    /// The units in `h`.
    fn of(&self, h: Hex) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.first[h.index()];
        std::iter::from_fn(move || {
            (at != NONE).then(|| {
                let i = usize::from(at);
                at = self.next[i];
                i
            })
        })
    }
}

/// Every unit's [`unit_key`], in unit order.
fn keys_of(st: &State) -> Vec<u32> {
    st.units.iter().map(unit_key).collect()
}

impl Memo {
    #[cfg(test)]
    fn build(scn: &Scenario, st: &State) -> Memo {
        Memo::build_with(scn, st, keys_of(st))
    }

    /// [`Memo::build`] given the keys of `st`'s units.
    fn build_with(scn: &Scenario, st: &State, units: Vec<u32>) -> Memo {
        Memo {
            scenario: scn as *const Scenario as usize,
            occupants: Occupants::of_keys(&units),
            units,
            ruins: st.ruins.clone(),
            forts: st.fortifications.iter().map(|f| f.hex).collect(),
            board: Arc::new(HexIndex::new(scn, st)),
        }
    }

    /// The memo of `st` made from this one by bringing its board up to date, where only units
    /// moved, turned over or left the map, and few enough of them; `None` where a new board
    /// must be built (another scenario, the ruins changed, many units changed).
    #[cfg(test)]
    fn next(&self, scn: &Scenario, st: &State) -> Option<Memo> {
        let keys = keys_of(st);
        let touched = self.touched(scn, st, &keys)?;
        let mut next = self.clone();
        next.set_keys(&keys);
        next.advance(scn, st, &touched);
        Some(next)
    }

    /// The hexes some unit left, entered or turned over in between this memo and the units'
    /// keys `units`, where bringing the board up to date is cheaper than building it; `None`
    /// where a new board must be built (another scenario, the ruins changed, many units
    /// changed).
    fn touched(&self, scn: &Scenario, st: &State, units: &[u32]) -> Option<Vec<Hex>> {
        if self.units.len() != units.len() {
            return None;
        }
        let changes = self.units.iter().zip(units).filter(|(was, now)| was != now);
        self.touched_by(scn, st, changes.map(|(&was, &now)| (was, now)))
    }

    /// [`Memo::touched`] given the keys that changed, each as it was and as it is now.
    fn touched_by(
        &self,
        scn: &Scenario,
        st: &State,
        changes: impl IntoIterator<Item = (u32, u32)>,
    ) -> Option<Vec<Hex>> {
        if self.scenario != scn as *const Scenario as usize || self.ruins != st.ruins {
            return None;
        }
        let mut touched: Vec<Hex> = Vec::new();
        for (was, now) in changes {
            for at in [key_hex(was), key_hex(now)].into_iter().flatten() {
                if !touched.contains(&at) {
                    touched.push(at);
                }
            }
            if touched.len() > UPDATE_AT_MOST {
                return None;
            }
        }
        Some(touched)
    }

    /// Unit `i` has the key `now`.
    fn set_key(&mut self, i: usize, now: u32) {
        self.occupants.moved(i, self.units[i], now);
        self.units[i] = now;
    }

    /// The units have the keys `keys` (as many as this memo's).
    fn set_keys(&mut self, keys: &[u32]) {
        for (i, &now) in keys.iter().enumerate() {
            if self.units[i] != now {
                self.set_key(i, now);
            }
        }
    }

    /// Bring this memo's board up to date with `st`, whose units' keys this memo now holds
    /// and which differ from those the board was made for in the hexes `touched`
    /// ([`Memo::touched`]). The board is changed in place where nothing else holds it, else
    /// copied first: a board handed out stays the board of the position it was read in.
    fn advance(&mut self, scn: &Scenario, st: &State, touched: &[Hex]) {
        let board = Arc::make_mut(&mut self.board);
        board.update(scn, &self.units, &self.occupants, touched);
        if self.forts.len() != st.fortifications.len()
            || self
                .forts
                .iter()
                .zip(&st.fortifications)
                .any(|(h, f)| *h != f.hex)
        {
            let forts: Vec<Hex> = st.fortifications.iter().map(|f| f.hex).collect();
            board.set_forts(&self.forts, forts.iter().copied());
            self.forts = forts;
        }
    }

    /// Whether this board was built from `scn` and from the ruins and fortifications `st`
    /// holds now: all [`Memo::fits`] asks but the units.
    fn fits_beside_units(&self, scn: &Scenario, st: &State) -> bool {
        self.scenario == scn as *const Scenario as usize
            && self.ruins == st.ruins
            && self.forts.len() == st.fortifications.len()
            && self
                .forts
                .iter()
                .zip(&st.fortifications)
                .all(|(h, f)| *h == f.hex)
    }
}

/// The board last built for a state, kept in the state (never serialized, never compared):
/// building it is a pass over every counter and their zones of control, and the legal list,
/// the apply that follows and the checks after it would otherwise each build their own for
/// the same position. A copy of the state shares it until either changes its units.
#[derive(Default)]
pub struct HexIndexMemo(Mutex<Option<Kept>>);

/// A remembered board, the stamp of the units it is known to fit (`Units::stamp`), and the
/// base it linked itself to those units with (`Units::link`; 0: none).
#[derive(Clone, Debug)]
struct Kept {
    stamp: u64,
    base: u64,
    memo: Arc<Memo>,
}

impl HexIndexMemo {
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Kept>> {
        // A panic while the lock was held leaves at worst no memo or a complete one.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The board of `st` on `scn`, remembered or built and remembered.
    fn get(&self, scn: &Scenario, st: &State) -> Arc<HexIndex> {
        let mut slot = self.slot();
        let units = &st.units;
        if let Some(kept) = slot.as_mut() {
            // The units unchanged since the board was made or last caught up (their stamp,
            // see `Units`): only the ruins and fortifications need comparing.
            if kept.stamp == units.stamp() && kept.memo.fits_beside_units(scn, st) {
                debug_assert!(
                    *kept.memo.board == HexIndex::new(scn, st),
                    "the remembered board is the board of the units' stamp"
                );
                if units.written_since(kept.base).is_none() {
                    kept.base = units.link();
                }
                return kept.memo.board.clone();
            }
            // Linked to these units: read only those written since the board caught up.
            if let Some(written) = units.written_since(kept.base)
                && let Some(board) = Self::catch_up(kept, scn, st, written)
            {
                return board;
            }
        }
        // The units borrowed whole for a change since: read what the board reads of each, once.
        let keys = keys_of(st);
        if let Some(kept) = slot.as_mut()
            && kept.memo.units == keys
            && kept.memo.fits_beside_units(scn, st)
        {
            debug_assert!(
                *kept.memo.board == HexIndex::new(scn, st),
                "the remembered board is the board of the position"
            );
            kept.stamp = units.stamp();
            kept.base = units.link();
            return kept.memo.board.clone();
        }
        // Brought up to date in place where this state alone holds the memo (the game hands
        // the position being changed the memo of the one it was copied from).
        let memo = match slot.take() {
            Some(mut kept) => match kept.memo.touched(scn, st, &keys) {
                Some(touched) => {
                    let memo = Arc::make_mut(&mut kept.memo);
                    memo.set_keys(&keys);
                    memo.advance(scn, st, &touched);
                    kept.memo
                }
                None => Arc::new(Memo::build_with(scn, st, keys)),
            },
            None => Arc::new(Memo::build_with(scn, st, keys)),
        };
        debug_assert!(
            *memo.board == HexIndex::new(scn, st),
            "a board brought up to date is the board of the position"
        );
        let board = memo.board.clone();
        *slot = Some(Kept {
            stamp: units.stamp(),
            base: units.link(),
            memo,
        });
        board
    }

    /// Bring `kept` up to date with `st`, whose units `written` are the only ones that may
    /// differ from those it was made for (`Units::written_since`); `None` where a new board
    /// must be built instead.
    fn catch_up(
        kept: &mut Kept,
        scn: &Scenario,
        st: &State,
        written: impl Iterator<Item = usize>,
    ) -> Option<Arc<HexIndex>> {
        let changes: Vec<(usize, u32)> = written
            .filter_map(|i| {
                let now = unit_key(&st.units[i]);
                (now != kept.memo.units[i]).then_some((i, now))
            })
            .collect();
        let touched = kept.memo.touched_by(
            scn,
            st,
            changes.iter().map(|&(i, now)| (kept.memo.units[i], now)),
        )?;
        if !changes.is_empty() || !kept.memo.fits_beside_units(scn, st) {
            let memo = Arc::make_mut(&mut kept.memo);
            for (i, now) in changes {
                memo.set_key(i, now);
            }
            memo.advance(scn, st, &touched);
        }
        debug_assert!(
            *kept.memo.board == HexIndex::new(scn, st),
            "a board caught up with the units written is the board of the position"
        );
        kept.stamp = st.units.stamp();
        st.units.caught_up();
        Some(kept.memo.board.clone())
    }

    /// Forget the remembered board: for a state kept aside (the history of decisions that
    /// may be taken back), which need not hold one, or whose scenario changed in place.
    pub fn forget(&self) {
        *self.slot() = None;
    }
}

impl Clone for HexIndexMemo {
    fn clone(&self) -> HexIndexMemo {
        HexIndexMemo(Mutex::new(self.slot().clone()))
    }
}

impl std::fmt::Debug for HexIndexMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HexIndexMemo")
    }
}

/// A memo is not part of the position: any two are equal, so states compare by what they hold.
impl PartialEq for HexIndexMemo {
    fn eq(&self, _: &HexIndexMemo) -> bool {
        true
    }
}

impl Eq for HexIndexMemo {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::game::Game;
    use crate::face::random::Bot;
    use crate::face::testkit::{Kit, scenario};
    use crate::position::state::Fortification;

    /// The remembered board equals a fresh one after every action of whole random games, and
    /// a state whose units have not changed answers with the very same board.
    #[test]
    fn the_remembered_board_is_always_the_fresh_board_of_random_games() {
        let scn = scenario();
        for seed in 1..=3u8 {
            let mut game = Game::new(scn.clone(), [seed; 32]);
            let mut bot = Bot::new(u64::from(seed), scn.map.hospital().to_vec());
            let mut actions = 0;
            while let Some(side) = game.to_act() {
                let legal = game.legal_actions(side);
                let action = bot.choose(&game, &legal).expect("a legal action").clone();
                game.apply(side, &action).expect("legal actions apply");
                actions += 1;
                let st = game.state();
                let kept = HexIndex::of(&scn, st);
                assert!(
                    *kept == HexIndex::new(&scn, st),
                    "seed {seed}, after action {actions} ({action:?})"
                );
                assert!(Arc::ptr_eq(&kept, &HexIndex::of(&scn, st)), "built once");
            }
            assert!(
                actions > 100,
                "seed {seed}: a whole game, {actions} actions"
            );
        }
    }

    /// The board of the position before an action, brought up to date, is the board of the
    /// position after it, after every action of whole random games where it applies (moves,
    /// losses, retreats, entries: zones of control 6, stacking points 7).
    #[test]
    fn a_board_brought_up_to_date_is_the_fresh_board_of_random_games() {
        let scn = scenario();
        let mut updated = 0;
        for seed in 4..=6u8 {
            let mut game = Game::new(scn.clone(), [seed; 32]);
            let mut bot = Bot::new(u64::from(seed), scn.map.hospital().to_vec());
            while let Some(side) = game.to_act() {
                let legal = game.legal_actions(side);
                let action = bot.choose(&game, &legal).expect("a legal action").clone();
                let before = Memo::build(&scn, game.state());
                game.apply(side, &action).expect("legal actions apply");
                let st = game.state();
                if let Some(next) = before.next(&scn, st) {
                    updated += 1;
                    assert!(
                        *next.board == HexIndex::new(&scn, st),
                        "seed {seed}, after {action:?}"
                    );
                }
            }
        }
        assert!(updated > 300, "{updated} boards brought up to date");
    }

    /// A ruin changes the ground under the zones of control: the board is built anew (17, 6).
    #[test]
    fn a_new_ruin_makes_a_new_board_not_an_update_17() {
        let mut kit = Kit::new();
        kit.deploy_allies();
        let before = Memo::build(&kit.scn, &kit.st);
        let h = kit.some_clear_hex();
        kit.st.ruins.push(h);
        kit.st.ruins.sort();
        assert!(before.next(&kit.scn, &kit.st).is_none());
    }

    /// The remembered board is trusted by the units' stamp (`Units`) only while the stamp is
    /// theirs: units written but left as they were keep the very same board; units swapped
    /// whole for those of another position get the board of what they hold (6, 7).
    #[test]
    fn the_units_stamp_decides_when_the_units_are_read_again() {
        let mut kit = Kit::new();
        kit.deploy_allies();
        let first = HexIndex::of(&kit.scn, &kit.st);
        let stamp = kit.st.units.stamp();
        for u in &mut kit.st.units {
            u.marks.moved = true;
        }
        assert_ne!(kit.st.units.stamp(), stamp, "written: a new stamp");
        assert!(
            Arc::ptr_eq(&first, &HexIndex::of(&kit.scn, &kit.st)),
            "marks are not on the board: the same board"
        );
        let mut other = kit.st.clone();
        let u = kit.id("gb1");
        let h = kit.some_clear_hex();
        other.unit_mut(u).loc = Loc::Map(h);
        kit.st.units = other.units.clone();
        let now = HexIndex::of(&kit.scn, &kit.st);
        assert!(*now == HexIndex::new(&kit.scn, &kit.st));
        assert!(*now != *first, "{h} is occupied now");
    }

    /// A board linked to its units catches up by reading only the units written since; units
    /// that come from a copy which went its own way — moved in, not copied — are read whole,
    /// so the board is still the board of what they hold (6, 7).
    #[test]
    fn a_board_reads_only_the_units_written_but_never_trusts_another_copys_5_6_7() {
        let mut kit = Kit::new();
        kit.deploy_allies();
        let (u, v) = (kit.id("gb1"), kit.id("us1"));
        let (h1, h2) = (
            kit.some_clear_hex(),
            kit.some_clear_hex().neighbours().next().unwrap(),
        );
        let mut st = kit.st.clone();
        let _ = HexIndex::of(&kit.scn, &st);
        let mut other = st.clone();
        other.unit_mut(u).loc = Loc::Map(h1);
        st.unit_mut(v).loc = Loc::Map(h2);
        let caught_up = HexIndex::of(&kit.scn, &st);
        assert!(*caught_up == HexIndex::new(&kit.scn, &st));
        assert_eq!(caught_up.at(h2).side, Some(Side::Allied));
        st.units = other.units;
        let now = HexIndex::of(&kit.scn, &st);
        assert!(
            *now == HexIndex::new(&kit.scn, &st),
            "{u:?} in {h1}, {v:?} back"
        );
        assert_eq!(now.at(h1).side, Some(Side::Allied));
    }

    /// The board's movement cost of every hex side of the map is the terrain chart's for the
    /// ground in play on each side and the fortification entered, ruins and fortifications
    /// included (5.1, 13, 17, 18.1).
    #[test]
    fn every_step_costs_what_the_chart_says_5_1_18_1() {
        let mut kit = Kit::new();
        let ruined = kit.some_clear_hex();
        kit.st.ruins.push(ruined);
        let fort = ruined.neighbours().next().expect("a neighbour");
        kit.st.fortifications.push(Fortification {
            hex: fort,
            built_by: Side::Allied,
        });
        let board = HexIndex::new(&kit.scn, &kit.st);
        let mut sides = 0;
        let mut prohibited = 0;
        for from in Hex::all() {
            for to in from.neighbours() {
                let chart = kit.scn.terrain.entry_cost(
                    board.ground(&kit.scn, from),
                    board.ground(&kit.scn, to),
                    board.fortified(to),
                );
                assert_eq!(board.entry_cost(from, to), chart, "{from} to {to}");
                sides += 1;
                prohibited += usize::from(chart.is_none());
            }
        }
        assert_eq!(board.ground(&kit.scn, ruined), Ground::Ruin);
        assert!(board.fortified(fort) && !board.fortified(ruined));
        assert!(
            sides > 8000 && prohibited > 0,
            "{sides} sides, {prohibited} prohibited"
        );
    }

    /// Each input of the board, changed alone, makes the state's board be built again.
    #[test]
    fn every_input_of_the_board_invalidates_it() {
        let mut kit = Kit::new();
        kit.deploy_allies();
        let h = kit.some_clear_hex();
        let fresh = |kit: &Kit| {
            let kept = HexIndex::of(&kit.scn, &kit.st);
            assert!(*kept == HexIndex::new(&kit.scn, &kit.st));
            kept
        };
        let mut last = fresh(&kit);
        type Change = Box<dyn Fn(&mut Kit)>;
        let changes: Vec<Change> = vec![
            // A unit moves onto the map.
            Box::new(move |k: &mut Kit| {
                k.put("gb1", h);
            }),
            // It turns to its reduced side: fewer stacking points.
            Box::new(|k: &mut Kit| {
                let u = k.id("gb1");
                k.st.unit_mut(u).reduced = true;
            }),
            // Its hex is ruined.
            Box::new(move |k: &mut Kit| {
                k.st.ruins.push(h);
                k.st.ruins.sort();
            }),
            // And fortified.
            Box::new(move |k: &mut Kit| {
                k.st.fortifications.push(Fortification {
                    hex: h,
                    built_by: Side::Allied,
                });
            }),
            // It is eliminated.
            Box::new(|k: &mut Kit| {
                let u = k.id("gb1");
                k.st.unit_mut(u).loc = Loc::Eliminated;
            }),
        ];
        for (i, change) in changes.iter().enumerate() {
            change(&mut kit);
            let now = fresh(&kit);
            assert!(*now != *last, "change {i} changes the board");
            last = now;
        }
        // A copy shares the board until it changes; the original keeps its own.
        let copy = kit.st.clone();
        assert!(Arc::ptr_eq(&HexIndex::of(&kit.scn, &copy), &last));
        let mut moved = copy.clone();
        let u = kit.id("gb1");
        moved.unit_mut(u).loc = Loc::Map(h);
        assert!(*HexIndex::of(&kit.scn, &moved) == HexIndex::new(&kit.scn, &moved));
        assert!(Arc::ptr_eq(&HexIndex::of(&kit.scn, &kit.st), &last));
        // Another scenario is another board.
        let mut open = Kit::open();
        open.st = kit.st.clone();
        let other = HexIndex::of(&open.scn, &open.st);
        assert!(!Arc::ptr_eq(&other, &last));
        assert!(*other == HexIndex::new(&open.scn, &open.st));
    }
}
