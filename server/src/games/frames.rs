//! The frames a game sends, serialized ONCE per accepted action and shared: every connection
//! of a game gets a clone of the same bytes (a reference count, not a copy), whether there are
//! two players or ten thousand spectators. A state differs by reader only in `you` and in
//! whether `legal_actions` is filled, so each state is kept in its three finished forms.

use crate::rules::{Event, Game};
use axum::extract::ws::Utf8Bytes;
use serde_json::Value;
use siege_protocol::{Side, You};
use std::sync::{Arc, OnceLock};

/// One state of a game, ready to send to any reader.
#[derive(Debug)]
pub struct Snapshot {
    /// How many actions the log held when this state was reached.
    pub seq: u64,
    /// The view's JSON, for HTTP answers.
    pub view: String,
    /// Whose decision it is; `None` once the game is over.
    pub to_act: Option<Side>,
    allied: Utf8Bytes,
    chinese: Utf8Bytes,
    spectator: Utf8Bytes,
}

impl Snapshot {
    /// Serialize the view and the legal actions of `game` after `seq` actions.
    pub fn of(game: &Game, seq: u64) -> Result<Snapshot, serde_json::Error> {
        let view = serde_json::to_string(&game.view())?;
        let to_act = game.to_act();
        let legal = match to_act {
            Some(side) => serde_json::to_string(&game.legal_actions(side))?,
            None => "[]".to_string(),
        };
        let frame = |you: You| {
            let actions = if you.side().is_some() && you.side() == to_act {
                legal.as_str()
            } else {
                "[]"
            };
            Utf8Bytes::from(format!(
                r#"{{"type":"state","seq":{seq},"you":"{}","view":{view},"legal_actions":{actions}}}"#,
                you.as_str()
            ))
        };
        Ok(Snapshot {
            seq,
            allied: frame(You::Allied),
            chinese: frame(You::Chinese),
            spectator: frame(You::Spectator),
            view,
            to_act,
        })
    }

    /// The `state` frame as `you` read it.
    pub fn frame(&self, you: You) -> Utf8Bytes {
        match you {
            You::Allied => self.allied.clone(),
            You::Chinese => self.chinese.clone(),
            You::Spectator => self.spectator.clone(),
        }
    }
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
    patches: OnceLock<[Option<Utf8Bytes>; 3]>,
}

impl Update {
    pub fn new(seq: u64, events: Utf8Bytes, state: Arc<Snapshot>, prev: Arc<Snapshot>) -> Update {
        Update {
            seq,
            events,
            state,
            prev,
            patches: OnceLock::new(),
        }
    }

    /// The `patch` frame turning `you`'s previous state frame into the new one.
    pub fn patch(&self, you: You) -> Option<Utf8Bytes> {
        let patches = self.patches.get_or_init(|| {
            [You::Allied, You::Chinese, You::Spectator].map(|y| self.compute_patch(y))
        });
        let index = match you {
            You::Allied => 0,
            You::Chinese => 1,
            You::Spectator => 2,
        };
        patches[index].clone()
    }

    fn compute_patch(&self, you: You) -> Option<Utf8Bytes> {
        let before: Value = serde_json::from_str(self.prev.frame(you).as_str()).ok()?;
        let after: Value = serde_json::from_str(self.state.frame(you).as_str()).ok()?;
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
        let scn = Arc::new(Scenario::load_default().unwrap());
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
}
