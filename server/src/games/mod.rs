//! The games: a registry of game tasks, one per loaded game, found by id. Creating a game
//! writes it and starts its task; asking for a game that is not loaded rebuilds it from its
//! log (replaying through the rules and checking every stored state hash). A log that does not
//! replay is a loud error and the game is held as broken — never silently "fixed".
//!
//! The registry also answers the questions that need the whole log rather than the live
//! state: the view after any number of actions (`state?at=N`), with a small cache so that
//! stepping through a game replays each action once.

mod frames;
mod handle;
mod task;
pub mod tokens;

pub use frames::{Snapshot, Update, events_frame};
pub use handle::{Attached, Claim, ConnectionGuard, GameError, GameHandle, Info};

use crate::replay::{Replayer, seed_commitment};
use crate::rules::custom::Position;
use crate::rules::{Game, Scenario};
use crate::store::{ActionRow, NewGame, Store, StoreError};
use futures_util::StreamExt;
use siege_protocol::{GameStatus, Side};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use task::GameTask;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

/// Commands queued per game before senders wait.
const COMMANDS: usize = 1024;
/// Replayed positions kept for `state?at=N`.
const STATE_CACHE: usize = 64;
/// Games rebuilt at once per core at start-up: two keep a core busy replaying while the
/// other game's log is read.
const REBUILD_PARALLEL: usize = 2;

/// Limits and timings of the game tasks.
#[derive(Clone, Debug)]
pub struct GamesConfig {
    /// Connections allowed per game (players and spectators).
    pub max_connections: usize,
    /// A game with no connection is unloaded after this long without a command.
    pub idle: Duration,
    /// Where each accepted action's time goes, recorded only for benchmarks
    /// (`--bench-routes`).
    pub stages: Option<Arc<crate::load::stages::StageTimes>>,
}

/// A new game, as its creator learns it. The token is not stored anywhere.
#[derive(Debug)]
pub struct Created {
    pub id: Uuid,
    pub side: Side,
    pub token: String,
    pub seed_commitment: String,
}

#[derive(Debug, Default)]
enum Slot {
    #[default]
    Empty,
    Live(GameHandle),
    Broken(String),
}

struct Inner {
    scenario: Arc<Scenario>,
    store: Store,
    writer: crate::store::writer::Writer,
    shutdown: CancellationToken,
    tracker: TaskTracker,
    config: GamesConfig,
    /// One async lock per game id, so that a game is loaded once however many ask at once.
    slots: Mutex<HashMap<Uuid, Arc<tokio::sync::Mutex<Slot>>>>,
    /// The last replayed position per game, for `state?at=N`.
    states: Mutex<HashMap<Uuid, (u64, Game)>>,
}

/// The registry: clone freely.
#[derive(Clone)]
pub struct Games {
    inner: Arc<Inner>,
}

impl Games {
    /// A registry whose tasks append through `writer`, stop on `shutdown`, and are tracked by
    /// `tracker` so that shutdown can wait for them.
    pub fn new(
        scenario: Arc<Scenario>,
        store: Store,
        writer: crate::store::writer::Writer,
        shutdown: CancellationToken,
        tracker: TaskTracker,
        config: GamesConfig,
    ) -> Games {
        Games {
            inner: Arc::new(Inner {
                scenario,
                store,
                writer,
                shutdown,
                tracker,
                config,
                slots: Mutex::new(HashMap::new()),
                states: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The scenario every game is played on.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.inner.scenario
    }

    /// Create a game with its creator in `side`'s seat, and start its task.
    /// Create a game; with `position`, it starts from that custom position (checked by the
    /// caller) instead of the setup of section 22.
    pub async fn create(
        &self,
        side: Side,
        name: String,
        position: Option<&Position>,
    ) -> Result<Created, GameError> {
        let id = Uuid::new_v4();
        let seed = tokens::new_seed();
        let game = match position {
            Some(p) => Game::from_position(self.inner.scenario.clone(), p, seed)
                .map_err(|e| GameError::Internal(e.to_string()))?,
            None => Game::new(self.inner.scenario.clone(), seed),
        };
        let position_json = position
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| GameError::Internal(e.to_string()))?;
        let (token, token_hash) = tokens::new_token();
        let commitment = seed_commitment(&seed);
        self.inner
            .store
            .create_game(&NewGame {
                id,
                name,
                seed,
                seed_commitment: commitment.clone(),
                side,
                token_hash: token_hash.clone(),
                position: position_json,
            })
            .await?;
        let seats = vec![(side, token_hash)];
        let handle = self.spawn(id, game, 0, GameStatus::Open, seats)?;
        *self.slot(id).lock().await = Slot::Live(handle);
        tracing::info!(game = %id, side = side.as_str(), "game created");
        Ok(Created {
            id,
            side,
            token,
            seed_commitment: commitment,
        })
    }

    /// The handle of game `id`, loading it from the store if it is not running.
    pub async fn get(&self, id: Uuid) -> Result<GameHandle, GameError> {
        let slot = self.slot(id);
        let mut guard = slot.lock().await;
        match &*guard {
            Slot::Live(h) if !h.is_closed() => return Ok(h.clone()),
            Slot::Broken(why) => return Err(GameError::Corrupt(why.clone())),
            _ => {}
        }
        if self.inner.shutdown.is_cancelled() {
            return Err(GameError::ShuttingDown);
        }
        match self.load(id).await {
            Ok(handle) => {
                *guard = Slot::Live(handle.clone());
                Ok(handle)
            }
            Err(GameError::NotFound) => {
                drop(guard);
                self.lock_slots().remove(&id);
                Err(GameError::NotFound)
            }
            Err(GameError::Corrupt(why)) => {
                tracing::error!(game = %id, "GAME LOG DOES NOT REPLAY, game held: {why}");
                *guard = Slot::Broken(why.clone());
                Err(GameError::Corrupt(why))
            }
            Err(e) => Err(e),
        }
    }

    /// Attach a connection to game `id` (asking again once if its task was just unloaded).
    pub async fn attach(
        &self,
        id: Uuid,
        claim: Claim,
    ) -> Result<(GameHandle, ConnectionGuard, Attached), GameError> {
        let mut tries = 0;
        loop {
            let handle = self.get(id).await?;
            let guard = handle.admit().ok_or(GameError::TooManyConnections)?;
            match handle.attach(claim.clone()).await {
                Err(GameError::Gone) if tries == 0 => tries += 1,
                Err(e) => return Err(e),
                Ok(attached) => return Ok((handle, guard, attached)),
            }
        }
    }

    /// The status, seats and state of game `id`.
    pub async fn info(&self, id: Uuid) -> Result<Info, GameError> {
        match self.get(id).await?.info().await {
            Err(GameError::Gone) => self.get(id).await?.info().await,
            other => other,
        }
    }

    /// Whether the side to act in game `id` could take `action` now, and if not why.
    pub async fn explain(
        &self,
        id: Uuid,
        action: crate::rules::Action,
    ) -> Result<siege_protocol::Explanation, GameError> {
        match self.get(id).await?.explain(action.clone()).await {
            Err(GameError::Gone) => self.get(id).await?.explain(action).await,
            other => other,
        }
    }

    /// Give a seat of game `id` to a new token; returns the side and the token.
    pub async fn join(&self, id: Uuid, side: Option<Side>) -> Result<(Side, String), GameError> {
        let (token, hash) = tokens::new_token();
        let side = match self.get(id).await?.take_seat(side, hash.clone()).await {
            Err(GameError::Gone) => self.get(id).await?.take_seat(side, hash).await?,
            other => other?,
        };
        Ok((side, token))
    }

    /// Rebuild every unfinished game from its log. Returns how many loaded and how many are
    /// held because their logs do not replay (each logged loudly).
    ///
    /// Games are rebuilt [`REBUILD_PARALLEL`] per core at a time: replaying is CPU work on the
    /// blocking pool and reading a log waits on SQLite, so with one at a time a 2-core machine
    /// with 10,000 unfinished games started at the speed of one core.
    pub async fn rebuild_unfinished(&self) -> Result<(usize, usize), StoreError> {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let ids = self.inner.store.unfinished().await?;
        let mut rebuilt = futures_util::stream::iter(ids)
            .map(|id| async move { self.get(id).await })
            .buffer_unordered(cores * REBUILD_PARALLEL);
        let (mut loaded, mut broken) = (0, 0);
        while let Some(result) = rebuilt.next().await {
            match result {
                Ok(_) => loaded += 1,
                Err(GameError::Store(e)) => return Err(e),
                Err(_) => broken += 1,
            }
        }
        Ok((loaded, broken))
    }

    /// The view's JSON after the first `at` actions of game `id` (0: the setup).
    pub async fn state_at(&self, id: Uuid, at: u64) -> Result<String, GameError> {
        let store = &self.inner.store;
        let row = store.game(id).await?.ok_or(GameError::NotFound)?;
        let len = store.log_len(id).await?;
        if at > len {
            return Err(GameError::OutOfRange { at, len });
        }
        let cached = self
            .lock_states()
            .get(&id)
            .filter(|(seq, _)| *seq <= at)
            .map(|(seq, game)| Replayer::resume(game.clone(), *seq));
        let replayer = match cached {
            Some(r) => r,
            None => Replayer::from_start(
                self.inner.scenario.clone(),
                row.seed()?,
                row.position()?.as_ref(),
                false,
            )
            .map_err(|e| GameError::Corrupt(e.to_string()))?,
        };
        let rows = store.log(id, replayer.seq(), at).await?;
        let game = replay_blocking(replayer, rows).await?;
        let view =
            serde_json::to_string(&game.view()).map_err(|e| GameError::Internal(e.to_string()))?;
        let mut states = self.lock_states();
        if states.len() >= STATE_CACHE {
            states.clear();
        }
        states.insert(id, (at, game));
        Ok(view)
    }

    /// Load game `id` from the store: replay its log and start its task.
    async fn load(&self, id: Uuid) -> Result<GameHandle, GameError> {
        let store = &self.inner.store;
        let row = store.game(id).await?.ok_or(GameError::NotFound)?;
        let seats = store.seats(id).await?;
        let rows = store.log(id, 0, u64::MAX).await?;
        // The replay refuses gaps, so the log's length is its last seq.
        let seq = rows.last().map_or(0, |r| u64::try_from(r.seq).unwrap_or(0));
        let replayer = Replayer::from_start(
            self.inner.scenario.clone(),
            row.seed()?,
            row.position()?.as_ref(),
            false,
        )
        .map_err(|e| GameError::Corrupt(e.to_string()))?;
        let game = replay_blocking(replayer, rows).await?;
        tracing::info!(game = %id, seq, "game rebuilt from its log");
        self.spawn(id, game, seq, row.status()?, seats)
    }

    fn spawn(
        &self,
        id: Uuid,
        game: Game,
        seq: u64,
        status: GameStatus,
        seats: Vec<(Side, String)>,
    ) -> Result<GameHandle, GameError> {
        let inner = &self.inner;
        let task = GameTask::new(
            id,
            game,
            seq,
            status,
            seats,
            task::Links {
                writer: inner.writer.clone(),
                store: inner.store.clone(),
                stages: inner.config.stages.clone(),
            },
        )?;
        let (tx, rx) = mpsc::channel(COMMANDS);
        let handle = GameHandle::new(id, tx, inner.config.max_connections);
        inner
            .tracker
            .spawn(task.run(rx, inner.shutdown.clone(), inner.config.idle));
        Ok(handle)
    }

    fn slot(&self, id: Uuid) -> Arc<tokio::sync::Mutex<Slot>> {
        self.lock_slots().entry(id).or_default().clone()
    }

    fn lock_slots(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<Uuid, Arc<tokio::sync::Mutex<Slot>>>> {
        self.inner
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn lock_states(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, (u64, Game)>> {
        self.inner
            .states
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Replay stored rows on a blocking thread: a long log is CPU work that must not stall the
/// runtime's workers.
async fn replay_blocking(mut replayer: Replayer, rows: Vec<ActionRow>) -> Result<Game, GameError> {
    let done = tokio::task::spawn_blocking(move || {
        for row in &rows {
            let entry = row
                .to_entry()
                .map_err(|e| GameError::Corrupt(e.to_string()))?;
            replayer
                .step(&entry)
                .map_err(|e| GameError::Corrupt(e.to_string()))?;
        }
        Ok(replayer.into_game())
    })
    .await;
    done.map_err(|e| GameError::Internal(e.to_string()))?
}
