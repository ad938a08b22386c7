//! The frames a game sends, serialized ONCE per accepted action and shared: every connection
//! of a game gets a clone of the same bytes (a reference count, not a copy), whether there are
//! two players or ten thousand spectators.
//!
//! A state differs by reader only in `you` and in whether `legal_actions` is filled. A loaded
//! game keeps just ONE serialized copy of its current state — the spectator's frame, whose
//! `view` doubles as the HTTP answer — plus the legal actions' JSON: every live game is in
//! memory at once, and three copies of a 26 KB view were most of what a game cost. The two
//! players' frames are built from those parts when a connection needs one: once per action
//! for the broadcast (shared through the [`Update`]), and on demand for a join, a resume or a
//! stale refusal.

use crate::rules::{Event, Game};
use axum::extract::ws::Utf8Bytes;
use serde_json::Value;
use siege_protocol::{Side, You};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// One state of a game, ready to send to any reader.
#[derive(Debug)]
pub struct Snapshot {
    /// How many actions the log held when this state was reached.
    pub seq: u64,
    /// Whose decision it is; `None` once the game is over.
    pub to_act: Option<Side>,
    /// The spectator's `state` frame.
    spectator: Utf8Bytes,
    /// Where the view's JSON lies in `spectator`.
    view: Range<usize>,
    /// The legal actions of the side to act, as a JSON array (`[]` when nobody acts).
    legal: Box<str>,
}

impl Snapshot {
    /// Serialize the view and the legal actions of `game` after `seq` actions.
    pub fn of(game: &Game, seq: u64) -> Result<Snapshot, serde_json::Error> {
        Snapshot::of_sized(game, seq, 0)
    }

    /// As [`Snapshot::of`], reserving `size_hint` bytes for the frame up front (the previous
    /// state's size): a view grows the buffer a dozen times otherwise.
    pub fn of_sized(
        game: &Game,
        seq: u64,
        size_hint: usize,
    ) -> Result<Snapshot, serde_json::Error> {
        let to_act = game.to_act();
        let legal = match to_act {
            Some(side) => serde_json::to_string(&game.legal_actions(side))?,
            None => "[]".to_string(),
        };
        let mut buf = Vec::with_capacity(size_hint.max(1024));
        write_head(&mut buf, seq, You::Spectator);
        let start = buf.len();
        serde_json::to_writer(&mut buf, &game.view())?;
        let view = start..buf.len();
        buf.extend_from_slice(br#","legal_actions":[]}"#);
        let text = String::from_utf8(buf).map_err(serde::ser::Error::custom)?;
        Ok(Snapshot {
            seq,
            to_act,
            spectator: Utf8Bytes::from(text),
            view,
            legal: legal.into_boxed_str(),
        })
    }

    /// The view's JSON, for HTTP answers.
    pub fn view(&self) -> &str {
        self.spectator
            .as_str()
            .get(self.view.clone())
            .unwrap_or("null")
    }

    /// The size of a state frame, to size the next one.
    pub fn frame_len(&self) -> usize {
        self.spectator.len() + self.legal.len()
    }

    /// The `state` frame as `you` read it: the shared spectator frame, or a player's frame
    /// built now.
    pub fn frame(&self, you: You) -> Utf8Bytes {
        match you.side() {
            None => self.spectator.clone(),
            Some(side) => self.player_frame(you, side),
        }
    }

    fn player_frame(&self, you: You, side: Side) -> Utf8Bytes {
        let actions = if self.to_act == Some(side) {
            &self.legal
        } else {
            "[]"
        };
        let view = self.view();
        let mut buf = Vec::with_capacity(view.len() + actions.len() + 80);
        write_head(&mut buf, self.seq, you);
        buf.extend_from_slice(view.as_bytes());
        buf.extend_from_slice(br#","legal_actions":"#);
        buf.extend_from_slice(actions.as_bytes());
        buf.push(b'}');
        // Valid UTF-8 pieces joined at ASCII boundaries: the conversion cannot fail.
        let text = String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Utf8Bytes::from(text)
    }
}

/// `{"type":"state","seq":N,"you":"…","view":` — the head of every state frame.
fn write_head(buf: &mut Vec<u8>, seq: u64, you: You) {
    use std::io::Write;
    let _ = write!(
        buf,
        r#"{{"type":"state","seq":{seq},"you":"{}","view":"#,
        you.as_str()
    );
}

/// What every connection of a game receives after an accepted action: its events, then the
/// new state — in full, or for connections that asked for patches, as the RFC 6902 difference
/// from the previous state (computed once, by the first connection that needs it).
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
    /// Each reader's `patch` frame, computed by the first connection of that reader that
    /// asked for patches (a diff parses two whole frames: only the readers asking pay).
    patches: [OnceLock<Option<Utf8Bytes>>; 3],
}

impl Update {
    pub fn new(seq: u64, events: Utf8Bytes, state: Arc<Snapshot>, prev: Arc<Snapshot>) -> Update {
        Update {
            seq,
            events,
            state,
            prev,
            players: [OnceLock::new(), OnceLock::new()],
            patches: [OnceLock::new(), OnceLock::new(), OnceLock::new()],
        }
    }

    /// The new `state` frame as `you` read it, shared by every connection of that reader.
    pub fn state_frame(&self, you: You) -> Utf8Bytes {
        let slot = match you {
            You::Spectator => return self.state.frame(you),
            You::Allied => &self.players[0],
            You::Chinese => &self.players[1],
        };
        slot.get_or_init(|| self.state.frame(you)).clone()
    }

    /// The `patch` frame turning `you`'s previous state frame into the new one.
    pub fn patch(&self, you: You) -> Option<Utf8Bytes> {
        let index = match you {
            You::Allied => 0,
            You::Chinese => 1,
            You::Spectator => 2,
        };
        self.patches[index]
            .get_or_init(|| self.compute_patch(you))
            .clone()
    }

    fn compute_patch(&self, you: You) -> Option<Utf8Bytes> {
        let before: Value = serde_json::from_str(self.prev.frame(you).as_str()).ok()?;
        let after: Value = serde_json::from_str(self.state_frame(you).as_str()).ok()?;
        let ops = siege_protocol::patch::diff(&before, &after);
        let frame = serde_json::json!({"type": "patch", "seq": self.seq, "ops": ops});
        Some(Utf8Bytes::from(frame.to_string()))
    }
}

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
    use crate::rules::Scenario;

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

    /// The frames are byte for byte what serializing the whole message gives, for every
    /// reader, and the HTTP view is the view.
    #[test]
    fn frames_are_the_serialized_messages_byte_for_byte() {
        let scn = Scenario::shipped().unwrap();
        let mut game = Game::new(scn.clone(), [3; 32]);
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
        let mut prev: Option<Arc<Snapshot>> = None;
        for seq in 0..60u64 {
            let hint = prev.as_ref().map_or(0, |p| p.frame_len());
            let snap = Arc::new(Snapshot::of_sized(&game, seq, hint).unwrap());
            let view = serde_json::to_string(&game.view()).unwrap();
            assert_eq!(snap.view(), view);
            for you in [You::Allied, You::Chinese, You::Spectator] {
                let legal = match you.side() {
                    Some(s) => serde_json::to_string(&game.legal_actions(s)).unwrap(),
                    None => "[]".into(),
                };
                let expected = format!(
                    r#"{{"type":"state","seq":{seq},"you":"{}","view":{view},"legal_actions":{legal}}}"#,
                    you.as_str()
                );
                assert_eq!(snap.frame(you).as_str(), expected);
                if let Some(p) = &prev {
                    let update = Update::new(
                        seq,
                        events_frame(seq, "allied", "[]"),
                        snap.clone(),
                        p.clone(),
                    );
                    assert_eq!(update.state_frame(you).as_str(), expected);
                }
            }
            let side = game.to_act().unwrap();
            let legal = game.legal_actions(side);
            let phase = game.state().phase;
            let action = crate::rules::random::choose(&mut rng, phase, &legal)
                .unwrap()
                .clone();
            game.apply(side, &action).unwrap();
            prev = Some(snap);
        }
    }
}
