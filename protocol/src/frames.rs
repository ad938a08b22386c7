//! WebSocket frames (docs/protocol.md, "WebSocket"): what a client sends and what the server answers.
//! Every frame is a JSON object tagged by `type`.

use crate::side::Side;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who a connection is: a player's side, or a spectator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum You {
    Allied,
    Chinese,
    Spectator,
}

impl You {
    /// The side this connection plays, if it is a player.
    pub fn side(self) -> Option<Side> {
        match self {
            You::Allied => Some(Side::Allied),
            You::Chinese => Some(Side::Chinese),
            You::Spectator => None,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            You::Allied => "allied",
            You::Chinese => "chinese",
            You::Spectator => "spectator",
        }
    }
}

impl From<Side> for You {
    fn from(side: Side) -> You {
        match side {
            Side::Allied => You::Allied,
            Side::Chinese => You::Chinese,
        }
    }
}

/// A frame from a client. `A` is the action type (the engine's `Action`, or raw JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientFrame<A = Value> {
    /// Take the seat that `token` was issued for.
    Join {
        token: String,
        /// Ask for RFC 6902 patch frames after the first full state.
        #[serde(default, skip_serializing_if = "is_false")]
        patches: bool,
    },
    /// Watch, read only.
    Spectate {
        #[serde(default, skip_serializing_if = "is_false")]
        patches: bool,
    },
    /// Reconnect after `seq`: the server sends the events after it, then the current state.
    /// With a token the connection is that seat's again; without one it is a spectator.
    Resume {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        seq: u64,
        #[serde(default, skip_serializing_if = "is_false")]
        patches: bool,
    },
    /// Take `action`, one element of the `legal_actions` of the state numbered `seq`.
    Action { seq: u64, action: A },
    /// Ask for a `pong`.
    Ping,
}

impl<A> ClientFrame<A> {
    /// The `type` names a client may send.
    pub const TYPES: [&'static str; 5] = ["join", "spectate", "resume", "action", "ping"];
}

/// A frame from the server. `V`, `A` and `E` are the view, action and event types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerFrame<V = Value, A = Value, E = Value> {
    /// The game after `seq` accepted actions, as `you` see it.
    State {
        seq: u64,
        you: You,
        view: V,
        legal_actions: Vec<A>,
    },
    /// What the action numbered `seq` did, in words and data.
    Events {
        seq: u64,
        /// The side whose action it was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<Side>,
        events: Vec<E>,
    },
    /// A refused frame; nothing changed.
    Error {
        code: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// RFC 6902 operations turning the previous state frame into the one numbered `seq`.
    Patch { seq: u64, ops: Vec<Value> },
    /// The answer to a `ping`.
    Pong,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_frames_read_as_in_protocol_md() {
        let f: ClientFrame = serde_json::from_value(json!({"type": "resume", "seq": 4})).unwrap();
        assert_eq!(
            f,
            ClientFrame::Resume {
                token: None,
                seq: 4,
                patches: false
            }
        );
        let f: ClientFrame =
            serde_json::from_value(json!({"type": "action", "seq": 1, "action": {"type": "pass"}}))
                .unwrap();
        assert!(matches!(f, ClientFrame::Action { seq: 1, .. }));
    }

    #[test]
    fn server_frames_write_as_in_protocol_md() {
        let e: ServerFrame = ServerFrame::Error {
            code: "stale".into(),
            message: "m".into(),
            rule: None,
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type": "error", "code": "stale", "message": "m"})
        );
        let p: ServerFrame = ServerFrame::Pong;
        assert_eq!(serde_json::to_value(&p).unwrap(), json!({"type": "pong"}));
    }
}
