//! The state hash: a SHA-256 fingerprint of the whole rules [`State`] after every logged
//! action, stored beside the action so that anyone replaying the log from the seed can check
//! each state byte for byte (PROTOCOL: "the same log replayed from the same seed gives the same
//! states"). Equal states give equal hashes; a state that differs in any field — a unit's hex,
//! a mark, a die's position in its stream — gives another.
//!
//! A hash is computed by a numbered [`HashVersion`], and a stored game keeps the version its
//! hashes were written with, so a game stored under one version verifies under it for ever:
//!
//! - **Version 1** hashes the state's JSON serialization (`serde_json`, fields in declaration
//!   order). Exact, but a mid-game state is 7–10 KB of text, and writing it is most of the cost
//!   of checking a replayed log.
//! - **Version 2** hashes a compact binary encoding (about a tenth of the bytes, no text
//!   formatting). The units — 247 counters, most of the state — are written by hand, three
//!   bytes each: a flag byte (`reduced`, then the six marks in declaration order as bits 1–6)
//!   and the location as a little-endian `u16` (the hex's dense index `0..1560`, or `0xFFFD`
//!   unplaced, `0xFFFE` off the map, `0xFFFF` eliminated). Every other field is written, in
//!   declaration order, by the compact serializer below, which walks the same `Serialize`
//!   implementations as the JSON — so a field added to a nested type is covered as soon as it
//!   serializes, and [`encode_compact`] names every top-level field of [`State`] (destructured
//!   without `..`: a new field does not compile until it is encoded).
//!
//! The compact serializer's encoding, given the schema, decodes back to exactly one value (so
//! unequal states cannot share an encoding):
//!
//! | value | bytes |
//! |---|---|
//! | unsigned integer `v` | `v` if `v < 0xE0`; else `0xE0 + n` then `v`'s `n` (1–16) bytes, little-endian, fewest possible |
//! | signed integer | its zig-zag form as an unsigned integer |
//! | `bool`, `Option` tag, unit | `0` / `1`; `0` for `()` |
//! | string, bytes, sequence, map | the length as an unsigned integer, then the items |
//! | enum variant | its index as an unsigned integer, then its content |
//! | struct | its fields in order; a run of `k` (1–15) fields left out by `skip_serializing_if` is the byte `0xF0 + k` |
//!
//! No value but a struct can begin with a byte `0xF1..=0xFF`; a struct-valued field that does
//! (its own first field left out) is preceded by the escape byte `0xE0`, which begins nothing
//! else. Floating-point numbers are refused: a state is exact, and no state field is a float.

use crate::position::state::{State, UnitState};
use serde::Serialize;
use serde::ser::{self, SerializeStruct};
use sha2::{Digest, Sha256};

/// How a state hash is computed. Stored per game: a game's hashes are always checked with the
/// version they were written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HashVersion {
    /// SHA-256 of the state's JSON.
    Json = 1,
    /// SHA-256 of the compact binary encoding ([`encode_compact`]).
    Compact = 2,
}

impl HashVersion {
    /// The version new games are stored with.
    pub const LATEST: HashVersion = HashVersion::Compact;

    /// The version numbered `n`, as stored.
    pub fn from_number(n: i64) -> Option<HashVersion> {
        match n {
            1 => Some(HashVersion::Json),
            2 => Some(HashVersion::Compact),
            _ => None,
        }
    }

    /// The number stored for this version.
    pub fn number(self) -> u8 {
        self as u8
    }
}

/// The SHA-256 of `state` under `version`.
pub fn hash(state: &State, version: HashVersion) -> [u8; 32] {
    match version {
        HashVersion::Json => {
            // A mid-game state is 7–10 KB of JSON: room for it up front spares the doubling
            // reallocations.
            let mut bytes = Vec::with_capacity(16 * 1024);
            if serde_json::to_writer(&mut bytes, state).is_err() {
                bytes.clear();
            }
            Sha256::digest(&bytes).into()
        }
        HashVersion::Compact => {
            let mut bytes = Vec::with_capacity(2 * 1024);
            encode_compact(state, &mut bytes);
            Sha256::digest(&bytes).into()
        }
    }
}

/// Append the compact binary encoding of `state` (version 2) to `out`.
pub fn encode_compact(state: &State, out: &mut Vec<u8>) {
    // Every field, named: a field added to State does not compile here until it is encoded.
    let State {
        turn,
        // The slot is written as its phase; the step as its data.
        slot: _,
        step,
        units,
        ruins,
        fortifications,
        mines_left,
        control,
        pending,
        declaration,
        last_combat,
        big_guns,
        sniper_used,
        charge_points,
        withdrawal_rolled,
        withdrawal_allowed,
        restores_left,
        custom_start,
        absent,
        dice,
        // A cache of the board, not part of the position.
        board: _,
    } = state;
    let mut c = Compact { out };
    c.put(turn);
    c.put(&state.phase());
    c.put(step);
    uint(c.out, units.len() as u128);
    for unit in units {
        encode_unit(unit, c.out);
    }
    c.put(ruins);
    c.put(fortifications);
    c.put(mines_left);
    c.put(control);
    c.put(pending);
    c.put(declaration);
    c.put(last_combat);
    c.put(big_guns);
    c.put(sniper_used);
    c.put(charge_points);
    c.put(withdrawal_rolled);
    c.put(withdrawal_allowed);
    c.put(restores_left);
    c.put(custom_start);
    c.put(absent);
    c.put(&state.result());
    c.put(dice);
}

/// One unit in three bytes: its flags, then where it is ([`UnitState::packed`]).
fn encode_unit(unit: &UnitState, out: &mut Vec<u8>) {
    let (flags, at) = unit.packed();
    out.push(flags);
    out.extend_from_slice(&at.to_le_bytes());
}

/// The first byte of a run of fields left out; `0xF0 + k` for `k` fields.
const SKIP_BASE: u8 = 0xF0;
/// The longest run one byte says.
const SKIP_MAX: u8 = 15;
/// Precedes a struct-valued field whose encoding begins with a skip run.
const ESCAPE: u8 = 0xE0;
/// Integers below this are one byte.
const SMALL: u128 = 0xE0;

/// An unsigned integer: one byte below [`SMALL`], else a length byte and the little-endian
/// bytes.
fn uint(out: &mut Vec<u8>, v: u128) {
    if v < SMALL {
        out.push(v as u8);
        return;
    }
    let bytes = v.to_le_bytes();
    let n = 16 - (v.leading_zeros() as usize / 8);
    out.push(ESCAPE + n as u8);
    out.extend_from_slice(&bytes[..n]);
}

fn sint(out: &mut Vec<u8>, v: i128) {
    uint(out, ((v << 1) ^ (v >> 127)) as u128);
}

/// Why a value would not encode (a float, or a sequence of unknown length): a state never
/// holds one, and [`encode_compact`] writes nothing for such a field rather than a guess.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl ser::Error for Refused {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Refused(msg.to_string())
    }
}

/// The compact serializer, writing into `out`.
struct Compact<'a> {
    out: &'a mut Vec<u8>,
}

impl Compact<'_> {
    /// Encode one top-level field. A refusal (impossible for the state's types, see
    /// [`Refused`]) leaves a marker byte that no value begins with, so it still changes the
    /// hash.
    fn put<T: Serialize + ?Sized>(&mut self, value: &T) {
        let start = self.out.len();
        if value.serialize(&mut *self).is_err() {
            self.out.truncate(start);
            self.out.push(0xFF);
        }
    }
}

/// A struct (or struct variant) being written: counts the fields left out since the last one
/// written.
struct Fields<'a, 'b> {
    c: &'a mut Compact<'b>,
    skipped: u8,
    any: bool,
}

impl Fields<'_, '_> {
    fn flush(&mut self) {
        if self.skipped > 0 {
            self.c.out.push(SKIP_BASE + self.skipped);
            self.skipped = 0;
        }
    }

    fn field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.flush();
        self.any = true;
        let start = self.c.out.len();
        value.serialize(&mut *self.c)?;
        if self.c.out.get(start).is_some_and(|b| *b > SKIP_BASE) {
            self.c.out.insert(start, ESCAPE);
        }
        Ok(())
    }

    fn skip(&mut self) {
        self.any = true;
        self.skipped += 1;
        if self.skipped == SKIP_MAX {
            self.flush();
        }
    }

    fn end(mut self) {
        self.flush();
        if !self.any {
            self.c.out.push(0);
        }
    }
}

/// A sequence, tuple or map: its items one after another (the length, if any, is written
/// first by the serializer).
struct Items<'a, 'b> {
    c: &'a mut Compact<'b>,
    empty: bool,
}

impl<'a, 'b> ser::Serializer for &'a mut Compact<'b> {
    type Ok = ();
    type Error = Refused;
    type SerializeSeq = Items<'a, 'b>;
    type SerializeTuple = Items<'a, 'b>;
    type SerializeTupleStruct = Items<'a, 'b>;
    type SerializeTupleVariant = Items<'a, 'b>;
    type SerializeMap = Items<'a, 'b>;
    type SerializeStruct = Fields<'a, 'b>;
    type SerializeStructVariant = Fields<'a, 'b>;

    fn serialize_bool(self, v: bool) -> Result<(), Refused> {
        self.out.push(u8::from(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Refused> {
        sint(self.out, v.into());
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Refused> {
        sint(self.out, v.into());
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Refused> {
        sint(self.out, v.into());
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Refused> {
        sint(self.out, v.into());
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Refused> {
        sint(self.out, v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Refused> {
        uint(self.out, v.into());
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Refused> {
        uint(self.out, v.into());
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Refused> {
        uint(self.out, v.into());
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Refused> {
        uint(self.out, v.into());
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Refused> {
        uint(self.out, v);
        Ok(())
    }
    fn serialize_f32(self, _: f32) -> Result<(), Refused> {
        Err(Refused("a state holds no floating-point number".into()))
    }
    fn serialize_f64(self, _: f64) -> Result<(), Refused> {
        Err(Refused("a state holds no floating-point number".into()))
    }
    fn serialize_char(self, v: char) -> Result<(), Refused> {
        uint(self.out, u32::from(v).into());
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Refused> {
        self.serialize_bytes(v.as_bytes())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Refused> {
        uint(self.out, v.len() as u128);
        self.out.extend_from_slice(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Refused> {
        self.out.push(0);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Refused> {
        self.out.push(1);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Refused> {
        self.out.push(0);
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Refused> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
    ) -> Result<(), Refused> {
        uint(self.out, index.into());
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
        uint(self.out, index.into());
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items<'a, 'b>, Refused> {
        let len = len.ok_or_else(|| Refused("a sequence of unknown length".into()))?;
        uint(self.out, len as u128);
        Ok(Items {
            c: self,
            empty: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Items<'a, 'b>, Refused> {
        Ok(Items {
            c: self,
            empty: len == 0,
        })
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Items<'a, 'b>, Refused> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Items<'a, 'b>, Refused> {
        uint(self.out, index.into());
        Ok(Items {
            c: self,
            empty: false,
        })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Items<'a, 'b>, Refused> {
        let len = len.ok_or_else(|| Refused("a map of unknown length".into()))?;
        uint(self.out, len as u128);
        Ok(Items {
            c: self,
            empty: false,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'a, 'b>, Refused> {
        Ok(Fields {
            c: self,
            skipped: 0,
            any: false,
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Fields<'a, 'b>, Refused> {
        uint(self.out, index.into());
        Ok(Fields {
            c: self,
            skipped: 0,
            // The variant index already began the value.
            any: true,
        })
    }
    fn is_human_readable(&self) -> bool {
        // The same forms as the JSON (hexes as their numbers, the dice as seed and position).
        true
    }
}

impl Items<'_, '_> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        value.serialize(&mut *self.c)
    }
    fn finish(self) {
        if self.empty {
            self.c.out.push(0);
        }
    }
}

impl ser::SerializeSeq for Items<'_, '_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.item(value)
    }
    fn end(self) -> Result<(), Refused> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeTuple for Items<'_, '_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.item(value)
    }
    fn end(self) -> Result<(), Refused> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Items<'_, '_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.item(value)
    }
    fn end(self) -> Result<(), Refused> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeTupleVariant for Items<'_, '_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.item(value)
    }
    fn end(self) -> Result<(), Refused> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeMap for Items<'_, '_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Refused> {
        self.item(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
        self.item(value)
    }
    fn end(self) -> Result<(), Refused> {
        self.finish();
        Ok(())
    }
}

impl SerializeStruct for Fields<'_, '_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
        self.field(value)
    }
    fn skip_field(&mut self, _: &'static str) -> Result<(), Refused> {
        self.skip();
        Ok(())
    }
    fn end(self) -> Result<(), Refused> {
        Fields::end(self);
        Ok(())
    }
}

impl ser::SerializeStructVariant for Fields<'_, '_> {
    type Ok = ();
    type Error = Refused;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Refused> {
        self.field(value)
    }
    fn skip_field(&mut self, _: &'static str) -> Result<(), Refused> {
        self.skip();
        Ok(())
    }
    fn end(self) -> Result<(), Refused> {
        Fields::end(self);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::game::Game;
    use crate::face::random::Bot;
    use crate::face::testkit::scenario;
    use crate::position::state::{GameResult, Step};
    use crate::position::state::{Loc, Marks};
    use crate::position::step_id::StepId;
    use crate::vocabulary::hex::Hex;

    fn compact(st: &State) -> Vec<u8> {
        let mut out = Vec::new();
        encode_compact(st, &mut out);
        out
    }

    /// The states of a random game from `seed`, one after every action (up to `n`).
    fn states(seed: u64, n: usize) -> Vec<State> {
        let mut game = Game::new(scenario(), [seed as u8; 32]);
        let mut bot = Bot::new(seed, Vec::new());
        let mut out = vec![game.state().clone()];
        while game.result().is_none() && out.len() <= n {
            let side = game.to_act().expect("someone acts");
            let legal = game.legal_actions(side);
            let action = bot.choose(&game, &legal).expect("a legal action").clone();
            game.apply(side, &action).expect("legal actions apply");
            out.push(game.state().clone());
        }
        out
    }

    #[test]
    fn version_1_is_the_hash_games_were_first_stored_with() {
        for st in states(3, 40) {
            let json = serde_json::to_vec(&st).unwrap();
            let expected: [u8; 32] = Sha256::digest(&json).into();
            assert_eq!(hash(&st, HashVersion::Json), expected);
        }
    }

    /// A unit's three bytes are those games were stored with under version 2: the face shown
    /// and each mark a bit from the lowest, then the place, little-endian — a hex by its dense
    /// index, off the board 0xFFFD to 0xFFFF. Changing them would fail every stored game's
    /// hashes, so they are spelt out here, not derived.
    #[test]
    fn a_units_three_bytes_stay_those_version_2_stored() {
        let hex: Hex = "1512".parse().unwrap();
        let unit = |loc, reduced, marks| UnitState {
            loc,
            reduced,
            marks,
        };
        let mut out = Vec::new();
        encode_unit(&unit(Loc::Unplaced, false, Marks::default()), &mut out);
        encode_unit(&unit(Loc::OffMap, true, Marks::default()), &mut out);
        let all = Marks {
            moved: true,
            moved_full: true,
            attacked: true,
            defended: true,
            out_of_command: true,
            recovery_failed: true,
        };
        encode_unit(&unit(Loc::Eliminated, false, all), &mut out);
        let attacked = Marks {
            attacked: true,
            ..Marks::default()
        };
        encode_unit(&unit(Loc::Map(hex), false, attacked), &mut out);
        let index = u16::try_from(hex.index()).unwrap().to_le_bytes();
        assert_eq!(
            out,
            [
                0x00, 0xFD, 0xFF, //
                0x01, 0xFE, 0xFF, //
                0x7E, 0xFF, 0xFF, //
                0x08, index[0], index[1],
            ]
        );
    }

    /// Through a whole game, two states have the same compact encoding exactly when they are
    /// equal, and the encoding is far smaller than the JSON.
    #[test]
    fn equal_states_and_only_equal_states_share_an_encoding() {
        let all = states(7, 5000);
        assert!(all.len() > 500, "the game lasted {} actions", all.len());
        let mut seen: std::collections::BTreeMap<Vec<u8>, &State> = Default::default();
        for st in &all {
            let bytes = compact(st);
            assert_eq!(
                bytes,
                compact(&st.clone()),
                "the same state, the same bytes"
            );
            if let Some(other) = seen.insert(bytes, st) {
                assert_eq!(other, st, "two different states encoded alike");
            }
        }
        let mid = &all[all.len() / 2];
        let (json, bin) = (serde_json::to_vec(mid).unwrap().len(), compact(mid).len());
        assert!(bin * 4 < json, "compact {bin} bytes against JSON {json}");
    }

    /// A named change to one field of a state.
    type Change<'a> = (&'a str, Box<dyn Fn(&mut State)>);

    /// Each field of the state, changed alone, changes the encoding — the dice included.
    #[test]
    fn every_field_of_the_state_is_in_the_encoding() {
        let all = states(5, 400);
        let mut base = all.last().unwrap().clone();
        base.go_to(StepId::AlliedMove, Step::Move { group: None });
        let before = compact(&base);
        fn result(text: &str) -> GameResult {
            GameResult {
                winner: siege_protocol::Side::Allied,
                reason: "held_out".into(),
                text: text.into(),
            }
        }
        let hex: Hex = "1512".parse().unwrap();
        let changes: Vec<Change> = vec![
            ("turn", Box::new(|s| s.turn += 1)),
            (
                // The same data in the step of another phase: the Allied reaction, not the
                // Allied movement.
                "phase",
                Box::new(|s| s.slot = StepId::Reaction),
            ),
            (
                // Another step of the same phase.
                "step",
                Box::new(|s| s.go_to(StepId::Attrition, Step::Attrition)),
            ),
            (
                "units.loc",
                Box::new(move |s| s.units[3].loc = Loc::Map(hex)),
            ),
            ("units.reduced", Box::new(|s| s.units[3].reduced ^= true)),
            (
                "units.marks",
                Box::new(|s| s.units[3].marks.recovery_failed ^= true),
            ),
            ("ruins", Box::new(move |s| s.ruins.push(hex))),
            (
                "fortifications",
                Box::new(move |s| {
                    s.fortifications
                        .push(crate::position::state::Fortification {
                            hex,
                            built_by: siege_protocol::Side::Chinese,
                        })
                }),
            ),
            ("mines_left", Box::new(|s| s.mines_left += 1)),
            ("control", Box::new(|s| s.control[0] = s.control[0].other())),
            (
                "pending",
                Box::new(|s| {
                    s.pending
                        .push(crate::position::pending::Pending::DefenderLeaders)
                }),
            ),
            (
                "declaration",
                Box::new(move |s| {
                    s.declaration = Some(crate::position::declaration::Declaration::new(
                        siege_protocol::Side::Allied,
                        hex,
                    ))
                }),
            ),
            ("last_combat", Box::new(|s| s.last_combat = None)),
            ("big_guns", Box::new(move |s| s.big_guns.push(hex))),
            ("sniper_used", Box::new(|s| s.sniper_used ^= true)),
            ("charge_points", Box::new(|s| s.charge_points += 1)),
            (
                "withdrawal_rolled",
                Box::new(|s| {
                    s.withdrawal_rolled
                        .push(crate::vocabulary::units::UnitId(1))
                }),
            ),
            (
                "withdrawal_allowed",
                Box::new(|s| {
                    s.withdrawal_allowed
                        .push(crate::vocabulary::units::UnitId(1))
                }),
            ),
            ("restores_left", Box::new(|s| s.restores_left += 1)),
            ("custom_start", Box::new(|s| s.custom_start ^= true)),
            (
                "absent",
                Box::new(|s| s.absent.push(crate::vocabulary::units::UnitId(2))),
            ),
            (
                // A result, and (below) another result.
                "result",
                Box::new(|s| s.end(result("t"))),
            ),
            (
                "dice",
                Box::new(|s| {
                    let _ = s.dice.roll();
                }),
            ),
        ];
        // The list covers every field the JSON form has.
        let json = serde_json::to_value(&base).unwrap();
        let mut named: Vec<&str> = changes
            .iter()
            .map(|(n, _)| n.split('.').next().unwrap())
            .collect();
        named.dedup();
        for key in json.as_object().unwrap().keys() {
            assert!(named.contains(&key.as_str()), "field {key} is not tested");
        }
        for (name, change) in &changes {
            let mut st = base.clone();
            change(&mut st);
            if st == base {
                continue; // e.g. last_combat already None
            }
            assert_ne!(
                compact(&st),
                before,
                "changing {name} left the encoding alone"
            );
            assert_ne!(
                hash(&st, HashVersion::Compact),
                hash(&base, HashVersion::Compact)
            );
        }
        let (mut one, mut other) = (base.clone(), base);
        one.end(result("t"));
        other.end(result("u"));
        assert_ne!(compact(&one), compact(&other), "the result is encoded");
    }

    /// Marks left out of a struct still say which ones: one mark set is not another.
    #[test]
    fn fields_left_out_keep_their_places() {
        #[derive(Serialize)]
        struct Two {
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            a: bool,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            b: bool,
        }
        #[derive(Serialize)]
        struct Outer {
            #[serde(skip_serializing_if = "Option::is_none")]
            x: Option<u8>,
            inner: Two,
        }
        let enc = |v: &dyn erased::Encode| {
            let mut out = Vec::new();
            v.encode(&mut out);
            out
        };
        let a = Two { a: true, b: false };
        let b = Two { a: false, b: true };
        assert_eq!(enc(&a), [1, 0xF1]);
        assert_eq!(enc(&b), [0xF1, 1]);
        // A struct field beginning with a skip run is escaped: it cannot read as the outer
        // struct's own fields left out.
        let o = Outer { x: None, inner: b };
        assert_eq!(enc(&o), [0xF1, ESCAPE, 0xF1, 1]);
        let o = Outer {
            x: None,
            inner: Two { a: false, b: false },
        };
        assert_eq!(enc(&o), [0xF1, ESCAPE, 0xF2]);
    }

    mod erased {
        pub trait Encode {
            fn encode(&self, out: &mut Vec<u8>);
        }
        impl<T: serde::Serialize> Encode for T {
            fn encode(&self, out: &mut Vec<u8>) {
                super::Compact { out }.put(self);
            }
        }
    }

    #[test]
    fn integers_are_short_and_unambiguous() {
        let enc = |v: u128| {
            let mut out = Vec::new();
            uint(&mut out, v);
            out
        };
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(0xDF), [0xDF]);
        assert_eq!(enc(0xE0), [0xE1, 0xE0]);
        assert_eq!(enc(0x1234), [0xE2, 0x34, 0x12]);
        assert_eq!(enc(u128::MAX).len(), 17);
        assert_eq!(enc(u128::MAX)[0], 0xF0);
        let mut out = Vec::new();
        sint(&mut out, -1);
        assert_eq!(out, [1]);
    }

    #[test]
    fn versions_are_numbered_as_stored() {
        for v in [HashVersion::Json, HashVersion::Compact] {
            assert_eq!(HashVersion::from_number(v.number().into()), Some(v));
        }
        assert_eq!(HashVersion::from_number(3), None);
        assert_eq!(HashVersion::LATEST, HashVersion::Compact);
    }
}
