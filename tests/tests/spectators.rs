//! Many spectators at once: every one of them gets every state, and the bytes are the same for
//! all of them (the server serializes each state once and shares it).

use futures_util::{SinkExt, StreamExt};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use siege_tests::TestServer;
use siege_tests::client::{Ws, action_frame, choose};
use tokio_tungstenite::tungstenite::Message;

const SPECTATORS: usize = 500;
const ACTIONS: u64 = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_spectators_all_see_the_same_bytes_for_every_state() {
    let server = TestServer::start_with(|c| c.frame_rate = 100_000).await;
    let http = &server.http;
    let created = http.create("allied").await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let joined = http.join(&id).await;
    let url = http.ws_url(&id);

    // Each spectator reads 1 + 2 × ACTIONS frames and reports the hash of every frame.
    let mut watchers = Vec::new();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(SPECTATORS);
    for _ in 0..SPECTATORS {
        let url = url.clone();
        let ready = ready_tx.clone();
        watchers.push(tokio::spawn(async move {
            let (mut ws, _) = tokio_tungstenite::connect_async_with_config(&url, None, true)
                .await
                .expect("connect");
            ws.send(Message::text(json!({"type": "spectate"}).to_string()))
                .await
                .expect("send");
            let mut hashes = Vec::new();
            while hashes.len() < 1 + 2 * ACTIONS as usize {
                match ws.next().await.expect("open").expect("frame") {
                    Message::Text(t) => {
                        if hashes.is_empty() {
                            let _ = ready.send(()).await;
                        }
                        hashes.push(hex::encode(Sha256::digest(t.as_bytes())));
                    }
                    _ => continue,
                }
            }
            hashes
        }));
    }
    for _ in 0..SPECTATORS {
        ready_rx.recv().await.expect("every spectator attached");
    }

    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let (_, mut a_state) = allied.next_state().await;
    let (_, mut c_state) = chinese.next_state().await;
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..ACTIONS {
        let (ws, state): (&mut Ws, &Value) = match a_state["view"]["to_act"].as_str() {
            Some("allied") => (&mut allied, &a_state),
            _ => (&mut chinese, &c_state),
        };
        let action = choose(&mut rng, state).expect("a legal action");
        ws.send(action_frame(state, &action)).await;
        a_state = allied.next_state().await.1;
        c_state = chinese.next_state().await.1;
    }
    assert_eq!(a_state["seq"], ACTIONS);

    let mut seen = Vec::new();
    for w in watchers {
        seen.push(w.await.expect("spectator task"));
    }
    assert!(
        seen.iter().all(|h| h == &seen[0]),
        "every spectator got the same frames"
    );
    server.stop().await;
}
