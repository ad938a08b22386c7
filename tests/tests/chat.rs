//! The chat of a game (docs/protocol.md, "Chat") against a real server: who is shown which
//! message, the history on reconnect and after a restart, the length and rate limits, text kept
//! verbatim (markup is never interpreted by the server), the spectator chat hidden from the
//! players while the game is on, the mute, and both chats readable once the game has ended.

use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Http, Ws, temp_dir};

/// Markup and a script, as a hostile client would send them.
const HOSTILE: &str =
    r#"<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> & "quotes" 'too'"#;

struct Table {
    id: String,
    url: String,
    allied_token: Value,
    chinese_token: Value,
}

async fn table(http: &Http) -> Table {
    let created = http.create("allied").await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let joined = http.join(&id).await;
    Table {
        url: http.ws_url(&id),
        id,
        allied_token: created["token"].clone(),
        chinese_token: joined["token"].clone(),
    }
}

/// A socket attached as `first`, its first state read.
async fn attach(url: &str, first: Value) -> Ws {
    let mut ws = Ws::open(url, first).await;
    let state = ws.recv().await;
    assert_eq!(state["type"], "state", "{state}");
    ws
}

async fn join(t: &Table, token: &Value) -> Ws {
    attach(&t.url, json!({"type": "join", "token": token})).await
}

/// The next frame must be a chat message from `from` in `channel` saying `text`.
async fn expect_chat(ws: &mut Ws, channel: &str, from: &str, text: &str) -> Value {
    let f = ws.recv().await;
    assert_eq!(f["type"], "chat", "expected a chat message, got {f}");
    assert_eq!(f["channel"], channel, "{f}");
    assert_eq!(f["from"], from, "{f}");
    assert_eq!(f["text"], text, "the text comes back exactly as sent: {f}");
    assert!(
        f["id"].as_u64().is_some() && f["at"].as_str().is_some(),
        "{f}"
    );
    f
}

/// Nothing is waiting for this socket: a ping's answer is the next frame.
async fn nothing_waiting(ws: &mut Ws) {
    ws.assert_alive().await;
}

fn texts(history: &Value) -> Vec<(String, String)> {
    history["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            (
                m["channel"].as_str().unwrap().to_string(),
                m["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_reaches_its_audience_only_and_survives_a_reconnect_and_a_restart() {
    let dir = temp_dir("chat");
    let server = TestServer::start_in(dir.clone(), |_| {}).await;
    let t = table(&server.http).await;
    let mut allied = join(&t, &t.allied_token).await;
    let mut chinese = join(&t, &t.chinese_token).await;
    let mut spectator = attach(&t.url, json!({"type": "spectate"})).await;

    // The players' table chat: both players, not the spectator.
    allied
        .send(json!({"type": "chat", "text": "good luck"}))
        .await;
    expect_chat(&mut allied, "table", "allied", "good luck").await;
    expect_chat(&mut chinese, "table", "allied", "good luck").await;
    chinese.send(json!({"type": "chat", "text": HOSTILE})).await;
    expect_chat(&mut allied, "table", "chinese", HOSTILE).await;
    expect_chat(&mut chinese, "table", "chinese", HOSTILE).await;
    nothing_waiting(&mut spectator).await;

    // The spectator chat: spectators only, never the players during the game.
    spectator
        .send(json!({"type": "chat", "text": "the Allies are doomed"}))
        .await;
    expect_chat(
        &mut spectator,
        "spectators",
        "spectator",
        "the Allies are doomed",
    )
    .await;
    nothing_waiting(&mut allied).await;
    nothing_waiting(&mut chinese).await;

    // Frames the chat does not know are refused as before; the socket stays.
    allied.send(json!({"type": "whisper", "text": "x"})).await;
    allied.expect_error("unknown_type").await;
    allied
        .send(json!({"type": "chat", "text": "x", "to": "chinese"}))
        .await;
    allied.expect_error("bad_json").await;
    spectator
        .send(json!({"type": "chat_mute", "muted": true}))
        .await;
    spectator.expect_error("spectator").await;

    // A player mutes the spectator chat; the choice is kept for the seat.
    allied
        .send(json!({"type": "chat_mute", "muted": true}))
        .await;
    assert_eq!(
        allied.recv().await,
        json!({"type": "chat_muted", "muted": true})
    );

    // While the game is on, its chats are not public.
    let (status, body) = server.http.get(&format!("/api/games/{}/chat", t.id)).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "chat_private", "{body}");

    // A reconnecting reader is sent the history it is shown, after its state.
    drop(chinese);
    let mut chinese = join(&t, &t.chinese_token).await;
    let history = chinese.recv().await;
    assert_eq!(history["type"], "chat_history", "{history}");
    assert_eq!(history["muted"], false);
    assert_eq!(
        texts(&history),
        [
            ("table".to_string(), "good luck".to_string()),
            ("table".to_string(), HOSTILE.to_string())
        ]
    );
    let resumed = attach(&t.url, json!({"type": "resume", "seq": 0})).await;
    let mut resumed = resumed;
    let history = resumed.recv().await;
    assert_eq!(
        texts(&history),
        [(
            "spectators".to_string(),
            "the Allies are doomed".to_string()
        )],
        "a spectator's history is the spectator chat"
    );
    drop((allied, chinese, spectator, resumed));

    // After a restart, the chat and the mute are still there.
    let dir = server.stop_keeping_data().await;
    let server = TestServer::start_in(dir, |_| {}).await;
    // The new server listens on another port.
    let t = Table {
        url: server.http.ws_url(&t.id),
        ..t
    };
    let mut allied = join(&t, &t.allied_token).await;
    let history = allied.recv().await;
    assert_eq!(history["muted"], true, "the mute is kept for the seat");
    assert_eq!(texts(&history).len(), 2, "{history}");
    assert_eq!(texts(&history)[1].1, HOSTILE);
    allied
        .send(json!({"type": "chat_mute", "muted": false}))
        .await;
    assert_eq!(
        allied.recv().await,
        json!({"type": "chat_muted", "muted": false})
    );
    // A game with no chat and no mute sends no chat frame at all (clients that know no chat
    // see the protocol as before).
    let quiet = table(&server.http).await;
    let mut a = join(&quiet, &quiet.allied_token).await;
    nothing_waiting(&mut a).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_empty_and_too_fast_messages_are_refused_and_change_nothing() {
    let server = TestServer::start_with(|c| {
        c.limits.chat.per_minute = 3;
        c.limits.chat.max_chars = 500;
    })
    .await;
    let t = table(&server.http).await;
    let mut allied = join(&t, &t.allied_token).await;
    let mut chinese = join(&t, &t.chinese_token).await;

    // 501 characters are refused; 500 (two bytes each) pass: the limit counts characters.
    allied
        .send(json!({"type": "chat", "text": "a".repeat(501)}))
        .await;
    let e = allied.expect_error("chat_too_long").await;
    assert!(e["message"].as_str().unwrap().contains("500"), "{e}");
    allied.send(json!({"type": "chat", "text": " \n\t "})).await;
    allied.expect_error("chat_empty").await;
    nothing_waiting(&mut chinese).await;
    let long = "é".repeat(500);
    allied.send(json!({"type": "chat", "text": long})).await;
    expect_chat(&mut allied, "table", "allied", &long).await;

    // Three a minute: two more pass, the next is refused — on another socket of the same seat
    // too, since the rate is the sender's — while the other seat may still talk.
    for n in 0..2 {
        let text = format!("message {n}");
        allied.send(json!({"type": "chat", "text": text})).await;
        expect_chat(&mut allied, "table", "allied", &text).await;
    }
    allied
        .send(json!({"type": "chat", "text": "one too many"}))
        .await;
    let e = allied.expect_error("rate_limited").await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("3 chat messages a minute"),
        "{e}"
    );
    let mut second = join(&t, &t.allied_token).await;
    let _history = second.recv().await;
    second.send(json!({"type": "chat", "text": "sneaky"})).await;
    second.expect_error("rate_limited").await;
    // The other seat saw the three that passed, and nothing refused.
    expect_chat(&mut chinese, "table", "allied", &long).await;
    for n in 0..2 {
        expect_chat(&mut chinese, "table", "allied", &format!("message {n}")).await;
    }
    chinese
        .send(json!({"type": "chat", "text": "my turn"}))
        .await;
    expect_chat(&mut chinese, "table", "chinese", "my turn").await;
    server.stop().await;
}
