//! Two players and two spectators (one reading patches) play a whole game of random legal actions to its result over
//! the real protocol; then the spectators' records, the published log, the replay audit and the
//! state-at-seq answers must all agree with one another.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use siege::rules::Scenario;
use siege_protocol::GameLog;
use siege_tests::TestServer;
use siege_tests::client::{Ws, action_frame, as_logged, choose};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_and_two_spectators_play_a_whole_game_to_its_result() {
    // The random players act as fast as the server answers: lift the per-socket frame rate.
    let server = TestServer::start_with(|c| c.frame_rate = 100_000).await;
    let http = &server.http;
    // Public, so that the finished game is listed to everyone below.
    let created = http.create_public("allied").await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let joined = http.join(&id).await;
    assert_eq!(joined["side"], "chinese");
    let url = http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let mut spectator = Ws::open(&url, json!({"type": "spectate"})).await;
    let mut patched = Ws::open(&url, json!({"type": "spectate", "patches": true})).await;

    let (_, mut a_state) = allied.next_state().await;
    let (_, mut c_state) = chinese.next_state().await;
    let (_, first) = spectator.next_state().await;
    let (_, mut rebuilt) = patched.next_state().await;
    assert_eq!(a_state["you"], "allied");
    assert_eq!(first["you"], "spectator");
    assert_eq!(first["seq"], 0);

    // What the spectator saw: every state's view by seq, and the events of every action.
    let mut views: Vec<Value> = vec![first["view"].clone()];
    let mut sent: Vec<Value> = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    loop {
        let seq = views.len() as u64 - 1;
        let (player, state) = match a_state["view"]["to_act"].as_str() {
            Some("allied") => (&mut allied, &a_state),
            Some("chinese") => (&mut chinese, &c_state),
            _ => break,
        };
        let action = choose(&mut rng, state).expect("the side to act has a legal action");
        player.send(action_frame(state, &action)).await;
        sent.push(action);

        let (_, a) = allied.next_state().await;
        let (_, c) = chinese.next_state().await;
        let (events, s) = spectator.next_state().await;
        for st in [&a, &c, &s] {
            assert_eq!(st["seq"], seq + 1, "states arrive in order, none skipped");
        }
        assert_eq!(events.len(), 1, "one events frame per action");
        assert_eq!(events[0]["seq"], seq + 1);
        assert!(events[0]["events"].is_array());
        assert_eq!(
            s["legal_actions"],
            json!([]),
            "spectators get no legal actions"
        );
        assert_eq!(
            a["view"], s["view"],
            "players and spectators see the same view"
        );
        let patch_events = patched.next_patched(&mut rebuilt).await;
        assert_eq!(patch_events, events);
        assert_eq!(rebuilt, s, "patches rebuild the full state exactly");
        views.push(s["view"].clone());
        a_state = a;
        c_state = c;
    }

    let last = views.last().unwrap();
    let final_seq = views.len() as u64 - 1;
    eprintln!(
        "the game ended after {final_seq} actions: {}",
        last["result"]["text"]
    );
    assert!(last["result"].is_object(), "the game ended with a result");
    assert!(a_state["legal_actions"].as_array().unwrap().is_empty());
    assert!(c_state["legal_actions"].as_array().unwrap().is_empty());

    // The game is listed as finished with its result.
    let (status, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(info["status"], "finished");
    assert_eq!(info["seq"], final_seq);
    assert_eq!(&info["view"], last);
    let (_, finished) = http.get("/api/games?status=finished").await;
    assert!(
        finished
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["game_id"] == id)
    );

    // The log has every action, in order, as sent — and now the seed.
    let (status, log_json) = http.get(&format!("/api/games/{id}/log")).await;
    assert_eq!(status, 200);
    let log: GameLog = serde_json::from_value(log_json).unwrap();
    assert_eq!(log.entries.len() as u64, final_seq);
    for (i, (entry, action)) in log.entries.iter().zip(&sent).enumerate() {
        assert_eq!(entry.seq, i as u64 + 1);
        assert_eq!(entry.action, as_logged(action));
    }
    assert_eq!(
        log.seed_commitment,
        created["seed_commitment"].as_str().unwrap()
    );
    assert!(
        log.seed.is_some(),
        "the seed is published once the game is finished"
    );

    // Anyone can audit it: the seed matches the commitment, every hash and roll replays.
    let scn = Scenario::shipped().unwrap();
    let audit = siege::replay::audit(scn, &log).expect("the log audits");
    assert_eq!(audit.entries, final_seq);
    assert_eq!(
        serde_json::to_value(audit.result.unwrap()).unwrap(),
        last["result"]
    );

    // The state at any seq is the state that was broadcast at that seq.
    let mut at: Vec<u64> = (0..final_seq).step_by(97).collect();
    at.push(final_seq);
    at.push(1);
    for n in at {
        let (status, view) = http.get(&format!("/api/games/{id}/state?at={n}")).await;
        assert_eq!(status, 200);
        assert_eq!(view, views[n as usize], "state at {n}");
    }
    let (status, _) = http
        .get(&format!("/api/games/{id}/state?at={}", final_seq + 1))
        .await;
    assert_eq!(status, 404);

    // After the end, actions are refused with the rules' own code.
    allied
        .send(json!({"type": "action", "seq": final_seq, "action": {"type": "end_phase"}}))
        .await;
    allied.expect_error("game_over").await;
    server.stop().await;
}
