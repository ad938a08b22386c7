//! The games: a registry of game tasks, one per loaded game, found by id. Nothing is loaded at
//! start-up: a game is loaded when it is first touched (a socket, `GET /api/games/{id}`, a
//! seat being taken) and its task unloads itself after an idle spell with nobody connected.
//! Loading starts from the game's latest snapshot — a state stored with the log, used only
//! when its hash equals the one the log stores for its entry — and replays the entries after
//! it, checking every state hash; a game with no snapshot replays from the seed. A log that
//! does not replay is a loud error and the game is held as broken — never silently "fixed".
//! The background audit ([`crate::audit`]) replays every log from its seed, paced to a fifth
//! of a core, and holds a game whose log it finds unsound.
//!
//! Two first touches of the same cold game load it once: each game id has one async lock,
//! held while the game loads, so a second asker waits for the first task rather than starting
//! another writer of the same log.
//!
//! The registry also answers the questions that need the log rather than the live state: the
//! view after any number of actions (`state?at=N`), replayed from the nearest snapshot, with a
//! small cache so that stepping through a game replays each action once (the replay itself runs
//! where the caller puts expensive work).

pub mod bots;
pub mod chat;
pub(crate) mod clock;
pub mod cluster;
mod expiry;
mod frames;
mod handle;
mod task;
#[cfg(test)]
mod testing;
pub mod tokens;

pub use frames::{Snapshot, Update, events_frame};
pub use handle::{Attached, Claim, ConnectionGuard, GameError, GameHandle, Info};

use crate::probe::Probes;
use crate::replay::{Replayer, seed_commitment};
use crate::rules::custom::Position;
use crate::rules::{Game, HashVersion, Scenario, State};
use crate::store::writer::Note;
use crate::store::{Access, ActionRow, GameRow, NewGame, Store, StoreError};
use siege_bots::Level;
use siege_protocol::{GameStatus, Side};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
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
/// The default of `--snapshot-every`. A cold game's load reads the log after its last
/// snapshot, and the log is kept in the order it is written (migration 0015), so a game's
/// entries lie on as many pages as there are entries: 50 keeps that read about as short as it
/// was when each game's entries lay together and snapshots came every 200 (docs/benchmarks.md,
/// "The log kept in the order it is written").
pub const SNAPSHOT_EVERY: u64 = 50;
/// The default of `--idle-unload`: seconds a game with nobody connected stays loaded.
pub const IDLE_UNLOAD_SECS: u64 = 600;

/// Limits and timings of the game tasks.
#[derive(Clone, Debug)]
pub struct GamesConfig {
    /// Connections allowed per game (players and spectators).
    pub max_connections: usize,
    /// A game with no connection is unloaded after this long without a command.
    pub idle: Duration,
    /// Where each accepted action's time is reported (nothing unless a probe is plugged in).
    pub probe: Probes,
    /// A snapshot of the state is stored at the start of every game turn and, within a turn,
    /// whenever this many actions have passed since the last one: a load replays at most this
    /// many entries.
    pub snapshot_every: u64,
    /// How the computer players think and pace their moves.
    pub bots: bots::BotConfig,
    /// Where a game task says that the decision passed to the other side (your-turn
    /// notifications; off by default).
    pub notifier: crate::notify::Notifier,
    /// In a game without a clock, how long a decision may wait before the other side may claim
    /// the game as abandoned; `None`: never.
    pub abandon_after: Option<Duration>,
    /// This node's place among several on one database (leases); `None` for a single server.
    pub cluster: Option<cluster::Cluster>,
}

impl Default for GamesConfig {
    fn default() -> GamesConfig {
        GamesConfig {
            max_connections: crate::server::limits::MAX_CONNECTIONS_PER_GAME,
            idle: Duration::from_secs(IDLE_UNLOAD_SECS),
            probe: Probes::off(),
            snapshot_every: SNAPSHOT_EVERY,
            bots: bots::BotConfig::default(),
            notifier: crate::notify::Notifier::off(),
            abandon_after: None,
            cluster: None,
        }
    }
}

/// Whether a snapshot is due after entry `seq`: a new turn began (`turn_before` → `turn_after`),
/// or `every` entries have passed since the last snapshot at `last` — and nothing can be taken
/// back (`undo_depth` 0, [`crate::rules::Game::undo_depth`]): a game loaded from a snapshot
/// keeps no decisions to take back, so a snapshot taken in the middle of a run of them would
/// cut it. The live game and every replay decide alike, so a replay stores the snapshots a
/// live game would have.
pub fn snapshot_due(
    turn_before: u8,
    turn_after: u8,
    seq: u64,
    last: u64,
    every: u64,
    undo_depth: usize,
) -> bool {
    undo_depth == 0 && (turn_after != turn_before || seq >= last.saturating_add(every.max(1)))
}

/// Who asks for a new game, for the cap on open games per creator.
#[derive(Clone, Debug)]
pub struct Creator {
    /// The limiter's key of the client (`ip:203.0.113.7`).
    pub key: String,
    /// The most open games it may have; `None`: no cap.
    pub max_open: Option<u32>,
}

/// A new game, as its creator learns it. The token is not stored anywhere.
#[derive(Debug)]
pub struct Created {
    pub id: Uuid,
    pub side: Side,
    pub token: String,
    pub seed_commitment: String,
}

/// What the registry holds for a stored game's id: nothing loaded, the task running it, or
/// the reason it is held as broken.
#[derive(Debug, Default)]
enum Tenancy {
    #[default]
    Empty,
    Live(GameHandle),
    Broken(String),
}

type Registry = HashMap<Uuid, Arc<tokio::sync::Mutex<Tenancy>>>;

struct Inner {
    scenario: Arc<Scenario>,
    store: Store,
    writer: crate::store::writer::Writer,
    shutdown: CancellationToken,
    tracker: TaskTracker,
    config: GamesConfig,
    /// One async lock per game id, so that a game is loaded once however many ask at once. An
    /// entry is removed when its game unloads, under both locks (see [`Games::forget`]).
    tenancies: Mutex<Registry>,
    /// The last replayed position per game, for `state?at=N`.
    states: Mutex<HashMap<Uuid, (u64, Game)>>,
    /// The computer players' worker threads, started with the first game that seats one.
    pool: Mutex<Option<bots::Pool>>,
    /// The leases this node holds, when it is one of several.
    fences: Mutex<cluster::Fences>,
}

/// The registry: clone freely.
#[derive(Clone)]
pub struct Games {
    inner: Arc<Inner>,
}

/// Where a replay starts: the state it starts from and the entries still to replay.
struct Start {
    replayer: Replayer,
    /// The seq of the snapshot (or cached position) it starts from; 0 from the seed.
    from: u64,
}

/// Who sits at a game being started: every seat's token hash, and which seats a computer plays.
struct Seating<'a> {
    tokens: Vec<(Side, String)>,
    bots: &'a [(Side, Level)],
}

/// What a new game is asked to be: everything `POST /api/games` settles before the game exists.
pub struct NewGameRequest<'a> {
    /// The creator's side.
    pub side: Side,
    /// The game's name.
    pub name: String,
    /// A custom start, already checked by the rules.
    pub position: Option<&'a Position>,
    /// Who creates it, for the per-creator cap on open games.
    pub creator: Option<&'a Creator>,
    /// A computer player of this level in the other seat.
    pub opponent: Option<Level>,
    /// A computer player of this level in the creator's seat too: a game between two
    /// computers, to watch (needs `opponent`); the creator is given no usable seat.
    pub own_bot: Option<Level>,
    /// Private (invite code) or a public seek, and whether guests may join.
    pub access: Access,
    /// The signed-in creator's account, which then holds the seat.
    pub account: Option<i64>,
    /// The clock, if any.
    pub time_control: siege_protocol::TimeControl,
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
                tenancies: Mutex::new(HashMap::new()),
                states: Mutex::new(HashMap::new()),
                pool: Mutex::new(None),
                fences: Mutex::new(cluster::Fences::new()),
            }),
        }
    }

    /// A registry for unit tests: the default scenario, its own shutdown token and tracker.
    #[cfg(test)]
    pub(crate) fn for_tests(
        store: &Store,
        writer: &crate::store::writer::Writer,
        config: GamesConfig,
    ) -> Games {
        Games::new(
            Arc::new(Scenario::load_default().expect("the default scenario")),
            store.clone(),
            writer.clone(),
            CancellationToken::new(),
            TaskTracker::new(),
            config,
        )
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The scenario every game is played on.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.inner.scenario
    }

    /// How many games have a task running now.
    pub fn loaded_count(&self) -> usize {
        let tenancies: Vec<_> = self.lock_registry().values().cloned().collect();
        tenancies
            .iter()
            .filter(|s| {
                s.try_lock()
                    .is_ok_and(|g| matches!(&*g, Tenancy::Live(h) if !h.is_closed()))
            })
            .count()
    }

    /// Create a game with its creator in `side`'s seat, and start its task (one node of
    /// several leaves that to the node that first touches the game); with `position`,
    /// it starts from that custom position (checked by the caller) instead of the setup of
    /// section 22. Refused when `creator` already has as many open games as it may.
    ///
    /// The game's tenancy is locked before the row is written and released only once its task
    /// is registered: a request for the new id in between (it is listed as soon as it is
    /// committed) waits, instead of loading a second copy of the game from the store.
    /// With `opponent`, a computer player of that level takes the other seat in the same
    /// transaction and the game is active at once (never open, so no creator's cap applies).
    pub async fn create(&self, request: NewGameRequest<'_>) -> Result<Created, GameError> {
        let NewGameRequest {
            side,
            name,
            position,
            creator,
            opponent,
            own_bot,
            access,
            account,
            time_control,
        } = request;
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
        let version = HashVersion::LATEST;
        // A computer's seat gets a token too (nobody is given it), so seats stay uniform.
        let bot_seat = opponent.map(|level| (side.other(), level, tokens::new_token().1));
        let (_tenancy, mut registered) = self.lock_tenancy(id).await;
        let written = self
            .inner
            .store
            .create_game(&NewGame {
                id,
                name,
                seed,
                seed_commitment: commitment.clone(),
                side,
                token_hash: token_hash.clone(),
                position: position_json,
                hash_version: version,
                bot: bot_seat
                    .as_ref()
                    .map(|(s, l, hash)| (*s, l.as_str().to_string(), hash.clone())),
                own_bot: own_bot
                    .filter(|_| bot_seat.is_some())
                    .map(|l| l.as_str().to_string()),
                // Games with a computer seated count against the creator's cap too (the
                // store counts them while they are under way).
                creator: creator.map(|c| c.key.clone()),
                max_open: creator.and_then(|c| c.max_open),
                access,
                account,
                first_to_act: game.to_act(),
            })
            .await;
        match written {
            Ok(true) => {}
            Ok(false) => {
                drop(registered);
                self.lock_registry().remove(&id);
                let cap = creator.and_then(|c| c.max_open).unwrap_or(0);
                return Err(GameError::TooManyOpen(cap));
            }
            Err(e) => {
                drop(registered);
                self.lock_registry().remove(&id);
                return Err(e.into());
            }
        }
        let clock = clock::Clock::new(time_control);
        if let Some(c) = &clock
            && let Err(e) = self.inner.store.save_clock(id, c).await
        {
            drop(registered);
            self.lock_registry().remove(&id);
            return Err(e.into());
        }
        if self.cluster().is_some() {
            // One node of several: this one was reached by round robin (a new game has no id
            // to hash on). The game is loaded on first touch by the node the load balancer
            // sends its requests to, rather than run here and reached through a detour.
            drop(registered);
            self.lock_registry().remove(&id);
            tracing::info!(game = %id, side = side.as_str(), "game created, to be loaded where it is first asked for");
            return Ok(Created {
                id,
                side,
                token,
                seed_commitment: commitment,
            });
        }
        let mut seats = vec![(side, token_hash)];
        let mut bots = Vec::new();
        if let Some(level) = own_bot.filter(|_| bot_seat.is_some()) {
            bots.push((side, level));
        }
        if let Some((bot_side, level, hash)) = bot_seat {
            seats.push((bot_side, hash));
            bots.push((bot_side, level));
        }
        let status = if bots.is_empty() {
            GameStatus::Open
        } else {
            GameStatus::Active
        };
        let handle = self.spawn(
            id,
            game,
            task::Progress {
                seq: 0,
                last_snapshot: 0,
                version,
                fence: None,
            },
            status,
            Seating {
                tokens: seats,
                bots: &bots,
            },
            clock,
        )?;
        *registered = Tenancy::Live(handle);
        drop(registered);
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
        let (_tenancy, mut guard) = self.lock_tenancy(id).await;
        match &*guard {
            Tenancy::Live(h) if !h.is_closed() => return Ok(h.clone()),
            Tenancy::Broken(why) => return Err(GameError::Corrupt(why.clone())),
            _ => {}
        }
        if self.inner.shutdown.is_cancelled() {
            return Err(GameError::ShuttingDown);
        }
        match self.load(id).await {
            Ok(handle) => {
                *guard = Tenancy::Live(handle.clone());
                Ok(handle)
            }
            Err(GameError::NotFound) => {
                *guard = Tenancy::Empty;
                drop(guard);
                self.forget(id);
                Err(GameError::NotFound)
            }
            Err(GameError::Corrupt(why)) => {
                tracing::error!(game = %id, "GAME HELD (its log does not replay, or the engine ran away on it): {why}");
                *guard = Tenancy::Broken(why.clone());
                Err(GameError::Corrupt(why))
            }
            Err(e) => Err(e),
        }
    }

    /// Hold game `id` as broken (the audit found its log unsound): its task stops, its
    /// sockets close, and it answers `corrupt_log` until the server restarts and an operator
    /// has cleared the mark.
    pub async fn hold(&self, id: Uuid, why: String) {
        let (_tenancy, mut guard) = self.lock_tenancy(id).await;
        if let Tenancy::Live(h) = &*guard {
            h.stop().await;
        }
        tracing::error!(game = %id, "GAME LOG DOES NOT REPLAY, game held: {why}");
        *guard = Tenancy::Broken(why);
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
            // The task stopped, or found that another node took the game (it stops too): ask
            // again, which loads it here or answers where it runs now.
            Err(GameError::Gone | GameError::Store(StoreError::Fenced(_))) => {
                self.get(id).await?.take_seat(side, hash).await?
            }
            other => other?,
        };
        Ok((side, token))
    }

    /// What it takes to compute the view after the first `at` actions of game `id` (0: the
    /// setup): the replay to resume (the nearest snapshot or cached position at or before `at`,
    /// else the start) and the log rows to replay. Reading only; the CPU work is
    /// [`Past::replay`], which the caller runs where expensive work belongs.
    pub async fn past(&self, id: Uuid, at: u64) -> Result<Past, GameError> {
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
            .map(|(seq, game)| (*seq, game.clone()));
        let start = self.start(&row, at, cached).await?;
        let rows = store.log(id, start.replayer.seq(), at).await?;
        Ok(Past {
            id,
            at,
            replayer: start.replayer,
            rows,
        })
    }

    /// Keep the position a [`Past`] reached, so stepping on through the game replays each
    /// action once.
    pub fn remember(&self, id: Uuid, at: u64, game: Game) {
        let mut states = self.lock_states();
        if states.len() >= STATE_CACHE {
            states.clear();
        }
        states.insert(id, (at, game));
    }

    /// The handle of game `id` if its task is running now; never loads it.
    pub fn loaded(&self, id: Uuid) -> Option<GameHandle> {
        let tenancy = self.lock_registry().get(&id)?.clone();
        let guard = tenancy.try_lock().ok()?;
        match &*guard {
            Tenancy::Live(h) if !h.is_closed() => Some(h.clone()),
            _ => None,
        }
    }

    /// Load game `id` from the store: its latest snapshot and the entries after it, replayed
    /// with their hashes checked; then start its task. With several nodes, the game's lease is
    /// taken first, so that the log read has every action its last holder wrote; it is let go
    /// again if the game does not start.
    async fn load(&self, id: Uuid) -> Result<GameHandle, GameError> {
        if self.cluster().is_none() {
            return self.load_leased(id, None).await;
        }
        // The lease refers to the game's row: a game that does not exist is not leased.
        self.inner
            .store
            .game(id)
            .await?
            .ok_or(GameError::NotFound)?;
        let fence = self.take_lease(id).await?;
        let loaded = self.load_leased(id, fence).await;
        if let (Err(_), Some(fence)) = (&loaded, fence) {
            self.release_lease(id, fence).await;
        }
        loaded
    }

    /// [`Games::load`] once the lease (if any) is held.
    async fn load_leased(&self, id: Uuid, fence: Option<i64>) -> Result<GameHandle, GameError> {
        let store = &self.inner.store;
        let row = store.game(id).await?.ok_or(GameError::NotFound)?;
        if let Some(why) = row.held.clone() {
            return Err(GameError::Corrupt(why));
        }
        if let Some(why) = &row.audit_error {
            return Err(GameError::Corrupt(format!("the audit found: {why}")));
        }
        let seats = store.seats(id).await?;
        let bots = store
            .bots(id)
            .await?
            .into_iter()
            .map(|(side, level)| {
                level
                    .parse::<Level>()
                    .map(|l| (side, l))
                    .map_err(|e| GameError::Corrupt(format!("the {} seat: {e}", side.as_str())))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let clock = store.clock(id).await?;
        let version = row.hash_version()?;
        let start = self.start(&row, u64::MAX, None).await?;
        let from = start.from;
        let (game, seq, last_snapshot) = self.replay_noting(id, start, u64::MAX).await?;
        tracing::debug!(game = %id, seq, from, "game loaded");
        self.spawn(
            id,
            game,
            task::Progress {
                seq,
                last_snapshot,
                version,
                fence,
            },
            row.status()?,
            Seating {
                tokens: seats,
                bots: &bots,
            },
            clock,
        )
    }

    /// Where to start replaying game `row` towards entry `upto`: its latest snapshot at or
    /// before `upto` whose hash is the one the log stores, unless the `cached` position (a
    /// state already replayed, at or before `upto`) is as near; else its seed.
    async fn start(
        &self,
        row: &GameRow,
        upto: u64,
        cached: Option<(u64, Game)>,
    ) -> Result<Start, GameError> {
        let id = row_id(row)?;
        let version = row.hash_version()?;
        let floor = cached.as_ref().map_or(0, |(seq, _)| *seq);
        let snapshot = if upto == 0 {
            None
        } else {
            self.inner.store.snapshot(id, floor, upto).await?
        };
        let scenario = self.inner.scenario.clone();
        let seed = row.seed()?;
        let position = row.position()?;
        let resumed = match snapshot {
            None => None,
            Some((seq, json, hash)) => tokio::task::spawn_blocking(move || {
                let state: State = match serde_json::from_str(&json) {
                    Ok(s) => s,
                    Err(e) => {
                        tracing::warn!(game = %id, seq, error = %e, "snapshot unreadable; replaying from the seed");
                        return None;
                    }
                };
                let replayer =
                    Replayer::resume(Game::from_state(scenario, state), seq, false, version);
                match replayer.check_hash(seq, &hash) {
                    Ok(()) => Some(Start {
                        replayer,
                        from: seq,
                    }),
                    Err(e) => {
                        tracing::warn!(game = %id, seq, error = %e, "snapshot does not match the log; replaying from the seed");
                        None
                    }
                }
            })
            .await
            .map_err(|e| GameError::Internal(e.to_string()))?,
        };
        match (resumed, cached) {
            (Some(start), _) => Ok(start),
            (None, Some((seq, game))) => Ok(Start {
                replayer: Replayer::resume(game, seq, false, version),
                from: seq,
            }),
            (None, None) => Ok(Start {
                replayer: Replayer::from_start(
                    self.inner.scenario.clone(),
                    seed,
                    position.as_ref(),
                    false,
                    version,
                )
                .map_err(|e| GameError::Corrupt(e.to_string()))?,
                from: 0,
            }),
        }
    }

    /// As [`Games::replay`]; also returns the seq reached and the seq of the last snapshot at
    /// or before it.
    async fn replay_noting(
        &self,
        id: Uuid,
        start: Start,
        upto: u64,
    ) -> Result<(Game, u64, u64), GameError> {
        let rows = self.inner.store.log(id, start.replayer.seq(), upto).await?;
        let every = self.inner.config.snapshot_every;
        let replayed = replay_blocking(start, rows, every).await?;
        if !replayed.found.is_empty() {
            self.inner.writer.note(Note::Snapshots {
                game_id: id.to_string(),
                snapshots: replayed.found,
            });
        }
        Ok((replayed.game, replayed.seq, replayed.last_snapshot))
    }

    fn spawn(
        &self,
        id: Uuid,
        game: Game,
        progress: task::Progress,
        status: GameStatus,
        seating: Seating<'_>,
        clock: Option<clock::Clock>,
    ) -> Result<GameHandle, GameError> {
        let Seating {
            tokens: seats,
            bots: bot_seats,
        } = seating;
        let inner = &self.inner;
        let (turns, shown) = tokio::sync::watch::channel(None);
        let live = !bot_seats.is_empty() && status != GameStatus::Finished;
        let mut names = siege_protocol::Bots::default();
        for (side, level) in bot_seats {
            names.set(*side, level.as_str().to_string());
        }
        let bots = task::Bots {
            seats: names,
            turns: live.then_some(turns),
        };
        let pool = if live { Some(self.pool()?) } else { None };
        let fence = progress.fence;
        let task = GameTask::new(
            id,
            game,
            progress,
            status,
            seats,
            task::Links {
                writer: inner.writer.clone(),
                store: inner.store.clone(),
                probe: inner.config.probe.clone(),
                snapshot_every: inner.config.snapshot_every,
                bots,
                clock,
                notifier: inner.config.notifier.clone(),
                abandon_after: inner.config.abandon_after,
            },
        )?;
        let (tx, rx) = mpsc::channel(COMMANDS);
        let handle = GameHandle::new(id, tx, inner.config.max_connections, fence);
        if let Some(pool) = pool {
            let driver = bots::Driver::new(
                id,
                handle.clone(),
                pool,
                inner.config.bots.clone(),
                bot_seats,
            );
            inner.tracker.spawn(driver.run(shown));
        }
        let registry: Weak<Inner> = Arc::downgrade(&self.inner);
        let run = task.run(rx, inner.shutdown.clone(), inner.config.idle);
        inner.tracker.spawn(async move {
            let _loaded = crate::observe::Held::new(crate::observe::GAMES_LOADED);
            run.await;
            if let Some(inner) = registry.upgrade() {
                let games = Games { inner };
                if let Some(fence) = fence {
                    games.release_lease(id, fence).await;
                }
                games.forget(id);
            }
        });
        Ok(handle)
    }

    /// The computer players' worker pool, started on first use.
    fn pool(&self) -> Result<bots::Pool, GameError> {
        let mut pool = self
            .inner
            .pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(p) = &*pool {
            return Ok(p.clone());
        }
        let started = bots::Pool::new(self.inner.config.bots.workers)
            .map_err(|e| GameError::Internal(format!("starting the bot workers: {e}")))?;
        *pool = Some(started.clone());
        Ok(started)
    }

    /// Load every unfinished game with a computer seated (found by a query), one after
    /// another, so that a computer whose decision it is resumes after a restart without anyone
    /// touching its game. A game where it is a person's move unloads again after the idle spell.
    pub async fn resume_bots(&self) -> Result<usize, GameError> {
        let ids = self.inner.store.unfinished_with_bots().await?;
        Ok(self.load_each(ids, "bot game not resumed").await)
    }

    /// Load each of `ids` in turn until shutdown; how many this node now runs. A game another
    /// node took meanwhile (several nodes) is not an error; any other failure is logged as
    /// `failed`.
    async fn load_each(&self, ids: Vec<Uuid>, failed: &str) -> usize {
        let mut loaded = 0;
        for id in ids {
            if self.inner.shutdown.is_cancelled() {
                break;
            }
            match self.get(id).await {
                Ok(_) => loaded += 1,
                Err(GameError::Elsewhere { node, .. }) => {
                    tracing::debug!(game = %id, %node, "game held by another node");
                }
                Err(e) => tracing::warn!(game = %id, error = %e, "{failed}"),
            }
        }
        loaded
    }

    /// Lock the tenancy of game `id`, creating it if needed. The tenancy returned is the one in the
    /// registry while the guard is held: an unloading game's tenancy removed meanwhile is not
    /// used (that would let a second task of the same game start beside the first).
    async fn lock_tenancy(
        &self,
        id: Uuid,
    ) -> (
        Arc<tokio::sync::Mutex<Tenancy>>,
        tokio::sync::OwnedMutexGuard<Tenancy>,
    ) {
        loop {
            let tenancy = self.lock_registry().entry(id).or_default().clone();
            let guard = tenancy.clone().lock_owned().await;
            let current = self
                .lock_registry()
                .get(&id)
                .is_some_and(|s| Arc::ptr_eq(s, &tenancy));
            if current {
                return (tenancy, guard);
            }
        }
    }

    /// Drop the tenancy of game `id` if nothing holds it and its task has stopped, so that the
    /// registry does not grow with every game ever touched. Done under the registry's lock
    /// with the tenancy's lock taken without waiting: a caller that holds the tenancy keeps it.
    fn forget(&self, id: Uuid) {
        let mut tenancies = self.lock_registry();
        let idle = tenancies.get(&id).is_some_and(|tenancy| {
            tenancy.try_lock().is_ok_and(|s| match &*s {
                Tenancy::Empty => true,
                Tenancy::Live(h) => h.is_closed(),
                Tenancy::Broken(_) => false,
            })
        });
        if idle {
            tenancies.remove(&id);
        }
    }

    fn lock_registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.inner
            .tenancies
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

/// A past state to compute: see [`Games::past`].
pub struct Past {
    pub id: Uuid,
    pub at: u64,
    replayer: Replayer,
    rows: Vec<ActionRow>,
}

impl Past {
    /// Replay up to the state asked for, checking every stored hash, and serialize its view.
    /// `Ok(None)` when `stop` said to stop first (a spent work budget).
    pub fn replay(mut self, stop: impl Fn() -> bool) -> Result<Option<(Game, String)>, GameError> {
        for row in &self.rows {
            if stop() {
                return Ok(None);
            }
            let corrupt = |e: &dyn std::fmt::Display| GameError::Corrupt(e.to_string());
            let seq = row.seq().map_err(|e| corrupt(&e))?;
            let side = row.side().map_err(|e| corrupt(&e))?;
            self.replayer
                .step_stored(seq, side, &row.action, &row.state_hash)
                .map_err(|e| corrupt(&e))?;
        }
        let game = self.replayer.into_game();
        let view =
            serde_json::to_string(&game.view()).map_err(|e| GameError::Internal(e.to_string()))?;
        Ok(Some((game, view)))
    }
}

fn row_id(row: &GameRow) -> Result<Uuid, GameError> {
    Uuid::parse_str(&row.id).map_err(|e| GameError::Internal(format!("game id {}: {e}", row.id)))
}

/// A replay's end.
struct Replayed {
    game: Game,
    /// The seq reached.
    seq: u64,
    /// The seq of the last snapshot at or before it (stored, or found on the way).
    last_snapshot: u64,
    /// The snapshots due on the way, `(seq, state JSON)`.
    found: Vec<(u64, String)>,
}

/// Replay stored rows on a blocking thread (a long log is CPU work that must not stall the
/// runtime's workers), noting the snapshots due on the way.
async fn replay_blocking(
    start: Start,
    rows: Vec<ActionRow>,
    every: u64,
) -> Result<Replayed, GameError> {
    let done = tokio::task::spawn_blocking(move || {
        let Start { mut replayer, from } = start;
        let corrupt = |e: &dyn std::fmt::Display| GameError::Corrupt(e.to_string());
        let (mut last, mut found) = (from, Vec::new());
        for row in &rows {
            let turn_before = replayer.game().state().turn;
            let seq = row.seq().map_err(|e| corrupt(&e))?;
            let side = row.side().map_err(|e| corrupt(&e))?;
            replayer
                .step_stored(seq, side, &row.action, &row.state_hash)
                .map_err(|e| corrupt(&e))?;
            let state = replayer.game().state();
            let depth = replayer.game().undo_depth();
            if snapshot_due(turn_before, state.turn, seq, last, every, depth) {
                let json =
                    serde_json::to_string(state).map_err(|e| GameError::Internal(e.to_string()))?;
                found.push((seq, json));
                last = seq;
            }
        }
        Ok(Replayed {
            seq: replayer.seq(),
            game: replayer.into_game(),
            last_snapshot: last,
            found,
        })
    })
    .await;
    done.map_err(|e| GameError::Internal(e.to_string()))?
}
