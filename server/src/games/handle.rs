//! The handle on a game task: a cheap clone that connections and HTTP handlers use to talk to
//! the one task that owns the game. Every request is a [`Command`] with a oneshot reply; state
//! changes reach every connection through the game's broadcast channel.

use super::frames::{Snapshot, Update};
use crate::rules::{Action, RuleError};
use crate::store::StoreError;
use siege_protocol::{Explanation, GameStatus, Seats, Side, You};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::{broadcast, mpsc, oneshot};
use uuid::Uuid;

/// Who a connection says it is.
#[derive(Clone, Debug)]
pub enum Claim {
    /// The hash of a seat's token.
    Seat(String),
    Spectator,
}

/// A player's connection to its seat, counted while it lives: the game task asks whether the
/// side it hands the decision to is at the table, which needs no your-turn e-mail (the page
/// tells the player itself). Dropped with the connection.
#[derive(Debug)]
pub struct Presence(Arc<AtomicUsize>);

impl Presence {
    /// Count one more connection on the seat whose count is `count`.
    pub fn new(count: Arc<AtomicUsize>) -> Presence {
        count.fetch_add(1, Ordering::AcqRel);
        Presence(count)
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What an attached connection starts from: the current state and the updates after it,
/// taken in the same step of the game task so that nothing falls between them.
#[derive(Debug)]
pub struct Attached {
    pub you: You,
    /// A player's presence at its seat (none for a spectator), kept as long as the connection.
    pub presence: Option<Presence>,
    pub state: Arc<Snapshot>,
    pub updates: broadcast::Receiver<Arc<Update>>,
    /// A timed game's `clock` frame as of attaching.
    pub clock: Option<axum::extract::ws::Utf8Bytes>,
    /// Frames outside the action stream: the clocks when they change.
    pub notices: broadcast::Receiver<axum::extract::ws::Utf8Bytes>,
}

/// A game's public facts for `GET /api/games/{id}`.
#[derive(Clone, Debug)]
pub struct Info {
    pub status: GameStatus,
    pub seats: Seats,
    /// The computer players seated.
    pub bots: siege_protocol::Bots,
    pub state: Arc<Snapshot>,
    /// A timed game's clocks.
    pub clock: Option<siege_protocol::ClockView>,
}

/// Why a game refused a request.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The action answered an older state; here is the current one.
    #[error("the action answers state {sent}, but the game is at state {}", current.seq)]
    Stale { sent: u64, current: Arc<Snapshot> },
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error("no seat of this game has that token")]
    BadToken,
    #[error("the {0} seat is taken")]
    SeatTaken(Side),
    #[error("both seats are taken")]
    NoFreeSeat,
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A state or action that would not serialize; nothing was changed.
    #[error("internal error: {0}")]
    Internal(String),
    #[error("no such game")]
    NotFound,
    /// The stored log does not replay, or the engine did not settle one of its actions: the
    /// game is held, not repaired.
    #[error("the game is held: {0}")]
    Corrupt(String),
    /// A seat is still free: no side may act before both players are seated (R7).
    #[error("the game has not begun: no side may act until both seats are taken (R7)")]
    WaitingForOpponent,
    #[error("the log has {len} entries; there is no state after {at}")]
    OutOfRange { at: u64, len: u64 },
    #[error("this game has as many connections as the server allows")]
    TooManyConnections,
    /// The creator already has this many games waiting for an opponent or under way with a
    /// computer seated.
    #[error(
        "you already have {0} games waiting for an opponent or under way against the computer; wait until one is joined or finished"
    )]
    TooManyOpen(u32),
    #[error("the server is shutting down")]
    ShuttingDown,
    /// Another node of several runs this game now (it holds the game's lease): ask it, or ask
    /// again once the lease has passed.
    #[error("game is run by another server node ({node}); try again")]
    Elsewhere { node: String, addr: String },
    /// The task has stopped (idle unload or shutdown); ask the registry again.
    #[error("the game task has stopped")]
    Gone,
}

/// A request to a game task.
#[derive(Debug)]
pub enum Command {
    Attach {
        claim: Claim,
        reply: oneshot::Sender<Result<Attached, GameError>>,
    },
    Act {
        side: Side,
        seq: u64,
        action: Action,
        /// The update the action made, for the acting connection to send at once.
        reply: oneshot::Sender<Result<Arc<Update>, GameError>>,
    },
    TakeSeat {
        side: Option<Side>,
        token_hash: String,
        reply: oneshot::Sender<Result<Side, GameError>>,
    },
    Info {
        reply: oneshot::Sender<Info>,
    },
    Explain {
        action: Action,
        reply: oneshot::Sender<Explanation>,
    },
    /// Stop the task now (its game is being held as broken).
    Stop,
}

/// The handle: clone freely.
#[derive(Clone, Debug)]
pub struct GameHandle {
    pub id: Uuid,
    pub(crate) tx: mpsc::Sender<Command>,
    /// Open connections, shared with their guards, for the per-game limit.
    connections: Arc<AtomicUsize>,
    max_connections: usize,
    /// The fencing number of the lease this node runs the game under (several nodes), for the
    /// writes made beside the task (a chat line) to be fenced as the task's own are.
    fence: Option<i64>,
}

/// Holds one of a game's connection places until dropped.
#[derive(Debug)]
pub struct ConnectionGuard(Arc<AtomicUsize>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl GameHandle {
    pub(crate) fn new(
        id: Uuid,
        tx: mpsc::Sender<Command>,
        max_connections: usize,
        fence: Option<i64>,
    ) -> GameHandle {
        GameHandle {
            id,
            tx,
            connections: Arc::new(AtomicUsize::new(0)),
            max_connections,
            fence,
        }
    }

    /// The fencing number of the lease the game runs under here; `None` on a single server.
    pub fn fence(&self) -> Option<i64> {
        self.fence
    }

    /// Whether the task behind this handle has stopped.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Take a connection place, or `None` when the game has as many as allowed.
    pub fn admit(&self) -> Option<ConnectionGuard> {
        let n = self.connections.fetch_add(1, Ordering::AcqRel);
        let guard = ConnectionGuard(self.connections.clone());
        (n < self.max_connections).then_some(guard)
    }

    /// How many connections the game has now (expiry leaves alone a game somebody is at).
    pub fn connection_count(&self) -> usize {
        self.connections.load(Ordering::Acquire)
    }

    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, GameError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(make(reply))
            .await
            .map_err(|_| GameError::Gone)?;
        answer.await.map_err(|_| GameError::Gone)
    }

    /// Attach a connection as the seat whose token hashes to the claim, or as a spectator.
    pub async fn attach(&self, claim: Claim) -> Result<Attached, GameError> {
        self.ask(|reply| Command::Attach { claim, reply }).await?
    }

    /// Take `action` for `side`, answering state `seq`. `Ok` once it is committed, with the
    /// update it made: the acting connection sends it at once, before the game broadcasts it
    /// to every connection (where the acting one skips it, having sent it).
    pub async fn act(
        &self,
        side: Side,
        seq: u64,
        action: Action,
    ) -> Result<Arc<Update>, GameError> {
        self.ask(|reply| Command::Act {
            side,
            seq,
            action,
            reply,
        })
        .await?
    }

    /// Give a seat (the free one, or `side`) to the holder of `token_hash`.
    pub async fn take_seat(
        &self,
        side: Option<Side>,
        token_hash: String,
    ) -> Result<Side, GameError> {
        self.ask(|reply| Command::TakeSeat {
            side,
            token_hash,
            reply,
        })
        .await?
    }

    /// Stop the task (between commands: an action in flight finishes its write first).
    pub async fn stop(&self) {
        let _ = self.tx.send(Command::Stop).await;
    }

    /// The game's status, seats and current state.
    pub async fn info(&self) -> Result<Info, GameError> {
        self.ask(|reply| Command::Info { reply }).await
    }

    /// Whether the side to act could take `action` now, and if not why; changes nothing.
    pub async fn explain(&self, action: Action) -> Result<Explanation, GameError> {
        self.ask(|reply| Command::Explain { action, reply }).await
    }
}
