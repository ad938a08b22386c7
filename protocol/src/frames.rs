//! WebSocket frames (docs/protocol.md, "WebSocket"): what a client sends and what the server answers.
//! Every frame is a JSON object tagged by `type`.

use crate::chat::ChatMessage;
use crate::codes;
use crate::side::Side;
use serde::de::DeserializeOwned;
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
/// A field the frame does not have is refused, not ignored: a misspelt `"patchs": true` must
/// not silently give full states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientFrame<A = Value> {
    /// Take the seat that `token` was issued for; without a token, the seat the signed-in
    /// account (the socket's session cookie) holds in this game.
    Join {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
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
    /// Ask for a `pong`. (Braces, not a unit variant: only then does serde refuse the fields a
    /// ping does not have.)
    Ping {},
    /// Say something in the chat this connection writes in: the table chat for a player, the
    /// spectator chat for a spectator.
    Chat { text: String },
    /// A player's choice to hide (or show again) the spectator chat, kept for the seat.
    ChatMute { muted: bool },
}

impl<A> ClientFrame<A> {
    /// The `type` names a client may send.
    pub const TYPES: [&'static str; 7] = [
        "join",
        "spectate",
        "resume",
        "action",
        "ping",
        "chat",
        "chat_mute",
    ];
}

/// Why a client frame could not be read: the error code of the refusal and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameError {
    pub code: &'static str,
    pub message: String,
}

impl FrameError {
    fn new(code: &'static str, message: impl Into<String>) -> FrameError {
        FrameError {
            code,
            message: message.into(),
        }
    }
}

impl ClientFrame<Value> {
    /// Read a client frame from the text of a WebSocket message: broken JSON is `bad_json`, a
    /// missing or unknown `type` is `unknown_type`, a known type with the wrong fields is
    /// `bad_json` again. The server reads every frame through here.
    pub fn parse(text: &str) -> Result<ClientFrame<Value>, FrameError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| FrameError::new(codes::BAD_JSON, format!("not JSON: {e}")))?;
        if !value.is_object() {
            return Err(FrameError::new(codes::BAD_JSON, "a frame is a JSON object"));
        }
        match value.get("type").and_then(Value::as_str) {
            Some(k) if Self::TYPES.contains(&k) => {}
            Some(k) => {
                return Err(FrameError::new(
                    codes::UNKNOWN_TYPE,
                    format!(
                        "unknown frame type {k:?}; expected one of {:?}",
                        Self::TYPES
                    ),
                ));
            }
            None => {
                return Err(FrameError::new(
                    codes::UNKNOWN_TYPE,
                    "a frame is a JSON object with a string \"type\"",
                ));
            }
        }
        let value = match Self::take_action(value) {
            Ok(frame) => return Ok(frame),
            Err(value) => value,
        };
        serde_json::from_value(value)
            .map_err(|e| FrameError::new(codes::BAD_JSON, format!("bad frame: {e}")))
    }

    /// An `action` frame with exactly its three fields and an unsigned `seq`, taken apart
    /// directly. Every move of a game comes this way, and serde reads an internally tagged
    /// enum by first copying the whole tree into a buffer of its own; this does not. Anything
    /// else, even an action frame with a wrong field, is given back whole to go the general
    /// way, which refuses it with serde's message.
    fn take_action(mut value: Value) -> Result<ClientFrame<Value>, Value> {
        let Some(fields) = value.as_object_mut() else {
            return Err(value);
        };
        let seq = match (fields.get("type"), fields.get("seq"), fields.len()) {
            (Some(Value::String(t)), Some(seq), 3) if t == "action" => seq.as_u64(),
            _ => None,
        };
        match seq.and_then(|seq| Some((seq, fields.remove("action")?))) {
            Some((seq, action)) => Ok(ClientFrame::Action { seq, action }),
            None => Err(value),
        }
    }
}

/// Read the `action` of an action frame as the game's action type `A`. docs/protocol.md has the
/// client send an element of `legal_actions` back unchanged, so the action must write back to
/// exactly the JSON that came: fields the action does not have are refused too (serde would
/// let them through on actions without fields).
pub fn action_from_frame<A: DeserializeOwned + Serialize>(action: &Value) -> Result<A, String> {
    let a = A::deserialize(action).map_err(|e| e.to_string())?;
    match serde_json::to_value(&a) {
        Ok(round) if &round == action => Ok(a),
        _ => Err("it carries fields this action does not have".to_string()),
    }
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
    /// A timed game's clocks: after joining, and whenever they change (the decision passes,
    /// the second seat is taken, the game ends).
    Clock { seq: u64, clock: crate::ClockView },
    /// A chat message this connection is shown, as it arrives.
    Chat {
        #[serde(flatten)]
        message: ChatMessage,
    },
    /// The chat this connection is shown so far, oldest first, sent after the first state when
    /// there is any (or the seat muted the spectator chat); `muted` is the seat's choice.
    ChatHistory {
        messages: Vec<ChatMessage>,
        muted: bool,
    },
    /// The answer to `chat_mute`: the seat's choice as stored.
    ChatMuted { muted: bool },
    /// To the seats of a finished game (never to spectators): a player asked for a rematch —
    /// sent when it is asked, and after the state to a seat joining later. `invite_url` takes
    /// the other seat of the new game.
    Rematch {
        game_id: String,
        by: Side,
        invite_url: String,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_frame_is_refused_with_the_code_that_says_why() {
        let code = |text: &str| {
            ClientFrame::parse(text)
                .map(|_| "")
                .unwrap_or_else(|e| e.code)
        };
        assert_eq!(code("{"), codes::BAD_JSON);
        assert_eq!(code("[1]"), codes::BAD_JSON);
        assert_eq!(code(r#"{"seq":1}"#), codes::UNKNOWN_TYPE);
        assert_eq!(code(r#"{"type":"teleport"}"#), codes::UNKNOWN_TYPE);
        assert_eq!(
            code(r#"{"type":"resume"}"#),
            codes::BAD_JSON,
            "resume needs its seq"
        );
        assert_eq!(code(r#"{"type":"ping"}"#), "");
    }

    #[test]
    fn an_action_frame_read_directly_reads_as_serde_reads_it() {
        let frames = [
            r#"{"type":"action","seq":7,"action":{"type":"pass"}}"#,
            r#"{"action":{"type":"move","to":"1010","mp":2},"seq":0,"type":"action"}"#,
            r#"{"type":"action","seq":7,"action":null}"#,
            r#"{"type":"action","seq":7}"#,
            r#"{"type":"action","action":{"type":"pass"}}"#,
            r#"{"type":"action","seq":-1,"action":{"type":"pass"}}"#,
            r#"{"type":"action","seq":1.5,"action":{"type":"pass"}}"#,
            r#"{"type":"action","seq":"7","action":{"type":"pass"}}"#,
            r#"{"type":"action","seq":7,"action":{"type":"pass"},"extra":1}"#,
            r#"{"type":"action","seq":7,"actions":{"type":"pass"}}"#,
            r#"{"type":"ping","seq":7,"action":{"type":"pass"}}"#,
        ];
        for text in frames {
            let by_serde = serde_json::from_str::<ClientFrame>(text).map_err(|_| codes::BAD_JSON);
            let read = ClientFrame::parse(text).map_err(|e| e.code);
            assert_eq!(read, by_serde, "{text}");
        }
    }

    #[test]
    fn an_action_must_come_back_exactly_as_it_was_sent() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Act {
            Pass,
            Move { to: String },
        }
        assert_eq!(
            action_from_frame::<Act>(&json!({"type": "pass"})),
            Ok(Act::Pass)
        );
        assert_eq!(
            action_from_frame::<Act>(&json!({"type": "move", "to": "1010"})),
            Ok(Act::Move { to: "1010".into() })
        );
        assert!(action_from_frame::<Act>(&json!({"type": "pass", "x": 1})).is_err());
        assert!(action_from_frame::<Act>(&json!({"type": "move"})).is_err());
    }

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
    fn client_frames_refuse_fields_they_do_not_have() {
        for frame in [
            json!({"type": "spectate", "patchs": true}),
            json!({"type": "join", "token": "t", "side": "allied"}),
            json!({"type": "ping", "x": 1}),
            json!({"type": "action", "seq": 1, "action": {}, "extra": 0}),
        ] {
            let err = serde_json::from_value::<ClientFrame>(frame.clone()).unwrap_err();
            assert!(err.to_string().contains("unknown field"), "{frame}: {err}");
        }
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
