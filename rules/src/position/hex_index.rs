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
//! assert so).

use crate::position::state::{Loc, State, UnitState};
use crate::position::zoc;
use crate::vocabulary::hex::{HEX_COUNT, Hex};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::{Ground, printed_ground};
use crate::vocabulary::units::UnitKind;
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
const EXERTS_IN_OWN_HEX: u32 = 1 << 20;

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
    /// [`Packed`] words by hex index; a plain `u32` vector so that it starts zeroed.
    hexes: Vec<u32>,
    /// Ruin markers as a bit per hex (17), for the searches that ask for every hex.
    ruins: HexSet,
    /// Fortifications as a bit per hex (13).
    forts: HexSet,
}

/// A set of hexes as one bit per hex.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct HexSet([u64; HEX_COUNT.div_ceil(64)]);

impl HexSet {
    fn of(hexes: impl Iterator<Item = Hex>) -> HexSet {
        let mut set = HexSet::default();
        for h in hexes {
            set.insert(h);
        }
        set
    }

    fn insert(&mut self, h: Hex) {
        self.0[h.index() / 64] |= 1 << (h.index() % 64);
    }

    fn contains(&self, h: Hex) -> bool {
        self.0[h.index() / 64] & (1 << (h.index() % 64)) != 0
    }
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
            hexes: vec![0u32; HEX_COUNT],
            ruins: HexSet::default(),
            forts: HexSet::of(st.fortifications.iter().map(|f| f.hex)),
        };
        for h in &st.ruins {
            board.ruins.insert(*h);
        }
        let mut occupied: Vec<Hex> = Vec::with_capacity(st.units.len());
        for (i, u) in st.units.iter().enumerate() {
            let Loc::Map(h) = u.loc else { continue };
            if Packed(board.hexes[h.index()]).side().is_none() {
                occupied.push(h);
            }
            board.add_unit(scn, i, u.reduced, h);
        }
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
    /// unit left, entered or turned over in): their occupants are counted again from `st`,
    /// and the zones of control of those hexes and their neighbours worked out again — the
    /// only hexes whose summary such a change can alter. The ruins must be those the board
    /// was built with.
    fn update(&mut self, scn: &Scenario, st: &State, touched: &[Hex]) {
        for h in touched {
            self.hexes[h.index()] &= ALLIED_ZOC | CHINESE_ZOC;
        }
        for (i, u) in st.units.iter().enumerate() {
            if let Loc::Map(h) = u.loc
                && touched.contains(&h)
            {
                self.add_unit(scn, i, u.reduced, h);
            }
        }
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
#[derive(Debug)]
struct Memo {
    scenario: usize,
    /// Each unit's [`unit_key`]: comparing words is what makes a remembered board cheap to
    /// trust, and this is asked several times for every action.
    units: Vec<u32>,
    ruins: Vec<Hex>,
    forts: Vec<Hex>,
    board: Arc<HexIndex>,
}

impl Memo {
    fn build(scn: &Scenario, st: &State) -> Memo {
        Memo {
            scenario: scn as *const Scenario as usize,
            units: st.units.iter().map(unit_key).collect(),
            ruins: st.ruins.clone(),
            forts: st.fortifications.iter().map(|f| f.hex).collect(),
            board: Arc::new(HexIndex::new(scn, st)),
        }
    }

    /// The memo of `st` made from this one by bringing its board up to date, where only units
    /// moved, turned over or left the map, and few enough of them; `None` where a new board
    /// must be built (another scenario, the ruins changed, many units changed).
    fn next(&self, scn: &Scenario, st: &State) -> Option<Memo> {
        if self.scenario != scn as *const Scenario as usize
            || self.units.len() != st.units.len()
            || self.ruins != st.ruins
        {
            return None;
        }
        let mut touched: Vec<Hex> = Vec::new();
        for (&key, u) in self.units.iter().zip(&st.units) {
            if key == unit_key(u) {
                continue;
            }
            for at in [key_hex(key), u.hex()].into_iter().flatten() {
                if !touched.contains(&at) {
                    touched.push(at);
                }
            }
            if touched.len() > UPDATE_AT_MOST {
                return None;
            }
        }
        let mut board = HexIndex::clone(&self.board);
        board.update(scn, st, &touched);
        let forts: Vec<Hex> = st.fortifications.iter().map(|f| f.hex).collect();
        if forts != self.forts {
            board.forts = HexSet::of(forts.iter().copied());
        }
        Some(Memo {
            scenario: self.scenario,
            units: st.units.iter().map(unit_key).collect(),
            ruins: self.ruins.clone(),
            forts,
            board: Arc::new(board),
        })
    }

    /// Whether this board was built from what `scn` and `st` hold now.
    fn fits(&self, scn: &Scenario, st: &State) -> bool {
        self.scenario == scn as *const Scenario as usize
            && self.units.len() == st.units.len()
            && self
                .units
                .iter()
                .zip(&st.units)
                .all(|(&key, u)| key == unit_key(u))
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
pub struct HexIndexMemo(Mutex<Option<Arc<Memo>>>);

impl HexIndexMemo {
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Arc<Memo>>> {
        // A panic while the lock was held leaves at worst no memo or a complete one.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The board of `st` on `scn`, remembered or built and remembered.
    fn get(&self, scn: &Scenario, st: &State) -> Arc<HexIndex> {
        let mut slot = self.slot();
        if let Some(memo) = slot.as_ref()
            && memo.fits(scn, st)
        {
            debug_assert!(
                *memo.board == HexIndex::new(scn, st),
                "the remembered board is the board of the position"
            );
            return memo.board.clone();
        }
        let memo = Arc::new(
            slot.as_ref()
                .and_then(|m| m.next(scn, st))
                .unwrap_or_else(|| Memo::build(scn, st)),
        );
        debug_assert!(
            *memo.board == HexIndex::new(scn, st),
            "a board brought up to date is the board of the position"
        );
        let board = memo.board.clone();
        *slot = Some(memo);
        board
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
