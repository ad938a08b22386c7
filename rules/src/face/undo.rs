//! Taking back decisions. A player may take back their own decisions since the last die was
//! rolled or since the opponent last decided — nothing has been revealed in between, so taking
//! one back is as if it had never been made. The game keeps, outside the state, the position
//! before each such decision; `undo` is a legal action like any other, logged and replayed like
//! any other, and the state (and so its hash) is exactly the position it restores.
//!
//! What may be taken back is a function of the log alone: replaying the same actions from the
//! same start builds the same history. A game loaded from a saved state starts with none, so a
//! state may be saved for loading only where the history is empty ([`History::depth`] = 0).

use crate::mechanics::setup;
use crate::position::action::{Action, LeaderUse};
use crate::position::ctx::names;
use crate::position::event::{Event, EventKind};
use crate::position::state::{EntryKind, State};
use crate::vocabulary::scenario::Scenario;
use serde::Serialize;
use siege_protocol::Side;
use std::sync::Arc;

/// Decisions kept for taking back, at most; older ones are forgotten. A long run of decisions
/// without a die (a whole setup placed unit by unit) stays within a few hundred kilobytes.
pub const LIMIT: usize = 100;

/// One decision that may be taken back.
#[derive(Debug)]
struct Taken {
    /// The position before it.
    before: State,
    /// Who decided it.
    side: Side,
    /// Its number in the log.
    seq: u64,
    /// It in words.
    text: String,
}

/// The decisions that may be taken back, oldest first; all of them one side's. Cloning is
/// cheap: the positions are shared.
#[derive(Clone, Debug, Default)]
pub struct History {
    taken: Vec<Arc<Taken>>,
}

/// What the side to act would take back with `undo`, for the view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UndoView {
    /// The log number of the decision.
    pub seq: u64,
    /// The decision in words.
    pub text: String,
}

impl History {
    /// How many decisions are kept (of whichever side).
    pub fn depth(&self) -> usize {
        self.taken.len()
    }

    /// Whether `side` may take a decision back now.
    pub fn can_undo(&self, side: Side) -> bool {
        self.taken.last().is_some_and(|t| t.side == side)
    }

    /// What `side` would take back.
    pub fn offer(&self, side: Side) -> Option<UndoView> {
        self.taken
            .last()
            .filter(|t| t.side == side)
            .map(|t| UndoView {
                seq: t.seq,
                text: t.text.clone(),
            })
    }

    /// Record `side`'s decision `action`, numbered `seq`, which turned `before` into `after`
    /// with `events`: a die rolled forgets everything (nothing before a roll can be taken
    /// back); a decision of the other side than the kept ones forgets theirs.
    pub fn record(
        &mut self,
        scn: &Scenario,
        side: Side,
        seq: u64,
        action: &Action,
        before: State,
        after: &State,
        events: &[Event],
    ) {
        if before.dice != after.dice {
            self.taken.clear();
            return;
        }
        if self.taken.last().is_some_and(|t| t.side != side) {
            self.taken.clear();
        }
        let text = describe(scn, &before, action, events);
        self.taken.push(Arc::new(Taken {
            before,
            side,
            seq,
            text,
        }));
        if self.taken.len() > LIMIT {
            self.taken.remove(0);
        }
    }

    /// Take back `side`'s last decision: the position before it and the `undone` event of the
    /// action numbered `seq` that takes it back; `None` if `side` has nothing to take back.
    pub fn undo(&mut self, side: Side) -> Option<(State, Event)> {
        if !self.can_undo(side) {
            return None;
        }
        let t = self.taken.pop()?;
        let (before, seq, text) = match Arc::try_unwrap(t) {
            Ok(t) => (t.before, t.seq, t.text),
            Err(t) => (t.before.clone(), t.seq, t.text.clone()),
        };
        let who = match side {
            Side::Allied => "The Allies take",
            Side::Chinese => "The Chinese take",
        };
        let event = Event {
            kind: EventKind::Undone { seqs: vec![seq] },
            text: format!("{who} back action {seq}: {text}"),
        };
        Some((before, event))
    }
}

/// A decision in words, for the Undo button: what it did (its first event, "Volunteers 1 is
/// placed at 1513"), or what was chosen when it changed nothing on the board yet.
fn describe(scn: &Scenario, before: &State, action: &Action, events: &[Event]) -> String {
    let name = |u| scn.counters.get(u).name.clone();
    let chosen = match action {
        Action::SelectUnit { unit } => Some(format!("select {}", name(*unit))),
        Action::ChooseArea { area } => Some(format!(
            "choose {} to set up in",
            setup::area_title(scn, area)
        )),
        Action::SelectEntry { kind } => Some(format!(
            "choose {} to bring on",
            match kind {
                EntryKind::Boxer => "Boxers",
                EntryKind::ReducedBoxer => "reduced Boxers",
                EntryKind::Imperial => "Imperials",
            }
        )),
        Action::SelectStack { hex } => Some(format!("select the stack at {hex}")),
        Action::UnselectUnit { unit } => Some(format!("leave {} out of the stack", name(*unit))),
        Action::Attack { hex } => Some(format!("begin an attack on {hex}")),
        Action::AddDefender { hex } => Some(format!("add {hex} to the attack")),
        Action::AddAttacker { unit } => Some(format!("add {} to the attack", name(*unit))),
        Action::AddAttackers { units } => Some(format!("add {} to the attack", names(scn, units))),
        Action::RemoveAttacker { unit } => Some(format!("take {} out of the attack", name(*unit))),
        Action::AddArtillery { unit } => Some(format!("add {} to the attack", name(*unit))),
        Action::RemoveArtillery { unit } => Some(format!("take {} out of the attack", name(*unit))),
        Action::SetLeaderUse { leader, leader_use } => Some(format!(
            "{} lends his {}",
            name(*leader),
            match leader_use {
                LeaderUse::Strength => "strength",
                LeaderUse::Modifier => "die modifier",
            }
        )),
        Action::CancelAttack => Some("cancel the attack".to_string()),
        Action::EndPhase => Some(format!("end the {}", before.phase.title())),
        Action::Pass => Some("pass".to_string()),
        _ => None,
    };
    chosen
        .or_else(|| {
            events
                .iter()
                .find(|e| {
                    !matches!(
                        e.kind,
                        EventKind::PhaseBegan { .. }
                            | EventKind::TurnBegan { .. }
                            | EventKind::Skipped { .. }
                    )
                })
                .map(|e| e.text.clone())
        })
        .unwrap_or_else(|| action.kind().replace('_', " "))
}
