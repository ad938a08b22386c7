//! The connection that sent an action is sent its events and new state with the game's answer,
//! before the game broadcasts them (docs/architecture.md, "The data path"); the broadcast copy
//! is then skipped there. Every connection — the acting one, another tab of the same seat, the
//! opponent, a spectator — must still get each action's frames exactly once and in order
//! (PROTOCOL.md: an `events` frame, then the new `state` or `patch`).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use siege_tests::TestServer;
use siege_tests::client::{Ws, action_frame, choose};

const ACTIONS: u64 = 40;

/// Read one action's frames: exactly one `events` frame for `seq`, then its state (a full
/// `state`, or a `patch` applied to `current`).
async fn one_action(ws: &mut Ws, current: &mut Value, seq: u64, who: &str) {
    let events = ws.next_patched(current).await;
    assert_eq!(events.len(), 1, "{who}: one events frame for action {seq}");
    assert_eq!(events[0]["seq"], seq, "{who}: the events of action {seq}");
    assert_eq!(
        current["seq"], seq,
        "{who}: the state after action {seq}, none skipped"
    );
}

/// After the last action nothing else is queued for `ws`: the answer to a ping comes next.
async fn nothing_more(ws: &mut Ws, who: &str) {
    ws.send(json!({"type": "ping"})).await;
    let next = ws.recv().await;
    assert_eq!(
        next["type"], "pong",
        "{who}: a frame sent twice? got {next}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_connection_gets_each_actions_frames_once_whoever_sent_it() {
    let server = TestServer::start_with(|c| c.frame_rate = 100_000).await;
    let http = &server.http;
    let (_, created, joined, url) = http.both_seats("allied").await;
    let join = |token: &Value| json!({"type": "join", "token": token, "patches": true});
    // Two tabs of the Allied seat, the Chinese seat, a spectator with full states.
    let mut tabs = [
        Ws::open(&url, join(&created["token"])).await,
        Ws::open(&url, join(&created["token"])).await,
    ];
    let mut chinese = Ws::open(&url, join(&joined["token"])).await;
    let mut spectator = Ws::open(&url, json!({"type": "spectate"})).await;
    let mut tab_states = [tabs[0].next_state().await.1, tabs[1].next_state().await.1];
    let mut c_state = chinese.next_state().await.1;
    spectator.next_state().await;

    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for seq in 1..=ACTIONS {
        // The Allied actions are sent from each tab in turn, so that each tab in turn gets an
        // action's frames with the answer and the other gets them from the broadcast.
        let acting_tab = (seq % 2) as usize;
        let to_act = tab_states[0]["view"]["to_act"].as_str().map(str::to_string);
        match to_act.as_deref() {
            Some("allied") => {
                let state = &tab_states[acting_tab];
                let action = choose(&mut rng, state).expect("a legal action");
                tabs[acting_tab].send(action_frame(state, &action)).await;
            }
            Some("chinese") => {
                let action = choose(&mut rng, &c_state).expect("a legal action");
                chinese.send(action_frame(&c_state, &action)).await;
            }
            _ => panic!("the game ended within {ACTIONS} actions"),
        }
        for (i, (tab, state)) in tabs.iter_mut().zip(&mut tab_states).enumerate() {
            one_action(tab, state, seq, &format!("Allied tab {i}")).await;
        }
        one_action(&mut chinese, &mut c_state, seq, "Chinese").await;
        let (events, s) = spectator.next_state().await;
        assert_eq!(
            events.len(),
            1,
            "spectator: one events frame for action {seq}"
        );
        assert_eq!(s["seq"], seq, "spectator: the state after action {seq}");
        assert_eq!(
            tab_states[0]["view"], s["view"],
            "every reader sees one view"
        );
        assert_eq!(
            tab_states[0], tab_states[1],
            "both tabs of a seat read the same state"
        );
    }
    for (i, tab) in tabs.iter_mut().enumerate() {
        nothing_more(tab, &format!("Allied tab {i}")).await;
    }
    nothing_more(&mut chinese, "Chinese").await;
    nothing_more(&mut spectator, "spectator").await;
    server.stop().await;
}
