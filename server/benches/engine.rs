//! Engine benchmarks (criterion): the legal actions of a busy mid-game position, the warned
//! legal list of a guarding Allied stack, applying a move and a resolved combat, the state
//! hash of both versions, a state's frames (whole, incremental and as a patch), an `action`
//! frame read as a connection reads it, a whole random game in-process, replaying a stored
//! whole-game log from its seed, and the frames of every action of that game. Run with
//! `cargo bench -p siege --bench engine`; the method and results are in docs/benchmarks.md.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use siege::games::{Snapshot, Update, events_frame};
use siege::replay::Replayer;
use siege::rules::random::Bot;
use siege::rules::state::Step;
use siege::rules::{Action, Game, HashVersion, Scenario, play};
use siege_protocol::{ClientFrame, LogEntry, Phase, Side, You, action_from_frame};
use std::hint::black_box;
use std::sync::Arc;

/// The allocator the `siege` binary runs with (`server/src/main.rs`): the engine is measured
/// as the server runs it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn scenario() -> Arc<Scenario> {
    Arc::new(Scenario::load_default().expect("the scenario loads"))
}

/// Play the random player from a fixed seed until `stop` holds.
fn play_until(scn: &Arc<Scenario>, seed: u8, stop: impl Fn(&Game) -> bool) -> Game {
    let mut game = Game::new(scn.clone(), [seed; 32]);
    let mut bot = Bot::new(u64::from(seed), scn.map.hospital().to_vec());
    while game.result().is_none() && !stop(&game) {
        let side = game.to_act().expect("someone acts");
        let legal = game.legal_actions(side);
        let action = bot.choose(&game, &legal).expect("legal").clone();
        game.apply(side, &action).expect("applies");
    }
    game
}

/// A whole random game without invariant checks; returns the number of actions.
fn whole_game(scn: &Arc<Scenario>, seed: u8) -> usize {
    let mut game = Game::new(scn.clone(), [seed; 32]);
    let mut bot = Bot::new(u64::from(seed), scn.map.hospital().to_vec());
    let mut n = 0;
    while let Some(side) = game.to_act() {
        let legal = game.legal_actions(side);
        let action = bot.choose(&game, &legal).expect("legal").clone();
        game.apply(side, &action).expect("applies");
        n += 1;
    }
    n
}

fn record(scn: &Arc<Scenario>, seed: u8) -> Vec<(Side, Action)> {
    let mut game = Game::new(scn.clone(), [seed; 32]);
    let mut bot = Bot::new(u64::from(seed), scn.map.hospital().to_vec());
    let mut log = Vec::new();
    while let Some(side) = game.to_act() {
        let legal = game.legal_actions(side);
        let action = bot.choose(&game, &legal).expect("legal").clone();
        game.apply(side, &action).expect("applies");
        log.push((side, action));
    }
    log
}

/// The log entries the store would hold for `log`: each action's JSON and the state hash
/// after it, of `version`.
fn stored_entries(
    scn: &Arc<Scenario>,
    log: &[(Side, Action)],
    version: HashVersion,
) -> Vec<LogEntry> {
    let mut game = Game::new(scn.clone(), [42; 32]);
    let mut entries = Vec::new();
    for (seq, (side, action)) in (1..).zip(log) {
        game.apply(*side, action).expect("replays");
        entries.push(LogEntry {
            seq,
            side: *side,
            action: serde_json::to_value(action).expect("actions serialize"),
            events: Vec::new(),
            state_hash: hex::encode(game.state_hash_v(version)),
            at: String::new(),
        });
    }
    entries
}

fn benches(c: &mut Criterion) {
    let scn = scenario();
    // A busy mid-game position: turn 4, the Chinese combat step, both armies in contact.
    let busy = play_until(&scn, 7, |g| {
        g.state().turn >= 4
            && g.state().phase() == Phase::ChineseCombat
            && g.state().step == Step::Combat
    });
    c.bench_function("legal_actions_busy_chinese_combat", |b| {
        b.iter(|| black_box(play::legal(busy.scenario(), busy.state())))
    });
    let moving = play_until(&scn, 7, |g| {
        g.state().turn >= 4
            && matches!(g.state().step, Step::Move { group: Some(_) })
            && g.state().phase() == Phase::ChineseMovement
    });
    c.bench_function("legal_actions_selected_stack", |b| {
        b.iter(|| black_box(play::legal(moving.scenario(), moving.state())))
    });
    // An Allied stack selected where leaving matters — its moves are warned of: the legal list
    // as the player is offered it, each action with its warning.
    let guarding = play_until(&scn, 7, |g| {
        g.state().phase() == Phase::AlliedMovement
            && matches!(g.state().step, Step::Move { group: Some(_) })
            && g.offered(Side::Allied)
                .iter()
                .any(|o| o.warning.is_some() && matches!(o.action, Action::Move { .. }))
    });
    assert!(guarding.result().is_none(), "such a position is reached");
    c.bench_function("offered_guarding_allied_stack", |b| {
        b.iter(|| black_box(guarding.offered(Side::Allied)))
    });
    let side = moving.to_act().expect("someone acts");
    let mv = moving
        .legal_actions(side)
        .into_iter()
        .rfind(|a| matches!(a, Action::Move { .. }))
        .expect("a move");
    c.bench_function("apply_move", |b| {
        b.iter_batched(
            || moving.clone(),
            |mut g| black_box(g.apply(side, &mv)),
            BatchSize::SmallInput,
        )
    });
    let resolving = play_until(&scn, 7, |g| {
        g.state().turn >= 3
            && g.to_act()
                .is_some_and(|s| g.legal_actions(s).contains(&Action::Resolve))
    });
    let rside = resolving.to_act().expect("someone acts");
    c.bench_function("apply_resolve_combat", |b| {
        b.iter_batched(
            || resolving.clone(),
            |mut g| black_box(g.apply(rside, &Action::Resolve)),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("state_hash_v1_json", |b| {
        b.iter(|| black_box(busy.state_hash_v(HashVersion::Json)))
    });
    c.bench_function("state_hash_v2_compact", |b| {
        b.iter(|| black_box(busy.state_hash_v(HashVersion::Compact)))
    });
    // The frames of a move: the state before, the state after, written whole or reusing the
    // unchanged units of the frame before, and the Chinese player's patch between them.
    let before = Arc::new(Snapshot::of(&moving, 100).expect("frames"));
    let mut moved = moving.clone();
    moved.apply(side, &mv).expect("applies");
    c.bench_function("state_frame_whole", |b| {
        b.iter(|| black_box(Snapshot::of(&moved, 101).expect("frames")))
    });
    c.bench_function("state_frame_incremental", |b| {
        b.iter(|| black_box(Snapshot::next(&moved, 101, Some(&before)).expect("frames")))
    });
    let after = Arc::new(Snapshot::next(&moved, 101, Some(&before)).expect("frames"));
    c.bench_function("patch_frame_of_a_move", |b| {
        b.iter(|| {
            let update = Update::new(
                101,
                events_frame(101, "chinese", "[]"),
                after.clone(),
                before.clone(),
            );
            black_box(update.patch(You::Chinese))
        })
    });
    // What a connection does with an `action` frame before the game sees it (server
    // `server/ws.rs`, `on_action`): the frame read, the warning dropped, the action read back
    // exactly. An element of legal_actions with its warning, as the page sends it.
    let frame = r#"{"type":"action","seq":101,"action":{"type":"remove_unit","unit":3,"warning":{"text":"Gb 3 stands alone at 1513: removing it leaves the hex without a combat unit (14)","rule":"14"}}}"#;
    c.bench_function("action_frame_read", |b| {
        b.iter(|| {
            let Ok(ClientFrame::Action { seq, action }) = ClientFrame::parse(black_box(frame))
            else {
                panic!("an action frame")
            };
            let action = siege::rules::warnings::without_warning(action);
            let action: Action = action_from_frame(&action).expect("an action");
            black_box((seq, action))
        })
    });
    let mut group = c.benchmark_group("whole_game");
    group.sample_size(20);
    group.bench_function("random_game_in_process", |b| {
        let mut seed = 0u8;
        b.iter(|| {
            seed = seed.wrapping_add(1);
            black_box(whole_game(&scn, seed))
        })
    });
    let log = record(&scn, 42);
    // The server's rebuild: actions applied without listing legal actions (each stored state
    // hash would catch an illegal one; comparing hashes is not included here).
    group.bench_function("replay_stored_game", |b| {
        b.iter(|| {
            let mut game = Game::new(scn.clone(), [42; 32]);
            for (side, action) in &log {
                game.apply_trusted(*side, action).expect("replays");
            }
            black_box(game.state_hash())
        })
    });
    // The server's rebuild of a stored log as it is: actions parsed from their JSON, applied
    // trusted, and the state hash of every entry recomputed and compared.
    // Version 1 hashes (the state's JSON), each entry parsed as a log entry: how the server
    // rebuilt every game before hash version 2.
    let entries = stored_entries(&scn, &log, HashVersion::Json);
    group.bench_function("replay_stored_log_hash_checked", |b| {
        b.iter(|| {
            let mut replayer = Replayer::new(scn.clone(), [42; 32], false, HashVersion::Json);
            for entry in &entries {
                replayer.step(entry).expect("replays");
            }
            black_box(replayer.game().state_hash())
        })
    });
    // Version 2 hashes (the compact encoding), each entry's action read from its stored JSON
    // text: how the server loads a game now.
    let rows: Vec<(u64, Side, String, String)> = stored_entries(&scn, &log, HashVersion::Compact)
        .into_iter()
        .map(|e| (e.seq, e.side, e.action.to_string(), e.state_hash))
        .collect();
    group.bench_function("replay_stored_log_hash_checked_v2", |b| {
        b.iter(|| {
            let mut replayer = Replayer::new(scn.clone(), [42; 32], false, HashVersion::Compact);
            for (seq, side, action, hash) in &rows {
                replayer
                    .step_stored(*seq, *side, action, hash)
                    .expect("replays");
            }
            black_box(replayer.seq())
        })
    });
    // What the game task writes for each action of a whole stored game as `siege load`
    // plays it: the next state's frames (reusing the state before's) and both players'
    // patches. Each state comes with its legal list not yet listed, as after an apply.
    let states: Vec<Game> = {
        let mut game = Game::new(scn.clone(), [42; 32]);
        let mut states = Vec::with_capacity(log.len() + 1);
        for (side, action) in &log {
            states.push(game.clone());
            game.apply(*side, action).expect("replays");
        }
        states.push(game);
        states
    };
    group.bench_function("frames_of_a_stored_game", |b| {
        b.iter_batched_ref(
            || states.clone(),
            |states| {
                let mut prev: Option<Arc<Snapshot>> = None;
                for (seq, game) in (0..).zip(states.iter()) {
                    let snap =
                        Arc::new(Snapshot::next(game, seq, prev.as_deref()).expect("frames"));
                    if let Some(prev) = prev {
                        let events = events_frame(seq, "allied", "[]");
                        let update = Update::new(seq, events, snap.clone(), prev);
                        black_box((update.patch(You::Allied), update.patch(You::Chinese)));
                    }
                    prev = Some(snap);
                }
                black_box(prev)
            },
            BatchSize::LargeInput,
        )
    });
    // An audit: every action checked against the legal actions of its state.
    group.bench_function("replay_stored_game_audited", |b| {
        b.iter(|| {
            let mut game = Game::new(scn.clone(), [42; 32]);
            for (side, action) in &log {
                game.apply(*side, action).expect("replays");
            }
            black_box(game.state_hash())
        })
    });
    group.finish();
}

criterion_group!(engine, benches);
criterion_main!(engine);
