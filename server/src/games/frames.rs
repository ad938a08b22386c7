//! The frames a game sends, serialized ONCE per accepted action and per audience, and shared:
//! every connection of a game gets a clone of the same bytes (a reference count, not a copy),
//! whether there are two players or ten thousand spectators.
//!
//! A state differs by reader only in `you` and in whether `legal_actions` is filled. A loaded
//! game keeps its current state in parts — the view's fields as one text, its units in blocks
//! of sixteen, and the legal actions' JSON — and remembers where each top-level field, each
//! unit and each legal action lies in them. That map is what keeps an action cheap:
//!
//! - **No re-serialization of unchanged parts.** A unit's object depends only on its counter
//!   (fixed) and its state (where it is, its side shown, its marks): a block of units none of
//!   which changed is the previous state's block, shared, and in a block that changed only the
//!   changed units are written. Most actions move one stack, so most of the 247 units are
//!   neither written nor copied. The view's fields dearest to write (`fortifications`,
//!   `victory`, `last_combat`) and the legal actions the list begins and ends with as before are copied
//!   where their values did not change.
//! - **Patches without parsing values.** A `patch` frame compares the two states part by
//!   part: a field or unit whose bytes are equal is equal; a part that changed is split into
//!   its members (raw text, not values) to patch only the members that changed. The legal list
//!   changes as a run of removed and added actions between the common start and end (or is
//!   replaced whole where that run would be longer than the list). The
//!   `seq` and view operations are written once per action; each reader's frame (Allied,
//!   Chinese, spectator) adds its own legal-list operations, once, for every connection of it.
//! - **Full frames on demand.** The `state` frames are joined from the parts when a
//!   connection needs one: the spectators' once per state, the players' once per action for
//!   the broadcast (shared through the [`Update`]) and for a join, a resume or a stale
//!   refusal. A game whose players take patches and that nobody watches joins none. What
//!   connections read of one update (full states, patches) is built for the next while its
//!   commit is in flight ([`Update::prepare`]), not after it on a round trip.

use crate::rules::combat_report::CombatReport;
use crate::rules::state::{Fortification, UnitState};
use crate::rules::view::{self, VictoryView, View};
use crate::rules::warnings::Offered;
use crate::rules::{Event, Game};
use axum::extract::ws::Utf8Bytes;
use serde::Serialize;
use siege_protocol::{Side, You};
use std::fmt::Write;
use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

/// The view's top-level fields, in the order the view serializes them.
const FIELDS: [&str; 21] = [
    "turn",
    "phase",
    "phase_title",
    "step",
    "to_act",
    "prompt",
    "units",
    "ruins",
    "fortifications",
    "fortifications_left",
    "mines_left",
    "big_guns",
    "firing_gun",
    "victory",
    "selection",
    "declaration",
    "pending",
    "last_combat",
    "result",
    "custom_start",
    "undo",
];
/// The index of `units` in [`FIELDS`].
const UNITS: usize = 6;
/// The index of `fortifications` in [`FIELDS`].
const FORTIFICATIONS: usize = 8;
/// The index of `victory` in [`FIELDS`].
const VICTORY: usize = 13;
/// The index of `last_combat` in [`FIELDS`].
const LAST_COMBAT: usize = 17;

/// A stretch of a frame's bytes (`u32`: a frame is far below 4 GB, and a game keeps hundreds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    fn of(r: Range<usize>) -> Span {
        Span {
            start: u32::try_from(r.start).unwrap_or(u32::MAX),
            end: u32::try_from(r.end).unwrap_or(u32::MAX),
        }
    }

    fn get(self, text: &str) -> &str {
        text.get(self.start as usize..self.end as usize)
            .unwrap_or("null")
    }
}

/// What a unit's object is written from, besides its fixed counter, as one word: equal keys,
/// equal bytes. A word, not the state itself, because every unit's key is compared with the
/// state before's at every action, and 247 words compare as one block of memory where 247
/// states compare field by field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct UnitKey(u32);

impl UnitKey {
    /// The unit's state packed as the state hash packs it ([`UnitState::packed`], different
    /// states never alike), and whether it is left out of a custom start (shown as `absent`).
    fn of(state: &UnitState, absent: bool) -> UnitKey {
        let (flags, at) = state.packed();
        UnitKey(u32::from(at) << 9 | u32::from(flags) << 1 | u32::from(absent))
    }
}

/// One state of a game, ready to send to any reader.
#[derive(Debug)]
pub struct Snapshot {
    /// How many actions the log held when this state was reached.
    pub seq: u64,
    /// Whose decision it is; `None` once the game is over.
    pub to_act: Option<Side>,
    /// The view's JSON but for its units: the array of units goes where the (empty) span of
    /// `units` in `fields` begins.
    view: Box<str>,
    /// Where each field of [`FIELDS`] lies in `view`.
    fields: Box<[Span]>,
    /// The units' objects, [`BLOCK`] to a block: a block none of whose units changed is the
    /// block of the state before, shared.
    blocks: Box<[Arc<Block>]>,
    /// What each unit's object was written from.
    unit_keys: Box<[UnitKey]>,
    /// The spectator's `state` frame, written when first asked for: a game whose players
    /// take patches and that nobody watches never writes one.
    spectator: OnceLock<Utf8Bytes>,
    /// The legal actions of the side to act, as a JSON array (`[]` when nobody acts).
    legal: Box<str>,
    /// Where each legal action lies in `legal`.
    legal_items: Box<[Span]>,
    /// The legal actions `legal` was written from, to be compared with the next state's.
    offered: Box<[Offered]>,
    /// The view's fields dearest to write that most actions leave as they were: kept to be
    /// compared with the next view's, whose bytes are then copied from this state's.
    fortifications: Vec<Fortification>,
    victory: VictoryView,
    last_combat: Option<Arc<CombatReport>>,
}

/// How many units a [`Block`] holds: a move rewrites the blocks of the units it changed,
/// about 1 KB each, and shares the rest of a view's ~20 KB of units.
const BLOCK: usize = 16;

/// Units of a view, written: their objects joined by commas, and where each lies.
#[derive(Debug)]
struct Block {
    text: Box<str>,
    units: Box<[Span]>,
}

impl Block {
    fn unit(&self, i: usize) -> &str {
        self.units.get(i).map_or("null", |s| s.get(&self.text))
    }
}

/// Why a state would not serialize (it always does; nothing is sent when it does not).
pub type FrameError = serde_json::Error;

impl Snapshot {
    /// Serialize the view and the legal actions of `game` after `seq` actions.
    pub fn of(game: &Game, seq: u64) -> Result<Snapshot, FrameError> {
        Snapshot::next(game, seq, None)
    }

    /// As [`Snapshot::of`], reusing from `prev` (the state before) the bytes of every unit
    /// whose state is unchanged, and reserving its size up front.
    pub fn next(game: &Game, seq: u64, prev: Option<&Snapshot>) -> Result<Snapshot, FrameError> {
        let to_act = game.to_act();
        let offered = to_act.map_or_else(Vec::new, |side| game.offered(side));
        let before = prev.map(|p| {
            let text = Legal {
                text: &p.legal,
                items: &p.legal_items,
            };
            (&*p.offered, text)
        });
        let (legal, legal_items) = legal_json(&offered, before)?;
        let mut view = game.view_without_units();
        let mut buf = Vec::with_capacity(prev.map_or(4 * 1024, |p| p.view.len() + 256));
        let keys = unit_keys(game);
        let fields = write_view(&mut buf, &view, prev)?;
        let blocks = write_units(game, &keys, prev)?;
        Ok(Snapshot {
            seq,
            to_act,
            view: String::from_utf8(buf)
                .map_err(serde::ser::Error::custom)?
                .into_boxed_str(),
            fields: fields.into_boxed_slice(),
            blocks: blocks.into_boxed_slice(),
            unit_keys: keys.into_boxed_slice(),
            spectator: OnceLock::new(),
            legal: legal.into_boxed_str(),
            legal_items: legal_items.into_boxed_slice(),
            offered: offered.into_boxed_slice(),
            fortifications: std::mem::take(&mut view.fortifications),
            victory: std::mem::take(&mut view.victory),
            last_combat: view.last_combat.take(),
        })
    }

    /// The view's JSON, for HTTP answers.
    pub fn view(&self) -> String {
        let mut text = String::with_capacity(self.view_len());
        self.write_view_to(&mut text);
        text
    }

    /// The length of the view's JSON.
    fn view_len(&self) -> usize {
        let units: usize = self.blocks.iter().map(|b| b.text.len() + 1).sum();
        self.view.len() + units + 2
    }

    /// Append the view's JSON: the fields around the units, the units block by block.
    fn write_view_to(&self, out: &mut String) {
        let at = self.fields.get(UNITS).map_or(0, |s| s.start as usize);
        let at = at.min(self.view.len());
        let (before, after) = self.view.split_at(at);
        out.push_str(before);
        self.write_units_to(out);
        out.push_str(after);
    }

    /// Append the units' array: the blocks joined.
    fn write_units_to(&self, out: &mut String) {
        out.push('[');
        for (i, block) in self.blocks.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&block.text);
        }
        out.push(']');
    }

    /// The `state` frame as `you` read it: the shared spectator frame, or a player's frame
    /// built now.
    pub fn frame(&self, you: You) -> Utf8Bytes {
        match you.side() {
            None => self
                .spectator
                .get_or_init(|| self.frame_with(you, "[]"))
                .clone(),
            Some(side) => {
                let actions = if self.to_act == Some(side) {
                    &self.legal
                } else {
                    "[]"
                };
                self.frame_with(you, actions)
            }
        }
    }

    /// The `state` frame as `you` read it, with `actions` as its legal list.
    fn frame_with(&self, you: You, actions: &str) -> Utf8Bytes {
        let mut text = String::with_capacity(self.view_len() + actions.len() + 80);
        let _ = write!(
            text,
            r#"{{"type":"state","seq":{},"you":"{}","view":"#,
            self.seq,
            you.as_str()
        );
        self.write_view_to(&mut text);
        text.push_str(r#","legal_actions":"#);
        text.push_str(actions);
        text.push('}');
        Utf8Bytes::from(text)
    }

    /// The legal actions `you` are sent: the list for the side to act, else none.
    fn legal_of(&self, you: You) -> Legal<'_> {
        match you.side() {
            Some(side) if self.to_act == Some(side) => Legal {
                text: &self.legal,
                items: &self.legal_items,
            },
            _ => Legal {
                text: "[]",
                items: &[],
            },
        }
    }

    fn field(&self, i: usize) -> &str {
        self.fields.get(i).map_or("null", |s| s.get(&self.view))
    }

    fn unit(&self, i: usize) -> &str {
        self.blocks
            .get(i / BLOCK)
            .map_or("null", |b| b.unit(i % BLOCK))
    }

    /// The units' array.
    fn units_json(&self) -> String {
        let mut text = String::new();
        self.write_units_to(&mut text);
        text
    }
}

/// A legal list as sent: its JSON array and where each action lies in it.
struct Legal<'a> {
    text: &'a str,
    items: &'a [Span],
}

impl Legal<'_> {
    fn items(&self) -> Vec<&str> {
        self.items.iter().map(|s| s.get(self.text)).collect()
    }
}

/// The legal actions as a JSON array, and where each lies in it. The actions that begin and
/// end the list as they did in the list `before` (its actions and its text) are copied from
/// its text: most actions leave much of the list as it was.
fn legal_json<A: Element>(
    actions: &[A],
    before: Option<(&[A], Legal<'_>)>,
) -> Result<(String, Vec<Span>), FrameError> {
    let (prev, prev_text) = match before {
        Some((prev, text)) if text.items.len() == prev.len() => (prev, Some(text)),
        _ => (&[][..], None),
    };
    let (head, tail) = common_ends(prev, actions);
    let mut buf = Vec::with_capacity(
        prev_text
            .as_ref()
            .map_or(actions.len() * 40, |t| t.text.len())
            + 2,
    );
    let mut items = Vec::with_capacity(actions.len());
    buf.push(b'[');
    for (i, a) in actions.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        let start = buf.len();
        // The same action at the same place from the start or from the end of the list.
        let was = if i < head {
            Some(i)
        } else if i >= actions.len() - tail {
            Some(prev.len() - (actions.len() - i))
        } else {
            None
        };
        match prev_text.as_ref().zip(was) {
            Some((t, j)) => buf.extend_from_slice(t.items[j].get(t.text).as_bytes()),
            None => a.write(&mut buf)?,
        }
        items.push(Span::of(start..buf.len()));
    }
    buf.push(b']');
    Ok((
        String::from_utf8(buf).map_err(serde::ser::Error::custom)?,
        items,
    ))
}

/// How many elements `a` and `b` share at their start, and then at their end (the two never
/// overlap).
fn common_ends<T: PartialEq>(a: &[T], b: &[T]) -> (usize, usize) {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (head, tail)
}

/// An element of a legal list, written as JSON.
trait Element: PartialEq {
    fn write(&self, buf: &mut Vec<u8>) -> Result<(), FrameError>;
}

impl Element for Offered {
    /// As serde writes the derived form, whose `#[serde(flatten)]` action goes through
    /// serde's flattening serializer at a third of the cost of the whole list: the action's
    /// object, with the warning as its last member.
    fn write(&self, buf: &mut Vec<u8>) -> Result<(), FrameError> {
        let start = buf.len();
        serde_json::to_writer(&mut *buf, &self.action)?;
        let Some(warning) = &self.warning else {
            return Ok(());
        };
        if buf.len() < start + 2 || buf.pop() != Some(b'}') {
            return Err(serde::ser::Error::custom("an action is an object"));
        }
        if buf.len() > start + 1 {
            buf.push(b',');
        }
        buf.extend_from_slice(br#""warning":"#);
        serde_json::to_writer(&mut *buf, warning)?;
        buf.push(b'}');
        Ok(())
    }
}

#[cfg(test)]
impl Element for &str {
    fn write(&self, buf: &mut Vec<u8>) -> Result<(), FrameError> {
        serde_json::to_writer(buf, self)
    }
}

/// What each unit of the view is written from, in the view's order (the counters').
fn unit_keys(game: &Game) -> Vec<UnitKey> {
    let st = game.state();
    game.scenario()
        .counters
        .counters
        .iter()
        .map(|c| UnitKey::of(st.unit(c.id), st.absent.contains(&c.id)))
        .collect()
}

/// Write `view` (built without its units) as `serde_json` would, but for its units, whose
/// array goes where the returned span of `units` (empty) begins ([`write_units`]); record
/// where each field lies.
/// A field dear to write whose value is the one in `prev` is copied from it.
fn write_view(
    buf: &mut Vec<u8>,
    view: &View,
    prev: Option<&Snapshot>,
) -> Result<Vec<Span>, FrameError> {
    // Every field, named: a field added to the view does not compile here until it is sent.
    let View {
        turn,
        phase,
        phase_title,
        step,
        to_act,
        prompt,
        units: _,
        ruins,
        fortifications,
        fortifications_left,
        mines_left,
        big_guns,
        firing_gun,
        victory,
        selection,
        declaration,
        pending,
        last_combat,
        result,
        custom_start,
        undo,
    } = view;
    let mut fields = Vec::with_capacity(FIELDS.len());
    let mut w = Fields {
        buf,
        fields: &mut fields,
        next: 0,
    };
    w.value(turn)?;
    w.value(phase)?;
    w.value(phase_title)?;
    w.value(step)?;
    w.value(to_act)?;
    w.value(prompt)?;
    w.begin();
    w.end();
    w.value(ruins)?;
    // Equal values, equal bytes: copied from the state before where they did not change.
    let before = |i: usize, same: bool| prev.filter(|_| same).map(|p| p.field(i));
    w.value_as(
        fortifications,
        before(
            FORTIFICATIONS,
            prev.is_some_and(|p| p.fortifications == *fortifications),
        ),
    )?;
    w.value(fortifications_left)?;
    w.value(mines_left)?;
    w.value(big_guns)?;
    w.value(firing_gun)?;
    w.value_as(
        victory,
        before(VICTORY, prev.is_some_and(|p| p.victory == *victory)),
    )?;
    w.value(selection)?;
    w.value(declaration)?;
    w.value(pending)?;
    w.value_as(
        last_combat,
        before(
            LAST_COMBAT,
            prev.is_some_and(|p| p.last_combat == *last_combat),
        ),
    )?;
    w.value(result)?;
    w.value(custom_start)?;
    w.value(undo)?;
    w.buf.push(b'}');
    Ok(fields)
}

/// The units of the view of `game`, [`BLOCK`] to a block: a block whose units all have the
/// keys they had in `prev` is `prev`'s, shared; in another, a unit whose key is unchanged is
/// copied from `prev`'s bytes and the others are written.
fn write_units(
    game: &Game,
    keys: &[UnitKey],
    prev: Option<&Snapshot>,
) -> Result<Vec<Arc<Block>>, FrameError> {
    let counters = &game.scenario().counters.counters;
    let same = prev.filter(|p| p.unit_keys.len() == keys.len() && keys.len() == counters.len());
    let mut blocks = Vec::with_capacity(counters.len().div_ceil(BLOCK));
    for (b, chunk) in keys.chunks(BLOCK).enumerate() {
        let first = b * BLOCK;
        let was = same.and_then(|p| Some((p, p.blocks.get(b)?)));
        if let Some((p, block)) = was
            && p.unit_keys.get(first..first + chunk.len()) == Some(chunk)
        {
            blocks.push(block.clone());
            continue;
        }
        let mut text = Vec::with_capacity(was.map_or(BLOCK * 90, |(_, b)| b.text.len() + 32));
        let mut units = Vec::with_capacity(chunk.len());
        for (i, key) in chunk.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            let start = text.len();
            match was.filter(|(p, _)| p.unit_keys.get(first + i) == Some(key)) {
                Some((_, block)) => text.extend_from_slice(block.unit(i).as_bytes()),
                None => {
                    let counter = counters.get(first + i).ok_or_else(|| {
                        <FrameError as serde::ser::Error>::custom("a unit without its counter")
                    })?;
                    serde_json::to_writer(&mut text, &view::unit(counter, game.state()))?
                }
            }
            units.push(Span::of(start..text.len()));
        }
        blocks.push(Arc::new(Block {
            text: String::from_utf8(text)
                .map_err(serde::ser::Error::custom)?
                .into_boxed_str(),
            units: units.into_boxed_slice(),
        }));
    }
    Ok(blocks)
}

/// Writes the view's fields in the order of [`FIELDS`].
struct Fields<'a> {
    buf: &'a mut Vec<u8>,
    fields: &'a mut Vec<Span>,
    next: usize,
}

impl Fields<'_> {
    /// `{"name":` or `,"name":`, and where the value begins.
    fn begin(&mut self) {
        self.buf.push(if self.next == 0 { b'{' } else { b',' });
        self.buf.push(b'"');
        self.buf.extend_from_slice(FIELDS[self.next].as_bytes());
        self.buf.extend_from_slice(b"\":");
        self.fields.push(Span::of(self.buf.len()..self.buf.len()));
    }

    fn end(&mut self) {
        if let Some(span) = self.fields.last_mut() {
            span.end = u32::try_from(self.buf.len()).unwrap_or(u32::MAX);
        }
        self.next += 1;
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), FrameError> {
        self.value_as(value, None)
    }

    /// As [`Fields::value`], or `written` where the value was written before as those bytes.
    fn value_as<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
        written: Option<&str>,
    ) -> Result<(), FrameError> {
        self.begin();
        match written {
            Some(bytes) => self.buf.extend_from_slice(bytes.as_bytes()),
            None => serde_json::to_writer(&mut *self.buf, value)?,
        }
        self.end();
        Ok(())
    }
}

/// What every connection of a game receives after an accepted action: its events, then the
/// new state — in full, or for connections that asked for patches, as the RFC 6902 difference
/// from the previous state (computed once per reader, by the first connection that needs it).
#[derive(Debug)]
pub struct Update {
    pub seq: u64,
    /// The `events` frame.
    pub events: Utf8Bytes,
    pub state: Arc<Snapshot>,
    /// The state before this action.
    pub prev: Arc<Snapshot>,
    /// The players' state frames, built by the first connection of each seat that needs
    /// one and dropped with the update once every connection has it.
    players: [OnceLock<Utf8Bytes>; 2],
    /// The operations every reader shares (`seq` and the view), written once.
    common_ops: OnceLock<String>,
    /// Each reader's `patch` frame.
    patches: [OnceLock<Utf8Bytes>; 3],
    /// Which frames connections asked for ([`Asked`]'s bits): what the next update builds
    /// ahead. Kept apart from the frames built, so that a frame built ahead that nobody read
    /// is not built again for every later update.
    asked: AtomicU8,
}

/// Which of an [`Update`]'s shared frames connections asked for: the players' full states
/// (Allied, Chinese), the spectators' full state, and each reader's patch (Allied, Chinese,
/// spectator).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asked {
    players: [bool; 2],
    spectators: bool,
    patches: [bool; 3],
}

/// A reader's place in an [`Update`]'s frames (Allied, Chinese, spectator).
fn reader(you: You) -> usize {
    match you {
        You::Allied => 0,
        You::Chinese => 1,
        You::Spectator => 2,
    }
}

/// The bit of [`Update::asked`] for a reader's full state.
fn state_bit(you: You) -> u8 {
    1 << reader(you)
}

/// The bit of [`Update::asked`] for a reader's patch.
fn patch_bit(you: You) -> u8 {
    1 << (3 + reader(you))
}

impl Update {
    pub fn new(seq: u64, events: Utf8Bytes, state: Arc<Snapshot>, prev: Arc<Snapshot>) -> Update {
        Update {
            seq,
            events,
            state,
            prev,
            players: [OnceLock::new(), OnceLock::new()],
            common_ops: OnceLock::new(),
            patches: [OnceLock::new(), OnceLock::new(), OnceLock::new()],
            asked: AtomicU8::new(0),
        }
    }

    /// Which of this update's shared frames the connections have asked for so far (not
    /// counting what [`Update::prepare`] built ahead).
    pub fn asked(&self) -> Asked {
        let bits = self.asked.load(Ordering::Relaxed);
        let readers = [You::Allied, You::Chinese, You::Spectator];
        Asked {
            players: [You::Allied, You::Chinese].map(|you| bits & state_bit(you) != 0),
            spectators: bits & state_bit(You::Spectator) != 0,
            patches: readers.map(|you| bits & patch_bit(you) != 0),
        }
    }

    /// Build now the frames `asked` names. A game task calls this with what the connections
    /// asked of its previous update, while the action's commit is in flight: the frames a
    /// reader will want are then ready when the commit is confirmed, instead of being built
    /// by the first connection after it — on the round trip. What no connection asked for is
    /// still built on demand, by the first that needs it.
    pub fn prepare(&self, asked: Asked) {
        for (you, wanted) in [You::Allied, You::Chinese].into_iter().zip(asked.players) {
            if wanted {
                let _ = self.build_state_frame(you);
            }
        }
        // The spectators' state (a whole view, ~25 KB), joined by the first spectator's
        // connection after the broadcast, could be joined before the acting player's reply
        // is sent, on the same thread.
        if asked.spectators {
            let _ = self.build_state_frame(You::Spectator);
        }
        let readers = [You::Allied, You::Chinese, You::Spectator];
        for (you, wanted) in readers.into_iter().zip(asked.patches) {
            if wanted {
                let _ = self.build_patch(you);
            }
        }
    }

    /// The new `state` frame as `you` read it, shared by every connection of that reader.
    pub fn state_frame(&self, you: You) -> Utf8Bytes {
        self.asked.fetch_or(state_bit(you), Ordering::Relaxed);
        self.build_state_frame(you)
    }

    fn build_state_frame(&self, you: You) -> Utf8Bytes {
        match self.players.get(reader(you)) {
            Some(slot) => slot.get_or_init(|| self.state.frame(you)).clone(),
            // The spectators' frame is the state's own, joined once for every update.
            None => self.state.frame(you),
        }
    }

    /// The `patch` frame turning `you`'s previous state frame into the new one.
    pub fn patch(&self, you: You) -> Option<Utf8Bytes> {
        self.asked.fetch_or(patch_bit(you), Ordering::Relaxed);
        Some(self.build_patch(you))
    }

    fn build_patch(&self, you: You) -> Utf8Bytes {
        self.patches[reader(you)]
            .get_or_init(|| self.compute_patch(you))
            .clone()
    }

    fn compute_patch(&self, you: You) -> Utf8Bytes {
        let common = self
            .common_ops
            .get_or_init(|| common_ops(&self.prev, &self.state));
        let mut ops = Ops::new();
        let (from, to) = (self.prev.legal_of(you), self.state.legal_of(you));
        if from.text != to.text {
            legal_ops(&from, &to, &mut ops);
        }
        let mut frame = String::with_capacity(common.len() + ops.text.len() + 48);
        frame.push_str(r#"{"type":"patch","seq":"#);
        frame.push_str(&self.seq.to_string());
        frame.push_str(r#","ops":["#);
        frame.push_str(common);
        if !ops.text.is_empty() {
            frame.push(',');
            frame.push_str(&ops.text);
        }
        frame.push_str("]}");
        Utf8Bytes::from(frame)
    }
}

/// RFC 6902 operations, written as the comma-separated inside of a JSON array.
struct Ops {
    text: String,
}

impl Ops {
    fn new() -> Ops {
        Ops {
            text: String::new(),
        }
    }

    fn push(&mut self, op: &str, path: &str, value: Option<&str>) {
        if !self.text.is_empty() {
            self.text.push(',');
        }
        self.text.push_str(r#"{"op":""#);
        self.text.push_str(op);
        self.text.push_str(r#"","path":"#);
        push_json_string(&mut self.text, path);
        if let Some(v) = value {
            self.text.push_str(r#","value":"#);
            self.text.push_str(v);
        }
        self.text.push('}');
    }

    /// The operations turning the JSON `from` into `to` at `path`. Two objects are compared
    /// key by key on their raw bytes (nothing is parsed into values): a key whose value
    /// changed is diffed the same way, down to `depth` levels, and replaced whole below that
    /// or when either value is not an object; keys only one side has are removed or added.
    fn diff<'a>(&mut self, path: &str, from: &'a str, to: &'a str, depth: u8) {
        if depth > 0
            && from.starts_with('{')
            && to.starts_with('{')
            && let (Some(a), Some(b)) = (members(from), members(to))
        {
            // Both objects were written by one serializer: a key is most often at the same
            // place in both.
            let find = |list: &[(&str, &'a str)], i: usize, key: &str| match list.get(i) {
                Some(&(k, v)) if k == key => Some(v),
                _ => list.iter().find(|(k, _)| *k == key).map(|&(_, v)| v),
            };
            let sub = |key: &str| {
                let mut sub = String::with_capacity(path.len() + key.len() + 1);
                sub.push_str(path);
                sub.push('/');
                push_token(&mut sub, key);
                sub
            };
            for (i, &(key, va)) in a.iter().enumerate() {
                match find(&b, i, key) {
                    Some(vb) if va == vb => {}
                    Some(vb) => self.diff(&sub(key), va, vb, depth - 1),
                    None => self.push("remove", &sub(key), None),
                }
            }
            for (i, &(key, vb)) in b.iter().enumerate() {
                if find(&a, i, key).is_none() {
                    self.push("add", &sub(key), Some(vb));
                }
            }
            return;
        }
        self.push("replace", path, Some(to));
    }
}

/// A JSON object's members in the order written, each value as its raw text borrowed from
/// `text`; `None` when `text` is not one object, or when a key needs unescaping (the caller
/// then replaces the object whole). `text` is JSON this module wrote, so the scan only finds
/// where each value ends — nothing is parsed into values, and no map is built: the objects
/// diffed (a unit, a field of the view) have a few members each.
fn members(text: &str) -> Option<Vec<(&str, &str)>> {
    let b = text.as_bytes();
    let mut i = skip_space(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut out = Vec::with_capacity(8);
    i = skip_space(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return (skip_space(b, i + 1) == b.len()).then_some(out);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_start = i + 1;
        let key_end = key_start
            + b.get(key_start..)?
                .iter()
                .position(|&c| c == b'"' || c == b'\\')?;
        if b[key_end] != b'"' {
            return None;
        }
        i = skip_space(b, key_end + 1);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_space(b, i + 1);
        i = value_end(b, value_start)?;
        out.push((
            text.get(key_start..key_end)?,
            text.get(value_start..i)?.trim_end(),
        ));
        match b.get(i)? {
            b',' => i = skip_space(b, i + 1),
            b'}' => return (skip_space(b, i + 1) == b.len()).then_some(out),
            _ => return None,
        }
    }
}

/// Where the JSON value starting at `i` ends: the index of the `,` or `}` after it.
fn value_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let start = i;
    loop {
        match *b.get(i)? {
            b'"' => {
                i += 1;
                loop {
                    match *b.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                i += 1;
            }
            b',' | b'}' if depth == 0 => return (i > start).then_some(i),
            b']' => return None,
            _ => i += 1,
        }
    }
}

/// The first index from `i` that is not JSON whitespace.
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// `text` as a JSON string.
fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `key` as an RFC 6901 reference token.
fn push_token(path: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

/// The operations on `seq` and the view, shared by every reader.
fn common_ops(prev: &Snapshot, next: &Snapshot) -> String {
    let mut ops = Ops::new();
    ops.push("replace", "/seq", Some(&next.seq.to_string()));
    let mut path = String::with_capacity(32);
    for (i, name) in FIELDS.iter().enumerate() {
        if i == UNITS {
            // Equal keys, equal bytes: most units did not change, and are not compared.
            if prev.unit_keys == next.unit_keys {
                continue;
            }
            if prev.unit_keys.len() != next.unit_keys.len() {
                ops.push("replace", "/view/units", Some(&next.units_json()));
                continue;
            }
            for u in 0..next.unit_keys.len() {
                if prev.unit_keys.get(u) == next.unit_keys.get(u) {
                    continue;
                }
                let (ua, ub) = (prev.unit(u), next.unit(u));
                if ua != ub {
                    path.clear();
                    let _ = write!(path, "/view/units/{u}");
                    ops.diff(&path, ua, ub, 1);
                }
            }
        } else {
            let (a, b) = (prev.field(i), next.field(i));
            if a == b {
                continue;
            }
            path.clear();
            path.push_str("/view/");
            path.push_str(name);
            ops.diff(&path, a, b, 2);
        }
    }
    ops.text
}

/// The operations turning the legal list `from` into `to`: the actions between their common
/// start and common end removed and added; the whole list replaced (by `to`'s own JSON, not
/// re-joined) when nothing is common or when those operations would be longer than it: a
/// selected stack's moves replace the list of stacks to select, and hundreds of `remove`s and
/// `add`s cost the server, the wire and every client more than the list they spell out.
fn legal_ops(from: &Legal, to: &Legal, ops: &mut Ops) {
    let whole = to.text;
    let (from, to) = (from.items(), to.items());
    if from == to {
        return;
    }
    let (head, tail) = common_ends(&from, &to);
    let (removed, added) = (&from[head..from.len() - tail], &to[head..to.len() - tail]);
    // A run of operations longer than the list itself says more with one `replace`.
    let run = (removed.len() + added.len()) * OP_LEN + added.iter().map(|a| a.len()).sum::<usize>();
    if head + tail == 0 || run >= whole.len() {
        ops.push("replace", "/legal_actions", Some(whole));
        return;
    }
    let mut path = String::with_capacity(24);
    for i in (head..head + removed.len()).rev() {
        path.clear();
        let _ = write!(path, "/legal_actions/{i}");
        ops.push("remove", &path, None);
    }
    for (j, action) in added.iter().enumerate() {
        path.clear();
        let _ = write!(path, "/legal_actions/{}", head + j);
        ops.push("add", &path, Some(action));
    }
}

/// About the bytes of one `remove` or `add` operation of the legal list, besides its value
/// (`{"op":"remove","path":"/legal_actions/12"},`).
const OP_LEN: usize = 42;

/// The `events` frame for the action numbered `seq` taken by `side`, from the events' JSON
/// array.
pub fn events_frame(seq: u64, side: &str, events_json: &str) -> Utf8Bytes {
    Utf8Bytes::from(format!(
        r#"{{"type":"events","seq":{seq},"side":"{side}","events":{events_json}}}"#
    ))
}

/// The events as the JSON array stored in the log and sent in `events` frames.
pub fn events_json(events: &[Event]) -> Result<String, serde_json::Error> {
    serde_json::to_string(events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::state::{Loc, Marks};
    use crate::rules::{Action, Scenario};
    use serde_json::Value;

    #[test]
    fn only_the_side_to_act_gets_legal_actions() {
        let scn = Scenario::shipped().unwrap();
        let game = Game::new(scn, [7; 32]);
        let snap = Snapshot::of(&game, 0).unwrap();
        let read = |you| -> Value { serde_json::from_str(snap.frame(you).as_str()).unwrap() };
        let allied = read(You::Allied);
        assert_eq!(allied["type"], "state");
        assert_eq!(allied["you"], "allied");
        assert!(!allied["legal_actions"].as_array().unwrap().is_empty());
        assert!(
            read(You::Chinese)["legal_actions"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        assert!(
            read(You::Spectator)["legal_actions"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        assert_eq!(allied["view"], read(You::Spectator)["view"]);
    }

    /// Two unit states that differ in anything — where the unit is, its face, any of its marks,
    /// or whether it is left out — never share a key, so no changed unit is copied from the
    /// state before: every location of the map and off it, with every one of the eight flags
    /// set alone and all of them set, gives a key of its own.
    #[test]
    fn different_unit_states_have_different_keys() {
        let mut locs = vec![Loc::Unplaced, Loc::OffMap, Loc::Eliminated];
        locs.extend(crate::rules::hex::Hex::all().map(Loc::Map));
        let mut seen = std::collections::BTreeSet::new();
        let mut states = 0;
        for loc in locs {
            for flag in 0..=9 {
                let on = |i: usize| flag == i || flag == 9;
                let marks = Marks {
                    moved: on(1),
                    moved_full: on(2),
                    attacked: on(3),
                    defended: on(4),
                    out_of_command: on(5),
                    recovery_failed: on(6),
                };
                let state = UnitState {
                    loc,
                    reduced: on(7),
                    marks,
                };
                assert!(seen.insert(UnitKey::of(&state, on(8)).0), "{state:?}");
                states += 1;
            }
        }
        assert_eq!(seen.len(), states);
    }

    /// Play a random game from `seed` for at most `actions` actions, calling `check` with the
    /// game, its seq, the snapshot built incrementally and the one before.
    fn play(
        seed: u64,
        actions: u64,
        mut check: impl FnMut(&Game, u64, &Arc<Snapshot>, Option<&Arc<Snapshot>>),
    ) {
        let scn = Scenario::shipped().unwrap();
        let mut game = Game::new(scn, [seed as u8; 32]);
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
        let mut prev: Option<Arc<Snapshot>> = None;
        for seq in 0..actions {
            let snap = Arc::new(Snapshot::next(&game, seq, prev.as_deref()).unwrap());
            check(&game, seq, &snap, prev.as_ref());
            let Some(side) = game.to_act() else { break };
            let legal = game.legal_actions(side);
            let phase = game.state().phase();
            let action = crate::rules::random::choose(&mut rng, phase, &legal)
                .unwrap()
                .clone();
            game.apply(side, &action).unwrap();
            prev = Some(snap);
        }
    }

    /// The update of the action numbered `seq`, from `prev` to `snap` (its events left out).
    fn update(seq: u64, snap: &Arc<Snapshot>, prev: &Arc<Snapshot>) -> Update {
        Update::new(
            seq,
            events_frame(seq, "allied", "[]"),
            snap.clone(),
            prev.clone(),
        )
    }

    /// The frames — with every unchanged unit copied from the frame before — are byte for byte
    /// what serializing the whole message gives, for every reader, and the HTTP view is the
    /// view.
    #[test]
    fn frames_are_the_serialized_messages_byte_for_byte() {
        play(3, 400, |game, seq, snap, prev| {
            let view = serde_json::to_string(&game.view()).unwrap();
            assert_eq!(snap.view(), view);
            for you in [You::Allied, You::Chinese, You::Spectator] {
                let legal = match you.side() {
                    Some(s) => serde_json::to_string(&game.offered(s)).unwrap(),
                    None => "[]".into(),
                };
                let expected = format!(
                    r#"{{"type":"state","seq":{seq},"you":"{}","view":{view},"legal_actions":{legal}}}"#,
                    you.as_str()
                );
                assert_eq!(snap.frame(you).as_str(), expected);
                if let Some(p) = prev {
                    assert_eq!(update(seq, snap, p).state_frame(you).as_str(), expected);
                }
            }
        });
    }

    /// A legal action is written as serde writes the derived form, with its warning or
    /// without.
    #[test]
    fn an_offered_action_is_written_as_serde_writes_it() {
        use crate::rules::units::UnitId;
        use crate::rules::warnings::Warning;
        let warning = Warning {
            text: "leaves the hex without a combat unit".into(),
            rule: "14".into(),
        };
        for action in [Action::EndPhase, Action::RemoveUnit { unit: UnitId(3) }] {
            for warning in [None, Some(warning.clone())] {
                let offered = Offered {
                    action: action.clone(),
                    warning,
                };
                let mut buf = Vec::new();
                offered.write(&mut buf).unwrap();
                assert_eq!(
                    String::from_utf8(buf).unwrap(),
                    serde_json::to_string(&offered).unwrap()
                );
            }
        }
    }

    /// A block of units none of which changed is the state before's block, shared; a block
    /// with a changed unit is written anew; no state frame is joined until one is asked for.
    #[test]
    fn unchanged_blocks_of_units_are_shared_and_frames_joined_on_demand() {
        let (mut shared, mut written) = (0, 0);
        play(11, 300, |_, _, snap, prev| {
            assert!(snap.spectator.get().is_none(), "no frame asked for yet");
            let Some(p) = prev else { return };
            for (b, block) in snap.blocks.iter().enumerate() {
                let range = b * BLOCK..(b * BLOCK + BLOCK).min(snap.unit_keys.len());
                let changed = snap.unit_keys[range.clone()] != p.unit_keys[range];
                assert_eq!(Arc::ptr_eq(block, &p.blocks[b]), !changed, "block {b}");
                if changed { written += 1 } else { shared += 1 }
            }
        });
        assert!(
            written > 0 && shared > 10 * written,
            "{shared} shared, {written} written"
        );
    }

    /// What connections asked of one update is built ahead for the next, while its commit is
    /// in flight — and only that: a frame built ahead counts as asked only once a connection
    /// reads it, so frames nobody reads stop being built after one update.
    #[test]
    fn an_update_builds_ahead_the_frames_asked_of_the_one_before() {
        let mut updates = Vec::new();
        play(5, 5, |_, seq, snap, prev| {
            if let Some(p) = prev {
                updates.push(update(seq, snap, p));
            }
        });
        let [first, second, third, fourth] = &updates[..] else {
            panic!("four updates, got {}", updates.len())
        };
        let built = |u: &Update| Asked {
            players: u.players.each_ref().map(|f| f.get().is_some()),
            spectators: u.state.spectator.get().is_some(),
            patches: u.patches.each_ref().map(|f| f.get().is_some()),
        };
        assert_eq!(first.asked(), Asked::default(), "nothing asked yet");
        let allied_patch = first.patch(You::Allied).unwrap();
        let chinese_state = first.state_frame(You::Chinese);
        let spectators_state = first.state_frame(You::Spectator);
        let asked = first.asked();
        assert_eq!(
            asked,
            Asked {
                players: [false, true],
                spectators: true,
                patches: [true, false, false],
            }
        );
        second.prepare(asked);
        assert_eq!(
            built(second),
            asked,
            "built ahead: exactly what was asked before"
        );
        assert_eq!(
            second.asked(),
            Asked::default(),
            "built ahead is not asked: no connection has read them"
        );
        assert_eq!(
            second.patch(You::Allied).unwrap(),
            second.compute_patch(You::Allied)
        );
        assert_eq!(
            second.state_frame(You::Chinese),
            second.state.frame(You::Chinese)
        );
        assert_eq!(
            second.asked(),
            Asked {
                players: [false, true],
                spectators: false,
                patches: [true, false, false],
            },
            "read by connections: asked"
        );
        // The spectators left: their state is built ahead for the next update once, no more.
        third.prepare(second.asked());
        assert!(!built(third).spectators);
        fourth.prepare(Asked::default());
        assert_eq!(
            built(fourth),
            Asked::default(),
            "nothing built that nobody asked for"
        );
        // The premise of the checks above: the two updates' frames differ, so a frame of the
        // first carried over into the second would have failed them.
        assert_ne!(allied_patch, second.compute_patch(You::Allied));
        assert_ne!(chinese_state, second.state.frame(You::Chinese));
        assert_ne!(spectators_state, second.state.frame(You::Spectator));
    }

    /// Every reader's patch, applied to its previous state frame, gives its new state frame —
    /// through whole games, whose every kind of step changes the view and the legal list.
    #[test]
    fn a_patch_turns_each_readers_previous_state_into_the_new_one() {
        let (mut patched, mut small) = (0, 0);
        for seed in [1, 2] {
            play(seed, 3000, |_, seq, snap, prev| {
                let Some(p) = prev else { return };
                let update = update(seq, snap, p);
                for you in [You::Allied, You::Chinese, You::Spectator] {
                    let frame = update.patch(you).unwrap();
                    let patch: Value = serde_json::from_str(frame.as_str()).unwrap();
                    assert_eq!(
                        (patch["type"].as_str(), patch["seq"].as_u64()),
                        (Some("patch"), Some(seq))
                    );
                    let mut doc: Value = serde_json::from_str(p.frame(you).as_str()).unwrap();
                    siege_protocol::patch::apply(&mut doc, patch["ops"].as_array().unwrap())
                        .unwrap();
                    let expected: Value = serde_json::from_str(snap.frame(you).as_str()).unwrap();
                    assert_eq!(doc, expected, "seq {seq}, {}", you.as_str());
                    patched += 1;
                    if frame.len() * 4 < snap.frame(you).len() {
                        small += 1;
                    }
                }
            });
        }
        assert!(patched > 1000, "{patched} patches checked");
        assert!(
            small * 10 > patched * 9,
            "{small} of {patched} patches under a quarter of the state"
        );
    }

    #[test]
    fn a_changed_object_is_patched_member_by_member() {
        let mut ops = Ops::new();
        ops.diff(
            "/view/units/3",
            r#"{"id":3,"hex":"0101","moved":false,"gone":1}"#,
            r#"{"id":3,"hex":"0102","moved":true,"new/key":[1]}"#,
            1,
        );
        let ops: Value = serde_json::from_str(&format!("[{}]", ops.text)).unwrap();
        let mut doc = serde_json::json!({"view": {"units": [0, 1, 2, {"id": 3, "hex": "0101", "moved": false, "gone": 1}]}});
        siege_protocol::patch::apply(&mut doc, ops.as_array().unwrap()).unwrap();
        assert_eq!(
            doc["view"]["units"][3],
            serde_json::json!({"id": 3, "hex": "0102", "moved": true, "new/key": [1]})
        );
        assert_eq!(ops.as_array().unwrap().len(), 4, "{ops}");
        // Below the depth asked, or for anything but two objects, the value is replaced whole.
        let mut whole = Ops::new();
        whole.diff("/view/victory", r#"{"a":{"b":1}}"#, r#"{"a":{"b":2}}"#, 1);
        assert_eq!(
            whole.text,
            r#"{"op":"replace","path":"/view/victory/a","value":{"b":2}}"#
        );
    }

    #[test]
    fn an_objects_members_are_read_as_serde_json_reads_them() {
        let cases = [
            r#"{}"#,
            r#" { } "#,
            r#"{"a":1}"#,
            r#"{"id":3,"hex":"0101","moved":false,"gone":null,"n":-1.5e3}"#,
            r#"{"s":"a \" } ] , { [ quote","t":"back\\","u":"\\\"x"}"#,
            r#"{"deep":{"a":[1,{"b":"}"}],"c":{}},"list":[[],[{}],"]"],"z":true}"#,
            r#"{ "spaced" : [ 1 , 2 ] , "x" : { "y" : "z" } }"#,
            r#"{"naïve":"é","emoji":"🏯"}"#,
        ];
        for text in cases {
            let ours = members(text).unwrap_or_else(|| panic!("{text}"));
            let theirs: serde_json::Map<String, Value> = serde_json::from_str(text).unwrap();
            assert_eq!(ours.len(), theirs.len(), "{text}");
            for (key, raw) in ours {
                let value: Value = serde_json::from_str(raw).unwrap();
                assert_eq!(Some(&value), theirs.get(key), "{text}: {key}");
            }
        }
        // Not one object, or a key that needs unescaping: the caller replaces whole.
        for text in [
            r#"[1]"#,
            r#""s""#,
            r#"{"a":1}{"b":2}"#,
            r#"{"a":1"#,
            r#"{"a\"b":1}"#,
            r#"{"a":}"#,
            r#"{"a":1,}"#,
            r#"{"a":[1}"#,
        ] {
            assert!(members(text).is_none(), "{text}");
        }
        // The order written is kept.
        let keys: Vec<&str> = members(r#"{"b":1,"a":2}"#)
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["b", "a"]);
    }

    #[test]
    fn legal_lists_change_by_what_changed() {
        let ops_between = |from: &[&str], to: &[&str]| {
            // Each list as a snapshot keeps it: its JSON and where each action lies in it.
            let (from, to) = (
                legal_json(from, None).unwrap(),
                legal_json(to, None).unwrap(),
            );
            let mut ops = Ops::new();
            legal_ops(
                &Legal {
                    text: &from.0,
                    items: &from.1,
                },
                &Legal {
                    text: &to.0,
                    items: &to.1,
                },
                &mut ops,
            );
            ops.text
        };
        // Actions as long as real ones (a move with its path is 60–200 bytes).
        let long = |c: &str| c.repeat(80);
        let (a, b, c, d, x) = (long("a"), long("b"), long("c"), long("d"), long("x"));
        let ops = ops_between(&[&a, &b, &c, &d], &[&a, &x, &d]);
        assert_eq!(
            ops,
            format!(
                r#"{{"op":"remove","path":"/legal_actions/2"}},{{"op":"remove","path":"/legal_actions/1"}},{{"op":"add","path":"/legal_actions/1","value":"{x}"}}"#
            )
        );
        // Most of the list changed: the operations would be longer than the list, which is
        // sent whole.
        let many: Vec<String> = (0..10).map(|i| long(&i.to_string())).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let ops = ops_between(&[&a, &b, &c, &d], &[&[a.as_str()], &many[..]].concat());
        let list = legal_json(&[&[a.as_str()], &many[..]].concat(), None)
            .unwrap()
            .0;
        assert_eq!(
            ops,
            format!(r#"{{"op":"replace","path":"/legal_actions","value":{list}}}"#)
        );
        assert_eq!(
            ops_between(&["a"], &[]),
            r#"{"op":"replace","path":"/legal_actions","value":[]}"#
        );
        // Nothing in common: the new list is sent whole, as its own JSON.
        assert_eq!(
            ops_between(&["a", "b"], &["x", "y"]),
            r#"{"op":"replace","path":"/legal_actions","value":["x","y"]}"#
        );
        assert!(ops_between(&["a"], &["a"]).is_empty());
    }

    /// The actions a list begins and ends with as the list before did are copied from its
    /// bytes, each from its own place; the list is what serializing it gives.
    #[test]
    fn a_legal_list_copies_what_it_shares_with_the_one_before() {
        let before = ["a", "b", "c", "d"];
        assert_eq!(legal_json(&before, None).unwrap().0, r#"["a","b","c","d"]"#);
        // The list before as written with a mark on each element: what is copied shows it.
        let marked = r#"["a!","b!","c!","d!"]"#;
        let marked_items: Vec<Span> = (0..4).map(|i| Span::of(1 + 5 * i..5 + 5 * i)).collect();
        let written = |now: &[&str]| {
            let prev = Legal {
                text: marked,
                items: &marked_items,
            };
            legal_json(now, Some((&before[..], prev))).unwrap().0
        };
        assert_eq!(marked_items[2].get(marked), r#""c!""#);
        assert_eq!(
            written(&["a", "b", "y", "c", "d"]),
            r#"["a!","b!","y","c!","d!"]"#
        );
        assert_eq!(written(&["x", "d"]), r#"["x","d!"]"#);
        assert_eq!(written(&["a", "x"]), r#"["a!","x"]"#);
        assert_eq!(written(&["b", "c"]), r#"["b","c"]"#);
        assert_eq!(written(&[]), "[]");
        assert_eq!(written(&before), marked);
    }
}
