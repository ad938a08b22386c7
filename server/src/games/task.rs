//! The game task: the one owner of a game's rules state and sequence number. It takes commands
//! one at a time from its handle, so two actions can never race: an action is checked against
//! the seq it answers, applied by the rules, appended through the writer and — only once that
//! commit is confirmed — broadcast to every connection as shared, pre-serialized frames.
//!
//! The task ends on shutdown (between commands, so an action in flight always finishes its
//! write), when every handle is gone, or after an idle spell with no connection; the registry
//! rebuilds it from the log on demand.

use super::frames::{Snapshot, Update, events_frame, events_json};
use super::handle::{Attached, Claim, Command, GameError, Info};
use super::tokens::same_hash;
use crate::load::stages::StageTimes;
use crate::rules::{Action, Game, RuleError};
use crate::store::writer::{Entry, Writer};
use crate::store::{Store, now_ms, seats_of};
use siege_protocol::{Explanation, GameStatus, Side, You};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Updates buffered per game for slow connections; one that falls further behind is sent the
/// current state instead of the ones it missed.
const UPDATES: usize = 256;

/// What a game task shares with the rest of the server.
pub(crate) struct Links {
    pub writer: Writer,
    pub store: Store,
    /// Benchmarks only: where each action's time goes.
    pub stages: Option<Arc<StageTimes>>,
}

/// Everything a game task owns.
pub(crate) struct GameTask {
    id: Uuid,
    game: Game,
    /// How many actions the log holds.
    seq: u64,
    status: GameStatus,
    /// Side and token hash of every taken seat.
    seats: Vec<(Side, String)>,
    /// The current state, serialized.
    snapshot: Arc<Snapshot>,
    updates: broadcast::Sender<Arc<Update>>,
    writer: Writer,
    store: Store,
    /// Benchmarks only: where each action's time goes.
    stages: Option<Arc<StageTimes>>,
}

impl GameTask {
    /// A task for `game`, already at `seq`.
    pub(crate) fn new(
        id: Uuid,
        game: Game,
        seq: u64,
        status: GameStatus,
        seats: Vec<(Side, String)>,
        links: Links,
    ) -> Result<GameTask, GameError> {
        let Links {
            writer,
            store,
            stages,
        } = links;
        let snapshot = Arc::new(Snapshot::of(&game, seq).map_err(internal)?);
        let (updates, _) = broadcast::channel(UPDATES);
        Ok(GameTask {
            id,
            game,
            seq,
            status,
            seats,
            snapshot,
            updates,
            writer,
            store,
            stages,
        })
    }

    /// Serve commands until shutdown, until every handle is dropped, or until the game has
    /// been idle for `idle` with nobody connected.
    pub(crate) async fn run(
        mut self,
        mut commands: mpsc::Receiver<Command>,
        shutdown: CancellationToken,
        idle: Duration,
    ) {
        loop {
            let command = tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                command = commands.recv() => match command {
                    Some(c) => c,
                    None => break,
                },
                () = tokio::time::sleep(idle) => {
                    if self.updates.receiver_count() == 0 {
                        tracing::debug!(game = %self.id, "unloading idle game");
                        break;
                    }
                    continue;
                }
            };
            self.handle(command).await;
        }
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Attach { claim, reply } => {
                let _ = reply.send(self.attach(claim));
            }
            Command::Act {
                side,
                seq,
                action,
                reply,
            } => {
                let _ = reply.send(self.act(side, seq, action).await);
            }
            Command::TakeSeat {
                side,
                token_hash,
                reply,
            } => {
                let _ = reply.send(self.take_seat(side, token_hash).await);
            }
            Command::Info { reply } => {
                let _ = reply.send(Info {
                    status: self.status,
                    seats: seats_of(&self.seats),
                    state: self.snapshot.clone(),
                });
            }
            Command::Explain { action, reply } => {
                let _ = reply.send(self.explain(&action));
            }
        }
    }

    /// Whether the side to act could take `action` now and, if not, the refusal the rules give
    /// it (the engine's explanation, with the rule). Changes nothing: a refused action never
    /// touches the state, and a legal one is only looked up, not applied.
    fn explain(&self, action: &Action) -> Explanation {
        let side = self.game.to_act();
        let refusal = match side {
            None => Some(RuleError::GameOver),
            Some(s) if self.game.is_legal(s, action) => None,
            Some(s) => self.game.clone().apply(s, action).err(),
        };
        Explanation {
            seq: self.seq,
            side,
            legal: refusal.is_none(),
            code: refusal.as_ref().map(|e| e.code().to_string()),
            message: refusal.as_ref().map(ToString::to_string),
            rule: refusal
                .as_ref()
                .and_then(RuleError::rule)
                .map(str::to_string),
        }
    }

    fn attach(&self, claim: Claim) -> Result<Attached, GameError> {
        let you = match claim {
            Claim::Spectator => You::Spectator,
            Claim::Seat(hash) => self
                .seats
                .iter()
                .find(|(_, stored)| same_hash(stored, &hash))
                .map(|(side, _)| You::from(*side))
                .ok_or(GameError::BadToken)?,
        };
        Ok(Attached {
            you,
            state: self.snapshot.clone(),
            updates: self.updates.subscribe(),
        })
    }

    /// Check, apply, commit, then broadcast. A refusal or a failed commit changes nothing.
    async fn act(&mut self, side: Side, seq: u64, action: Action) -> Result<(), GameError> {
        if seq != self.seq {
            return Err(GameError::Stale {
                sent: seq,
                current: self.snapshot.clone(),
            });
        }
        let before = self.game.clone();
        let started = Instant::now();
        let events = self.game.apply(side, &action)?;
        let applied = started.elapsed();
        match self.commit(side, &action, &events, applied).await {
            Ok(update) => {
                self.seq = update.seq;
                self.snapshot = update.state.clone();
                if self.game.result().is_some() {
                    self.status = GameStatus::Finished;
                    tracing::info!(game = %self.id, seq = self.seq, "game over");
                }
                let _ = self.updates.send(Arc::new(update));
                Ok(())
            }
            Err(e) => {
                tracing::error!(game = %self.id, seq, error = %e, "action not committed");
                self.game = before;
                Err(e)
            }
        }
    }

    /// Serialize everything first, then append; the update is what the connections get.
    async fn commit(
        &self,
        side: Side,
        action: &Action,
        events: &[crate::rules::Event],
        applied: Duration,
    ) -> Result<Update, GameError> {
        let started = Instant::now();
        let seq = self.seq + 1;
        let events = events_json(events).map_err(internal)?;
        let state = Snapshot::of_sized(&self.game, seq, self.snapshot.frame_len() + 1024)
            .map_err(internal)?;
        let finished = self
            .game
            .result()
            .map(serde_json::to_string)
            .transpose()
            .map_err(internal)?;
        let st = self.game.state();
        let entry = Entry {
            game_id: self.id.to_string(),
            seq,
            side,
            action: serde_json::to_string(action).map_err(internal)?,
            events: events.clone(),
            state_hash: self.game.state_hash_hex(),
            turn: st.turn,
            phase: st.phase,
            at: now_ms(),
            finished,
        };
        let encoded = started.elapsed();
        self.writer.append(entry).await?;
        if let Some(stages) = &self.stages {
            stages.action(applied, encoded, started.elapsed() - encoded);
        }
        tracing::debug!(game = %self.id, seq, side = side.as_str(), action = action.kind(), "accepted");
        Ok(Update::new(
            seq,
            events_frame(seq, side.as_str(), &events),
            Arc::new(state),
            self.snapshot.clone(),
        ))
    }

    async fn take_seat(
        &mut self,
        side: Option<Side>,
        token_hash: String,
    ) -> Result<Side, GameError> {
        let taken = seats_of(&self.seats);
        let side = match side {
            Some(s) if taken.taken(s) => return Err(GameError::SeatTaken(s)),
            Some(s) => s,
            None => taken.free().ok_or(GameError::NoFreeSeat)?,
        };
        if !self.store.take_seat(self.id, side, &token_hash).await? {
            return Err(GameError::SeatTaken(side));
        }
        self.seats.push((side, token_hash));
        if self.status == GameStatus::Open && self.seats.len() >= 2 {
            self.status = GameStatus::Active;
        }
        tracing::info!(game = %self.id, side = side.as_str(), "seat taken");
        Ok(side)
    }
}

fn internal(e: impl std::fmt::Display) -> GameError {
    GameError::Internal(e.to_string())
}
