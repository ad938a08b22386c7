//! The load generator's side of docs/protocol.md and nothing more: `POST /api/games`, `POST
//! /api/games/{id}/join`, and WebSockets speaking `join`/`spectate`/`action`. Frames are read
//! with a partial schema — only `type`, `seq`, `code`, the view's `phase` and `to_act`, the
//! legal actions as raw JSON and a patch's `ops` — so that the client spends as little of the
//! shared CPU as it can while still reading every frame the way any client would.

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use siege_protocol::{ClientFrame, CreateGame, CreatedGame, JoinedGame, Phase, Side};
use std::borrow::Cow;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// One WebSocket to the server.
pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Why a request or socket failed; the kind is what the report counts.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error("HTTP: {0}")]
    Http(#[from] reqwest::Error),
    #[error("WebSocket: {0}")]
    Ws(#[from] tokio_tungstenite::tungstenite::Error),
    #[error("unexpected frame: {0}")]
    Frame(String),
    #[error("the socket closed")]
    Closed,
    #[error("no answer within the set-up timeout")]
    Timeout,
}

impl WireError {
    /// The error's kind for the report.
    pub fn kind(&self) -> String {
        match self {
            WireError::Status { status, .. } => format!("http_{status}"),
            WireError::Http(_) => "http".into(),
            // An upgrade answered with an HTTP status says which.
            WireError::Ws(tokio_tungstenite::tungstenite::Error::Http(r)) => {
                format!("websocket_http_{}", r.status().as_u16())
            }
            WireError::Ws(_) => "websocket".into(),
            WireError::Frame(_) => "bad_frame".into(),
            WireError::Closed => "closed".into(),
            WireError::Timeout => "timeout".into(),
        }
    }
}

/// The HTTP API of one server.
#[derive(Clone, Debug)]
pub struct Api {
    base: String,
    client: reqwest::Client,
}

impl Api {
    /// The API at `base`, e.g. `http://127.0.0.1:8080`.
    pub fn new(base: &str) -> Api {
        Api {
            base: base.trim_end_matches('/').to_string(),
            // A server that stalls while being set up must fail the run, not hang it.
            client: reqwest::Client::builder()
                .timeout(SETUP_TIMEOUT)
                .build()
                .unwrap_or_default(),
        }
    }

    /// `POST /api/games`: a new game with the creator as the Allied player.
    pub async fn create(&self, name: &str) -> Result<CreatedGame, WireError> {
        let body = CreateGame {
            side: Some(Side::Allied),
            name: Some(name.to_string()),
            position: None,
            opponent: None,
            opponents: None,
            // A public seek: the generator joins its games by id, without invite codes.
            visibility: Some(siege_protocol::Visibility::Public),
            guests: None,
            time_control: None,
        };
        let resp = self
            .client
            .post(format!("{}/api/games", self.base))
            .json(&body)
            .send()
            .await?;
        read_json(resp, 201).await
    }

    /// `POST /api/games/{id}/join`: the free seat.
    pub async fn join(&self, id: &str) -> Result<JoinedGame, WireError> {
        let resp = self
            .client
            .post(format!("{}/api/games/{id}/join", self.base))
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await?;
        read_json(resp, 200).await
    }

    /// `GET /api/games?status=…&limit=…`: the ids of the newest games of that status.
    pub async fn list(&self, status: &str, limit: usize) -> Result<Vec<String>, WireError> {
        #[derive(Deserialize)]
        struct Listed {
            game_id: String,
        }
        let resp = self
            .client
            .get(format!(
                "{}/api/games?status={status}&limit={limit}",
                self.base
            ))
            .send()
            .await?;
        let games: Vec<Listed> = read_json(resp, 200).await?;
        Ok(games.into_iter().map(|g| g.game_id).collect())
    }

    /// `GET /api/games/{id}`, its body unread beyond the status.
    pub async fn touch(&self, id: &str) -> Result<(), WireError> {
        let resp = self
            .client
            .get(format!("{}/api/games/{id}", self.base))
            .send()
            .await?;
        let status = resp.status().as_u16();
        let body = resp.bytes().await?;
        if status != 200 {
            return Err(WireError::Status {
                status,
                body: String::from_utf8_lossy(&body).into_owned(),
            });
        }
        Ok(())
    }

    /// `GET /bench/stages` (with `--bench-routes`): where the server's time went since the
    /// last call; `None` when the route is not served.
    pub async fn stages(&self) -> Option<super::stages::StagesReport> {
        let resp = self
            .client
            .get(format!("{}/bench/stages", self.base))
            .send()
            .await
            .ok()?;
        read_json(resp, 200).await.ok()
    }

    /// The `ws://` URL of `path`.
    pub fn ws_url(&self, path: &str) -> String {
        format!("{}{path}", self.base.replacen("http", "ws", 1))
    }
}

async fn read_json<T: serde::de::DeserializeOwned>(
    resp: reqwest::Response,
    expect: u16,
) -> Result<T, WireError> {
    let status = resp.status().as_u16();
    let text = resp.text().await?;
    if status != expect {
        return Err(WireError::Status { status, body: text });
    }
    serde_json::from_str(&text).map_err(|e| WireError::Frame(format!("{e}: {text}")))
}

/// How much a client socket reads at a time. The WebSocket library zero-fills this much of its
/// buffer on every read (and on every poll that finds nothing to read), so its 128 KiB default
/// made the load generator spend its CPU on memset rather than on playing, and 16 KiB still
/// made memset the generator's largest single cost with 10,000 spectators (docs/benchmarks.md,
/// 2026-12-04). Most frames after the first state are under 4 KiB; a state frame of ~26 KB
/// takes seven reads of this.
const READ_BUFFER: usize = 4 * 1024;

/// How long one HTTP request or WebSocket handshake may take.
const SETUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Open a WebSocket (TCP_NODELAY on: small frames must not wait for Nagle), within
/// [`SETUP_TIMEOUT`].
pub async fn connect(url: &str) -> Result<Socket, WireError> {
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
    let handshake = tokio_tungstenite::connect_async_with_config(url, Some(config), true);
    let (socket, _) = tokio::time::timeout(SETUP_TIMEOUT, handshake)
        .await
        .map_err(|_| WireError::Timeout)??;
    Ok(socket)
}

/// Send one client frame.
pub async fn send(socket: &mut Socket, frame: &ClientFrame<&RawValue>) -> Result<(), WireError> {
    let text = serde_json::to_string(frame).map_err(|e| WireError::Frame(e.to_string()))?;
    socket.send(Message::text(text)).await?;
    Ok(())
}

/// The next text frame; pings, pongs and binary frames are skipped.
pub async fn next_text(
    socket: &mut Socket,
) -> Result<tokio_tungstenite::tungstenite::Utf8Bytes, WireError> {
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(t))) => return Ok(t),
            Some(Ok(Message::Close(_))) | None => return Err(WireError::Closed),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(e.into()),
        }
    }
}

/// The view's fields a player needs to choose: the phase (the random player's weights depend
/// on it) and whose decision it is (`null` once the game is over).
#[derive(Debug, Deserialize)]
pub struct ViewHead {
    pub phase: Phase,
    pub to_act: Option<Side>,
}

/// A server frame read with the fields the load generator uses; everything else is skipped
/// unparsed.
#[derive(Debug, Deserialize)]
pub struct Frame<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default)]
    pub seq: Option<u64>,
    #[serde(default, borrow)]
    pub code: Option<Cow<'a, str>>,
    #[serde(default)]
    pub view: Option<ViewHead>,
    #[serde(default, borrow)]
    pub legal_actions: Option<Vec<&'a RawValue>>,
    /// A `patch` frame's operations, read here so that the frame is parsed once; their
    /// values stay raw text until applied.
    #[serde(default, borrow)]
    pub ops: Option<Vec<Op<'a>>>,
}

/// One operation of a `patch` frame, its value (if it has one) as raw text: a replaced legal
/// list is kept as its elements' text, never built into values and dropped again.
#[derive(Debug, Deserialize)]
pub struct Op<'a> {
    #[serde(borrow)]
    pub op: Cow<'a, str>,
    #[serde(borrow)]
    pub path: Cow<'a, str>,
    /// Absent for `remove`; a JSON `null` value is `Some("null")`, not `None`.
    #[serde(default, borrow, deserialize_with = "present")]
    pub value: Option<&'a RawValue>,
}

/// A member that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

impl<'a> Frame<'a> {
    pub fn parse(text: &'a str) -> Result<Frame<'a>, WireError> {
        serde_json::from_str(text).map_err(|e| WireError::Frame(e.to_string()))
    }
}

/// A frame read by a spectator: only its type and seq (the view, events and patch operations
/// are skipped unparsed).
#[derive(Debug, Deserialize, PartialEq, Eq)]
pub struct Head<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default)]
    pub seq: Option<u64>,
}

impl<'a> Head<'a> {
    /// The frame's type and seq: read from its first bytes when it begins as the server writes
    /// a `state`, `patch` or `events` frame (`{"type":"…","seq":N,`), else by parsing it whole.
    ///
    /// A spectator needs nothing else, and with ten thousand of them on the two cores the
    /// server runs on, scanning every frame to its end (serde skips what it ignores by reading
    /// it) was a fifth of the load generator's CPU and slowed the very fan-out it measures; the
    /// fan-out floor's readers (`fanout.rs`) read only a frame's first bytes too. The rest of a
    /// frame read this way is not checked: the players, who apply every patch, are the check
    /// that the frames are right.
    pub fn parse(text: &'a str) -> Result<Head<'a>, WireError> {
        match Head::leading(text) {
            Some(head) => Ok(head),
            None => serde_json::from_str(text).map_err(|e| WireError::Frame(e.to_string())),
        }
    }

    /// `{"type":"<kind>","seq":<digits>` followed by `,` or `}`, with no escape in the kind.
    fn leading(text: &'a str) -> Option<Head<'a>> {
        let rest = text.strip_prefix(r#"{"type":""#)?;
        let (kind, rest) = rest.split_once('"')?;
        if kind.contains('\\') {
            return None;
        }
        let digits = rest.strip_prefix(r#","seq":"#)?;
        let end = digits.find(|c: char| !c.is_ascii_digit())?;
        if !matches!(digits.as_bytes().get(end), Some(b',' | b'}')) {
            return None;
        }
        Some(Head {
            kind: Cow::Borrowed(kind),
            seq: Some(digits[..end].parse().ok()?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_frame_reads_its_head_and_raw_legal_actions() {
        let text = r#"{"type":"state","seq":3,"you":"allied","view":{"turn":0,"phase":"allied_setup","to_act":"allied","units":[{"id":1}]},"legal_actions":[{"type":"deploy_default"},{"type":"place","hex":"0101"}]}"#;
        let f = Frame::parse(text).unwrap();
        assert_eq!(f.kind, "state");
        assert_eq!(f.seq, Some(3));
        let view = f.view.unwrap();
        assert_eq!(view.phase, Phase::AlliedSetup);
        assert_eq!(view.to_act, Some(Side::Allied));
        let legal = f.legal_actions.unwrap();
        assert_eq!(legal[1].get(), r#"{"type":"place","hex":"0101"}"#);
    }

    #[test]
    fn an_upgrade_refused_by_http_says_its_status() {
        let refused = |status: u16| {
            let response = tokio_tungstenite::tungstenite::http::Response::builder()
                .status(status)
                .body(None)
                .unwrap();
            WireError::Ws(tokio_tungstenite::tungstenite::Error::Http(Box::new(
                response,
            )))
            .kind()
        };
        assert_eq!(refused(404), "websocket_http_404");
        assert_eq!(refused(503), "websocket_http_503");
        assert_eq!(WireError::Closed.kind(), "closed");
    }

    /// A spectator reads the head of the frames the server writes from their first bytes, as a
    /// parse of the whole frame reads it; any other frame is parsed whole.
    #[test]
    fn a_spectators_head_is_read_from_the_first_bytes_as_a_parse_reads_it() {
        fn serde(t: &str) -> Head<'_> {
            serde_json::from_str(t).unwrap()
        }
        for text in [
            r#"{"type":"patch","seq":9,"ops":[{"op":"remove","path":"/a"}]}"#,
            r#"{"type":"events","seq":12,"side":"allied","events":[]}"#,
            r#"{"type":"state","seq":0,"you":"spectator","view":{"turn":1},"legal_actions":[]}"#,
            r#"{"type":"state","seq":18446744073709551615}"#,
        ] {
            assert_eq!(Head::leading(text), Some(serde(text)), "{text}");
            assert_eq!(Head::parse(text).unwrap(), serde(text), "{text}");
        }
        // Not as the server writes them: read by the parse, with the same answer or error.
        for text in [
            r#"{"type":"error","code":"stale","message":"m"}"#,
            r#"{"seq":3,"type":"patch","ops":[]}"#,
            r#"{"type":"patch", "seq":3,"ops":[]}"#,
            r#"{"type":"pat\u0063h","seq":3,"ops":[]}"#,
            r#"{"type":"patch","seq":3.5,"ops":[]}"#,
            r#"{"type":"patch","seq":}"#,
            r#"{"type":"patch","seq":99999999999999999999,"ops":[]}"#,
        ] {
            assert_eq!(Head::leading(text), None, "{text}");
            let whole = serde_json::from_str::<Head<'_>>(text);
            assert_eq!(Head::parse(text).ok(), whole.ok(), "{text}");
        }
    }

    #[test]
    fn error_and_patch_frames_read_too() {
        let e = Frame::parse(r#"{"type":"error","code":"stale","message":"m"}"#).unwrap();
        assert_eq!(e.code.as_deref(), Some("stale"));
        let p =
            Head::parse(r#"{"type":"patch","seq":9,"ops":[{"op":"remove","path":"/a"}]}"#).unwrap();
        assert_eq!((p.kind.as_ref(), p.seq), ("patch", Some(9)));
        // A player reads a patch's operations with its head, in one parse.
        let f = Frame::parse(r#"{"type":"patch","seq":9,"ops":[{"op":"remove","path":"/a"}]}"#)
            .unwrap();
        assert_eq!((f.kind.as_ref(), f.seq), ("patch", Some(9)));
        let ops = f.ops.unwrap();
        assert_eq!((ops[0].op.as_ref(), ops[0].path.as_ref()), ("remove", "/a"));
        assert!(ops[0].value.is_none());
        assert!(e.ops.is_none());
        // A null value is a value, kept as its text.
        let f = Frame::parse(
            r#"{"type":"patch","seq":9,"ops":[{"op":"replace","path":"/view/selection","value":null},{"op":"add","path":"/l/-","value":{"a":[1]}}]}"#,
        )
        .unwrap();
        let ops = f.ops.unwrap();
        assert_eq!(ops[0].value.map(RawValue::get), Some("null"));
        assert_eq!(ops[1].value.map(RawValue::get), Some(r#"{"a":[1]}"#));
    }

    #[test]
    fn an_action_frame_sends_the_legal_action_unchanged() {
        let raw: &RawValue = serde_json::from_str(r#"{"type":"move","to":"1512","mp":3}"#).unwrap();
        let text = serde_json::to_string(&ClientFrame::Action {
            seq: 4,
            action: raw,
        })
        .unwrap();
        assert_eq!(
            text,
            r#"{"type":"action","seq":4,"action":{"type":"move","to":"1512","mp":3}}"#
        );
    }
}
