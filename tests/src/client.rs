//! A test client that speaks only docs/protocol.md: JSON over HTTP (reqwest) and one WebSocket per
//! connection (tokio-tungstenite). It knows no rules: to play, it picks one of the
//! `legal_actions` it was sent (with the engine's random player, for realistic games) and
//! sends it back unchanged.
//!
//! Shared by the `siege-tests` crate and, through `#[path]`, by the server package's own
//! integration tests (which need the real `siege` binary).

#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use siege::rules::Action;
use siege_protocol::Phase;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Guard against a hung test: no frame is expected to take anywhere near this long. This is
/// not a timing assertion; it only turns a hang into a failure with a message.
const HANG: Duration = Duration::from_secs(120);

/// HTTP access to a server at `base` (`http://127.0.0.1:PORT`).
#[derive(Clone, Debug)]
pub struct Http {
    pub base: String,
    client: reqwest::Client,
    /// The invite codes of the private games this client created, by game id: `join` sends
    /// them as a friend following the invite link would.
    codes: Arc<Mutex<HashMap<String, String>>>,
    /// The session cookie (`name=value`) the server last set, sent back like a browser does.
    cookie: Arc<Mutex<Option<String>>>,
}

impl Http {
    pub fn new(base: &str) -> Http {
        Http {
            base: base.trim_end_matches('/').to_string(),
            // The same guard as the socket's: a request never answered fails, naming its URL.
            client: reqwest::Client::builder()
                .timeout(HANG)
                .build()
                .expect("HTTP client"),
            codes: Arc::default(),
            cookie: Arc::default(),
        }
    }

    /// Another client of the same server: no session, no codes.
    pub fn stranger(&self) -> Http {
        Http::new(&self.base)
    }

    /// The session cookie, as a `Cookie` header value.
    pub fn cookie(&self) -> Option<String> {
        self.cookie.lock().expect("cookie").clone()
    }

    /// Send `req` with the session cookie; keep any cookie the answer sets (an expired one, as
    /// a log-out sends, is forgotten). Returns the status, the JSON body and the raw
    /// `Set-Cookie` headers.
    pub async fn send(&self, req: reqwest::RequestBuilder) -> (u16, Value, Vec<String>) {
        let req = match self.cookie() {
            Some(c) => req.header("cookie", c),
            None => req,
        };
        let resp = req.send().await.expect("request");
        let set: Vec<String> = resp
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok().map(str::to_string))
            .collect();
        for c in &set {
            let pair = c.split(';').next().unwrap_or_default().trim().to_string();
            let gone = c.to_ascii_lowercase().contains("max-age=0");
            *self.cookie.lock().expect("cookie") = (!gone).then_some(pair);
        }
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body");
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::Null),
            set,
        )
    }

    /// `POST path` with a JSON body, through [`Http::send`].
    pub async fn post_json(&self, path: &str, body: Value) -> (u16, Value) {
        let req = self
            .client
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.to_string());
        let (status, body, _) = self.send(req).await;
        (status, body)
    }

    /// `GET path` with the session cookie.
    pub async fn get_signed(&self, path: &str) -> (u16, Value) {
        let (status, body, _) = self
            .send(self.client.get(format!("{}{path}", self.base)))
            .await;
        (status, body)
    }

    /// `GET path`: status and JSON body (`Value::Null` when the body is not JSON).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let resp = self
            .client
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("GET");
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body");
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// `POST path` with a raw body.
    pub async fn post(&self, path: &str, body: impl Into<String>) -> (u16, Value) {
        let resp = self
            .client
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.into())
            .send()
            .await
            .expect("POST");
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body");
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Create a game; the creator plays `side`.
    pub async fn create(&self, side: &str) -> Value {
        let (status, body) = self
            .post(
                "/api/games",
                json!({"side": side, "name": "test"}).to_string(),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        self.remember_code(&body);
        body
    }

    /// Create a public game (listed to everyone, joinable without an invite code); the creator
    /// plays `side`.
    pub async fn create_public(&self, side: &str) -> Value {
        let (status, body) = self
            .post(
                "/api/games",
                json!({"side": side, "name": "test", "visibility": "public"}).to_string(),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        body
    }

    /// Keep the invite code of a game this client created (the answer to `POST /api/games`).
    pub fn remember_code(&self, created: &Value) {
        if let (Some(id), Some(code)) =
            (created["game_id"].as_str(), created["invite_code"].as_str())
        {
            self.codes
                .lock()
                .expect("codes")
                .insert(id.to_string(), code.to_string());
        }
    }

    /// Take the free seat of game `id` (with its invite code when this client created it).
    pub async fn join(&self, id: &str) -> Value {
        let code = self.codes.lock().expect("codes").get(id).cloned();
        let body = code.map_or(String::new(), |c| json!({ "code": c }).to_string());
        let (status, body) = self.post(&format!("/api/games/{id}/join"), body).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// A private game this client creates as `side` and then joins for the other side, as
    /// most tests begin: its id, the answers to the create and to the join (each with its
    /// seat's token), and its WebSocket URL.
    pub async fn both_seats(&self, side: &str) -> (String, Value, Value, String) {
        let created = self.create(side).await;
        let id = created["game_id"].as_str().expect("game_id").to_string();
        let joined = self.join(&id).await;
        let url = self.ws_url(&id);
        (id, created, joined, url)
    }

    /// The WebSocket URL of game `id`.
    pub fn ws_url(&self, id: &str) -> String {
        format!("{}/ws/games/{id}", self.base.replacen("http", "ws", 1))
    }
}

/// One WebSocket connection.
pub struct Ws {
    stream: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// What a socket read: a JSON text frame, or the close (with its code).
#[derive(Debug)]
pub enum Read {
    Frame(Value),
    Closed(Option<u16>),
}

impl Ws {
    pub async fn connect(url: &str) -> Ws {
        let (stream, _) = tokio_tungstenite::connect_async_with_config(url, None, true)
            .await
            .expect("websocket connect");
        Ws { stream }
    }

    /// Connect carrying a session cookie, as a signed-in browser's socket does.
    pub async fn connect_with_cookie(url: &str, cookie: &str) -> Ws {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut req = url.into_client_request().expect("websocket request");
        req.headers_mut()
            .insert("cookie", cookie.parse().expect("cookie header"));
        let (stream, _) = tokio_tungstenite::connect_async_with_config(req, None, true)
            .await
            .expect("websocket connect");
        Ws { stream }
    }

    /// Connect and send a first frame.
    pub async fn open(url: &str, first: Value) -> Ws {
        let mut ws = Ws::connect(url).await;
        ws.send(first).await;
        ws
    }

    pub async fn send(&mut self, frame: Value) {
        self.send_text(frame.to_string()).await;
    }

    pub async fn send_text(&mut self, text: impl Into<String>) {
        self.stream
            .send(Message::text(text.into()))
            .await
            .expect("websocket send");
    }

    /// Send a frame the server may refuse by closing before it has read all of it: `false` when
    /// the connection was closed or reset under the send.
    pub async fn send_text_or_closed(&mut self, text: impl Into<String>) -> bool {
        match self.stream.send(Message::text(text.into())).await {
            Ok(()) => true,
            Err(tokio_tungstenite::tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
                ) =>
            {
                false
            }
            Err(tokio_tungstenite::tungstenite::Error::ConnectionClosed) => false,
            Err(e) => panic!("websocket send: {e}"),
        }
    }

    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        self.stream
            .send(Message::binary(bytes))
            .await
            .expect("websocket send");
    }

    /// Close the socket with the handshake: send the close, then read (skipping what the server
    /// sent meanwhile) until the server's close or the stream's end. A test that needs the
    /// server to have seen a leaver go waits for this rather than for a fixed time alone.
    pub async fn close(mut self) {
        let _ = self.stream.send(Message::Close(None)).await;
        while let Read::Frame(_) = self.read().await {}
    }

    /// The next text frame or the close.
    pub async fn read(&mut self) -> Read {
        // One deadline for the whole wait: the server's pings (skipped here) must not keep a
        // hung wait alive, as they did when each frame had its own timeout.
        let deadline = tokio::time::Instant::now() + HANG;
        loop {
            let next = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .expect("no text frame from the server within the hang guard (hung?)");
            match next {
                Some(Ok(Message::Text(t))) => {
                    return Read::Frame(serde_json::from_str(t.as_str()).expect("frame is JSON"));
                }
                Some(Ok(Message::Close(frame))) => {
                    return Read::Closed(frame.map(|f| u16::from(f.code)));
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Read::Closed(None),
            }
        }
    }

    /// The next text frame; panics on a close.
    pub async fn recv(&mut self) -> Value {
        match self.read().await {
            Read::Frame(v) => v,
            Read::Closed(code) => panic!("socket closed ({code:?})"),
        }
    }

    /// Connect and send a first frame, and read up to the `state` frame that answers it:
    /// `None` when the server cannot be reached, refuses the upgrade, or answers with an
    /// error or a close (a game passing between server nodes answers `moved`).
    pub async fn try_open(url: &str, first: Value) -> Option<(Ws, Vec<Value>, Value)> {
        let (stream, _) = tokio_tungstenite::connect_async_with_config(url, None, true)
            .await
            .ok()?;
        let mut ws = Ws { stream };
        ws.stream
            .send(Message::text(first.to_string()))
            .await
            .ok()?;
        let mut events = Vec::new();
        loop {
            let Read::Frame(f) = ws.read().await else {
                return None;
            };
            match f["type"].as_str() {
                Some("state") => return Some((ws, events, f)),
                Some("events") => events.push(f),
                _ => return None,
            }
        }
    }

    /// Read until a `state` frame; returns the `events` frames before it and the state.
    pub async fn next_state(&mut self) -> (Vec<Value>, Value) {
        let mut events = Vec::new();
        loop {
            let f = self.recv().await;
            match f["type"].as_str() {
                Some("state") => return (events, f),
                Some("events") => events.push(f),
                _ => panic!("expected events or state, got {f}"),
            }
        }
    }

    /// For a client that asked for patches: read until a `patch` or a `state` frame and bring
    /// `current` (the last full state) up to date with it; returns the `events` frames before.
    pub async fn next_patched(&mut self, current: &mut Value) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            let f = self.recv().await;
            match f["type"].as_str() {
                Some("state") => {
                    *current = f;
                    return events;
                }
                Some("patch") => {
                    let ops = f["ops"].as_array().expect("ops");
                    siege_protocol::patch::apply(current, ops).expect("the patch applies");
                    assert_eq!(current["seq"], f["seq"], "a patch carries its seq");
                    return events;
                }
                Some("events") => events.push(f),
                _ => panic!("expected events, patch or state, got {f}"),
            }
        }
    }

    /// The next frame must be an `error` with `code`.
    pub async fn expect_error(&mut self, code: &str) -> Value {
        let f = self.recv().await;
        assert_eq!(f["type"], "error", "expected error {code}, got {f}");
        assert_eq!(f["code"], code, "{f}");
        assert!(f["message"].as_str().is_some_and(|m| !m.is_empty()), "{f}");
        f
    }

    /// The socket is still open and answering: ping → pong.
    pub async fn assert_alive(&mut self) {
        self.send(json!({"type": "ping"})).await;
        let f = self.recv().await;
        assert_eq!(f, json!({"type": "pong"}));
    }

    /// The server closes the socket after an error frame with `code`.
    pub async fn expect_error_and_close(&mut self, code: &str) {
        self.expect_error(code).await;
        match self.read().await {
            Read::Closed(_) => {}
            Read::Frame(f) => panic!("expected the socket to close, got {f}"),
        }
    }
}

/// Choose a legal action from a `state` frame with the engine's random player; returns the
/// element of `legal_actions` exactly as it was sent, or `None` when the list is empty.
pub fn choose(rng: &mut ChaCha8Rng, state: &Value) -> Option<Value> {
    let raw = state["legal_actions"].as_array()?;
    if raw.is_empty() {
        return None;
    }
    let legal: Vec<Action> = raw
        .iter()
        .map(|a| siege::rules::warnings::action_of(a).expect("a legal action parses"))
        .collect();
    let phase: Phase =
        serde_json::from_value(state["view"]["phase"].clone()).expect("the view has a phase");
    let chosen = siege::rules::random::choose(rng, phase, &legal)?;
    let index = legal.iter().position(|a| std::ptr::eq(a, chosen))?;
    Some(raw[index].clone())
}

/// The `action` frame answering `state`.
pub fn action_frame(state: &Value, action: &Value) -> Value {
    json!({"type": "action", "seq": state["seq"], "action": action})
}

/// Play up to `n` random actions in a new game (to its end if `n` is larger); returns its id
/// and the players' last state.
pub async fn play_random(http: &Http, n: u64, seed: u64) -> (String, Value) {
    let created = http.create("allied").await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let joined = http.join(&id).await;
    let url = http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let (_, mut a) = allied.next_state().await;
    let (_, mut c) = chinese.next_state().await;
    let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
    for _ in 0..n {
        let (ws, state) = match a["view"]["to_act"].as_str() {
            Some("allied") => (&mut allied, &a),
            Some("chinese") => (&mut chinese, &c),
            _ => break,
        };
        let action = choose(&mut rng, state).unwrap();
        ws.send(action_frame(state, &action)).await;
        a = allied.next_state().await.1;
        c = chinese.next_state().await.1;
    }
    (id, a)
}

/// An action as the log keeps it: an element of `legal_actions` goes back with its `warning`,
/// which is advice to the player, not part of the action.
pub fn as_logged(action: &Value) -> Value {
    let mut action = action.clone();
    if let Some(fields) = action.as_object_mut() {
        fields.remove("warning");
    }
    action
}

/// A unique temporary folder for a test's database.
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("siege-{tag}-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The flags that turn off the per-client rates and caps of `siege serve`, for tests whose one
/// address plays many games.
pub const NO_CLIENT_LIMITS: [&str; 8] = [
    "--create-rate",
    "0",
    "--join-rate",
    "0",
    "--max-open-games",
    "0",
    "--max-connections-per-address",
    "0",
];

/// Start the real `siege` binary at `bin` as `siege serve` on port 0 with its database at `db`
/// and `extra` flags, and read the address it prints on its first line. Its frame rate is
/// raised: the random players act as fast as the server answers. Killed when dropped.
pub async fn spawn_siege(bin: &str, db: &str, extra: &[&str]) -> (tokio::process::Child, String) {
    spawn_siege_under(&[], bin, db, extra).await
}

/// As [`spawn_siege`], run by `wrapper` (e.g. `["prlimit", "--nofile=256:256", "--"]` to start
/// it with a lower open-file limit); an empty wrapper runs it directly.
pub async fn spawn_siege_under(
    wrapper: &[&str],
    bin: &str,
    db: &str,
    extra: &[&str],
) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut command = match wrapper.split_first() {
        Some((program, args)) => {
            let mut c = tokio::process::Command::new(program);
            c.args(args).arg(bin);
            c
        }
        None => tokio::process::Command::new(bin),
    };
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--database", db])
        .args(["--frame-rate", "100000"])
        .args(extra);
    let mut child = command
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the siege binary starts");
    let stdout = child.stdout.take().expect("stdout");
    let line = tokio::io::BufReader::new(stdout)
        .lines()
        .next_line()
        .await
        .expect("read stdout")
        .expect("the server prints its address");
    let base = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    (child, base)
}

/// Two players at one table, both driven by this client: each action is chosen at random among
/// the legal ones and timed from its sending to the arrival of its state at the player who
/// sent it (the round trip a person waits for). A game that ends is replaced by a new one.
pub struct Duel {
    http: Http,
    pub id: String,
    allied: Ws,
    chinese: Ws,
    a_state: Value,
    c_state: Value,
    rng: ChaCha8Rng,
}

impl Duel {
    /// A new game, created and joined over HTTP, both seats connected.
    pub async fn sit_down(http: &Http, seed: u64) -> Duel {
        let created = http.create("allied").await;
        let id = created["game_id"].as_str().expect("game id").to_string();
        let joined = http.join(&id).await;
        let url = http.ws_url(&id);
        let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
        let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
        let (_, a_state) = allied.next_state().await;
        let (_, c_state) = chinese.next_state().await;
        Duel {
            http: http.clone(),
            id,
            allied,
            chinese,
            a_state,
            c_state,
            rng: <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed),
        }
    }

    /// Whether the game at this table is over (the next action sits down at a new one).
    pub fn over(&self) -> bool {
        self.a_state["view"]["to_act"].is_null()
    }

    /// The seq of the game now.
    pub fn seq(&self) -> u64 {
        self.a_state["seq"].as_u64().expect("seq")
    }

    /// One action, timed; a new game first if this one is over.
    pub async fn act(&mut self) -> Duration {
        if self.a_state["view"]["to_act"].is_null() {
            let seed = self.seq().wrapping_mul(7919);
            *self = Duel::sit_down(&self.http, seed).await;
        }
        let allied_acts = self.a_state["view"]["to_act"] == "allied";
        let state = if allied_acts {
            &self.a_state
        } else {
            &self.c_state
        };
        let action = choose(&mut self.rng, state).expect("a legal action");
        let frame = action_frame(state, &action);
        let started = std::time::Instant::now();
        let took;
        if allied_acts {
            self.allied.send(frame).await;
            self.a_state = self.allied.next_state().await.1;
            took = started.elapsed();
            self.c_state = self.chinese.next_state().await.1;
        } else {
            self.chinese.send(frame).await;
            self.c_state = self.chinese.next_state().await.1;
            took = started.elapsed();
            self.a_state = self.allied.next_state().await.1;
        }
        took
    }

    /// `n` actions, timed.
    pub async fn play(&mut self, n: usize) -> Vec<Duration> {
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            times.push(self.act().await);
        }
        times
    }
}

/// The `p`-th percentile (0–100) of `samples`, nearest rank.
pub fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Audit game `id` in `db` offline with `siege replay` (the binary `bin`): it must replay
/// `actions` entries from the seed, every stored state hash checked.
pub fn replay_stored(bin: &str, id: &str, db: &str, actions: u64) {
    let out = std::process::Command::new(bin)
        .args(["replay", "--game", id, "--database", db])
        .output()
        .expect("siege replay runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("{actions} actions replayed")),
        "{stdout}"
    );
}

/// Both players and a spectator, each with their latest state.
pub struct Table {
    pub allied: Ws,
    pub chinese: Ws,
    pub spectator: Ws,
    pub a_state: Value,
    pub c_state: Value,
    /// Every events frame the spectator saw, by seq.
    pub events: std::collections::BTreeMap<u64, Value>,
    /// Every action sent, by the seq it was sent at + 1.
    pub sent: std::collections::BTreeMap<u64, Value>,
    pub rng: ChaCha8Rng,
}

impl Table {
    /// A new game with both players and a spectator connected; returns the table, the game id
    /// and the two tokens.
    pub async fn sit_down(http: &Http, seed: u64) -> (Table, String, Value, Value) {
        let created = http.create("allied").await;
        let id = created["game_id"].as_str().unwrap().to_string();
        let joined = http.join(&id).await;
        let (a_token, c_token) = (created["token"].clone(), joined["token"].clone());
        let url = http.ws_url(&id);
        let mut allied = Ws::open(&url, json!({"type": "join", "token": a_token})).await;
        let mut chinese = Ws::open(&url, json!({"type": "join", "token": c_token})).await;
        let mut spectator = Ws::open(&url, json!({"type": "spectate"})).await;
        let (_, a_state) = allied.next_state().await;
        let (_, c_state) = chinese.next_state().await;
        spectator.next_state().await;
        let table = Table {
            allied,
            chinese,
            spectator,
            a_state,
            c_state,
            events: std::collections::BTreeMap::new(),
            sent: std::collections::BTreeMap::new(),
            rng: <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(11 + seed),
        };
        (table, id, a_token, c_token)
    }

    /// Whether the game has ended.
    pub fn over(&self) -> bool {
        self.a_state["view"]["to_act"].is_null()
    }

    pub fn seq(&self) -> u64 {
        self.a_state["seq"].as_u64().unwrap()
    }

    /// Send the next random action of the side to act; `None` once the game is over.
    pub async fn send_next(&mut self) -> Option<()> {
        let (ws, state) = match self.a_state["view"]["to_act"].as_str() {
            Some("allied") => (&mut self.allied, &self.a_state),
            Some("chinese") => (&mut self.chinese, &self.c_state),
            _ => return None,
        };
        let action = choose(&mut self.rng, state).expect("a legal action");
        ws.send(action_frame(state, &action)).await;
        let seq = state["seq"].as_u64().unwrap();
        self.sent.insert(seq + 1, action);
        Some(())
    }

    /// Everyone reads the state after the action just sent.
    pub async fn read_all(&mut self) {
        let (_, a) = self.allied.next_state().await;
        let (_, c) = self.chinese.next_state().await;
        let (events, s) = self.spectator.next_state().await;
        assert_eq!(a["seq"], s["seq"]);
        assert_eq!(c["seq"], s["seq"]);
        for e in events {
            self.events.insert(e["seq"].as_u64().unwrap(), e);
        }
        self.a_state = a;
        self.c_state = c;
    }

    /// Play `n` acknowledged actions.
    pub async fn play(&mut self, n: u64) {
        for _ in 0..n {
            if self.send_next().await.is_none() {
                return;
            }
            self.read_all().await;
        }
    }
}
