//! The game state: everything that changes during a game, serializable byte for byte so a
//! state can be hashed and a replay checked. The static scenario (map, counters, tables) is not
//! part of it. Which decision is pending is the step the game is in — its slot in the sequence
//! of play ([`StepId`]) and its data ([`Step`]) — and the queue of [`Pending`] interruptions
//! (step losses, retreats, advances...) that a resolution creates.

use crate::position::combat_report::CombatReport;
use crate::position::declaration::Declaration;
use crate::position::hex_index::HexIndexMemo;
use crate::position::pending::Pending;
use crate::position::step_id::StepId;
use crate::vocabulary::dice::Dice;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::map::Map;
use crate::vocabulary::terrain::{Ground, printed_ground};
use crate::vocabulary::units::UnitId;
use serde::{Deserialize, Serialize};
use siege_protocol::{Phase, Side};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a unit is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "at", content = "hex")]
pub enum Loc {
    /// An Allied unit not yet placed during setup (22).
    Unplaced,
    /// On the map.
    Map(Hex),
    /// A Chinese unit off the map but available: never entered, lifted off at the end of a turn,
    /// or a replacement waiting to enter (19, 22).
    OffMap,
    /// Eliminated. Allied losses are permanent; Chinese ones form the pool of 19.
    Eliminated,
}

/// Per-unit marks that the rules read later in the turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marks {
    /// Moved in the current movement phase (a unit moves once a phase).
    #[serde(default, skip_serializing_if = "is_false")]
    pub moved: bool,
    /// Moved during its side's full movement phase this turn: no bayonet charge (8.1.3), no
    /// fortification (13).
    #[serde(default, skip_serializing_if = "is_false")]
    pub moved_full: bool,
    /// Attacked in the current combat phase (8.1.2).
    #[serde(default, skip_serializing_if = "is_false")]
    pub attacked: bool,
    /// Was attacked in the current combat phase (8.1.2, R6).
    #[serde(default, skip_serializing_if = "is_false")]
    pub defended: bool,
    /// Outside command control at the start of the current Allied movement phase (11.2).
    #[serde(default, skip_serializing_if = "is_false")]
    pub out_of_command: bool,
    /// Failed a recovery roll this turn: may not attack (8.6).
    #[serde(default, skip_serializing_if = "is_false")]
    pub recovery_failed: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The changing part of one unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitState {
    pub loc: Loc,
    /// Showing the reduced (back) side (8.6).
    #[serde(default, skip_serializing_if = "is_false")]
    pub reduced: bool,
    #[serde(default)]
    pub marks: Marks,
}

impl UnitState {
    /// The hex the unit is in, if on the map.
    pub fn hex(&self) -> Option<Hex> {
        match self.loc {
            Loc::Map(h) => Some(h),
            _ => None,
        }
    }

    /// The whole state in three bytes: its flags (its face shown, then each of its marks, a
    /// bit each from the lowest) and where it is (a hex's dense index, or `0xFFFD` unplaced,
    /// `0xFFFE` off the map, `0xFFFF` eliminated). Different states, different bytes: the
    /// state hash encodes a unit so (its version 2 depends on these exact bytes), and the
    /// server compares units by them.
    pub fn packed(&self) -> (u8, u16) {
        // Named in full: a part added to a unit's state does not compile here until packed.
        let UnitState {
            loc,
            reduced,
            marks:
                Marks {
                    moved,
                    moved_full,
                    attacked,
                    defended,
                    out_of_command,
                    recovery_failed,
                },
        } = *self;
        let flags = [
            reduced,
            moved,
            moved_full,
            attacked,
            defended,
            out_of_command,
            recovery_failed,
        ]
        .iter()
        .enumerate()
        .fold(0u8, |acc, (bit, on)| acc | (u8::from(*on) << bit));
        let at: u16 = match loc {
            // Dense indexes run 0..1560: they always fit.
            Loc::Map(hex) => u16::try_from(hex.index()).unwrap_or(u16::MAX),
            Loc::Unplaced => 0xFFFD,
            Loc::OffMap => 0xFFFE,
            Loc::Eliminated => 0xFFFF,
        };
        (flags, at)
    }
}

/// Every unit's state, indexed by [`UnitId`]: a vector that takes a new stamp whenever what
/// the board reads of a unit (its location and face) may change. The per-hex board remembered
/// for a state ([`HexIndexMemo`]) is trusted without reading every counter again while the
/// stamp it was built at is still the units' stamp — the board is read several times for every
/// action, and comparing 247 locations each time was a fifth of a replay. Stamps come from one
/// counter for the whole process, so equal stamps mean the same locations and faces: a copy
/// keeps the stamp of what it copied, and any write that can move or turn over a unit takes a
/// stamp no other units have held. Writing only the marks ([`Units::marks_mut`]) keeps it.
///
/// Between stamps the units also say *which* of them may have changed since the board last
/// caught up with them ([`Tracking`]), so that the board reads those few instead of all 247.
#[derive(Debug)]
pub struct Units {
    list: Vec<UnitState>,
    stamp: u64,
    tracking: Tracking,
}

/// Which units were written since the board remembered beside them ([`HexIndexMemo`]) last
/// caught up with them. `base` names that pairing: the board links itself to these units by
/// giving both the same fresh number, and trusts the bits only while the numbers agree — a
/// copy of the units, or units built anew, start with no base (0) and are read whole once. A
/// unit written through [`Units::get_mut`] sets its bit; a write through the whole vector
/// (`DerefMut`, `iter_mut`, indexing) drops the base, since any unit may have changed.
///
/// The fields are atomics only so that the board, which holds the state shared (`&State`),
/// can clear the bits once it has caught up; it does so under its own lock, and a state is
/// written only when it is not shared, so no two threads race on them.
#[derive(Debug, Default)]
pub struct Tracking {
    base: AtomicU64,
    dirty: [AtomicU64; TRACKED / 64],
}

/// Units beyond this many are never tracked one by one (the shipped counter mix has 247).
const TRACKED: usize = 256;

/// Where the units' stamps and the tracking bases come from (see [`Units`]).
static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

fn fresh_stamp() -> u64 {
    NEXT_STAMP.fetch_add(1, Ordering::Relaxed)
}

impl Units {
    /// The stamp of the units as they are now: equal stamps, equal locations and faces.
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Unit `i` to write: a new stamp, and its bit set for the board.
    pub fn get_mut(&mut self, i: usize) -> &mut UnitState {
        self.stamp = fresh_stamp();
        if i < TRACKED {
            *self.tracking.dirty[i / 64].get_mut() |= 1 << (i % 64);
        } else {
            *self.tracking.base.get_mut() = 0;
        }
        &mut self.list[i]
    }

    /// Every unit's marks to write. The board reads no mark, so the stamp stays.
    pub fn marks_mut(&mut self) -> impl Iterator<Item = &mut Marks> {
        self.list.iter_mut().map(|u| &mut u.marks)
    }

    /// The units written since the board linked to them as `base`
    /// ([`Units::link`]) caught up with them: `None` unless they are still linked to it.
    pub(crate) fn written_since(&self, base: u64) -> Option<impl Iterator<Item = usize> + '_> {
        let linked = base != 0
            && self.list.len() <= TRACKED
            && self.tracking.base.load(Ordering::Relaxed) == base;
        linked.then(|| {
            self.tracking
                .dirty
                .iter()
                .enumerate()
                .flat_map(|(w, word)| {
                    let mut bits = word.load(Ordering::Relaxed);
                    std::iter::from_fn(move || {
                        (bits != 0).then(|| {
                            let b = bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            w * 64 + b
                        })
                    })
                })
        })
    }

    /// Link these units to a board that has just caught up with them: a fresh base, which the
    /// board keeps, and no unit written since. Only the board calls it, under its lock.
    pub(crate) fn link(&self) -> u64 {
        let base = fresh_stamp();
        self.caught_up();
        self.tracking.base.store(base, Ordering::Relaxed);
        base
    }

    /// The board linked to these units has caught up with them: no unit written since.
    pub(crate) fn caught_up(&self) {
        for word in &self.tracking.dirty {
            word.store(0, Ordering::Relaxed);
        }
    }
}

/// A copy keeps the stamp (the same locations and faces) but not the link to a board: the
/// original's board and the copy's go their own ways.
impl Clone for Units {
    fn clone(&self) -> Units {
        Units {
            list: self.list.clone(),
            stamp: self.stamp,
            tracking: Tracking::default(),
        }
    }
}

impl From<Vec<UnitState>> for Units {
    fn from(list: Vec<UnitState>) -> Units {
        Units {
            list,
            stamp: fresh_stamp(),
            tracking: Tracking::default(),
        }
    }
}

impl FromIterator<UnitState> for Units {
    fn from_iter<I: IntoIterator<Item = UnitState>>(iter: I) -> Units {
        Units::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl std::ops::Deref for Units {
    type Target = Vec<UnitState>;

    fn deref(&self) -> &Vec<UnitState> {
        &self.list
    }
}

/// Any mutable borrow of the whole vector may change any unit: a new stamp, and the link to
/// the board dropped.
impl std::ops::DerefMut for Units {
    fn deref_mut(&mut self) -> &mut Vec<UnitState> {
        self.stamp = fresh_stamp();
        *self.tracking.base.get_mut() = 0;
        &mut self.list
    }
}

impl<'a> IntoIterator for &'a Units {
    type Item = &'a UnitState;
    type IntoIter = std::slice::Iter<'a, UnitState>;

    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl<'a> IntoIterator for &'a mut Units {
    type Item = &'a mut UnitState;
    type IntoIter = std::slice::IterMut<'a, UnitState>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

/// Units compare by what they hold; the stamp is bookkeeping.
impl PartialEq for Units {
    fn eq(&self, other: &Units) -> bool {
        self.list == other.list
    }
}

impl Eq for Units {}

/// A fortification counter on the map (13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fortification {
    pub hex: Hex,
    pub built_by: Side,
}

/// How the game ended (21).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    pub winner: Side,
    /// A short stable key: `victory_hexes`, `primary_hexes`, `annihilation`, `held_out`.
    pub reason: String,
    /// The reason in words.
    pub text: String,
}

impl GameResult {
    /// A result not yet known: what an `over` step is read as before its state's own `result`
    /// fills it in (`position/state_form.rs`).
    pub fn unknown() -> GameResult {
        GameResult {
            winner: Side::Allied,
            reason: String::new(),
            text: String::new(),
        }
    }
}

/// A group of units moving together (5): selected in one hex, moving as one stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    pub units: Vec<UnitId>,
    pub hex: Hex,
    /// Movement points spent so far this move.
    pub spent: u8,
    /// The group has moved at least one hex.
    pub started: bool,
    /// The group entered an enemy ZOC and must stop (6).
    pub halted: bool,
}

/// Which kind of off-map Chinese unit to bring on (19, 22).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    Boxer,
    ReducedBoxer,
    Imperial,
}

/// The data of the step the game is in (its slot is [`State::slot`]): the main decision of
/// the phase when no interruption is pending. Several slots share a shape (every movement step
/// is a `Move`); the variants' order and names are part of the state's serialized form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "step")]
pub enum Step {
    /// Allied placement inside the setup line (22).
    AlliedSetup {
        selected: Option<UnitId>,
        area: Option<u8>,
    },
    /// Chinese units entering on map-edge hexes: at setup (22) and each turn for lifted and
    /// replacement units (19).
    Entry { selected: Option<EntryKind> },
    /// Hospital recovery at the start of a turn (8.6, R7): the Allied player picks which
    /// reduced units try, up to three, or none; `rolled` counts this turn's attempts.
    Recovery { rolled: u8 },
    /// Placing the Big Guns (10).
    BigGunPlace,
    /// Firing the Big Guns, `shot` counts from 0 to 7 (10).
    BigGunFire { shot: u8 },
    /// Exploding mines before Chinese movement (16).
    Mines,
    /// Restoring reduced Boxers in place when the pool is short (19).
    Restore,
    /// Moving units (5, 6, 7): Chinese movement, Allied reaction and Allied movement.
    Move { group: Option<Group> },
    /// Removing one Allied unit to attrition (14).
    Attrition,
    /// Choosing a sniper target (8.1.4).
    Sniper,
    /// Building fortifications before the combat phase (13).
    Fortify,
    /// Allied withdrawal rolls and moves before Chinese combat (12).
    Withdrawal,
    /// Bayonet charges before Allied combat (8.1.3): the charging stack being formed.
    Bayonet { group: Option<Group> },
    /// Declaring and resolving attacks (8).
    Combat,
    /// Chinese units lifted off the map at the end of the turn (22).
    LiftOff,
    /// The game is over, and how it ended (21). The result is serialized as the state's
    /// `result`, not inside the step.
    Over {
        #[serde(skip, default = "GameResult::unknown")]
        result: GameResult,
    },
}

impl Step {
    /// The step's wire name (`move`, `big_gun_fire`, …): the `step` tag serde writes for it.
    /// Spelled out rather than serialized and read back, which cost every view a small JSON
    /// tree; the test `a_steps_name_is_the_tag_serde_writes` holds the two spellings equal.
    pub fn name(&self) -> &'static str {
        match self {
            Step::AlliedSetup { .. } => "allied_setup",
            Step::Entry { .. } => "entry",
            Step::Recovery { .. } => "recovery",
            Step::BigGunPlace => "big_gun_place",
            Step::BigGunFire { .. } => "big_gun_fire",
            Step::Mines => "mines",
            Step::Restore => "restore",
            Step::Move { .. } => "move",
            Step::Attrition => "attrition",
            Step::Sniper => "sniper",
            Step::Fortify => "fortify",
            Step::Withdrawal => "withdrawal",
            Step::Bayonet { .. } => "bayonet",
            Step::Combat => "combat",
            Step::LiftOff => "lift_off",
            Step::Over { .. } => "over",
        }
    }
}

/// The whole changing state of a game. Its serialized form (what is hashed and stored,
/// `position/state_form.rs`) has the phase, the step and the result as separate fields, as
/// games have always been stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// Game turn 1–11 (0 during setup).
    pub turn: u8,
    /// The step of the sequence of play the game is in (which gives its phase), or its end.
    pub slot: StepId,
    /// The data of that step; `Step::Over` holds the result once the game is over.
    pub step: Step,
    /// Indexed by [`UnitId`].
    pub units: Units,
    /// Ruin markers, sorted (17).
    pub ruins: Vec<Hex>,
    /// Fortifications, sorted by hex (13).
    pub fortifications: Vec<Fortification>,
    /// Mines the Chinese player has not yet exploded (16).
    pub mines_left: u8,
    /// Who controls each victory hex, in the order of the map's victory list (21).
    pub control: Vec<Side>,
    /// Interruptions to settle before the phase goes on, first first.
    pub pending: Vec<Pending>,
    /// The attack being declared, if any (8).
    pub declaration: Option<Declaration>,
    /// The last combat resolved, with every number that went into it. Shared: it is copied
    /// with every copy of the state (one for each action) and changes only at a combat.
    pub last_combat: Option<Arc<CombatReport>>,
    /// Where the Big Guns stand this turn (10).
    pub big_guns: Vec<Hex>,
    /// The sniper has fired this turn (8.1.4).
    pub sniper_used: bool,
    /// Strength points that have charged with the bayonet this turn (8.1.3).
    pub charge_points: u8,
    /// Leaders who have rolled for withdrawal this turn (12).
    pub withdrawal_rolled: Vec<UnitId>,
    /// Units allowed to withdraw by a successful leader roll this turn (12).
    pub withdrawal_allowed: Vec<UnitId>,
    /// Reduced Boxers the Chinese may still restore this turn (19).
    pub restores_left: u8,
    /// The game started from a custom position (analysis board), not the setup of 22.
    pub custom_start: bool,
    /// Units a custom position left out: off the board for good, but neither lost civilians
    /// (15) nor part of the Chinese replacement pool (19). Sorted.
    pub absent: Vec<UnitId>,
    pub dice: Dice,
    /// The per-hex board last built for this position (`position/hex_index.rs`): a cache,
    /// not part of the position — never serialized or hashed, equal in every comparison.
    pub board: HexIndexMemo,
}

impl State {
    /// The phase the game is in (4), from its step's slot.
    pub fn phase(&self) -> Phase {
        self.slot.phase()
    }

    /// How the game ended; `None` while it goes on.
    pub fn result(&self) -> Option<&GameResult> {
        match &self.step {
            Step::Over { result } => Some(result),
            _ => None,
        }
    }

    /// Whether the game is over (21).
    pub fn is_over(&self) -> bool {
        self.slot == StepId::Over
    }

    /// Put the game in step `slot` with the step's data `step`, which must have the shape of
    /// that slot's data.
    pub fn go_to(&mut self, slot: StepId, step: Step) {
        debug_assert_eq!(
            StepId::find(slot.phase(), &step),
            Some(slot),
            "{step:?} is not the data of the {slot:?} step"
        );
        self.slot = slot;
        self.step = step;
    }

    /// End the game with `result`: its last step (21).
    pub fn end(&mut self, result: GameResult) {
        self.go_to(StepId::Over, Step::Over { result });
    }

    /// The state of unit `id`.
    pub fn unit(&self, id: UnitId) -> &UnitState {
        &self.units[id.index()]
    }

    /// Mutable state of unit `id`.
    pub fn unit_mut(&mut self, id: UnitId) -> &mut UnitState {
        self.units.get_mut(id.index())
    }

    /// Ids of the units in `hex`, in id order.
    pub fn units_at(&self, hex: Hex) -> impl Iterator<Item = UnitId> + '_ {
        self.units
            .iter()
            .enumerate()
            .filter(move |(_, u)| u.loc == Loc::Map(hex))
            .map(|(i, _)| UnitId(i as u16))
    }

    /// Whether `hex` carries a ruin marker (17).
    pub fn is_ruin(&self, hex: Hex) -> bool {
        self.ruins.binary_search(&hex).is_ok()
    }

    /// The fortification in `hex`, if any (13).
    pub fn fortification(&self, hex: Hex) -> Option<&Fortification> {
        self.fortifications.iter().find(|f| f.hex == hex)
    }
}

/// The terrain in play in `hex`: a ruin marker replaces the printed terrain (17).
pub fn ground(map: &Map, state: &State, hex: Hex) -> Ground {
    if state.is_ruin(hex) {
        return Ground::Ruin;
    }
    printed_ground(map.terrain(hex))
}

/// The side whose phase it is (4): the Chinese in the Big Gun, Chinese movement, sniper and
/// Chinese combat phases, their entry at setup and the end of the turn (when they lift units
/// off the map); the Allies in their setup, reaction, movement and combat. Once the game is
/// over no one's phase remains; the Allies are returned by convention. Every rule that asks
/// "whose phase is it?" asks here.
pub fn phasing_side(phase: Phase) -> Side {
    match phase {
        Phase::ChineseSetup
        | Phase::BigGun
        | Phase::ChineseMovement
        | Phase::Sniper
        | Phase::ChineseCombat
        | Phase::EndOfTurn => Side::Chinese,
        Phase::AlliedSetup
        | Phase::AlliedReaction
        | Phase::AlliedMovement
        | Phase::AlliedCombat
        | Phase::GameOver => Side::Allied,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units() -> Units {
        Units::from(vec![
            UnitState {
                loc: Loc::OffMap,
                reduced: false,
                marks: Marks::default(),
            };
            3
        ])
    }

    /// Every step's name is the tag its serialized form carries (the view's `step`).
    #[test]
    fn a_steps_name_is_the_tag_serde_writes() {
        let group = Group {
            units: vec![UnitId(0)],
            hex: Hex::new(1, 1).unwrap(),
            spent: 0,
            started: false,
            halted: false,
        };
        let steps = [
            Step::AlliedSetup {
                selected: None,
                area: Some(1),
            },
            Step::Entry { selected: None },
            Step::Recovery { rolled: 0 },
            Step::BigGunPlace,
            Step::BigGunFire { shot: 3 },
            Step::Mines,
            Step::Restore,
            Step::Move { group: None },
            Step::Move {
                group: Some(group.clone()),
            },
            Step::Attrition,
            Step::Sniper,
            Step::Fortify,
            Step::Withdrawal,
            Step::Bayonet { group: Some(group) },
            Step::Combat,
            Step::LiftOff,
            Step::Over {
                result: GameResult::unknown(),
            },
        ];
        for step in steps {
            let json = serde_json::to_value(&step).unwrap();
            assert_eq!(json["step"].as_str(), Some(step.name()), "{step:?}");
        }
    }

    /// The stamp the remembered board trusts (`position/hex_index.rs`): every way of writing a
    /// unit takes a new one, a copy keeps its original's, and two sets of units never share a
    /// stamp unless one is a copy of the other.
    #[test]
    fn units_take_a_new_stamp_whenever_they_may_change_and_a_copy_keeps_it() {
        let mut a = units();
        let b = units();
        assert_ne!(a.stamp(), b.stamp(), "two sets of units, two stamps");
        assert_eq!(a, b, "the stamp is not part of what the units hold");
        let copy = a.clone();
        assert_eq!(copy.stamp(), a.stamp());
        let before = a.stamp();
        let _ = a.len();
        let _ = a[0];
        let _ = a.iter().count();
        assert_eq!(a.stamp(), before, "reading keeps the stamp");
        let mut seen = vec![before];
        type Write = Box<dyn Fn(&mut Units)>;
        let writes: Vec<Write> = vec![
            Box::new(|u| u[1].reduced = true),
            Box::new(|u| u.iter_mut().for_each(|s| s.marks.moved = true)),
            Box::new(|u| {
                for s in &mut *u {
                    s.loc = Loc::Eliminated;
                }
            }),
            Box::new(|u| {
                let first = u[0];
                u.push(first);
            }),
        ];
        for (i, write) in writes.iter().enumerate() {
            write(&mut a);
            assert!(!seen.contains(&a.stamp()), "write {i} takes a new stamp");
            seen.push(a.stamp());
        }
        let now = a.stamp();
        a.get_mut(2).loc = Loc::OffMap;
        assert!(a.stamp() != now, "one unit written: a new stamp");
        let now = a.stamp();
        a.marks_mut().for_each(|m| m.attacked = true);
        assert_eq!(
            a.stamp(),
            now,
            "marks alone are not on the board: the same stamp"
        );
        assert!(a.iter().all(|u| u.marks.attacked));
        a = copy.clone();
        assert_eq!(
            a.stamp(),
            before,
            "units put back whole bring their own stamp"
        );
    }

    /// The units written one by one since the board linked to them are the ones it is told
    /// of; a write through the whole vector, or a copy, unlinks them (`Tracking`).
    #[test]
    fn units_say_which_were_written_since_the_board_linked_to_them() {
        let mut a = units();
        assert!(a.written_since(0).is_none(), "no base: never linked");
        let base = a.link();
        assert_eq!(a.written_since(base).unwrap().count(), 0);
        a.get_mut(2).reduced = true;
        a.get_mut(0).marks.moved = true;
        a.get_mut(2).loc = Loc::Eliminated;
        assert_eq!(a.written_since(base).unwrap().collect::<Vec<_>>(), [0, 2]);
        assert!(a.written_since(base + 1).is_none(), "another base");
        assert!(
            a.clone().written_since(base).is_none(),
            "a copy is not linked"
        );
        a.caught_up();
        assert_eq!(a.written_since(base).unwrap().count(), 0);
        a[1].reduced = true;
        assert!(a.written_since(base).is_none(), "written whole: unlinked");
    }
}
