//! One table of the load run: a game created over HTTP, both seats joined, two players and
//! its spectators on their own WebSockets. The players choose random legal actions with the
//! engine's random player (from the JSON they are sent, knowing no rules) after a think time,
//! and time each round trip — action sent → the new state received. By default the players ask
//! for patches, as the page does, and keep their state message up to date by applying them;
//! with `--full-states` they read full `state` frames. The acting player notes when it got
//! each state on the table's [`Clock`]; every spectator measures how much later it got the
//! same seq (the fan-out delay). Every frame's size is recorded, by audience and type.

use super::stats::{Errors, FrameSizes, Samples};
use super::wire::{self, Api, Frame, Head, Socket, WireError};
use crate::rules::warnings::action_of;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::value::RawValue;
use siege_protocol::ClientFrame;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::{Semaphore, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// No answer within this long is counted as an error (`timeout`) rather than waited for.
const HANG: Duration = Duration::from_secs(30);
/// A refused action is retried after this pause, so a refusal cannot become a flood.
const AFTER_REFUSAL: Duration = Duration::from_millis(10);

/// How the tables of a run play.
#[derive(Clone, Debug)]
pub struct Plan {
    pub api: Api,
    pub spectators: usize,
    /// Mean think time before each action; each one is drawn uniformly from half to one and a
    /// half times this, so that a thousand tables do not act in lockstep.
    pub think: Duration,
    /// Spectators ask for RFC 6902 patch frames after their first state.
    pub patches: bool,
    /// Players ask for patch frames after their first state (as the page does).
    pub player_patches: bool,
    pub seed: u64,
    /// Players stop once the game reaches this seq (seeding unfinished games).
    pub stop_at_seq: Option<u64>,
}

/// When each state reached the player who acted, by seq. A map, not a vector indexed by seq:
/// a server that sent an absurd seq must cost an entry, not a giant allocation.
#[derive(Debug, Default)]
pub struct Clock(Mutex<BTreeMap<u64, Instant>>);

impl Clock {
    fn mark(&self, seq: u64, at: Instant) {
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seen.insert(seq, at);
    }

    fn get(&self, seq: u64) -> Option<Instant> {
        let seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seen.get(&seq).copied()
    }
}

/// What the tables of a run measured.
#[derive(Debug, Default)]
pub struct Outcome {
    pub rtt: Samples,
    pub fanout: Samples,
    pub errors: Errors,
    /// Actions accepted (their new state received by the player who sent them).
    pub actions: u64,
    pub games_started: u64,
    pub games_finished: u64,
    /// Spectator receipts with no matching acting-player receipt (should stay 0).
    pub fanout_unmatched: u64,
    /// Sizes of the frames the players received while playing.
    pub player_frames: FrameSizes,
    /// Sizes of the frames the spectators received while playing.
    pub spectator_frames: FrameSizes,
}

impl Outcome {
    pub fn merge(&mut self, o: Outcome) {
        self.rtt.merge(o.rtt);
        self.fanout.merge(o.fanout);
        self.errors.merge(o.errors);
        self.actions += o.actions;
        self.games_started += o.games_started;
        self.games_finished += o.games_finished;
        self.fanout_unmatched += o.fanout_unmatched;
        self.player_frames.merge(o.player_frames);
        self.spectator_frames.merge(o.spectator_frames);
    }
}

/// A table with every socket joined and its first state read.
pub struct Table {
    players: Vec<(Socket, Utf8Bytes)>,
    spectators: Vec<(Socket, u64)>,
}

/// Create a game, take both seats and connect everyone; `gate` bounds how many connects run
/// at once across the run.
pub async fn set_up(plan: &Plan, name: &str, gate: &Arc<Semaphore>) -> Result<Table, WireError> {
    let (created, joined) = {
        let _permit = gate.acquire().await.map_err(|_| WireError::Closed)?;
        let created = plan.api.create(name).await?;
        let joined = plan.api.join(&created.game_id).await?;
        (created, joined)
    };
    let url = plan.api.ws_url(&format!("/ws/games/{}", created.game_id));
    let mut players = Vec::new();
    for token in [created.token, joined.token] {
        let _permit = gate.acquire().await.map_err(|_| WireError::Closed)?;
        let mut socket = wire::connect(&url).await?;
        let first: ClientFrame<&serde_json::value::RawValue> = ClientFrame::Join {
            token: Some(token),
            patches: plan.player_patches,
        };
        wire::send(&mut socket, &first).await?;
        let state = first_state(&mut socket).await?;
        players.push((socket, state));
    }
    let mut connecting = Vec::with_capacity(plan.spectators);
    for _ in 0..plan.spectators {
        let (url, gate, patches) = (url.clone(), gate.clone(), plan.patches);
        connecting.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await.map_err(|_| WireError::Closed)?;
            let mut socket = wire::connect(&url).await?;
            wire::send(&mut socket, &ClientFrame::Spectate { patches }).await?;
            let state = first_state(&mut socket).await?;
            let seq = Head::parse(state.as_str())?.seq.unwrap_or(0);
            Ok::<_, WireError>((socket, seq))
        }));
    }
    let mut spectators = Vec::with_capacity(plan.spectators);
    for c in connecting {
        spectators.push(c.await.map_err(|e| WireError::Frame(e.to_string()))??);
    }
    Ok(Table {
        players,
        spectators,
    })
}

async fn first_state(socket: &mut Socket) -> Result<Utf8Bytes, WireError> {
    let text = tokio::time::timeout(HANG, wire::next_text(socket))
        .await
        .map_err(|_| WireError::Frame("no first state".into()))??;
    let head = Head::parse(text.as_str())?;
    if head.kind != "state" {
        return Err(WireError::Frame(format!("expected a state, got {text}")));
    }
    Ok(text)
}

/// Play the table until its game ends, it reaches the plan's stop seq, or `deadline`.
/// Returns the outcome; `games_finished` is 1 when the game ended.
pub async fn play(plan: &Plan, table: Table, deadline: Instant, seed: u64) -> Outcome {
    let clock = Arc::new(Clock::default());
    let (last_tx, last_rx) = watch::channel(None::<u64>);
    let last_tx = Arc::new(last_tx);
    let mut players = Vec::new();
    for (i, (socket, first)) in table.players.into_iter().enumerate() {
        let player = Player {
            followed: None,
            patches: plan.player_patches,
            started: false,
            rng: ChaCha8Rng::seed_from_u64(seed.wrapping_mul(2).wrapping_add(i as u64)),
            think: plan.think,
            stop_at_seq: plan.stop_at_seq,
            clock: clock.clone(),
            last: last_tx.clone(),
            deadline,
            out: Outcome::default(),
        };
        players.push(tokio::spawn(player.run(socket, first)));
    }
    let mut watchers = Vec::new();
    for (socket, seq) in table.spectators {
        watchers.push(tokio::spawn(watch_table(
            socket,
            seq,
            clock.clone(),
            last_rx.clone(),
            deadline,
        )));
    }
    drop(last_tx);
    let mut out = Outcome {
        games_started: 1,
        ..Outcome::default()
    };
    let mut finished = false;
    for p in players {
        match p.await {
            Ok(mut o) => {
                // Both players see the end; the game counts once.
                finished |= o.games_finished > 0;
                o.games_finished = 0;
                out.merge(o);
            }
            Err(_) => out.errors.add("task_panicked"),
        }
    }
    out.games_finished = u64::from(finished);
    for w in watchers {
        let Ok((mut fanout, late, errors, sizes)) = w.await else {
            out.errors.add("task_panicked");
            continue;
        };
        out.spectator_frames.merge(sizes);
        // Receipts that came before the acting player's are matched now that it has finished.
        for (seq, at) in late {
            match clock.get(seq) {
                Some(acted) => fanout.record(at.saturating_duration_since(acted)),
                None => out.fanout_unmatched += 1,
            }
        }
        out.fanout.merge(fanout);
        out.errors.merge(errors);
    }
    out
}

/// One seat.
struct Player {
    /// With patches: the latest state message, kept up to date by applying each patch.
    followed: Option<Followed>,
    patches: bool,
    /// The first state (read while setting up) has been handled.
    started: bool,
    rng: ChaCha8Rng,
    think: Duration,
    stop_at_seq: Option<u64>,
    clock: Arc<Clock>,
    /// The seq at which the players stopped, for the spectators.
    last: Arc<watch::Sender<Option<u64>>>,
    deadline: Instant,
    out: Outcome,
}

impl Player {
    async fn run(mut self, mut socket: Socket, first: Utf8Bytes) -> Outcome {
        let mut text = first;
        let mut at = Instant::now();
        // The action in flight: the seq it answered and when it was sent.
        let mut pending: Option<(u64, Instant)> = None;
        let mut last_state = text.clone();
        loop {
            match self.on_frame(&mut socket, &text, at, &mut pending).await {
                Step::Read => {}
                Step::State => last_state = text.clone(),
                Step::Again => {
                    tokio::time::sleep(AFTER_REFUSAL).await;
                    text = last_state.clone();
                    continue;
                }
                Step::Stop => break,
            }
            // Waiting for our own action's state: at most HANG. Waiting for the opponent: until
            // the deadline, but never longer than the opponent's longest think plus HANG — an
            // opponent that stopped (an error, or a seeded game with no deadline) must not hold
            // this player for ever.
            let opponent = Instant::now() + HANG + self.think.mul_f64(1.5);
            let until = if pending.is_some() {
                Instant::now() + HANG
            } else {
                self.deadline.min(opponent)
            };
            let read = tokio::time::timeout_at(until, wire::next_text(&mut socket)).await;
            text = match read {
                Ok(Ok(t)) => t,
                Ok(Err(e)) => {
                    self.out.errors.add(e.kind());
                    break;
                }
                Err(_) if pending.is_some() => {
                    self.out.errors.add("timeout");
                    break;
                }
                Err(_) if until < self.deadline => {
                    self.out.errors.add("opponent_silent");
                    break;
                }
                Err(_) => break,
            };
            at = Instant::now();
        }
        let _ = socket.close(None).await;
        self.out
    }

    /// React to one frame received at `at`.
    async fn on_frame(
        &mut self,
        socket: &mut Socket,
        text: &Utf8Bytes,
        at: Instant,
        pending: &mut Option<(u64, Instant)>,
    ) -> Step {
        let frame = match Frame::parse(text.as_str()) {
            Ok(f) => f,
            Err(e) => {
                self.out.errors.add(e.kind());
                return Step::Stop;
            }
        };
        // Every frame after the first state (read while setting up) counts.
        if self.started {
            self.out.player_frames.record(&frame.kind, text.len());
        }
        self.started = true;
        match frame.kind.as_ref() {
            "state" | "patch" => {}
            "error" => {
                let code = frame.code.as_deref().unwrap_or("unknown");
                self.out.errors.add(format!("ws_{code}"));
                *pending = None;
                // A stale refusal is followed by a fresh state; any other, try again.
                return if code == "stale" {
                    Step::Read
                } else {
                    Step::Again
                };
            }
            _ => return Step::Read,
        }
        // The state to decide on: read from the frame itself (a full state read partially), or
        // from the state message kept up to date by the patches.
        let decision = if self.patches {
            match self.follow(&frame, text.as_str()) {
                Ok(d) => d,
                Err(kind) => {
                    self.out.errors.add(kind);
                    return Step::Stop;
                }
            }
        } else {
            let (Some(seq), Some(view)) = (frame.seq, &frame.view) else {
                self.out.errors.add("bad_frame");
                return Step::Stop;
            };
            let raw = frame.legal_actions.as_deref().unwrap_or_default();
            let Ok(actions) = raw.iter().map(|r| raw_action_of(r.get())).collect() else {
                self.out.errors.add("unknown_action");
                return Step::Stop;
            };
            Decision {
                seq,
                phase: view.phase,
                to_act: view.to_act,
                actions,
            }
        };
        let seq = decision.seq;
        if let Some((sent, t0)) = *pending
            && seq > sent
        {
            self.out.rtt.record(at.saturating_duration_since(t0));
            self.out.actions += 1;
            self.clock.mark(seq, at);
            *pending = None;
        }
        let stop_here = self.stop_at_seq.is_some_and(|s| seq >= s);
        if decision.to_act.is_none() || stop_here {
            if decision.to_act.is_none() {
                self.out.games_finished = 1;
            }
            self.last.send_replace(Some(seq));
            return Step::Stop;
        }
        if decision.actions.is_empty() || pending.is_some() {
            return Step::State;
        }
        if !self.think.is_zero() {
            let ms = self.think.as_secs_f64() * 1000.0;
            let pause = Duration::from_secs_f64(self.rng.random_range(ms * 0.5..ms * 1.5) / 1000.0);
            if Instant::now() + pause >= self.deadline {
                return Step::Stop;
            }
            tokio::time::sleep(pause).await;
        } else if Instant::now() >= self.deadline {
            return Step::Stop;
        }
        let chosen = self
            .choose(decision.phase, &decision.actions)
            .and_then(|i| {
                if self.patches {
                    let legal = &self.followed.as_ref()?.legal;
                    legal.get(i).map(str::to_string)
                } else {
                    let raw = frame.legal_actions.as_ref()?;
                    raw.get(i).map(|r| r.get().to_string())
                }
            });
        let Some(chosen) = chosen else {
            self.out.errors.add("no_legal_action");
            return Step::Stop;
        };
        let Ok(raw) = serde_json::value::RawValue::from_string(chosen) else {
            self.out.errors.add("bad_frame");
            return Step::Stop;
        };
        let sent = Instant::now();
        if let Err(e) = wire::send(socket, &ClientFrame::Action { seq, action: &*raw }).await {
            self.out.errors.add(e.kind());
            return Step::Stop;
        }
        *pending = Some((seq, sent));
        Step::State
    }

    /// Keep the state message up to date: a full `state` (its `text`) replaces it, a `patch`
    /// (its `seq` and `ops`, read with the frame's head) is applied to it. Returns what to
    /// decide on, or the kind of error.
    fn follow(&mut self, frame: &Frame<'_>, text: &str) -> Result<Decision, &'static str> {
        if frame.kind == "state" {
            let legal = frame.legal_actions.as_deref().unwrap_or_default();
            self.followed = Some(Followed::of_state(text, legal)?);
        } else {
            let (Some(seq), Some(ops)) = (frame.seq, frame.ops.as_deref()) else {
                return Err("bad_frame");
            };
            let followed = self.followed.as_mut().ok_or("patch_before_state")?;
            followed.apply(ops).map_err(|_| "bad_patch")?;
            if followed.doc["seq"].as_u64() != Some(seq) {
                return Err("bad_patch");
            }
        }
        let followed = self.followed.as_mut().ok_or("bad_frame")?;
        let seq = followed.doc["seq"].as_u64().ok_or("bad_frame")?;
        let view: wire::ViewHead =
            serde::Deserialize::deserialize(&followed.doc["view"]).map_err(|_| "bad_frame")?;
        Ok(Decision {
            seq,
            phase: view.phase,
            to_act: view.to_act,
            actions: followed.actions()?,
        })
    }

    /// The index of the engine's random player's choice among the legal actions.
    fn choose(
        &mut self,
        phase: siege_protocol::Phase,
        actions: &[crate::rules::Action],
    ) -> Option<usize> {
        let chosen = crate::rules::random::choose(&mut self.rng, phase, actions)?;
        actions.iter().position(|a| std::ptr::eq(a, chosen))
    }
}

/// The action of a legal list's element as a full `state` frame carries it: read straight
/// from its text unless it has a warning to leave out.
fn raw_action_of(text: &str) -> Result<crate::rules::Action, serde_json::Error> {
    if text.contains(r#""warning""#) {
        action_of(&serde_json::from_str(text)?)
    } else {
        serde_json::from_str(text)
    }
}

/// A player's state message as the patches keep it: the legal list apart from the rest, as
/// its elements' text — a replaced list is scanned, not built into values and dropped again,
/// and the element chosen is sent back as it came — with its actions read once, until a patch
/// changes it.
struct Followed {
    /// The state message without its legal list.
    doc: serde_json::Value,
    legal: LegalText,
    actions: Option<Arc<[crate::rules::Action]>>,
}

impl Followed {
    /// From a full `state` frame: its text and its legal list as the frame's head read it.
    fn of_state(text: &str, legal: &[&RawValue]) -> Result<Followed, &'static str> {
        let mut doc: serde_json::Value = serde_json::from_str(text).map_err(|_| "bad_frame")?;
        doc.as_object_mut()
            .ok_or("bad_frame")?
            .remove("legal_actions");
        Ok(Followed {
            doc,
            legal: LegalText::of_elements(legal),
            actions: None,
        })
    }

    /// Apply a patch's operations in order: those on the legal list to the list, the others
    /// to the rest of the message.
    fn apply(&mut self, ops: &[wire::Op<'_>]) -> Result<(), siege_protocol::patch::PatchError> {
        use siege_protocol::patch::{PatchError, apply_op};
        for op in ops {
            let (kind, path) = (op.op.as_ref(), op.path.as_ref());
            let bad = |what: &str| PatchError(format!("{what}: {kind} at {path}"));
            if path == "/legal_actions" {
                let value = op
                    .value
                    .filter(|_| kind != "remove")
                    .ok_or_else(|| bad("no list"))?;
                self.legal = LegalText::of(value.get()).ok_or_else(|| bad("not a list"))?;
                self.actions = None;
            } else if let Some(at) = path.strip_prefix("/legal_actions/") {
                let index = if at == "-" {
                    self.legal.len()
                } else {
                    at.parse::<usize>().map_err(|_| bad("bad index"))?
                };
                let value = || op.value.map(RawValue::get).ok_or_else(|| bad("no value"));
                match kind {
                    "add" if index <= self.legal.len() => self.legal.insert(index, value()?),
                    "replace" if index < self.legal.len() => self.legal.replace(index, value()?),
                    "remove" if index < self.legal.len() => self.legal.remove(index),
                    _ => return Err(bad("out of range")),
                }
                self.actions = None;
            } else if path.is_empty() {
                return Err(bad("the whole message replaced"));
            } else {
                let value = op
                    .value
                    .map(|v| serde_json::from_str(v.get()))
                    .transpose()
                    .map_err(|_| bad("bad value"))?;
                apply_op(&mut self.doc, kind, path, value)?;
            }
        }
        Ok(())
    }

    /// The legal list's actions, read from its elements when it last changed.
    fn actions(&mut self) -> Result<Arc<[crate::rules::Action]>, &'static str> {
        if let Some(a) = &self.actions {
            return Ok(a.clone());
        }
        let read = self
            .legal
            .iter()
            .map(raw_action_of)
            .collect::<Result<Arc<[crate::rules::Action]>, _>>()
            .map_err(|_| "unknown_action")?;
        self.actions = Some(read.clone());
        Ok(read)
    }
}

/// A legal list as its elements' text: one string holding them, and where each lies in it.
/// Patched elements are appended to the string (what they replaced stays until the whole list
/// is replaced), so a list of hundreds of actions costs two allocations, not one per action.
#[derive(Debug, Default)]
struct LegalText {
    text: String,
    items: Vec<std::ops::Range<usize>>,
}

impl LegalText {
    /// A JSON array's elements, or `None` if `array` is not one.
    fn of(array: &str) -> Option<LegalText> {
        let elements: Vec<&RawValue> = serde_json::from_str(array).ok()?;
        Some(LegalText::of_elements(&elements))
    }

    /// The elements' text, copied into one string.
    fn of_elements(elements: &[&RawValue]) -> LegalText {
        let mut list = LegalText {
            text: String::with_capacity(elements.iter().map(|e| e.get().len()).sum()),
            items: Vec::with_capacity(elements.len()),
        };
        for e in elements {
            let range = list.push_text(e.get());
            list.items.push(range);
        }
        list
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    fn get(&self, i: usize) -> Option<&str> {
        self.items.get(i).and_then(|r| self.text.get(r.clone()))
    }

    /// The elements in order (each range was cut from `text` where it was pushed).
    fn iter(&self) -> impl Iterator<Item = &str> {
        self.items.iter().filter_map(|r| self.text.get(r.clone()))
    }

    fn push_text(&mut self, element: &str) -> std::ops::Range<usize> {
        let start = self.text.len();
        self.text.push_str(element);
        start..self.text.len()
    }

    /// Callers check `i <= len`.
    fn insert(&mut self, i: usize, element: &str) {
        let range = self.push_text(element);
        self.items.insert(i, range);
    }

    /// Callers check `i < len`.
    fn replace(&mut self, i: usize, element: &str) {
        let range = self.push_text(element);
        self.items[i] = range;
    }

    /// Callers check `i < len`.
    fn remove(&mut self, i: usize) {
        self.items.remove(i);
    }
}

/// What a player decides on: the state's seq, phase, whose decision it is, and the legal
/// actions read (the chosen one is sent back as the server wrote it).
struct Decision {
    seq: u64,
    phase: siege_protocol::Phase,
    to_act: Option<siege_protocol::Side>,
    actions: Arc<[crate::rules::Action]>,
}

/// What a player does after a frame.
enum Step {
    /// Read the next frame.
    Read,
    /// The frame was a state (kept in case an action on it is refused); read the next one.
    State,
    /// The last action was refused: decide again on the last state.
    Again,
    Stop,
}

/// A spectator: note when each new seq arrives and how long after the acting player got it.
/// Returns the delays, the receipts that came before the acting player's (matched later), the
/// errors and the sizes of the frames it received.
async fn watch_table(
    mut socket: Socket,
    mut seen: u64,
    clock: Arc<Clock>,
    mut last: watch::Receiver<Option<u64>>,
    deadline: Instant,
) -> (Samples, Vec<(u64, Instant)>, Errors, FrameSizes) {
    let (mut fanout, mut early, mut errors) = (Samples::new(), Vec::new(), Errors::default());
    let mut sizes = FrameSizes::default();
    let mut until = deadline;
    let mut players_gone = false;
    loop {
        if last.borrow().is_some_and(|l| seen >= l) {
            break;
        }
        let text = tokio::select! {
            read = tokio::time::timeout_at(until, wire::next_text(&mut socket)) => match read {
                Ok(Ok(t)) => t,
                Ok(Err(e)) => {
                    errors.add(e.kind());
                    break;
                }
                Err(_) => break,
            },
            changed = last.changed(), if !players_gone => {
                if changed.is_err() {
                    // Both players have stopped: whatever is still on its way comes soon.
                    players_gone = true;
                    until = until.min(Instant::now() + HANG);
                }
                continue;
            }
        };
        let at = Instant::now();
        let head = Head::parse(text.as_str());
        if let Ok(h) = &head {
            sizes.record(&h.kind, text.len());
        }
        match head {
            Ok(h) if h.kind == "state" || h.kind == "patch" => {
                let seq = h.seq.unwrap_or(0);
                if seq > seen {
                    seen = seq;
                    match clock.get(seq) {
                        Some(acted) => fanout.record(at.saturating_duration_since(acted)),
                        None => early.push((seq, at)),
                    }
                }
            }
            Ok(h) if h.kind == "error" => errors.add("ws_spectator_error"),
            Ok(_) => {}
            Err(e) => errors.add(e.kind()),
        }
    }
    let _ = socket.close(None).await;
    (fanout, early, errors, sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A player reading full `state` frames (`--full-states`) reads an element with its warning
    /// as the action without it, as a player reading patches does (it stopped with
    /// `unknown_action` at the first warning before).
    #[test]
    fn a_full_state_element_with_a_warning_is_its_action() {
        for text in [
            r#"{"type":"end_phase","warning":{"text":"t","rule":"15"}}"#,
            r#"{"type":"end_phase"}"#,
        ] {
            assert_eq!(
                raw_action_of(text).unwrap(),
                crate::rules::Action::EndPhase,
                "{text}"
            );
        }
        assert!(raw_action_of(r#"{"type":"no_such_action"}"#).is_err());
        assert!(raw_action_of(r#"{"type":"no_such_action","warning":{}}"#).is_err());
    }

    /// A legal list kept as text follows a patch's element operations as the list of values
    /// would: each element is the text the server wrote, spaces inside it kept, around it not.
    #[test]
    fn a_legal_list_kept_as_text_is_patched_as_a_list_of_values() {
        let array =
            r#"[ {"type":"end_phase"} ,{"type":"select_unit","unit": 3},{"type":"resolve"}]"#;
        let mut list = LegalText::of(array).unwrap();
        let mut values: Vec<serde_json::Value> = serde_json::from_str(array).unwrap();
        let elements = |l: &LegalText| -> Vec<serde_json::Value> {
            l.iter().map(|e| serde_json::from_str(e).unwrap()).collect()
        };
        assert_eq!(list.get(1), Some(r#"{"type":"select_unit","unit": 3}"#));
        assert_eq!(elements(&list), values);
        list.remove(0);
        values.remove(0);
        list.insert(2, r#"{"type":"undo"}"#);
        values.insert(2, serde_json::json!({"type": "undo"}));
        list.replace(0, r#"{"type":"cancel_attack"}"#);
        values[0] = serde_json::json!({"type": "cancel_attack"});
        assert_eq!(elements(&list), values);
        assert_eq!(list.get(3), None);
        assert!(LegalText::of(r#"{"type":"end_phase"}"#).is_none());
        assert!(LegalText::of("[1,").is_none());
        assert_eq!(LegalText::of("[]").unwrap().len(), 0);
    }
}
