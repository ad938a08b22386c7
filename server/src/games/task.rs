//! The game task: the one owner of a game's rules state and sequence number. It takes commands
//! one at a time from its handle, so two actions can never race: an action is checked against
//! the seq it answers, applied by the rules, appended through the writer and — only once that
//! commit is confirmed — broadcast to every connection as shared, pre-serialized frames (made
//! while the commit is in flight, so that making them adds nothing to the round trip).
//!
//! No side acts before both seats are taken (R7). An action the engine cannot settle (a
//! runaway, an engine bug) is refused, logged loudly, and the game is held: marked in the store
//! and refusing every later action, never left hanging.
//!
//! The task ends on shutdown (between commands, so an action in flight always finishes its
//! write), when every handle is gone, or after an idle spell with no connection; the registry
//! rebuilds it from the log on demand.

use super::bots::Turn;
use super::clock::Clock;
use super::frames::{Snapshot, Update, events_frame, events_json};
use super::handle::{Attached, Claim, Command, GameError, Info, Presence};
use super::snapshot_due;
use super::tokens::same_hash;
use crate::notify::{Notifier, YourTurn};
use crate::probe::{ActionTiming, Probes};
use crate::rules::{Action, Game, HashVersion, RuleError};
use crate::store::writer::{Entry, Writer};
use crate::store::{Store, StoreError, now_ms, seats_of};
use axum::extract::ws::Utf8Bytes;
use siege_protocol::{Explanation, GameStatus, ServerFrame, Side, You, codes};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Updates buffered per game. Every connection takes updates from the channel as they come,
/// whether or not its socket keeps up (it has its own bounded outbox), so a few suffice; one
/// that still falls this far behind is sent the current state instead of the ones it missed.
const UPDATES: usize = 16;
/// Notices (clock frames) buffered per game; a connection that misses one gets the next.
const NOTICES: usize = 16;

/// What a game task shares with the rest of the server.
pub(crate) struct Links {
    pub writer: Writer,
    pub store: Store,
    /// Where each action's time is reported.
    pub probe: Probes,
    /// Within a turn, a snapshot at least every this many actions.
    pub snapshot_every: u64,
    /// The computer seats and where to show them the positions in which they are to act.
    pub bots: Bots,
    /// A timed game's clock, as stored.
    pub clock: Option<Clock>,
    /// Told when an action hands the decision to the other side.
    pub notifier: Notifier,
    /// In a game without a clock, how long the side to act may let the decision wait before
    /// the other side may claim the game as abandoned; `None`: never.
    pub abandon_after: Option<Duration>,
}

/// The computer seats of a game and the channel to their driver.
pub(crate) struct Bots {
    /// The levels of the computers seated, by side.
    pub seats: siege_protocol::Bots,
    /// The driver's channel, while a computer may still have to act.
    pub turns: Option<watch::Sender<Option<Turn>>>,
}

/// Where a game's log stands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Progress {
    /// How many actions the log holds.
    pub seq: u64,
    /// The seq of the last snapshot stored (0: none).
    pub last_snapshot: u64,
    /// How the log's state hashes are computed.
    pub version: HashVersion,
    /// The fencing number of the game's lease, when this node runs it as one of several
    /// (every append is conditioned on it); `None` for a single server.
    pub fence: Option<i64>,
}

/// Everything a game task owns.
pub(crate) struct GameTask {
    id: Uuid,
    game: Game,
    /// How many actions the log holds.
    seq: u64,
    /// The seq of the last snapshot stored.
    last_snapshot: u64,
    /// How the log's state hashes are computed.
    version: HashVersion,
    snapshot_every: u64,
    status: GameStatus,
    /// Side and token hash of every taken seat.
    seats: Vec<(Side, String)>,
    /// Why the game is held, once the engine has failed to settle one of its actions: every
    /// later action is refused.
    held: Option<String>,
    /// The current state, serialized.
    snapshot: Arc<Snapshot>,
    updates: broadcast::Sender<Arc<Update>>,
    writer: Writer,
    store: Store,
    /// Where each action's time is reported.
    probe: Probes,
    bots: Bots,
    /// A timed game's clock (times, not a timer: see [`super::clock`]).
    clock: Option<Clock>,
    /// Frames outside the action stream (clocks) for every connection.
    notices: broadcast::Sender<Utf8Bytes>,
    /// Told when an action hands the decision to the other side.
    notifier: Notifier,
    /// Players' connections open on each seat (Allied, Chinese): a player at the table is not
    /// sent a your-turn message.
    present: [Arc<AtomicUsize>; 2],
    /// See [`Links::abandon_after`].
    abandon_after: Option<Duration>,
    /// See [`Progress::fence`].
    fence: Option<i64>,
    /// The last update sent: the frames its connections asked of it are built for the next
    /// one while that one's commit is in flight (see [`Update::prepare`]). The broadcast
    /// channel keeps it alive anyway.
    last_update: Option<Arc<Update>>,
    /// Why this task must stop: an action was committed but its frames could not be built,
    /// so the task no longer matches what its connections can be sent. The game is loaded
    /// again, from its log, on its next touch.
    broken: Option<String>,
}

/// An action committed, not yet published.
#[derive(Debug)]
struct Accepted {
    update: Arc<Update>,
    /// Whether the action changed the clocks.
    clock_moved: bool,
}

/// The index of `side` in per-side arrays.
fn slot(side: Side) -> usize {
    match side {
        Side::Allied => 0,
        Side::Chinese => 1,
    }
}

impl GameTask {
    /// A task for `game`, already at `progress.seq`.
    pub(crate) fn new(
        id: Uuid,
        game: Game,
        progress: Progress,
        status: GameStatus,
        seats: Vec<(Side, String)>,
        links: Links,
    ) -> Result<GameTask, GameError> {
        let Links {
            writer,
            store,
            probe,
            snapshot_every,
            bots,
            clock,
            notifier,
            abandon_after,
        } = links;
        let seq = progress.seq;
        let snapshot = Arc::new(Snapshot::of(&game, seq).map_err(internal)?);
        let (updates, _) = broadcast::channel(UPDATES);
        let (notices, _) = broadcast::channel(NOTICES);
        Ok(GameTask {
            id,
            game,
            seq,
            last_snapshot: progress.last_snapshot,
            version: progress.version,
            snapshot_every,
            status,
            seats,
            held: None,
            snapshot,
            updates,
            writer,
            store,
            probe,
            bots,
            clock,
            notices,
            notifier,
            present: [Arc::default(), Arc::default()],
            abandon_after,
            fence: progress.fence,
            last_update: None,
            broken: None,
        })
    }

    /// Show the computer the position if it is a computer's decision (once per position).
    fn show_bots(&self) {
        let Some(turns) = &self.bots.turns else {
            return;
        };
        let Some(side) = self.game.to_act() else {
            return;
        };
        if self.bots.seats.level(side).is_none() {
            return;
        }
        turns.send_if_modified(|turn| {
            if turn.as_ref().is_some_and(|t| t.seq == self.seq) {
                return false;
            }
            *turn = Some(Turn {
                side,
                seq: self.seq,
                game: self.game.clone(),
            });
            true
        });
    }

    /// The `clock` frame of a timed game as of now.
    fn clock_frame(&self) -> Option<Utf8Bytes> {
        let clock = self.clock.as_ref()?;
        let frame: ServerFrame = ServerFrame::Clock {
            seq: self.seq,
            clock: clock.view(now_ms()),
        };
        serde_json::to_string(&frame).ok().map(Utf8Bytes::from)
    }

    /// Tell every connection the clocks changed.
    fn announce_clock(&self) {
        if let Some(frame) = self.clock_frame() {
            let _ = self.notices.send(frame);
        }
    }

    /// Refuse a claim on time unless the clock of the side to act has run out; the rules then
    /// check the rest (the claimant is the side waiting).
    fn check_claim(&self, side: Side) -> Result<(), GameError> {
        let Some(clock) = &self.clock else {
            return Err(RuleError::illegal(
                codes::NO_CLOCK,
                "",
                "this game has no clock: nobody can win on time",
            )
            .into());
        };
        let now = now_ms();
        match clock.out_of_time(now) {
            Some(out) if out != side => Ok(()),
            _ => {
                let other = side.other();
                let left = clock.left(other, now);
                Err(RuleError::illegal(
                    codes::TIME_LEFT,
                    "",
                    format!(
                        "the {other} player's clock has not run out ({} s left, or it is not running): there is no win on time to claim",
                        (left + 999) / 1000
                    ),
                )
                .into())
            }
        }
    }

    /// A game without a clock can still be abandoned: once the side to act has let
    /// the decision wait `abandon_after` (`--abandon-days`), the other side may claim the win
    /// with the same `claim_timeout`. How long it has waited is the store's (the listing's
    /// `waiting_since`), so it holds across restarts.
    async fn check_abandoned(&self, side: Side) -> Result<(), GameError> {
        let other = side.other();
        let refuse = |why: String| -> Result<(), GameError> {
            Err(RuleError::illegal(codes::NO_CLOCK, "", why).into())
        };
        let Some(after) = self.abandon_after else {
            return refuse("this game has no clock: nobody can win on time".into());
        };
        let days = after.as_secs_f64() / 86_400.0;
        let waited = match self.store.waiting(self.id).await? {
            Some((waiting, since)) if waiting == other => now_ms().saturating_sub(since),
            _ => {
                return refuse(format!(
                    "this game has no clock, and the decision is not the {other} player's: there is nothing to claim"
                ));
            }
        };
        let after_ms = i64::try_from(after.as_millis()).unwrap_or(i64::MAX);
        if waited >= after_ms {
            return Ok(());
        }
        let left_h = (after_ms - waited).div_euclid(3_600_000);
        refuse(format!(
            "this game has no clock: the {other} player's decision may be claimed as abandoned once it has waited {days:.0} days ({left_h} h to go)"
        ))
    }

    /// Serve commands until shutdown, until every handle is dropped, or until the game has
    /// been idle for `idle` with nobody connected.
    pub(crate) async fn run(
        mut self,
        mut commands: mpsc::Receiver<Command>,
        shutdown: CancellationToken,
        idle: Duration,
    ) {
        self.show_bots();
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
            if !self.handle(command).await {
                tracing::info!(game = %self.id, "game task stopped");
                break;
            }
        }
    }

    /// Serve one command; `false` when the task must stop.
    async fn handle(&mut self, command: Command) -> bool {
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
                let acted = self.act(side, seq, action).await;
                // Another node took the game's lease: it runs the game now, and this task
                // stops so that its connections go there.
                let fenced = matches!(&acted, Err(GameError::Store(StoreError::Fenced(_))));
                match acted {
                    Ok(accepted) => {
                        // The acting connection has the update with its answer; yielding lets
                        // it write its frames before this task wakes the other connections,
                        // the notifier and the computer (it waits on this thread otherwise).
                        let _ = reply.send(Ok(accepted.update.clone()));
                        tokio::task::yield_now().await;
                        self.publish(side, accepted);
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e));
                    }
                }
                if fenced {
                    tracing::warn!(game = %self.id, "the game's lease was taken by another node: stopping here");
                    return false;
                }
                if let Some(why) = &self.broken {
                    tracing::error!(game = %self.id, "stopping the game task: {why}");
                    return false;
                }
                self.show_bots();
            }
            Command::TakeSeat {
                side,
                token_hash,
                reply,
            } => {
                let taken = self.take_seat(side, token_hash).await;
                let fenced = matches!(&taken, Err(GameError::Store(StoreError::Fenced(_))));
                let _ = reply.send(taken);
                if fenced {
                    tracing::warn!(game = %self.id, "the game's lease was taken by another node: stopping here");
                    return false;
                }
            }
            Command::Info { reply } => {
                let _ = reply.send(Info {
                    status: self.status,
                    seats: seats_of(&self.seats),
                    bots: self.bots.seats.clone(),
                    state: self.snapshot.clone(),
                    clock: self.clock.as_ref().map(|c| c.view(now_ms())),
                });
            }
            Command::Explain { action, reply } => {
                let _ = reply.send(self.explain(&action));
            }
            Command::Stop => return false,
        }
        true
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
            presence: you
                .side()
                .map(|side| Presence::new(self.present[slot(side)].clone())),
            state: self.snapshot.clone(),
            updates: self.updates.subscribe(),
            clock: self.clock_frame(),
            notices: self.notices.subscribe(),
        })
    }

    /// Send an accepted action's update to every connection, and tell the clocks' listeners
    /// and the notifier what it changed.
    fn publish(&self, actor: Side, accepted: Accepted) {
        let _ = self.updates.send(accepted.update);
        if accepted.clock_moved {
            self.announce_clock();
        }
        self.hand_over(actor);
    }

    /// Check, apply and commit; the caller publishes. A refusal or a failed commit changes
    /// nothing. Nobody acts in a held game, nor before both seats are taken (R7).
    async fn act(&mut self, side: Side, seq: u64, action: Action) -> Result<Accepted, GameError> {
        if let Some(why) = &self.held {
            return Err(GameError::Corrupt(why.clone()));
        }
        let seats = seats_of(&self.seats);
        if !Side::BOTH.into_iter().all(|s| seats.taken(s)) {
            return Err(GameError::WaitingForOpponent);
        }
        if seq != self.seq {
            return Err(GameError::Stale {
                sent: seq,
                current: self.snapshot.clone(),
            });
        }
        if matches!(action, Action::ClaimTimeout) {
            if self.clock.is_some() {
                self.check_claim(side)?;
            } else {
                self.check_abandoned(side).await?;
            }
        }
        // What rolls a failed commit back: the state before (shared with what may be taken
        // back, not copied) and the undo history; not the cached legal list, for a case that
        // almost never happens.
        let started = Instant::now();
        let (events, before) = match self.game.apply_revertible(side, &action) {
            Ok(applied) => applied,
            Err(e) => return Err(self.refused(e, side, &action).await),
        };
        let applied = started.elapsed();
        let turn_before = before.state().turn;
        let clock_before = self.clock;
        let clock_moved = match &mut self.clock {
            Some(c) => c.after_action(
                self.game.to_act(),
                turn_before,
                self.game.state().turn,
                now_ms(),
            ),
            None => false,
        };
        match self
            .commit(side, &action, &events, applied, turn_before, clock_moved)
            .await
        {
            Ok((update, snapshot)) => {
                self.seq = update.seq;
                if snapshot {
                    self.last_snapshot = update.seq;
                }
                self.snapshot = update.state.clone();
                if self.game.result().is_some() {
                    self.status = GameStatus::Finished;
                    tracing::info!(game = %self.id, seq = self.seq, "game over");
                }
                let update = Arc::new(update);
                self.last_update = Some(update.clone());
                Ok(Accepted {
                    update,
                    clock_moved,
                })
            }
            Err(e) if self.broken.is_some() => {
                // Committed: the state stays as applied, and the task stops (see `broken`).
                tracing::error!(game = %self.id, seq, error = %e, "action committed but not framed");
                Err(e)
            }
            Err(e) => {
                tracing::error!(game = %self.id, seq, error = %e, "action not committed");
                self.game.revert(before);
                self.clock = clock_before;
                Err(e)
            }
        }
    }

    /// After `actor`'s action is in the log: if it handed the decision to the other side, tell
    /// the notifier (which never waits). The actor's own small steps, each leaving the decision
    /// with the actor, tell nothing.
    fn hand_over(&self, actor: Side) {
        if let Some(next) = self.game.to_act()
            && next != actor
        {
            self.notifier.your_turn(
                YourTurn {
                    game: self.id,
                    side: next,
                    seq: self.seq,
                },
                self.present[slot(next)].load(Ordering::Acquire) > 0,
            );
        }
    }

    /// What a refusal by the rules means for the game. A runaway — the engine did not settle
    /// the action within its bound — is an engine bug, never the player's fault: it is logged
    /// loudly, the game is marked held in the store and refuses every later action. The rules
    /// left the game as it was before the action.
    async fn refused(&mut self, e: RuleError, side: Side, action: &Action) -> GameError {
        if let RuleError::Runaway { rounds } = e {
            let why = format!(
                "the engine did not settle the {side} player's {} within {rounds} rounds after entry {}",
                action.kind(),
                self.seq
            );
            tracing::error!(
                game = %self.id,
                seq = self.seq,
                side = side.as_str(),
                action = action.kind(),
                "ENGINE RUNAWAY, game held: {why}"
            );
            if let Err(store) = self.store.hold(self.id, &why).await {
                tracing::error!(game = %self.id, error = %store, "the game could not be marked held in the store");
            }
            self.held = Some(why);
        }
        GameError::Rule(e)
    }

    /// Serialize the log entry, hand it to the writer, build the frames while the disk
    /// syncs, then wait for the commit; the update is what the connections get, and the flag
    /// says whether a snapshot was stored with the action. Nothing is sent before the commit
    /// is confirmed (PROTOCOL.md: durable before anyone sees an action): building the frames
    /// during the commit only takes their cost off the round trip.
    async fn commit(
        &mut self,
        side: Side,
        action: &Action,
        events: &[crate::rules::Event],
        applied: Duration,
        turn_before: u8,
        clock_moved: bool,
    ) -> Result<(Update, bool), GameError> {
        let started = Instant::now();
        let seq = self.seq + 1;
        let events = events_json(events).map_err(internal)?;
        let events_frame = events_frame(seq, side.as_str(), &events);
        let finished = self
            .game
            .result()
            .map(serde_json::to_string)
            .transpose()
            .map_err(internal)?;
        let st = self.game.state();
        let snapshot = snapshot_due(
            turn_before,
            st.turn,
            seq,
            self.last_snapshot,
            self.snapshot_every,
            self.game.undo_depth(),
        )
        .then(|| serde_json::to_string(st))
        .transpose()
        .map_err(internal)?;
        let snapshotted = snapshot.is_some();
        let entry = Entry {
            game_id: self.id.to_string(),
            seq,
            side,
            action: serde_json::to_string(action).map_err(internal)?,
            events,
            state_hash: hex::encode(self.game.state_hash_v(self.version)),
            turn: st.turn,
            phase: st.phase(),
            at: now_ms(),
            finished,
            snapshot,
            clock: self.clock.filter(|_| clock_moved),
            to_act: self.game.to_act(),
            fence: self.fence,
        };
        let encoded = started.elapsed();
        let pending = self.writer.submit(entry).await?;
        // Let the writer take the entry and start its commit before the frames are built, so
        // that building them overlaps the disk's sync (the writer's task was woken onto this
        // thread and would otherwise wait for this one to block).
        tokio::task::yield_now().await;
        let framing = Instant::now();
        let asked = self
            .last_update
            .as_ref()
            .map(|u| u.asked())
            .unwrap_or_default();
        let framed = Snapshot::next(&self.game, seq, Some(&self.snapshot)).map(|state| {
            let update = Update::new(seq, events_frame, Arc::new(state), self.snapshot.clone());
            update.prepare(asked);
            update
        });
        let framed_in = framing.elapsed();
        pending.committed().await?;
        self.probe.action(ActionTiming {
            apply: applied,
            encode: encoded,
            frame: framed_in,
            store: started.elapsed() - encoded,
        });
        let update = match framed {
            Ok(update) => update,
            Err(e) => {
                let why =
                    format!("action {seq} was committed, but its state would not serialize: {e}");
                self.broken = Some(why.clone());
                return Err(GameError::Internal(why));
            }
        };
        tracing::debug!(game = %self.id, seq, side = side.as_str(), action = action.kind(), "accepted");
        Ok((update, snapshotted))
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
        if !self
            .store
            .take_seat(self.id, side, &token_hash, self.fence)
            .await?
        {
            return Err(GameError::SeatTaken(side));
        }
        self.seats.push((side, token_hash));
        if self.status == GameStatus::Open && self.seats.len() >= 2 {
            self.status = GameStatus::Active;
        }
        // Both seats taken: the clock of the side to act starts now.
        if self.seats.len() >= 2 {
            let to_act = self.game.to_act();
            if let Some(clock) = &mut self.clock
                && clock.start(to_act, now_ms())
            {
                let started = *clock;
                self.store.save_clock(self.id, &started).await?;
                self.announce_clock();
            }
        }
        tracing::info!(game = %self.id, side = side.as_str(), "seat taken");
        Ok(side)
    }
}

fn internal(e: impl std::fmt::Display) -> GameError {
    GameError::Internal(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Games, GamesConfig};
    use crate::rules::Scenario;
    use crate::store::NewGame;
    use std::sync::Mutex;

    /// A stored game with the given seats taken and its task, on a fresh database.
    async fn seated(sides: &[Side]) -> (GameTask, Store, Writer, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("siege-task-{}", Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&format!("sqlite://{}", dir.join("t.db").display()))
            .await
            .unwrap();
        let id = Uuid::new_v4();
        store
            .create_game(&NewGame {
                id,
                name: "g".into(),
                seed: [9; 32],
                seed_commitment: "c".into(),
                side: sides[0],
                token_hash: "first".into(),
                position: None,
                hash_version: HashVersion::LATEST,
                bot: None,
                own_bot: None,
                creator: None,
                max_open: None,
                access: crate::store::Access {
                    invite_hash: None,
                    guests: true,
                },
                account: None,
                first_to_act: None,
            })
            .await
            .unwrap();
        let mut seats = vec![(sides[0], "first".to_string())];
        for &side in &sides[1..] {
            assert!(store.take_seat(id, side, "second", None).await.unwrap());
            seats.push((side, "second".to_string()));
        }
        let (writer, _) = Writer::start(store.clone());
        let scenario = Arc::new(Scenario::load_default().unwrap());
        let status = if seats.len() == 2 {
            GameStatus::Active
        } else {
            GameStatus::Open
        };
        let task = GameTask::new(
            id,
            Game::new(scenario.clone(), [9; 32]),
            Progress {
                seq: 0,
                last_snapshot: 0,
                version: HashVersion::LATEST,
                fence: None,
            },
            status,
            seats,
            Links {
                writer: writer.clone(),
                store: store.clone(),
                probe: Probes::off(),
                snapshot_every: crate::games::SNAPSHOT_EVERY,
                bots: Bots {
                    seats: siege_protocol::Bots::default(),
                    turns: None,
                },
                clock: None,
                notifier: Notifier::off(),
                abandon_after: None,
            },
        )
        .unwrap();
        (task, store, writer, dir)
    }

    #[tokio::test]
    async fn no_side_acts_before_both_seats_are_taken_r7() {
        let (mut task, _store, writer, dir) = seated(&[Side::Allied]).await;
        let err = task
            .act(Side::Allied, 0, Action::DeployDefault)
            .await
            .unwrap_err();
        assert!(matches!(err, GameError::WaitingForOpponent), "{err}");
        assert_eq!(task.seq, 0, "nothing was applied");
        // Once the opponent is seated the same action is accepted.
        task.take_seat(None, "second".into()).await.unwrap();
        task.act(Side::Allied, 0, Action::DeployDefault)
            .await
            .unwrap();
        assert_eq!(task.seq, 1);
        writer.close().await;
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Captured log output.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_runaway_is_logged_the_game_held_in_the_store_and_later_actions_refused() {
        let log = Captured::default();
        let sink = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let (mut task, store, writer, dir) = seated(&[Side::Allied, Side::Chinese]).await;
        let id = task.id;
        let before = task.game.state_hash();
        // An ordinary refusal holds nothing.
        let err = task
            .refused(
                RuleError::NotYourTurn {
                    side: Side::Chinese,
                    to_act: Some(Side::Allied),
                },
                Side::Chinese,
                &Action::DeployDefault,
            )
            .await;
        assert!(matches!(
            err,
            GameError::Rule(RuleError::NotYourTurn { .. })
        ));
        assert!(task.held.is_none());
        // A runaway from the engine: the player is told `runaway`, the game is held.
        let rounds = crate::rules::play::SETTLE_LIMIT;
        let err = task
            .refused(
                RuleError::Runaway { rounds },
                Side::Allied,
                &Action::DeployDefault,
            )
            .await;
        let GameError::Rule(rule) = &err else {
            panic!("{err}")
        };
        assert_eq!(rule.code(), siege_protocol::codes::RUNAWAY);
        let logged = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        assert!(
            logged.contains("ERROR") && logged.contains("ENGINE RUNAWAY"),
            "{logged}"
        );
        let row = store.game(id).await.unwrap().unwrap();
        assert!(row.held.as_deref().unwrap_or("").contains("did not settle"));
        // Every later action is refused at once, legal or not, and nothing changes.
        let err = task
            .act(Side::Allied, 0, Action::DeployDefault)
            .await
            .unwrap_err();
        assert!(matches!(err, GameError::Corrupt(_)), "{err}");
        assert_eq!((task.seq, task.game.state_hash()), (0, before));
        // A registry asked for the game later finds it held, not live.
        let games = Games::for_tests(
            &store,
            &writer,
            GamesConfig {
                max_connections: 4,
                idle: Duration::from_secs(60),
                ..GamesConfig::default()
            },
        );
        assert!(matches!(games.get(id).await, Err(GameError::Corrupt(_))));
        writer.close().await;
        let _ = std::fs::remove_dir_all(dir);
    }
}
