//! `siege load`: a load generator that speaks only docs/protocol.md. It sets up `--games` tables
//! (a game created and joined over HTTP, two players and `--spectators` spectators on their
//! own WebSockets), waits until every one is connected, then lets them play random legal
//! actions for `--duration` seconds with `--think-ms` of thinking before each action. A game
//! that ends is replaced by a new one at the same table. In the same window it times the
//! server's bare WebSocket echo and its durable echo (the same echo after one write through the
//! server's store writer), samples the server's memory, and afterwards measures raw SQLite on
//! the same machine — so that every figure has its baselines beside it.
//!
//! With `--fanout-floor-sockets N` it also times the fan-out floor: one socket's frames
//! broadcast to N − 1 others by the server's `GET /bench/fanout`, with no game behind them
//! (run it with `--games 0` to see the floor alone).
//!
//! `--seed-games N` instead creates N unfinished games of `--seed-actions` actions each (for
//! timing start-up with many games in the database), and `--touch-games N` times the first
//! touch (`GET /api/games/{id}`) of N of the newest unfinished games, one at a time — after a
//! restart, each is loaded from the store by that touch.

mod echo;
mod fanout;
mod report;
pub mod routes;
mod rss;
mod sqlite;
pub mod stages;
pub mod stats;
mod table;
mod wire;

pub use report::{Report, Rss};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use table::{Outcome, Plan};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::time::Instant;

/// Sockets timing each echo, bare and durable, unless told otherwise.
const ECHO_SOCKETS: usize = 2;

/// The flags of `siege load`.
#[derive(Clone, Debug, clap::Args)]
pub struct LoadArgs {
    /// The server, e.g. `http://127.0.0.1:8080`.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// Tables playing at once (with --seed-games: games being seeded at once).
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Spectators per table.
    #[arg(long, default_value_t = 1)]
    pub spectators: usize,
    /// Mean think time before each action, in milliseconds (each pause is drawn uniformly
    /// from half to one and a half times this; 0: act at once).
    #[arg(long, default_value_t = 3000)]
    pub think_ms: u64,
    /// Seconds of play measured, after every table is connected.
    #[arg(long, default_value_t = 30.0)]
    pub duration: f64,
    /// Seed of the random players: the same seed makes the same choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Spectators ask for RFC 6902 patch frames after their first state.
    #[arg(long)]
    pub patches: bool,
    /// Players ask for full `state` frames after every action instead of patches (by
    /// default they ask for patches, as the page does, and apply them to their state).
    #[arg(long)]
    pub full_states: bool,
    /// The server's process id, for its memory; by default the process listening on the
    /// URL's port on this machine, if it can be found.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Sockets timing the bare echo (`GET /bench/echo`, `siege serve --bench-routes`).
    #[arg(long, default_value_t = ECHO_SOCKETS)]
    pub echo_sockets: usize,
    /// Sockets timing the durable echo (`GET /bench/durable-echo`, `siege serve
    /// --bench-routes`): each frame echoed after one write through the server's store writer
    /// (0: none).
    #[arg(long, default_value_t = ECHO_SOCKETS)]
    pub durable_echo_sockets: usize,
    /// Bytes of the echoed frame, bare and durable (default: an action frame's ~80; a state
    /// frame is ~26,000).
    #[arg(long, default_value_t = 0)]
    pub echo_bytes: usize,
    /// Milliseconds between one echo socket's frames, bare and durable.
    #[arg(long, default_value_t = 10)]
    pub echo_interval_ms: u64,
    /// Sockets on the fan-out floor (`GET /bench/fanout`, `siege serve --bench-routes`): one
    /// sends a frame every `--fanout-floor-interval-ms`, the others time its arrival (0: none).
    /// Measured beside a play, so not with `--seed-games` or `--touch-games` (checked by
    /// [`run`], not by clap, so that an explicit 0 — none — goes with them).
    #[arg(long, default_value_t = 0)]
    pub fanout_floor_sockets: usize,
    /// Bytes of the fan-out floor's update, all its frames together (default: a spectator's
    /// events and patch frames together at their median, ~800).
    #[arg(long, default_value_t = 800)]
    pub fanout_floor_bytes: usize,
    /// Frames the fan-out floor's update is sent as, written together (1–4; default 2, as a
    /// spectator is sent an update's events and its patch).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=4))]
    pub fanout_floor_frames: u8,
    /// Milliseconds between the fan-out floor's frames.
    #[arg(long, default_value_t = 2000)]
    pub fanout_floor_interval_ms: u64,
    /// HTTP requests and WebSocket connects in flight at once while setting up.
    #[arg(long, default_value_t = 64)]
    pub connect_concurrency: usize,
    /// Rows of the raw-SQLite baseline run after the load (0: skip it).
    #[arg(long, default_value_t = 2000)]
    pub sqlite_rows: usize,
    /// Milliseconds between the raw-SQLite probe's single-row transactions during the load
    /// (0: no probe).
    #[arg(long, default_value_t = 50)]
    pub sqlite_probe_ms: u64,
    /// Folder for the raw-SQLite databases: put it on the server's disk.
    #[arg(long)]
    pub sqlite_dir: Option<PathBuf>,
    /// Instead of playing: create this many unfinished games over the protocol.
    #[arg(long)]
    pub seed_games: Option<u64>,
    /// With --seed-games: actions played in each seeded game.
    #[arg(long, default_value_t = 200)]
    pub seed_actions: u64,
    /// Instead of playing: `GET /api/games/{id}` once each for this many of the newest
    /// unfinished games (at most 1,000), one after another, timing each. Not with
    /// `--seed-games`.
    #[arg(long, conflicts_with = "seed_games")]
    pub touch_games: Option<usize>,
}

/// A run that could not start.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("--url {0} is not an http:// URL")]
    Url(String),
    #[error("--fanout-floor-sockets {0}: a sender and at least one reader (2 or more), or 0")]
    FanoutFloorSockets(usize),
    #[error(
        "--fanout-floor-sockets {0} is measured beside a play: not with --seed-games or --touch-games (0 goes with them)"
    )]
    FanoutFloorNotPlaying(usize),
    #[error(
        "--fanout-floor-bytes {0} in {1} frames: each frame over the server's 1 MiB transport limit"
    )]
    FanoutFloorBytes(usize, u8),
}

/// Run the load (or seeding) described by `args` and report what was measured.
pub async fn run(args: &LoadArgs) -> Result<Report, LoadError> {
    let url = reqwest::Url::parse(&args.url).map_err(|_| LoadError::Url(args.url.clone()))?;
    if url.scheme() != "http" {
        return Err(LoadError::Url(args.url.clone()));
    }
    if args.fanout_floor_sockets == 1 {
        return Err(LoadError::FanoutFloorSockets(1));
    }
    if args.fanout_floor_sockets > 0 && (args.seed_games.is_some() || args.touch_games.is_some()) {
        return Err(LoadError::FanoutFloorNotPlaying(args.fanout_floor_sockets));
    }
    let frames = args.fanout_floor_frames;
    if args.fanout_floor_bytes / usize::from(frames) > crate::server::limits::MAX_TRANSPORT_FRAME {
        return Err(LoadError::FanoutFloorBytes(args.fanout_floor_bytes, frames));
    }
    let pid = args.server_pid.or_else(|| {
        let local = matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
        url.port_or_known_default()
            .filter(|_| local)
            .and_then(rss::pid_listening_on)
    });
    let plan = Plan {
        api: wire::Api::new(&args.url),
        spectators: args.spectators,
        think: Duration::from_millis(args.think_ms),
        patches: args.patches,
        player_patches: !args.full_states,
        seed: args.seed,
        stop_at_seq: None,
    };
    let gate = Arc::new(Semaphore::new(args.connect_concurrency.max(1)));
    let mut report = Report::new(args, pid);
    report.rss_kib.before = pid.and_then(rss::rss_kib);
    match (args.seed_games, args.touch_games) {
        (Some(n), _) => seed_games(args, plan, gate, n, &mut report).await,
        (None, Some(n)) => touch_games(&plan.api, n, &mut report).await,
        (None, None) => play(args, plan, gate, pid, &mut report).await,
    }
    report.load_average[1] = report::load_average();
    report.rss_kib.end = pid.and_then(rss::rss_kib);
    report.rss_kib.high_water = pid.and_then(rss::peak_rss_kib);
    if args.sqlite_rows > 0 {
        let dir = args.sqlite_dir.clone().unwrap_or_else(std::env::temp_dir);
        match sqlite::run(&dir, args.sqlite_rows).await {
            Ok(b) => report.sqlite = Some(b),
            Err(e) => {
                tracing::error!(error = %e, "the raw-SQLite baseline failed");
                report.add_error("sqlite_baseline");
            }
        }
    }
    Ok(report)
}

/// Set up every table, start them together, play for the duration.
async fn play(
    args: &LoadArgs,
    plan: Plan,
    gate: Arc<Semaphore>,
    pid: Option<u32>,
    report: &mut Report,
) {
    let setup = Instant::now();
    let plan = Arc::new(plan);
    let (ready_tx, mut ready_rx) = mpsc::channel::<()>(args.games.max(1));
    let (go_tx, go_rx) = watch::channel(None::<Instant>);
    let mut slots = Vec::with_capacity(args.games);
    for index in 0..args.games {
        let (plan, gate, ready, go) = (plan.clone(), gate.clone(), ready_tx.clone(), go_rx.clone());
        slots.push(tokio::spawn(slot(plan, index as u64, gate, ready, go)));
    }
    drop(ready_tx);
    let floor = (args.fanout_floor_sockets > 0).then(|| {
        let (api, gate, n) = (plan.api.clone(), gate.clone(), args.fanout_floor_sockets);
        let frames = usize::from(args.fanout_floor_frames);
        tokio::spawn(async move { fanout::connect(&api, n, frames, &gate).await })
    });
    for _ in 0..args.games {
        if ready_rx.recv().await.is_none() {
            break;
        }
    }
    let floor = match floor {
        Some(task) => Some(task.await.unwrap_or_else(|_| {
            let mut lost = fanout::FanoutOutcome::default();
            lost.errors.add("task_panicked");
            Err(lost)
        })),
        None => None,
    };
    report.setup_s = stats::round3(setup.elapsed().as_secs_f64());
    report.rss_kib.loaded = pid.and_then(rss::rss_kib);

    // Forget the set-up: the server's stage times cover the measured window only.
    let _ = plan.api.stages().await;
    let cpu_before = (
        pid.and_then(|p| rss::cpu_seconds(Some(p))),
        rss::cpu_seconds(None),
    );
    let threads_before = pid.and_then(rss::thread_cpu);
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(args.duration.max(0.0));
    let echo_on = |route: echo::Route, sockets: usize| {
        tokio::spawn(echo::run(
            plan.api.clone(),
            route,
            sockets,
            args.echo_bytes,
            Duration::from_millis(args.echo_interval_ms),
            start,
            deadline,
        ))
    };
    let echo = echo_on(echo::Route::Bare, args.echo_sockets);
    let durable_echo = (args.durable_echo_sockets > 0)
        .then(|| echo_on(echo::Route::Durable, args.durable_echo_sockets));
    let floor = floor.map(|connected| {
        let (bytes, frames) = (
            args.fanout_floor_bytes,
            usize::from(args.fanout_floor_frames),
        );
        let every = Duration::from_millis(args.fanout_floor_interval_ms.max(1));
        tokio::spawn(async move {
            match connected {
                Ok(sockets) => fanout::run(sockets, bytes, frames, every, start, deadline).await,
                Err(failed) => failed,
            }
        })
    });
    let sampler = pid.map(|pid| tokio::spawn(sample_rss(pid, deadline)));
    let probe = (args.sqlite_probe_ms > 0).then(|| {
        let dir = args.sqlite_dir.clone().unwrap_or_else(std::env::temp_dir);
        let every = Duration::from_millis(args.sqlite_probe_ms);
        tokio::spawn(async move { sqlite::probe(&dir, every, start, deadline).await })
    });
    let _ = go_tx.send(Some(deadline));

    let mut outcome = gather(slots).await;
    let played = start.elapsed();
    // The echoes and the floor are awaited before the CPU is read: with `--games 0` they are
    // the whole window (and its length); with games, the window of actions/s ends with the
    // games.
    let lost = |_| {
        let mut lost = echo::EchoOutcome::default();
        lost.errors.add("task_panicked");
        lost
    };
    let echo = echo.await.unwrap_or_else(lost);
    let durable_echo = match durable_echo {
        Some(task) => Some(task.await.unwrap_or_else(lost)),
        None => None,
    };
    let floor = match floor {
        Some(task) => Some(task.await.unwrap_or_else(|_| {
            let mut lost = fanout::FanoutOutcome::default();
            lost.errors.add("task_panicked");
            lost
        })),
        None => None,
    };
    let window = if args.games > 0 {
        played
    } else {
        start.elapsed()
    };
    report.elapsed_s = stats::round3(window.as_secs_f64());
    let threads_after = pid.and_then(rss::thread_cpu);
    let cpu_after = (
        pid.and_then(|p| rss::cpu_seconds(Some(p))),
        rss::cpu_seconds(None),
    );
    let server_cpu = cpu_after.0.zip(cpu_before.0).map(|(a, b)| a - b);
    report.cpu_s = report::CpuUse {
        server: server_cpu.map(stats::round3),
        server_threads: match (&threads_before, &threads_after, server_cpu) {
            (Some(before), Some(after), Some(total)) => rss::cpu_by_kind(before, after, total)
                .into_iter()
                .map(|(kind, s)| (kind, stats::round3(s)))
                .collect(),
            _ => BTreeMap::new(),
        },
        load_generator: cpu_after
            .1
            .zip(cpu_before.1)
            .map(|(a, b)| stats::round3(a - b)),
    };
    report.server_stages = plan.api.stages().await;
    if let Some(s) = sampler {
        report.rss_kib.peak = s.await.ok().flatten();
    }
    if let Some(p) = probe {
        match p.await {
            Ok(Ok(mut samples)) => report.sqlite_probe_ms = Some(samples.summary()),
            Ok(Err(e)) => {
                tracing::error!(error = %e, "the raw-SQLite probe failed");
                outcome.errors.add("sqlite_probe");
            }
            Err(_) => outcome.errors.add("task_panicked"),
        }
    }
    report.record(outcome, Some(echo), durable_echo);
    if let Some(floor) = floor {
        report.record_fanout_floor(floor);
    }
    report.compare_commits();
}

/// One table for the whole run: set up, wait for the start, play; a finished game is
/// replaced by a new one until the deadline.
async fn slot(
    plan: Arc<Plan>,
    index: u64,
    gate: Arc<Semaphore>,
    ready: mpsc::Sender<()>,
    mut go: watch::Receiver<Option<Instant>>,
) -> Outcome {
    let mut out = Outcome::default();
    let name = |n: u64| format!("load {index}.{n}");
    let mut table = match table::set_up(&plan, &name(0), &gate).await {
        Ok(t) => Some(t),
        Err(e) => {
            tracing::warn!(error = %e, index, "setting up a table failed");
            out.errors.add(format!("setup_{}", e.kind()));
            None
        }
    };
    let _ = ready.send(()).await;
    drop(ready);
    let Ok(deadline) = go.wait_for(Option::is_some).await.map(|d| *d) else {
        return out;
    };
    let Some(deadline) = deadline else {
        return out;
    };
    let mut game = 0u64;
    while let Some(t) = table.take() {
        let seed = plan.seed ^ (index << 20) ^ game;
        let o = table::play(&plan, t, deadline, seed).await;
        let finished = o.games_finished > 0;
        out.merge(o);
        if !finished || Instant::now() >= deadline {
            break;
        }
        game += 1;
        match table::set_up(&plan, &name(game), &gate).await {
            Ok(t) => table = Some(t),
            Err(e) => out.errors.add(format!("setup_{}", e.kind())),
        }
    }
    out
}

/// The highest resident size of `pid` seen once a second until `deadline`.
async fn sample_rss(pid: u32, deadline: Instant) -> Option<u64> {
    let mut peak = rss::rss_kib(pid);
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_secs(1).min(deadline - Instant::now())).await;
        peak = peak.max(rss::rss_kib(pid));
    }
    peak
}

/// `--seed-games`: create `n` games over the protocol, `--games` at a time, each played to
/// `--seed-actions` actions and left unfinished.
async fn seed_games(
    args: &LoadArgs,
    mut plan: Plan,
    gate: Arc<Semaphore>,
    n: u64,
    report: &mut Report,
) {
    plan.spectators = 0;
    plan.think = Duration::ZERO;
    plan.stop_at_seq = Some(args.seed_actions);
    let plan = Arc::new(plan);
    let next = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    // Far enough never to cut a seeded game short.
    let never = start + Duration::from_secs(365 * 24 * 3600);
    let mut workers = Vec::new();
    for _ in 0..args.games.max(1) {
        let (plan, gate, next) = (plan.clone(), gate.clone(), next.clone());
        workers.push(tokio::spawn(async move {
            let mut out = Outcome::default();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return out;
                }
                match table::set_up(&plan, &format!("seeded {i}"), &gate).await {
                    Ok(t) => out.merge(table::play(&plan, t, never, plan.seed ^ i).await),
                    Err(e) => out.errors.add(format!("setup_{}", e.kind())),
                }
            }
        }));
    }
    let outcome = gather(workers).await;
    report.elapsed_s = stats::round3(start.elapsed().as_secs_f64());
    report.record(outcome, None, None);
}

/// `--touch-games`: the first touch of `n` unfinished games, one at a time.
async fn touch_games(api: &wire::Api, n: usize, report: &mut Report) {
    let start = Instant::now();
    let mut ids = Vec::new();
    for status in ["active", "open"] {
        match api.list(status, n.min(1000)).await {
            Ok(found) => ids.extend(found),
            Err(e) => report.add_error(&format!("list_{}", e.kind())),
        }
    }
    ids.truncate(n);
    let mut touches = stats::Samples::new();
    for id in &ids {
        let t0 = Instant::now();
        match api.touch(id).await {
            Ok(()) => touches.record(t0.elapsed()),
            Err(e) => report.add_error(&format!("touch_{}", e.kind())),
        }
    }
    report.elapsed_s = stats::round3(start.elapsed().as_secs_f64());
    report.touch_ms = Some(touches.summary());
}

/// The merged outcome of `tasks`; a task that panicked counts as an error, not a lost run.
async fn gather(tasks: Vec<tokio::task::JoinHandle<Outcome>>) -> Outcome {
    let mut outcome = Outcome::default();
    for t in tasks {
        match t.await {
            Ok(o) => outcome.merge(o),
            Err(_) => outcome.errors.add("task_panicked"),
        }
    }
    outcome
}

/// `siege load FLAGS…` as the command line parses it, for tests.
#[cfg(test)]
pub(crate) fn parse_args(flags: &[&str]) -> LoadArgs {
    use clap::Parser;
    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        load: LoadArgs,
    }
    Cli::parse_from(std::iter::once("load").chain(flags.iter().copied())).load
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fan-out floor runs beside a play: asked for with `--seed-games` or `--touch-games`
    /// it is refused, by name, before anything is sent; an explicit 0 (none, the default)
    /// goes with them as the default does.
    #[tokio::test]
    async fn the_fanout_floor_is_refused_beside_seeding_but_zero_is_not() {
        let url = ["--url", "http://127.0.0.1:9"];
        for other in [["--seed-games", "3"], ["--touch-games", "3"]] {
            let args =
                parse_args(&[&url[..], &other[..], &["--fanout-floor-sockets", "10"]].concat());
            let refused = run(&args).await.err().map(|e| e.to_string());
            assert_eq!(
                refused.as_deref(),
                Some(
                    "--fanout-floor-sockets 10 is measured beside a play: not with --seed-games or --touch-games (0 goes with them)"
                )
            );
            // Zero parses beside them (it was refused by the argument parser before).
            let zero =
                parse_args(&[&url[..], &other[..], &["--fanout-floor-sockets", "0"]].concat());
            assert_eq!(zero.fanout_floor_sockets, 0);
        }
    }
}
