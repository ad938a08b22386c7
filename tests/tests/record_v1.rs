//! The recorder of `tests/fixtures/v1-games.db` and `v1-games.json`, the games of
//! `stored_before.rs`. Ignored: it is run only by `tests/fixtures/make-v1.sh`, against the server
//! of commit d67a9f0 (the last that stored version-1 state hashes, schema of migrations 0001–0002,
//! no snapshots) built with today's `rules/`, so that the stored logs are in the old format but
//! replay under today's rules.
//!
//! It speaks only the public protocol of that server (which these requests and frames are part
//! of): `SIEGE_V1_URL` is its base URL (`http://127.0.0.1:PORT`), `SIEGE_V1_OUT` the JSON file to
//! write (each game's id, both seats' tokens, whether it is finished and its last seq). Random
//! players (the engine's, through [`choose`]) with fixed seeds play four games: a whole game to
//! its end, two unfinished games stopped at 450 and 40 actions, and a game from a custom start
//! position played to its end. The dice seeds are the server's, so the games differ from one
//! recording to the next; what the test relies on (finished or not, the seqs 450 and 40) does
//! not.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use siege_tests::client::{Http, Ws, action_frame, choose};

/// No game of random players comes near this many actions; a guard against a loop.
const MAX_ACTIONS: u64 = 100_000;

/// The custom start of the old fixture's custom game: turn 3, the Allied combat phase, one
/// Boxer next to a British unit stacked with Myers.
fn custom_position() -> Value {
    json!({
        "turn": 3,
        "phase": "allied_combat",
        "units": [
            {"ref": "a", "side": "chinese", "type": "boxer", "nationality": null, "name": null,
             "hex": "1510", "reduced": false},
            {"ref": "b", "side": "allied", "type": "combat", "nationality": "british", "name": null,
             "hex": "1511", "reduced": false},
            {"ref": "L", "side": "allied", "type": "leader", "nationality": null, "name": "Myers",
             "hex": "1511", "reduced": false}
        ],
        "ruins": ["1219"],
        "fortifications": [],
        "control": {}
    })
}

/// Create a game named `name` (the creator plays the Allies, from `position` if given), take the
/// other seat, and play with random players seeded with `seed` until the game ends or has
/// `stop_at` actions. Returns the game's line of `v1-games.json`.
async fn record(
    http: &Http,
    name: &str,
    position: Option<Value>,
    stop_at: Option<u64>,
    seed: u64,
) -> Value {
    let mut body = json!({"side": "allied", "name": name});
    if let Some(position) = position {
        body["position"] = position;
    }
    let (status, created) = http.post("/api/games", body.to_string()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["game_id"].as_str().expect("game id").to_string();
    // No side acts before both seats are taken.
    let joined = http.join(&id).await;
    let url = http.ws_url(&id);
    let mut allied = Ws::open(&url, json!({"type": "join", "token": created["token"]})).await;
    let mut chinese = Ws::open(&url, json!({"type": "join", "token": joined["token"]})).await;
    let (_, mut a) = allied.next_state().await;
    let (_, mut c) = chinese.next_state().await;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    loop {
        let seq = a["seq"].as_u64().expect("seq");
        assert!(seq < MAX_ACTIONS, "game {name} never ended");
        if Some(seq) == stop_at {
            break;
        }
        let (ws, state) = match a["view"]["to_act"].as_str() {
            Some("allied") => (&mut allied, &a),
            Some("chinese") => (&mut chinese, &c),
            _ => break,
        };
        let action = choose(&mut rng, state).expect("a legal action");
        ws.send(action_frame(state, &action)).await;
        a = allied.next_state().await.1;
        c = chinese.next_state().await.1;
        assert_eq!(a["seq"], c["seq"], "both seats see every action");
    }
    drop((allied, chinese));

    let seq = a["seq"].as_u64().expect("seq");
    let (status, info) = http.get(&format!("/api/games/{id}")).await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["seq"], seq, "game {name} stored to its last action");
    let finished = info["status"] == "finished";
    assert_eq!(
        finished,
        stop_at.is_none(),
        "game {name}: {} after {seq} actions",
        info["status"]
    );
    if let Some(stop_at) = stop_at {
        assert_eq!(seq, stop_at, "game {name} ended before {stop_at} actions");
    }
    eprintln!("{name}: {id}, {seq} actions, {}", info["status"]);
    json!({
        "game_id": id,
        "allied_token": created["token"],
        "chinese_token": joined["token"],
        "finished": finished,
        "seq": seq,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "records the v1 fixture against the old server; run by tests/fixtures/make-v1.sh"]
async fn record_v1_games() {
    let base = std::env::var("SIEGE_V1_URL").expect("SIEGE_V1_URL: the old server's base URL");
    let out = std::env::var("SIEGE_V1_OUT").expect("SIEGE_V1_OUT: the JSON file to write");
    let http = Http::new(&base);
    let games = vec![
        record(&http, "finished", None, None, 1).await,
        record(&http, "midgame", None, Some(450), 2).await,
        record(&http, "early", None, Some(40), 3).await,
        record(&http, "custom", Some(custom_position()), None, 4).await,
    ];
    let text = serde_json::to_string_pretty(&Value::Array(games)).expect("JSON");
    std::fs::write(&out, text + "\n").expect("write the games file");
}
