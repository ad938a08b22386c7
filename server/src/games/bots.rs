//! Computer players in live games (docs/bots.md, docs/protocol.md "Playing the computer"): a
//! bounded pool of worker threads that does the bots' thinking, and one driver task per game with
//! a computer seated that sends the bots' actions to the game task exactly as a socket sends a
//! person's — so every bot action is checked by the rules, logged, broadcast, replayed and
//! audited like any other.
//!
//! The thinking never runs on the async runtime: each decision is a job on the pool, whose
//! threads are the server's only ones doing bot work, so however many bot games there are, at
//! most `--bot-workers` cores think and the other games keep theirs. The game task tells the
//! driver of each new position through a watch channel (only the newest matters); the driver
//! asks the pool, waits the pace, and acts on the seq it was shown — a stale answer is dropped
//! and the next position asked about; an answer whose commit failed is sent again.

use super::handle::{GameError, GameHandle};
use crate::rules::Game;
use crate::store::StoreError;
use siege_bots::{Bot, Budget, Level};
use siege_protocol::Side;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use uuid::Uuid;

/// The default of `--bot-think-ms`: how long a `hard` bot may search one decision.
pub const THINK_MS: u64 = 1500;
/// The default of `--bot-pace-ms`: the pause before each bot action, so that a person sees the
/// computer's moves one by one.
pub const PACE_MS: u64 = 60;
/// How long a driver waits before trying again an action whose commit failed, at first and at
/// most (doubling in between): a store that is briefly unavailable costs a bot game a pause,
/// not the rest of the game.
const RETRY_FIRST: Duration = Duration::from_millis(100);
const RETRY_MAX: Duration = Duration::from_secs(30);
/// Decisions waiting for a worker before drivers wait to queue more. Each driver has at most one
/// decision queued, so this only bounds a burst of bot games asking at once.
const QUEUE: usize = 256;

/// The default of `--bot-workers`: every core but one (at least one), so that a machine full of
/// bot games still has a core for the games of people.
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .saturating_sub(1)
        .max(1)
}

/// How the computer players play on this server.
#[derive(Clone, Debug)]
pub struct BotConfig {
    /// Threads thinking for bots.
    pub workers: usize,
    /// The time a `hard` bot may search per decision (the other levels answer at once).
    pub think: Duration,
    /// The pause before each bot action.
    pub pace: Duration,
}

impl Default for BotConfig {
    fn default() -> BotConfig {
        BotConfig {
            workers: default_workers(),
            think: Duration::from_millis(THINK_MS),
            pace: Duration::from_millis(PACE_MS),
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The worker threads. Clone freely; the threads end once every clone is dropped.
#[derive(Clone)]
pub struct Pool {
    jobs: mpsc::Sender<Job>,
}

impl Pool {
    /// Start `workers` threads (at least one).
    pub fn new(workers: usize) -> std::io::Result<Pool> {
        let (jobs, queue) = mpsc::channel::<Job>(QUEUE);
        let queue = Arc::new(Mutex::new(queue));
        for n in 0..workers.max(1) {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("siege-bot-{n}"))
                .spawn(move || {
                    loop {
                        // One waiting worker holds the lock; the others wait for it.
                        let job = queue
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .blocking_recv();
                        let Some(job) = job else { break };
                        if std::panic::catch_unwind(AssertUnwindSafe(job)).is_err() {
                            tracing::error!("a bot decision panicked; the worker goes on");
                        }
                    }
                })?;
        }
        Ok(Pool { jobs })
    }

    /// Run `work` on a worker; `None` if the pool is gone or the work panicked.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = reply.send(work());
        });
        self.jobs.send(job).await.ok()?;
        answer.await.ok()
    }
}

/// A position in which a computer player is to act, as the game task shows it to the driver.
#[derive(Clone)]
pub(crate) struct Turn {
    pub side: Side,
    pub seq: u64,
    pub game: Game,
}

/// The computer seats of one game and what they remember between decisions.
pub(crate) struct Driver {
    id: Uuid,
    handle: GameHandle,
    pool: Pool,
    config: BotConfig,
    bots: Vec<(Side, Level, Option<Bot>)>,
}

impl Driver {
    pub(crate) fn new(
        id: Uuid,
        handle: GameHandle,
        pool: Pool,
        config: BotConfig,
        seats: &[(Side, Level)],
    ) -> Driver {
        Driver {
            id,
            handle,
            pool,
            config,
            bots: seats.iter().map(|(s, l)| (*s, *l, None)).collect(),
        }
    }

    /// Act whenever the game task shows a position in which a computer is to act, until the
    /// task drops its end of the channel (it stopped).
    pub(crate) async fn run(mut self, mut turns: watch::Receiver<Option<Turn>>) {
        while turns.changed().await.is_ok() {
            if !self.config.pace.is_zero() {
                // A newer position during the pause is taken at once; a closed channel (the
                // game stopped, or the server is shutting down) ends the driver.
                tokio::select! {
                    () = tokio::time::sleep(self.config.pace) => {}
                    changed = turns.changed() => if changed.is_err() { break },
                }
            }
            let Some(turn) = turns.borrow_and_update().clone() else {
                continue;
            };
            if !self.act(turn).await {
                break;
            }
        }
    }

    /// One decision and its action; `false` when the game task is gone.
    async fn act(&mut self, turn: Turn) -> bool {
        let Some(slot) = self.bots.iter_mut().find(|(s, _, _)| *s == turn.side) else {
            return true;
        };
        let (side, level) = (slot.0, slot.1);
        let bot = slot
            .2
            .take()
            .unwrap_or_else(|| Bot::new(level, bot_seed(self.id, side)));
        let budget = Budget::Time(self.config.think);
        let game = turn.game;
        let answer = self
            .pool
            .run(move || {
                let mut bot = bot;
                let decision = bot.decide(&game, side, budget);
                (bot, decision)
            })
            .await;
        let Some((bot, decision)) = answer else {
            tracing::error!(game = %self.id, side = side.as_str(), "the bot pool is gone");
            return false;
        };
        if let Some(slot) = self.bots.iter_mut().find(|(s, _, _)| *s == side) {
            slot.2 = Some(bot);
        }
        let Some(decision) = decision else {
            return true;
        };
        let mut wait = RETRY_FIRST;
        loop {
            match self
                .handle
                .act(side, turn.seq, decision.action.clone())
                .await
            {
                Ok(_) | Err(GameError::Stale { .. }) => return true,
                Err(
                    GameError::Gone
                    | GameError::ShuttingDown
                    | GameError::Store(StoreError::Fenced(_)),
                ) => return false,
                Err(GameError::Store(e)) => {
                    // The commit failed, so the action was not taken and the position is
                    // unchanged: nobody else will show this driver a new one. Try the same
                    // action again, waiting longer each time, rather than leave the game stalled.
                    tracing::warn!(game = %self.id, side = side.as_str(), error = %e,
                        retry_in_ms = wait.as_millis(), "a bot action was not stored");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(RETRY_MAX);
                }
                Err(e) => {
                    // The bots choose from the legal list, so this is a bug: say so loudly; the
                    // game waits (a person can still resign or the operator look).
                    tracing::error!(game = %self.id, side = side.as_str(), error = %e,
                        "BOT ACTION REFUSED");
                    return true;
                }
            }
        }
    }
}

/// A bot's seed: fixed per game and seat, so a bot rebuilt after a restart plays as before.
fn bot_seed(id: Uuid, side: Side) -> u64 {
    let bytes = id.as_bytes();
    let mut half = [0u8; 8];
    half.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(half) ^ if side == Side::Allied { 0 } else { u64::MAX }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn decisions_run_on_the_pool_threads_and_a_panic_does_not_kill_a_worker() {
        let pool = Pool::new(1).expect("a worker starts");
        let name = pool
            .run(|| std::thread::current().name().map(str::to_string))
            .await
            .expect("an answer");
        assert_eq!(name.as_deref(), Some("siege-bot-0"), "not a runtime thread");
        let panicked: Option<u8> = pool.run(|| panic!("a bug in a bot")).await;
        assert_eq!(panicked, None);
        assert_eq!(
            pool.run(|| 7).await,
            Some(7),
            "the one worker is still there"
        );
    }

    /// A store that briefly refuses every write does not stop a game between computers: the
    /// action whose commit failed is sent again, and once the store writes the game plays on.
    #[tokio::test]
    async fn a_bot_game_plays_on_after_its_commits_failed_for_a_while() {
        use crate::games::{Games, GamesConfig};
        use crate::store::scratch::{Kind, Scratch};
        use crate::store::writer::Writer;
        use crate::store::{Db, Store};
        let dir = Scratch::new(Kind::Sqlite, "bot-retry").await;
        let store = Store::open(&dir.url).await.unwrap();
        let (writer, _task) = Writer::start(store.clone());
        let config = GamesConfig {
            bots: BotConfig {
                workers: 1,
                think: Duration::from_millis(10),
                pace: Duration::from_millis(20),
            },
            ..GamesConfig::default()
        };
        let games = Games::for_tests(&store, &writer, config);
        let id = crate::games::testing::create(&games, "retry", true).await;
        let grows = |than| crate::games::testing::log_grows(&store, id, than);
        grows(2).await;
        let Db::Sqlite(pool) = store.pool() else {
            panic!("a SQLite store")
        };
        sqlx::query(
            "CREATE TRIGGER refuse BEFORE INSERT ON actions BEGIN SELECT RAISE(ABORT, 'the disk is away'); END",
        )
        .execute(pool)
        .await
        .unwrap();
        // Long enough for several refused attempts (100, 200, 400 ms apart).
        tokio::time::sleep(Duration::from_millis(900)).await;
        let stalled = store.log_len(id).await.unwrap();
        // The computer kept trying: its last attempt reached the store and was refused.
        assert!(
            !writer.health().last_ok(),
            "the writer's last commit failed (a bot action was tried while the store refused)"
        );
        let tried_at = writer.health().last_at();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            store.log_len(id).await.unwrap(),
            stalled,
            "nothing is stored"
        );
        sqlx::query("DROP TRIGGER refuse")
            .execute(pool)
            .await
            .unwrap();
        grows(stalled + 2).await;
        assert!(writer.health().last_ok());
        assert!(writer.health().last_at() > tried_at, "written since");
        writer.close().await;
        store.close().await;
        dir.remove();
    }

    #[test]
    fn each_seat_of_a_game_has_its_own_fixed_seed() {
        let id = Uuid::new_v4();
        assert_eq!(bot_seed(id, Side::Allied), bot_seed(id, Side::Allied));
        assert_ne!(bot_seed(id, Side::Allied), bot_seed(id, Side::Chinese));
    }
}
