//! A whole game played over the protocol by the engine's random player, then told back: the
//! transcript (`GET /api/games/{id}/transcript`) names every turn and phase and every event of
//! the log in words, attacks with their die roll and result; and once the game has ended its
//! two chats are open to all, in the replay route and on the socket (except the spectator chat
//! for a player who muted it).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Ws, action_frame, choose};

async fn transcript(base: &str, id: &str) -> (u16, String, String) {
    let resp = reqwest::get(format!("{base}/api/games/{id}/transcript"))
        .await
        .expect("GET transcript");
    let status = resp.status().as_u16();
    let kind = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (status, kind, resp.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_told_turn_by_turn_and_its_chats_open() {
    let server = TestServer::start_with(|c| c.frame_rate = 100_000).await;
    let http = &server.http;
    let (id, created, joined, url) = http.both_seats("allied").await;
    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let (_, mut a_state) = allied.next_state().await;
    let (_, mut c_state) = chinese.next_state().await;

    // One message in each chat, and the Chinese player mutes the spectators.
    allied.send(json!({"type": "chat", "text": "gl hf"})).await;
    assert_eq!(allied.recv().await["text"], "gl hf");
    assert_eq!(chinese.recv().await["text"], "gl hf");
    let mut spectator = Ws::open(&url, json!({"type": "spectate"})).await;
    let _ = spectator.next_state().await;
    spectator
        .send(json!({"type": "chat", "text": "from the gallery"}))
        .await;
    assert_eq!(spectator.recv().await["text"], "from the gallery");
    drop(spectator);
    chinese
        .send(json!({"type": "chat_mute", "muted": true}))
        .await;
    assert_eq!(chinese.recv().await["type"], "chat_muted");

    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut seq = 0u64;
    loop {
        let (player, state) = match a_state["view"]["to_act"].as_str() {
            Some("allied") => (&mut allied, &a_state),
            Some("chinese") => (&mut chinese, &c_state),
            _ => break,
        };
        let action = choose(&mut rng, state).expect("a legal action");
        player.send(action_frame(state, &action)).await;
        a_state = allied.next_state().await.1;
        c_state = chinese.next_state().await.1;
        seq += 1;
        if seq == 60 {
            // An ongoing game has a transcript too, up to now.
            let (status, kind, text) = transcript(&server.base, &id).await;
            assert_eq!(status, 200, "{text}");
            assert!(kind.starts_with("text/markdown"), "{kind}");
            assert!(text.contains("## Still being played"), "{text}");
            assert!(text.contains("- **60.** "), "{text}");
            assert!(!text.contains("- **61.** "), "{text}");
        }
    }
    eprintln!("the game ended after {seq} actions");

    let (status, kind, text) = transcript(&server.base, &id).await;
    assert_eq!(status, 200, "{text}");
    assert!(kind.starts_with("text/markdown"), "{kind}");
    assert!(
        text.contains("## Setup (22)"),
        "{}",
        &text[..2000.min(text.len())]
    );
    assert_eq!(text.matches("\n## Setup (22)\n").count(), 1);
    assert_eq!(text.matches("\n## Turn 1\n").count(), 1);
    assert!(text.contains("### Chinese Movement Phase"));
    assert!(text.contains("### Chinese Combat Phase"));
    assert!(text.contains("## Result"));
    for n in 1..=seq {
        assert!(
            text.contains(&format!("- **{n}.** ")),
            "decision {n} is told"
        );
    }
    // Every event of the published log is in the transcript, in its words; attacks with their
    // roll and result (8.2).
    let (status, log) = http.get(&format!("/api/games/{id}/log")).await;
    assert_eq!(status, 200);
    let mut combats = 0;
    for entry in log["entries"].as_array().unwrap() {
        for event in entry["events"].as_array().unwrap() {
            let kind = event["kind"].as_str().unwrap();
            if kind == "turn_began" || kind == "phase_began" {
                continue;
            }
            let words = event["text"].as_str().unwrap().replace('\n', " ");
            assert!(
                text.contains(&format!("  - {words}\n")),
                "event {event} is told"
            );
            if kind == "combat" && event["report"]["result"].is_string() {
                combats += 1;
                assert!(words.contains("rolled"), "{words}");
                let result = event["report"]["result"].as_str().unwrap();
                assert!(words.contains(result), "{words}");
            }
        }
    }
    assert!(combats > 0, "a whole random game has resolved attacks");
    // Every game turn the log began has its heading, once, in order.
    let turns = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["events"].as_array().unwrap())
        .filter(|ev| ev["kind"] == "phase_began")
        .map(|ev| ev["turn"].as_u64().unwrap())
        .max()
        .unwrap();
    let mut at = 0;
    for turn in 1..=turns {
        let heading = format!("\n## Turn {turn}\n");
        assert_eq!(text.matches(&heading).count(), 1, "{heading}");
        let here = text.find(&heading).unwrap();
        assert!(here > at, "turn {turn} is told after turn {}", turn - 1);
        at = here;
    }

    // Both chats are open once the game has ended.
    let (status, chat) = http.get(&format!("/api/games/{id}/chat")).await;
    assert_eq!(status, 200, "{chat}");
    let said: Vec<(&str, &str, &str)> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["channel"].as_str().unwrap(),
                m["from"].as_str().unwrap(),
                m["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("table", "allied", "gl hf"),
            ("spectators", "spectator", "from the gallery")
        ]
    );
    let history = |frame: Value| -> Vec<String> {
        assert_eq!(frame["type"], "chat_history", "{frame}");
        frame["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["text"].as_str().unwrap().to_string())
            .collect()
    };
    let mut late = Ws::open(&url, json!({"type": "spectate"})).await;
    let _ = late.next_state().await;
    assert_eq!(history(late.recv().await), ["gl hf", "from the gallery"]);
    let mut a = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let _ = a.next_state().await;
    assert_eq!(history(a.recv().await), ["gl hf", "from the gallery"]);
    let mut c = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let _ = c.next_state().await;
    assert_eq!(
        history(c.recv().await),
        ["gl hf"],
        "a player who muted the spectators is not shown them"
    );
    // No such game: 404.
    let (status, _, _) = transcript(&server.base, "00000000-0000-0000-0000-000000000000").await;
    assert_eq!(status, 404);
    server.stop().await;
}
