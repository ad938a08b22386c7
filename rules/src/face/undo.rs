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
    /// The position before it (shared with the server's [`crate::face::game::Revert`] while
    /// the decision is being stored).
    before: Arc<State>,
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

    /// Forget everything: a die was rolled, and nothing before a roll can be taken back.
    pub fn forget(&mut self) {
        self.taken.clear();
    }

    /// Record `side`'s decision `action`, numbered `seq`, which left `before` with `events` and
    /// rolled no die (else [`History::forget`]): a decision of the other side than the kept
    /// ones forgets theirs.
    pub fn record(
        &mut self,
        scn: &Scenario,
        side: Side,
        seq: u64,
        action: &Action,
        before: Arc<State>,
        events: &[Event],
    ) {
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
            Ok(t) => (Arc::unwrap_or_clone(t.before), t.seq, t.text),
            Err(t) => (State::clone(&t.before), t.seq, t.text.clone()),
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
        Action::EndPhase => Some(format!("end the {}", before.phase().title())),
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

#[cfg(test)]
mod tests {
    use crate::face::game::Game;
    use crate::face::random::Bot;
    use crate::face::testkit::scenario;
    use crate::position::action::Action;
    use crate::position::event::EventKind;
    use crate::position::state_hash::HashVersion;
    use crate::vocabulary::error::RuleError;
    use siege_protocol::{Phase, Side};

    fn new_game() -> Game {
        Game::new(scenario(), [7; 32])
    }

    /// The first legal action of `side` of the kind `kind`.
    fn first(game: &Game, side: Side, kind: &str) -> Action {
        game.legal_actions(side)
            .into_iter()
            .find(|a| a.kind() == kind)
            .unwrap_or_else(|| panic!("a legal {kind}"))
    }

    #[test]
    fn undo_takes_back_each_decision_in_turn_to_the_exact_position_before_it() {
        let mut game = new_game();
        assert!(!game.legal_actions(Side::Allied).contains(&Action::Undo));
        assert_eq!(game.view().undo, None);
        let mut hashes = vec![game.state_hash()];
        for kind in ["select_unit", "choose_area", "place"] {
            let a = first(&game, Side::Allied, kind);
            game.apply(Side::Allied, &a).unwrap();
            hashes.push(game.state_hash());
        }
        assert_eq!(game.legal_actions(Side::Allied).last(), Some(&Action::Undo));
        let offer = game
            .view()
            .undo
            .expect("the view says what undo takes back");
        assert_eq!(offer.seq, 3);
        assert!(offer.text.contains("is placed at"), "{}", offer.text);
        for back in (0..3).rev() {
            let events = game.apply(Side::Allied, &Action::Undo).unwrap();
            assert_eq!(
                game.state_hash(),
                hashes[back],
                "back to before action {}",
                back + 1
            );
            assert!(
                matches!(&events[..], [e] if e.kind == EventKind::Undone { seqs: vec![back as u64 + 1] })
            );
        }
        // Nothing is left to take back: refused, and nothing changes.
        assert!(!game.legal_actions(Side::Allied).contains(&Action::Undo));
        let before = game.state_hash();
        assert!(game.apply(Side::Allied, &Action::Undo).is_err());
        assert_eq!(game.state_hash(), before);
        assert_eq!(
            game.seq(),
            6,
            "three decisions and three take-backs are in the log"
        );
    }

    #[test]
    fn undo_is_offered_only_to_the_side_that_decided_and_only_until_a_die_is_rolled() {
        let mut game = new_game();
        game.apply(Side::Allied, &Action::DeployDefault).unwrap();
        game.apply(Side::Allied, &Action::EndPhase).unwrap();
        // The Allied setup is over: the Chinese may not take it back, nor the Allies now.
        assert_eq!(game.to_act(), Some(Side::Chinese));
        assert!(!game.legal_actions(Side::Chinese).contains(&Action::Undo));
        assert!(matches!(
            game.apply(Side::Allied, &Action::Undo),
            Err(RuleError::NotYourTurn { .. })
        ));
        assert!(game.apply(Side::Chinese, &Action::Undo).is_err());
        game.apply(Side::Chinese, &Action::DeployDefault).unwrap();
        assert!(game.legal_actions(Side::Chinese).contains(&Action::Undo));
        game.apply(Side::Chinese, &Action::EndPhase).unwrap();
        assert_eq!(game.state().phase(), Phase::BigGun);
        let place = first(&game, Side::Chinese, "place_gun");
        game.apply(Side::Chinese, &place).unwrap();
        assert!(game.legal_actions(Side::Chinese).contains(&Action::Undo));
        let place = first(&game, Side::Chinese, "place_gun");
        game.apply(Side::Chinese, &place).unwrap();
        let fire = first(&game, Side::Chinese, "fire");
        game.apply(Side::Chinese, &fire).unwrap();
        // A shot rolled dice: nothing before it may be taken back.
        assert_eq!(game.undo_depth(), 0);
        assert!(!game.legal_actions(Side::Chinese).contains(&Action::Undo));
        assert_eq!(game.view().undo, None);
    }

    /// A log with take-backs in it, replayed from the start — or from any position saved where
    /// nothing could be taken back — gives the same states, offers and events.
    #[test]
    fn replaying_a_log_with_undos_gives_the_same_states_and_offers() {
        let mut game = new_game();
        let mut bot = Bot::new(11, Vec::new());
        let mut log: Vec<(Side, Action)> = Vec::new();
        let mut seen: Vec<([u8; 32], bool, String)> = Vec::new();
        let mut undos = 0;
        while log.len() < 600 && game.result().is_none() {
            let side = game.to_act().expect("someone acts");
            let legal = game.legal_actions(side);
            let action = if legal.contains(&Action::Undo) && log.len().is_multiple_of(5) {
                undos += 1;
                Action::Undo
            } else {
                bot.choose(&game, &legal).expect("an action").clone()
            };
            let events = game.apply(side, &action).unwrap();
            log.push((side, action));
            seen.push((
                game.state_hash(),
                game.legal_actions(side).contains(&Action::Undo),
                serde_json::to_string(&events).unwrap(),
            ));
        }
        assert!(undos >= 10, "the game took back {undos} decisions");
        let mut replay = new_game();
        let mut saved: Vec<(u64, crate::position::state::State)> = Vec::new();
        for (i, (side, action)) in log.iter().enumerate() {
            let events = replay.apply_trusted(*side, action).unwrap();
            let (hash, undo, words) = &seen[i];
            assert_eq!(replay.state_hash(), *hash, "action {}", i + 1);
            assert_eq!(replay.legal_actions(*side).contains(&Action::Undo), *undo);
            assert_eq!(&serde_json::to_string(&events).unwrap(), words);
            if replay.undo_depth() == 0 && saved.last().is_none_or(|(s, _)| replay.seq() >= s + 80)
            {
                saved.push((replay.seq(), replay.state().clone()));
            }
        }
        assert!(saved.len() >= 2);
        for (seq, state) in saved {
            let mut loaded = Game::from_state(scenario(), state).at_seq(seq);
            for (i, (side, action)) in log.iter().enumerate().skip(seq as usize) {
                let events = loaded.apply_trusted(*side, action).unwrap();
                assert_eq!(
                    loaded.state_hash(),
                    seen[i].0,
                    "from {seq}, action {}",
                    i + 1
                );
                assert_eq!(serde_json::to_string(&events).unwrap(), seen[i].2);
            }
        }
    }

    #[test]
    fn revert_returns_the_game_and_what_it_may_take_back() {
        let mut game = new_game();
        let a = first(&game, Side::Allied, "select_unit");
        game.apply(Side::Allied, &a).unwrap();
        let hash = game.state_hash();
        let b = first(&game, Side::Allied, "choose_area");
        let (_, revert) = game.apply_revertible(Side::Allied, &b).unwrap();
        assert_eq!(
            crate::position::state_hash::hash(revert.state(), HashVersion::Json),
            hash
        );
        assert_eq!(game.undo_depth(), 2);
        game.revert(revert);
        assert_eq!(
            (game.state_hash(), game.seq(), game.undo_depth()),
            (hash, 1, 1)
        );
        assert_eq!(game.view().undo.map(|u| u.seq), Some(1));
    }
}
