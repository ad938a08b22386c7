//! Your-turn notifications against a real server (docs/protocol.md, "Notifications"): two
//! signed-in players with an e-mail address and a webhook each play over the WebSocket; a
//! local SMTP sink (hand-written here: it is the server that must use a kept SMTP client) and
//! a local webhook receiver count what arrives. Exactly one e-mail and one webhook per waiting
//! period, to the player whose move it became, none to the one who acted, none again after a
//! restart.

use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Http, Ws, action_frame, choose};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// One e-mail the sink received: its recipients and its text.
#[derive(Clone, Debug)]
struct Mail {
    to: Vec<String>,
    data: String,
}

/// A minimal SMTP receiver on 127.0.0.1: enough of RFC 5321 for one client without TLS.
async fn smtp_sink() -> (u16, Arc<Mutex<Vec<Mail>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mails = Arc::new(Mutex::new(Vec::new()));
    let kept = mails.clone();
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let mails = kept.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read);
                let _ = write.write_all(b"220 sink ESMTP\r\n").await;
                let mut to = Vec::new();
                loop {
                    let mut line = String::new();
                    if lines.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let upper = line.to_ascii_uppercase();
                    let reply: &[u8] = if upper.starts_with("EHLO") {
                        b"250-sink\r\n250 8BITMIME\r\n"
                    } else if upper.starts_with("HELO") || upper.starts_with("MAIL") {
                        b"250 ok\r\n"
                    } else if upper.starts_with("RCPT") {
                        let addr = line.trim().trim_start_matches(|c| c != '<');
                        to.push(addr.trim_matches(|c| c == '<' || c == '>').to_string());
                        b"250 ok\r\n"
                    } else if upper.starts_with("DATA") {
                        let _ = write.write_all(b"354 go on\r\n").await;
                        let mut data = String::new();
                        loop {
                            let mut l = String::new();
                            if lines.read_line(&mut l).await.unwrap_or(0) == 0 {
                                return;
                            }
                            if l == ".\r\n" {
                                break;
                            }
                            data.push_str(&l);
                        }
                        mails.lock().unwrap().push(Mail {
                            to: std::mem::take(&mut to),
                            data,
                        });
                        b"250 queued\r\n"
                    } else if upper.starts_with("QUIT") {
                        let _ = write.write_all(b"221 bye\r\n").await;
                        return;
                    } else if upper.starts_with("RSET") || upper.starts_with("NOOP") {
                        b"250 ok\r\n"
                    } else {
                        b"502 not here\r\n"
                    };
                    let _ = write.write_all(reply).await;
                }
            });
        }
    });
    (port, mails)
}

/// What side `side` (0 allied, 1 chinese) should have received: one of each per hand-over.
fn want(expected: &[Vec<u64>; 2], side: usize) -> Received {
    Received {
        mails: expected[side].clone(),
        hooks: expected[side].clone(),
    }
}

/// These tests play a hundred decisions in a fraction of a second from one socket: far past the
/// frame rate a person's socket is allowed (50 a second, bursts of 100), which refused the
/// hundred-and-twelfth or so frame with `rate_limited` on a fast machine.
fn fast_players(c: &mut siege::server::Config) {
    c.frame_rate = 100_000;
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_default()
}

async fn signed_up(server: &TestServer, name: &str) -> Http {
    let http = server.http.stranger();
    let (s, b) = http
        .post_json(
            "/api/account/signup",
            json!({"name": name, "password": "legation1900"}),
        )
        .await;
    assert_eq!(s, 201, "{b}");
    http
}

/// A private game named `name` created by `host` (Allies) and joined by `guest` with its code.
async fn private_game(host: &Http, guest: &Http, name: &str) -> String {
    let (s, created) = host
        .post_json("/api/games", json!({"side": "allied", "name": name}))
        .await;
    assert_eq!(s, 201, "{created}");
    let id = created["game_id"].as_str().unwrap().to_string();
    let (s, b) = guest
        .post_json(
            &format!("/api/games/{id}/join"),
            json!({"code": created["invite_code"]}),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    id
}

/// What each side has been sent so far: the seqs of the e-mails and of the webhooks.
#[derive(Debug, Default, PartialEq, Eq)]
struct Received {
    mails: Vec<u64>,
    hooks: Vec<u64>,
}

fn received(
    mails: &Mutex<Vec<Mail>>,
    hooks: &Mutex<Vec<(String, Value, u16)>>,
    address: &str,
    side: &str,
) -> Received {
    let mut r = Received::default();
    for m in mails.lock().unwrap().iter() {
        if m.to.iter().any(|t| t == address) {
            // "After action: N" in the body names the waiting period.
            let seq = m
                .data
                .split("After action: ")
                .nth(1)
                .and_then(|rest| rest.split(['\r', '\n']).next())
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("no seq in the e-mail: {}", m.data));
            r.mails.push(seq);
        }
    }
    for (path, body, _) in hooks.lock().unwrap().iter() {
        if path == &format!("/hook/{side}") {
            assert_eq!(body["side"], side, "{body}");
            assert_eq!(body["event"], "your_turn", "{body}");
            r.hooks.push(body["seq"].as_u64().expect("seq"));
        }
    }
    r.mails.sort_unstable();
    r.hooks.sort_unstable();
    r
}

/// Wait until `done` holds (the deliveries run in the background), or give up after a while.
async fn eventually(mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The two players' sockets and states.
struct Table {
    allied: Ws,
    chinese: Ws,
    a: Value,
    c: Value,
}

impl Table {
    async fn sit(url: &str, allied: &Http, chinese: &Http) -> Table {
        let mut a_ws = Ws::connect_with_cookie(url, &allied.cookie().unwrap()).await;
        a_ws.send(json!({"type": "join"})).await;
        let (_, a) = a_ws.next_state().await;
        assert_eq!(a["you"], "allied");
        let mut c_ws = Ws::connect_with_cookie(url, &chinese.cookie().unwrap()).await;
        c_ws.send(json!({"type": "join"})).await;
        let (_, c) = c_ws.next_state().await;
        assert_eq!(c["you"], "chinese");
        Table {
            allied: a_ws,
            chinese: c_ws,
            a,
            c,
        }
    }

    fn to_act(&self) -> Option<String> {
        self.a["view"]["to_act"].as_str().map(str::to_string)
    }

    /// One random legal action by the side to act; returns (actor, seq after, side to act after).
    async fn step(&mut self, rng: &mut rand_chacha::ChaCha8Rng) -> (String, u64, Option<String>) {
        let actor = self.to_act().expect("the game goes on");
        let (ws, state) = if actor == "allied" {
            (&mut self.allied, &self.a)
        } else {
            (&mut self.chinese, &self.c)
        };
        let action = choose(rng, state).expect("a legal action");
        ws.send(action_frame(state, &action)).await;
        // The actor's socket first: a refusal comes to it alone, as an `error` frame that
        // fails the test at once (waiting on the other socket first would wait for ever).
        if actor == "allied" {
            self.a = self.allied.next_state().await.1;
            self.c = self.chinese.next_state().await.1;
        } else {
            self.c = self.chinese.next_state().await.1;
            self.a = self.allied.next_state().await.1;
        }
        let seq = self.a["seq"].as_u64().unwrap();
        (actor, seq, self.to_act())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_email_and_one_webhook_per_waiting_period_and_none_again_after_a_restart() {
    let (smtp_port, mails) = smtp_sink().await;
    let (hook_port, hooks) = flaky_sink(0).await;
    let configure = move |c: &mut siege::server::Config| {
        fast_players(c);
        c.notify.smtp_url = Some(format!("smtp://127.0.0.1:{smtp_port}"));
        c.notify.smtp_from = "Siege <siege@test.invalid>".into();
        c.notify.public_url = "https://siege.test.invalid".into();
        c.notify.backoff = Duration::from_millis(20);
        // The receiver is on 127.0.0.1.
        c.notify.allow_private = true;
        // Both players stay at the table here: tell them anyway (off by default, see
        // `a_player_at_the_table_is_not_sent_a_message_and_one_away_is`).
        c.notify.when_connected = true;
    };
    let server = TestServer::start_with(configure).await;

    // The settings: signed in only, checked, each refusal saying what is wrong.
    let (s, b) = server
        .http
        .stranger()
        .get_signed("/api/account/notifications")
        .await;
    assert_eq!((s, code(&b)), (401, "not_signed_in"), "{b}");
    let reid = signed_up(&server, "Reid").await;
    let conger = signed_up(&server, "Conger").await;
    let (s, b) = reid.get_signed("/api/account/notifications").await;
    assert_eq!(
        (s, b),
        (
            200,
            json!({"email": null, "webhook": null, "email_available": true})
        )
    );
    for (body, why) in [
        (json!({"email": "reid@"}), "e-mail address"),
        (json!({"email": "not an address"}), "e-mail address"),
        (json!({"webhook": "ftp://x.example/"}), "http://"),
        (json!({"webhook": "nonsense"}), "not a URL"),
    ] {
        let (s, b) = reid
            .post_json("/api/account/notifications", body.clone())
            .await;
        assert_eq!((s, code(&b)), (422, "bad_request"), "{body}: {b}");
        let message = b["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{body}: {message}");
    }
    // A misspelt field is refused by name, not read as "turn e-mail off", as every request
    // body refuses unknown fields.
    let (s, b) = reid
        .post_json(
            "/api/account/notifications",
            json!({"emial": "reid@legation.test"}),
        )
        .await;
    assert_eq!((s, code(&b)), (422, "bad_json"), "{b}");
    assert!(b["error"]["message"].as_str().unwrap().contains("emial"));
    let (_, b) = reid.get_signed("/api/account/notifications").await;
    assert_eq!(b["email"], Value::Null, "a refusal stored nothing: {b}");
    for (http, name, side) in [(&reid, "reid", "allied"), (&conger, "conger", "chinese")] {
        let body = json!({
            "email": format!("{name}@legation.test"),
            "webhook": format!("http://127.0.0.1:{hook_port}/hook/{side}"),
        });
        let (s, b) = http.post_json("/api/account/notifications", body).await;
        assert_eq!(s, 200, "{b}");
        assert_eq!(b["email"], format!("{name}@legation.test"));
    }

    // A private game between the two accounts.
    let id = private_game(&reid, &conger, "Notified siege").await;
    let url = server.http.ws_url(&id);
    let mut table = Table::sit(&url, &reid, &conger).await;

    // Play until each side has been handed the decision a few times and one side has taken
    // several steps in a row somewhere.
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1900);
    let mut expected = [Vec::new(), Vec::new()]; // seqs handing the move to allied, chinese
    let mut longest_run = 0;
    let mut run = 0;
    let mut last_actor = String::new();
    for _ in 0..400 {
        if table.to_act().is_none() {
            break;
        }
        let (actor, seq, next) = table.step(&mut rng).await;
        run = if actor == last_actor { run + 1 } else { 1 };
        longest_run = longest_run.max(run);
        last_actor = actor.clone();
        if let Some(next) = next
            && next != actor
        {
            expected[usize::from(next == "chinese")].push(seq);
        }
        if expected.iter().all(|e| e.len() >= 3) && longest_run >= 3 {
            break;
        }
    }
    assert!(
        longest_run >= 3,
        "the test needs one side to take several steps in a row"
    );
    assert!(expected.iter().all(|e| e.len() >= 3), "{expected:?}");

    eventually(|| {
        received(&mails, &hooks, "reid@legation.test", "allied") == want(&expected, 0)
            && received(&mails, &hooks, "conger@legation.test", "chinese") == want(&expected, 1)
    })
    .await;
    // Nothing more comes after a moment either (no second message for a waiting period).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        received(&mails, &hooks, "reid@legation.test", "allied"),
        want(&expected, 0)
    );
    assert_eq!(
        received(&mails, &hooks, "conger@legation.test", "chinese"),
        want(&expected, 1)
    );
    // Every e-mail went to one player only; its text names the game and links to it.
    for m in mails.lock().unwrap().iter() {
        assert_eq!(m.to.len(), 1, "{m:?}");
        assert!(m.data.contains("Notified siege"), "{}", m.data);
        assert!(
            m.data
                .contains(&format!("https://siege.test.invalid/#game={id}")),
            "{}",
            m.data
        );
    }
    for (_, body, _) in hooks.lock().unwrap().iter() {
        assert_eq!(body["game_id"], id.as_str());
        assert_eq!(body["name"], "Notified siege");
        assert_eq!(
            body["link"],
            format!("https://siege.test.invalid/#game={id}")
        );
    }

    // A restart sends nothing again: the seats' markers are in the database.
    drop(table);
    let dir = server.stop_keeping_data().await;
    let sent_before = (mails.lock().unwrap().len(), hooks.lock().unwrap().len());
    let server = TestServer::start_in(dir, configure).await;
    let mut table = Table::sit(&server.http.ws_url(&id), &reid, &conger).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        (mails.lock().unwrap().len(), hooks.lock().unwrap().len()),
        sent_before,
        "nothing is resent after a restart"
    );
    // The game goes on: the next hand-over is notified once, as before.
    let mut next_handover = None;
    for _ in 0..400 {
        if table.to_act().is_none() {
            break;
        }
        let (actor, seq, next) = table.step(&mut rng).await;
        if let Some(next) = next
            && next != actor
        {
            next_handover = Some((next, seq));
            break;
        }
    }
    let (side, seq) = next_handover.expect("a hand-over after the restart");
    let i = usize::from(side == "chinese");
    expected[i].push(seq);
    let address = ["reid@legation.test", "conger@legation.test"][i];
    eventually(|| received(&mails, &hooks, address, &side) == want(&expected, i)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(received(&mails, &hooks, address, &side), want(&expected, i));
    assert_eq!(
        (mails.lock().unwrap().len(), hooks.lock().unwrap().len()),
        (sent_before.0 + 1, sent_before.1 + 1)
    );
    drop(table);
    server.stop().await;
}

/// Log in again (on a restarted server, which listens on another port).
async fn logged_in(server: &TestServer, name: &str) -> Http {
    let http = server.http.stranger();
    let (s, b) = http
        .post_json(
            "/api/account/login",
            json!({"name": name, "password": "legation1900"}),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    http
}

/// Play until the decision has passed to each side once more: the seqs of those hand-overs.
async fn hand_overs(table: &mut Table, rng: &mut rand_chacha::ChaCha8Rng) -> [Vec<u64>; 2] {
    let mut got = [Vec::new(), Vec::new()];
    for _ in 0..400 {
        if table.to_act().is_none() || got.iter().all(|g| !g.is_empty()) {
            break;
        }
        let (actor, seq, next) = table.step(rng).await;
        if let Some(next) = next
            && next != actor
        {
            got[usize::from(next == "chinese")].push(seq);
        }
    }
    assert!(got.iter().all(|g| !g.is_empty()), "{got:?}");
    got
}

/// Without `--webhook-allow-private` a webhook may only reach public addresses: a loopback,
/// private or link-local URL (or localhost) is refused when set, 400 `webhook_not_public`,
/// naming why, and nothing is stored; one stored while they were allowed is not delivered
/// once they are not (the delivery checks again) — and is delivered again when they are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_to_internal_addresses_are_refused_unless_the_operator_allows_them() {
    let (hook_port, hooks) = flaky_sink(0).await;
    let server = TestServer::start_with(fast_players).await;
    let reid = signed_up(&server, "Reid").await;
    signed_up(&server, "Conger").await; // logs in after the restart
    for (url, why) in [
        (
            format!("http://127.0.0.1:{hook_port}/hook/allied"),
            "loopback",
        ),
        (
            format!("http://localhost:{hook_port}/hook/allied"),
            "loopback",
        ),
        (format!("http://[::1]:{hook_port}/hook/allied"), "loopback"),
        (
            "http://169.254.169.254/latest/meta-data/".to_string(),
            "link-local",
        ),
        ("http://10.0.0.7/hook".to_string(), "private"),
    ] {
        let (s, b) = reid
            .post_json("/api/account/notifications", json!({"webhook": url}))
            .await;
        assert_eq!((s, code(&b)), (400, "webhook_not_public"), "{url}: {b}");
        let message = b["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(why) && message.contains("--webhook-allow-private"),
            "{url}: {message}"
        );
    }
    let (_, b) = reid.get_signed("/api/account/notifications").await;
    assert_eq!(b["webhook"], Value::Null, "nothing stored: {b}");
    // A public address is taken as before.
    let (s, b) = reid
        .post_json(
            "/api/account/notifications",
            json!({"webhook": "https://93.184.215.14/hook"}),
        )
        .await;
    assert_eq!(s, 200, "{b}");

    // The operator allows them: the same URLs are stored.
    let allow = |c: &mut siege::server::Config| {
        fast_players(c);
        c.notify.allow_private = true;
        // Both players stay at the table here: tell them anyway (off by default, see
        // `a_player_at_the_table_is_not_sent_a_message_and_one_away_is`).
        c.notify.when_connected = true;
        c.notify.backoff = Duration::from_millis(20);
    };
    let server = TestServer::start_in(server.stop_keeping_data().await, allow).await;
    let (reid, conger) = (
        logged_in(&server, "Reid").await,
        logged_in(&server, "Conger").await,
    );
    for (http, side) in [(&reid, "allied"), (&conger, "chinese")] {
        let url = format!("http://127.0.0.1:{hook_port}/hook/{side}");
        let (s, b) = http
            .post_json("/api/account/notifications", json!({"webhook": url}))
            .await;
        assert_eq!(s, 200, "{b}");
    }
    let id = private_game(&reid, &conger, "Guarded").await;

    // No longer allowed: hand-overs to both sides, and nothing reaches the receiver.
    let deny = |c: &mut siege::server::Config| {
        fast_players(c);
        c.notify.backoff = Duration::from_millis(20);
        // The players are at the table: without this nothing would be sent anyway, and the
        // refusal of private addresses would go untested.
        c.notify.when_connected = true;
    };
    let server = TestServer::start_in(server.stop_keeping_data().await, deny).await;
    let (reid, conger) = (
        logged_in(&server, "Reid").await,
        logged_in(&server, "Conger").await,
    );
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1901);
    let mut table = Table::sit(&server.http.ws_url(&id), &reid, &conger).await;
    hand_overs(&mut table, &mut rng).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(
        hooks.lock().unwrap().is_empty(),
        "a loopback webhook was delivered without the flag: {:?}",
        hooks.lock().unwrap()
    );
    drop(table);

    // Allowed again: the next hand-overs are delivered (the receiver works).
    let server = TestServer::start_in(server.stop_keeping_data().await, allow).await;
    let (reid, conger) = (
        logged_in(&server, "Reid").await,
        logged_in(&server, "Conger").await,
    );
    let mut table = Table::sit(&server.http.ws_url(&id), &reid, &conger).await;
    let got = hand_overs(&mut table, &mut rng).await;
    let delivered = |side: &str| {
        hooks
            .lock()
            .unwrap()
            .iter()
            .filter(|(path, _, _)| path == &format!("/hook/{side}"))
            .count()
    };
    eventually(|| delivered("allied") >= got[0].len() && delivered("chinese") >= got[1].len())
        .await;
    assert_eq!(
        (delivered("allied"), delivered("chinese")),
        (got[0].len(), got[1].len()),
        "{:?}",
        hooks.lock().unwrap()
    );
    drop(table);
    server.stop().await;
}

/// Every attempt a flaky webhook receiver saw: its path, its body and the status it answered.
type Attempts = Arc<Mutex<Vec<(String, Value, u16)>>>;

/// A webhook receiver that records every POST's path, JSON body and the status it answered:
/// 503 to the first `fail` requests for each path (a path is a player here) and 204 after
/// that; 0: it never fails, `usize::MAX`: it always fails.
async fn flaky_sink(fail: usize) -> (u16, Attempts) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let attempts: Attempts = Arc::new(Mutex::new(Vec::new()));
    let kept = attempts.clone();
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let attempts = kept.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut reader = BufReader::new(read);
                loop {
                    let mut request = String::new();
                    if reader.read_line(&mut request).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let path = request.split(' ').nth(1).unwrap_or("").to_string();
                    let mut length = 0usize;
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).await.unwrap_or(0) == 0 {
                            return;
                        }
                        if h == "\r\n" {
                            break;
                        }
                        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let status = {
                        let mut seen = attempts.lock().unwrap();
                        let before = seen.iter().filter(|(p, _, _)| *p == path).count();
                        let status = if before < fail { 503 } else { 204 };
                        seen.push((path, value, status));
                        status
                    };
                    let answer: &[u8] = if status == 503 {
                        b"HTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n"
                    } else {
                        b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n"
                    };
                    let _ = write.write_all(answer).await;
                }
            });
        }
    });
    (port, attempts)
}

/// The attempts for `side` so far: (seq, status) in order.
fn attempts_of(attempts: &Attempts, side: &str) -> Vec<(u64, u16)> {
    attempts
        .lock()
        .unwrap()
        .iter()
        .filter(|(p, _, _)| p == &format!("/hook/{side}"))
        .map(|(_, b, s)| (b["seq"].as_u64().unwrap_or(0), *s))
        .collect()
}

/// A failed delivery is tried again later, with growing waits, while the player has not acted:
/// a receiver that fails the first three attempts gets the fourth and then nothing more — one
/// successful delivery for the waiting period. A receiver that always fails is not tried again
/// once the player has acted (the waiting period ended).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_delivery_is_retried_later_until_it_succeeds_but_not_after_the_player_acted() {
    let (flaky_port, flaky) = flaky_sink(3).await;
    let (dead_port, dead) = flaky_sink(usize::MAX).await;
    let server = TestServer::start_with(|c| {
        fast_players(c);
        c.notify.allow_private = true;
        // Both players stay at the table here: tell them anyway (off by default, see
        // `a_player_at_the_table_is_not_sent_a_message_and_one_away_is`).
        c.notify.when_connected = true;
        c.notify.retries = 6;
        c.notify.backoff = Duration::from_millis(60);
        c.notify.backoff_factor = 2;
        c.notify.backoff_max = Duration::from_millis(400);
    })
    .await;
    let reid = signed_up(&server, "Reid").await;
    let conger = signed_up(&server, "Conger").await;
    // The Allied player's receiver always fails; the Chinese player's fails three times.
    for (http, port, side) in [
        (&reid, dead_port, "allied"),
        (&conger, flaky_port, "chinese"),
    ] {
        let url = format!("http://127.0.0.1:{port}/hook/{side}");
        let (s, b) = http
            .post_json("/api/account/notifications", json!({"webhook": url}))
            .await;
        assert_eq!(s, 200, "{b}");
    }
    let id = private_game(&reid, &conger, "Retried").await;
    let mut table = Table::sit(&server.http.ws_url(&id), &reid, &conger).await;
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1902);

    // The Allies play until the move passes to the Chinese, who then wait.
    let mut to_chinese = None;
    for _ in 0..400 {
        let (actor, seq, next) = table.step(&mut rng).await;
        if actor == "allied" && next.as_deref() == Some("chinese") {
            to_chinese = Some(seq);
            break;
        }
    }
    let seq = to_chinese.expect("the move passes to the Chinese");
    eventually(|| {
        attempts_of(&flaky, "chinese")
            .iter()
            .any(|(_, s)| *s == 204)
    })
    .await;
    // Then wait longer than the remaining retries would take: nothing more comes.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        attempts_of(&flaky, "chinese"),
        [(seq, 503), (seq, 503), (seq, 503), (seq, 204)],
        "three failures, then one success, then nothing"
    );

    // The Chinese play until the move passes back: the Allied receiver fails every attempt.
    let mut to_allied = None;
    for _ in 0..400 {
        let (actor, seq, next) = table.step(&mut rng).await;
        if actor == "chinese" && next.as_deref() == Some("allied") {
            to_allied = Some(seq);
            break;
        }
    }
    let seq = to_allied.expect("the move passes back to the Allies");
    eventually(|| attempts_of(&dead, "allied").len() >= 2).await;
    // The Allies act: the waiting period is over, so no retry follows (an attempt already
    // under way may still land).
    let (actor, _, _) = table.step(&mut rng).await;
    assert_eq!(actor, "allied");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let after_acting = attempts_of(&dead, "allied").len();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let tried = attempts_of(&dead, "allied");
    assert!(
        tried.len() <= after_acting + 1 && tried.len() < 7,
        "tried again after the player acted: {tried:?}"
    );
    assert!(
        tried.iter().all(|(s, status)| *s == seq && *status == 503),
        "{tried:?}"
    );
    drop(table);
    server.stop().await;
}

/// A player who has the game open when the decision passes to them is told by the page (its
/// title, sound and browser notification), not by e-mail or webhook: a live game would
/// otherwise send a message for nearly every decision. One away from the table is sent one.
/// (`--notify-when-connected` sends to both; the other tests here use it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_at_the_table_is_not_sent_a_message_and_one_away_is() {
    let (hook_port, hooks) = flaky_sink(0).await;
    let server = TestServer::start_with(|c| {
        fast_players(c);
        c.notify.allow_private = true;
    })
    .await;
    let reid = signed_up(&server, "Reid").await;
    let conger = signed_up(&server, "Conger").await;
    for (http, side) in [(&reid, "allied"), (&conger, "chinese")] {
        let hook = format!("http://127.0.0.1:{hook_port}/hook/{side}");
        let (s, b) = http
            .post_json("/api/account/notifications", json!({"webhook": hook}))
            .await;
        assert_eq!(s, 200, "{b}");
    }
    let id = private_game(&reid, &conger, "At the table").await;
    let mut table = Table::sit(&server.http.ws_url(&id), &reid, &conger).await;
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1902);

    // Both at the table: the decision passes to each side, and nothing is sent.
    let got = hand_overs(&mut table, &mut rng).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        hooks.lock().unwrap().is_empty(),
        "hand-overs {got:?} to players at the table sent {:?}",
        hooks.lock().unwrap()
    );

    // The side not to act leaves the table; the decision passes to it and it is told.
    let Table {
        allied,
        chinese,
        a,
        c,
    } = table;
    let now = a["view"]["to_act"]
        .as_str()
        .expect("the game goes on")
        .to_string();
    let (mut ws, mut state, away) = if now == "allied" {
        chinese.close().await;
        (allied, a, "chinese")
    } else {
        allied.close().await;
        (chinese, c, "allied")
    };
    // The server drops the leaver's presence when its socket task ends, just after it answers
    // the close: a margin for that last step.
    tokio::time::sleep(Duration::from_secs(1)).await;
    for _ in 0..2000 {
        if state["view"]["to_act"] != now.as_str() {
            break;
        }
        let action = choose(&mut rng, &state).expect("a legal action");
        ws.send(action_frame(&state, &action)).await;
        state = ws.next_state().await.1;
    }
    assert_eq!(state["view"]["to_act"], away, "the decision passed");
    let seq = state["seq"].as_u64().unwrap();
    let no_mail = Mutex::new(Vec::new());
    eventually(|| received(&no_mail, &hooks, "", away).hooks == vec![seq]).await;
    assert_eq!(received(&no_mail, &hooks, "", away).hooks, vec![seq]);
    assert_eq!(
        received(&no_mail, &hooks, "", &now).hooks,
        Vec::<u64>::new(),
        "the player at the table is still told nothing"
    );
    server.stop().await;
}
