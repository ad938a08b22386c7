//! `siege arena`: whole games between two computer players in-process, on every core, to
//! measure the bots (docs/bots.md). Player A and player B swap sides from one game to the
//! next (unless a side is fixed), each game on its own seed drawn from the master seed, so a
//! run is reproducible with a node budget whatever the number of threads. Every action is
//! checked by the engine; a refused one is counted and ends that game. One JSON line reports
//! wins per side and result kind, win rates with a 95% interval, actions per game, decision
//! times (p50, p99, the slowest whole bot turn) and refusals.

use crate::rules::{Game, Scenario};
use crate::sim::game_seed;
use serde::Serialize;
use siege_bots::{Bot, Budget, Level};
use siege_protocol::Side;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The flags of `siege arena`.
#[derive(Clone, Debug, clap::Args)]
pub struct ArenaArgs {
    /// Player A: random, easy, normal or hard.
    #[arg(long, default_value = "normal")]
    pub a: String,
    /// Player B: random, easy, normal or hard.
    #[arg(long, default_value = "random")]
    pub b: String,
    /// How many games.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Master seed: the same seed plays the same games (with a node budget).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Which side player A takes: both (alternating, A Allied in even games), allied or
    /// chinese.
    #[arg(long, default_value = "both")]
    pub a_side: String,
    /// Playouts per searched decision of the hard level (reproducible).
    #[arg(long, default_value_t = 48)]
    pub nodes: u32,
    /// Think time per searched decision of the hard level, in milliseconds, instead of a
    /// node budget (not reproducible).
    #[arg(long)]
    pub think_ms: Option<u64>,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Safety bound on actions in one game: a game that reaches it counts as unfinished.
    #[arg(long, default_value_t = 20_000)]
    pub max_actions: u64,
}

/// Why an arena run could not start.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("{0}")]
    Level(String),
    #[error("--a-side must be both, allied or chinese, not `{0}`")]
    Side(String),
}

/// Wins out of games, with a 95% Wilson interval.
#[derive(Debug, Default, Serialize)]
pub struct Rate {
    pub games: u64,
    pub wins: u64,
    pub win_rate: f64,
    pub ci95: [f64; 2],
}

impl Rate {
    fn new(wins: u64, games: u64) -> Rate {
        let (lo, hi) = wilson(wins, games);
        Rate {
            games,
            wins,
            win_rate: if games == 0 {
                0.0
            } else {
                wins as f64 / games as f64
            },
            ci95: [lo, hi],
        }
    }
}

/// The 95% Wilson score interval of `wins` out of `n`.
pub fn wilson(wins: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = wins as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Decision times of one player, in milliseconds.
#[derive(Debug, Default, Serialize)]
pub struct Times {
    pub decisions: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// The longest the player thought over one game turn, in seconds.
    pub max_turn_s: f64,
}

/// Counts of one summary: mean, median and largest.
#[derive(Debug, Default, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub p50: u64,
    pub max: u64,
}

/// What an arena run reports (one JSON line).
#[derive(Debug, Serialize)]
pub struct ArenaReport {
    pub a: Level,
    pub b: Level,
    pub games: u64,
    pub seed: u64,
    pub budget: String,
    pub threads: usize,
    /// Player A's wins with the Allies, with the Chinese, and overall.
    pub a_allied: Rate,
    pub a_chinese: Rate,
    pub a_total: Rate,
    /// Games won by each side, whoever played it.
    pub allied_wins: u64,
    pub chinese_wins: u64,
    /// Results by `winner_reason`, e.g. `chinese_victory_hexes`.
    pub results: BTreeMap<String, u64>,
    /// The game turn each game ended on.
    pub end_turn: Spread,
    pub actions_per_game: Spread,
    pub decision_a: Times,
    pub decision_b: Times,
    /// Actions the engine refused (must be 0).
    pub refusals: u64,
    /// Games that ended without a result (no decision, or the action bound).
    pub unfinished: u64,
    pub elapsed_s: f64,
}

/// One finished game.
struct Played {
    a_side: Side,
    winner: Option<Side>,
    reason: String,
    turn: u8,
    actions: u64,
    refusals: u64,
    /// Per player (A, B): every decision's time, and the most spent over one game turn.
    times: [Vec<Duration>; 2],
    turn_max: [Duration; 2],
}

/// Play the games of `args` on `scn` and report.
pub fn run(scn: Arc<Scenario>, args: &ArenaArgs) -> Result<ArenaReport, ArenaError> {
    let a: Level = args.a.parse().map_err(ArenaError::Level)?;
    let b: Level = args.b.parse().map_err(ArenaError::Level)?;
    let fixed = match args.a_side.as_str() {
        "both" => None,
        "allied" => Some(Side::Allied),
        "chinese" => Some(Side::Chinese),
        other => return Err(ArenaError::Side(other.to_string())),
    };
    let budget = match args.think_ms {
        Some(ms) => Budget::Time(Duration::from_millis(ms)),
        None => Budget::Nodes(args.nodes),
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let done: Mutex<Vec<(u64, Played)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= args.games {
                        break;
                    }
                    let a_side = fixed.unwrap_or(if i.is_multiple_of(2) {
                        Side::Allied
                    } else {
                        Side::Chinese
                    });
                    let played = play(&scn, args, i, a, b, a_side, budget);
                    if let Ok(mut d) = done.lock() {
                        d.push((i, played));
                    }
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|(i, _)| *i);
    Ok(report(args, a, b, budget, threads, start, done))
}

/// Play game `i`.
fn play(
    scn: &Arc<Scenario>,
    args: &ArenaArgs,
    i: u64,
    a: Level,
    b: Level,
    a_side: Side,
    budget: Budget,
) -> Played {
    let mut game = Game::new(scn.clone(), game_seed(args.seed, i));
    let player_seed = args.seed.wrapping_mul(1_000_003).wrapping_add(i * 2);
    let mut bots = [Bot::new(a, player_seed), Bot::new(b, player_seed + 1)];
    let mut played = Played {
        a_side,
        winner: None,
        reason: "unfinished".into(),
        turn: 0,
        actions: 0,
        refusals: 0,
        times: [Vec::new(), Vec::new()],
        turn_max: [Duration::ZERO; 2],
    };
    let mut turn_time = [Duration::ZERO; 2];
    let mut turn = 0;
    while game.result().is_none() && played.actions < args.max_actions {
        if game.state().turn != turn {
            turn = game.state().turn;
            turn_time = [Duration::ZERO; 2];
        }
        let Some(side) = game.to_act() else { break };
        let who = usize::from(side != a_side);
        let t = Instant::now();
        let decision = bots[who].decide(&game, side, budget);
        let spent = t.elapsed();
        played.times[who].push(spent);
        turn_time[who] += spent;
        played.turn_max[who] = played.turn_max[who].max(turn_time[who]);
        let Some(d) = decision else { break };
        played.actions += 1;
        if game.apply(side, &d.action).is_err() {
            played.refusals += 1;
            break;
        }
    }
    played.turn = game.state().turn;
    if let Some(r) = game.result() {
        played.winner = Some(r.winner);
        played.reason = format!("{}_{}", r.winner.as_str(), r.reason);
    }
    played
}

fn percentile(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

fn times(mut all: Vec<Duration>, turn_max: Duration) -> Times {
    all.sort();
    Times {
        decisions: all.len() as u64,
        p50_ms: percentile(&all, 0.5),
        p99_ms: percentile(&all, 0.99),
        max_ms: all.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0),
        max_turn_s: turn_max.as_secs_f64(),
    }
}

fn spread(mut v: Vec<u64>) -> Spread {
    v.sort_unstable();
    Spread {
        mean: if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<u64>() as f64 / v.len() as f64
        },
        p50: v.get(v.len() / 2).copied().unwrap_or(0),
        max: v.last().copied().unwrap_or(0),
    }
}

fn report(
    args: &ArenaArgs,
    a: Level,
    b: Level,
    budget: Budget,
    threads: usize,
    start: Instant,
    done: Vec<(u64, Played)>,
) -> ArenaReport {
    let count = |side: Side| -> (u64, u64) {
        let games: Vec<&Played> = done
            .iter()
            .map(|(_, p)| p)
            .filter(|p| p.a_side == side)
            .collect();
        let wins = games.iter().filter(|p| p.winner == Some(side)).count() as u64;
        (wins, games.len() as u64)
    };
    let (aw, ag) = count(Side::Allied);
    let (cw, cg) = count(Side::Chinese);
    let mut results: BTreeMap<String, u64> = BTreeMap::new();
    let mut times_a = Vec::new();
    let mut times_b = Vec::new();
    let mut turn_a = Duration::ZERO;
    let mut turn_b = Duration::ZERO;
    for (_, p) in &done {
        *results.entry(p.reason.clone()).or_default() += 1;
        times_a.extend(p.times[0].iter().copied());
        times_b.extend(p.times[1].iter().copied());
        turn_a = turn_a.max(p.turn_max[0]);
        turn_b = turn_b.max(p.turn_max[1]);
    }
    let side_wins = |s: Side| done.iter().filter(|(_, p)| p.winner == Some(s)).count() as u64;
    ArenaReport {
        a,
        b,
        games: done.len() as u64,
        seed: args.seed,
        budget: match budget {
            Budget::Nodes(n) => format!("{n} playouts"),
            Budget::Time(d) => format!("{} ms", d.as_millis()),
        },
        threads,
        a_allied: Rate::new(aw, ag),
        a_chinese: Rate::new(cw, cg),
        a_total: Rate::new(aw + cw, ag + cg),
        allied_wins: side_wins(Side::Allied),
        chinese_wins: side_wins(Side::Chinese),
        results,
        end_turn: spread(done.iter().map(|(_, p)| u64::from(p.turn)).collect()),
        actions_per_game: spread(done.iter().map(|(_, p)| p.actions).collect()),
        decision_a: times(times_a, turn_a),
        decision_b: times(times_b, turn_b),
        refusals: done.iter().map(|(_, p)| p.refusals).sum(),
        unfinished: done.iter().filter(|(_, p)| p.winner.is_none()).count() as u64,
        elapsed_s: start.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wilson_interval_brackets_the_rate() {
        let (lo, hi) = wilson(95, 100);
        assert!(
            lo > 0.88 && lo < 0.95 && hi > 0.95 && hi < 0.99,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 1.0));
        let (lo, _) = wilson(0, 10);
        assert_eq!(lo, 0.0);
    }

    #[test]
    fn an_arena_run_is_the_same_on_one_thread_or_two() {
        let scn = Arc::new(Scenario::load_default().unwrap());
        let args = |threads| ArenaArgs {
            a: "easy".into(),
            b: "random".into(),
            games: 4,
            seed: 3,
            a_side: "both".into(),
            nodes: 4,
            think_ms: None,
            threads: Some(threads),
            max_actions: 20_000,
        };
        let one = run(scn.clone(), &args(1)).unwrap();
        let two = run(scn, &args(2)).unwrap();
        assert_eq!(one.refusals, 0);
        assert_eq!(one.games, 4);
        assert_eq!(one.results, two.results);
        assert_eq!(one.actions_per_game.max, two.actions_per_game.max);
        assert_eq!(one.a_allied.games, 2);
    }
}
