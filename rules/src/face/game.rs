//! The game: the rules engine's public face (`Game::new`, `legal_actions`, `apply`,
//! `view`). It owns the state and the scenario it is played on; every decision goes through
//! [`Game::apply`], which refuses anything not in [`Game::legal_actions`] with an error citing
//! the rule and changes nothing, or applies it and returns the events in words.
//!
//! Besides the state, a game keeps what the log alone decides but the state does not hold: how
//! many actions it has applied (its `seq`) and the decisions the side to act may still take
//! back (`face/undo.rs`). Both are rebuilt exactly by replaying the log.

use crate::face::explain;
use crate::face::undo::{History, UndoView};
use crate::face::view::{self, View};
use crate::face::warnings::{self, Offered};
use crate::mechanics::{resign, timeout};
use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::Event;
use crate::position::state::{GameResult, Loc, State};
use crate::position::state_hash::HashVersion;
use crate::position::step_id::StepId;
use crate::sequence::play;
use crate::vocabulary::dice::Dice;
use crate::vocabulary::error::RuleError;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;
use std::sync::Arc;

/// A game of Siege at Peking.
#[derive(Clone, Debug)]
pub struct Game {
    scenario: Arc<Scenario>,
    state: State,
    /// The legal actions of the side to act, computed at most once per state and only when
    /// asked for: `apply` checks against them and `legal_actions` hands them out; a trusted
    /// replay never needs them.
    legal: std::sync::OnceLock<Vec<Action>>,
    /// How many actions this game has applied since its start: its place in the log.
    seq: u64,
    /// The decisions that may still be taken back.
    history: History,
}

/// What [`Game::revert`] needs to return a game to where it was before an action, for an
/// action applied but not stored. It shares the position before the action with what may be
/// taken back, so keeping it costs no copy of the state.
#[derive(Clone, Debug)]
pub struct Revert {
    before: Arc<State>,
    seq: u64,
    history: History,
}

/// Whether [`Game::apply_keeping`] checks an action against the legal list first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Check {
    /// A player's action: refused, with the rule that refuses it, unless legal.
    Legal,
    /// An action from a log whose state hashes the caller checks ([`Game::apply_trusted`]).
    Trusted,
}

impl Revert {
    /// The state before the action.
    pub fn state(&self) -> &State {
        &self.before
    }
}

impl Game {
    /// A new game at the start of the Allied setup (22), its dice seeded with `seed`.
    pub fn new(scenario: Arc<Scenario>, seed: [u8; 32]) -> Game {
        let units = scenario
            .counters
            .counters
            .iter()
            .map(|c| crate::position::state::UnitState {
                loc: if c.side == Side::Allied {
                    Loc::Unplaced
                } else {
                    Loc::OffMap
                },
                reduced: false,
                marks: Default::default(),
            })
            .collect();
        let state = State {
            turn: 0,
            slot: StepId::AlliedSetup,
            step: StepId::AlliedSetup.fresh(),
            units,
            ruins: Vec::new(),
            fortifications: Vec::new(),
            mines_left: scenario.counters.markers.mines,
            control: vec![Side::Allied; scenario.map.victory_hexes().len()],
            pending: Vec::new(),
            declaration: None,
            last_combat: None,
            big_guns: Vec::new(),
            sniper_used: false,
            charge_points: 0,
            withdrawal_rolled: Vec::new(),
            withdrawal_allowed: Vec::new(),
            restores_left: 0,
            custom_start: false,
            absent: Vec::new(),
            dice: Dice::from_seed(seed),
            board: Default::default(),
        };
        Game::from_state(scenario, state)
    }

    /// A game resumed from a state (a custom start from the analysis board, or a saved state).
    pub fn from_state(scenario: Arc<Scenario>, state: State) -> Game {
        Game {
            scenario,
            state,
            legal: std::sync::OnceLock::new(),
            seq: 0,
            history: History::default(),
        }
    }

    /// The same game, numbered as if `seq` actions had brought it here: for a game loaded from
    /// a state saved after `seq` actions of its log. Such a state must have been saved with
    /// nothing to take back ([`Game::undo_depth`] = 0), since the history is not part of it.
    pub fn at_seq(mut self, seq: u64) -> Game {
        self.seq = seq;
        self
    }

    /// How many actions this game has applied since its start (or since the `seq` it was
    /// loaded at): the log number of the last one.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// How many decisions are kept for taking back. A saved state loads with none, so a saved
    /// state gives the same game as the replayed log only where this is 0.
    pub fn undo_depth(&self) -> usize {
        self.history.depth()
    }

    /// Return to where the game was before the action `revert` was returned with, as if it had
    /// never been applied: for an action applied but not stored.
    pub fn revert(&mut self, revert: Revert) {
        self.state = Arc::unwrap_or_clone(revert.before);
        self.seq = revert.seq;
        self.history = revert.history;
        self.legal = std::sync::OnceLock::new();
    }

    /// What the side to act would take back with `undo`, if anything.
    pub fn undo_offer(&self) -> Option<UndoView> {
        self.to_act().and_then(|side| self.history.offer(side))
    }

    /// A game starting from a custom position (the analysis board) rather than the setup of
    /// section 22, its dice seeded with `seed`. Both players see `custom_start` in the view.
    pub fn from_position(
        scenario: Arc<Scenario>,
        position: &crate::face::custom::Position,
        seed: [u8; 32],
    ) -> Result<Game, crate::face::custom::PositionError> {
        let built = position.build(&scenario, seed)?;
        Ok(Game::from_state(scenario, built.state))
    }

    /// The scenario the game is played on.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The current state.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The side whose decision it is, or `None` once the game is over.
    pub fn to_act(&self) -> Option<Side> {
        play::to_act(&self.state)
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.state.result()
    }

    /// Every action `side` may take now: empty for the side not to act and after the end.
    /// `undo` comes last, when `side` may take a decision back.
    pub fn legal_actions(&self, side: Side) -> Vec<Action> {
        if self.to_act() != Some(side) {
            return Vec::new();
        }
        let mut legal = self.legal().to_vec();
        if self.history.can_undo(side) {
            legal.push(Action::Undo);
        }
        legal
    }

    /// The legal actions of `side` as offered on the wire: each with the warning of a loss it
    /// would cause, where it has one (`face/warnings.rs`).
    pub fn offered(&self, side: Side) -> Vec<Offered> {
        warnings::annotate(&self.scenario, &self.state, side, self.legal_actions(side))
    }

    /// The legal actions of the side to act (computed once per state).
    fn legal(&self) -> &[Action] {
        self.legal
            .get_or_init(|| play::legal(&self.scenario, &self.state))
    }

    /// Whether `action` is legal for `side` now, without copying the list.
    pub fn is_legal(&self, side: Side, action: &Action) -> bool {
        self.to_act() == Some(side)
            && match action {
                Action::Undo => self.history.can_undo(side),
                _ => self.legal().contains(action),
            }
    }

    /// Apply `side`'s `action`. Refused actions change nothing and say which rule refused them.
    pub fn apply(&mut self, side: Side, action: &Action) -> Result<Vec<Event>, RuleError> {
        self.apply_keeping(side, action, Check::Legal)
            .map(|(events, _)| events)
    }

    /// As [`Game::apply`], also returning what [`Game::revert`] needs to take the action off
    /// again (the server applies an action before its commit, and reverts it if the commit
    /// fails).
    pub fn apply_revertible(
        &mut self,
        side: Side,
        action: &Action,
    ) -> Result<(Vec<Event>, Revert), RuleError> {
        let (seq, history) = (self.seq, self.history.clone());
        self.apply_keeping(side, action, Check::Legal)
            .map(|(events, before)| {
                (
                    events,
                    Revert {
                        before,
                        seq,
                        history,
                    },
                )
            })
    }

    /// Apply `side`'s `action`, first checking it against the legal list when `check` asks;
    /// the events and the state before it.
    fn apply_keeping(
        &mut self,
        side: Side,
        action: &Action,
        check: Check,
    ) -> Result<(Vec<Event>, Arc<State>), RuleError> {
        if self.state.is_over() {
            return Err(RuleError::GameOver);
        }
        if action.outside_sequence() {
            return self.apply_outside(side, action);
        }
        let to_act = self.to_act();
        if to_act != Some(side) {
            return Err(RuleError::NotYourTurn { side, to_act });
        }
        if let Action::Undo = action {
            return self.undo(side);
        }
        if check == Check::Legal && !self.legal().contains(action) {
            return Err(explain::refusal(
                &self.scenario,
                &self.state,
                action,
                self.legal(),
            ));
        }
        self.apply_unchecked(side, action)
    }

    /// Apply an action from a log whose every state hash the caller checks (the server's own
    /// store at start-up, state-at-seq): the action is applied without first listing the legal
    /// actions. Still refused if the game is over or the other side is to act. An action that
    /// was not legal shows up as a state-hash mismatch; audits (`siege replay`) use
    /// [`Game::apply`], which checks every action.
    pub fn apply_trusted(&mut self, side: Side, action: &Action) -> Result<Vec<Event>, RuleError> {
        self.apply_keeping(side, action, Check::Trusted)
            .map(|(events, _)| events)
    }

    /// Apply an action that stands outside the sequence of play: a resignation by either side
    /// ([`resign`]), or a claim on time by the side not to act ([`timeout`]).
    fn apply_outside(
        &mut self,
        side: Side,
        action: &Action,
    ) -> Result<(Vec<Event>, Arc<State>), RuleError> {
        if matches!(action, Action::ClaimTimeout) {
            timeout::check(side, self.to_act())?;
        }
        let mut state = self.state.clone();
        let mut ctx = Ctx::new(&self.scenario, &mut state);
        match action {
            Action::ClaimTimeout => timeout::claim(&mut ctx, side),
            _ => resign::resign(&mut ctx, side),
        }
        let events = ctx.events;
        let before = std::mem::replace(&mut self.state, state);
        self.legal = std::sync::OnceLock::new();
        Ok((events, Arc::new(before)))
    }

    /// Apply to a copy of the state and keep it only if the engine settled: a runaway
    /// ([`RuleError::Runaway`]) leaves the game as it was. The position before is kept for
    /// taking back, unless a die was rolled.
    fn apply_unchecked(
        &mut self,
        side: Side,
        action: &Action,
    ) -> Result<(Vec<Event>, Arc<State>), RuleError> {
        let mut state = self.state.clone();
        // The position being changed takes the remembered board over, so that it is brought
        // up to date in place rather than copied; the position kept for taking back (or kept,
        // if the action is refused) builds its own if it is ever asked.
        self.state.board.forget();
        let mut ctx = Ctx::new(&self.scenario, &mut state);
        play::apply(&mut ctx, action)?;
        let events = ctx.events;
        let before = Arc::new(std::mem::replace(&mut self.state, state));
        self.seq += 1;
        self.legal = std::sync::OnceLock::new();
        if before.dice == self.state.dice {
            self.history.record(
                &self.scenario,
                side,
                self.seq,
                action,
                before.clone(),
                &events,
            );
        } else {
            self.history.forget();
        }
        Ok((events, before))
    }

    /// Take back `side`'s last decision: the position before it returns, and the `undone`
    /// event names the action taken back.
    fn undo(&mut self, side: Side) -> Result<(Vec<Event>, Arc<State>), RuleError> {
        let Some((before, event)) = self.history.undo(side) else {
            return Err(RuleError::illegal(
                siege_protocol::codes::NOT_LEGAL_NOW,
                "",
                "nothing to take back: a die has been rolled or the other side has decided since your last decision",
            ));
        };
        let left = std::mem::replace(&mut self.state, before);
        self.seq += 1;
        self.legal = std::sync::OnceLock::new();
        Ok((vec![event], Arc::new(left)))
    }

    /// Everything a client needs to draw the game, the same for players and spectators.
    pub fn view(&self) -> View<'_> {
        let mut view = view::build(&self.scenario, &self.state);
        view.undo = self.undo_offer();
        view
    }

    /// [`Game::view`] with its `units` left empty: each is [`view::unit`] of the scenario's
    /// counter, built by a writer only where it writes one.
    pub fn view_without_units(&self) -> View<'_> {
        let mut view = view::build_without_units(&self.scenario, &self.state);
        view.undo = self.undo_offer();
        view
    }

    /// SHA-256 of the canonical serialization of the state: equal states, equal hashes. The
    /// hash of version 1 (the state's JSON), which games were first stored with.
    pub fn state_hash(&self) -> [u8; 32] {
        self.state_hash_v(HashVersion::Json)
    }

    /// The state hash under `version` ([`crate::position::state_hash`]).
    pub fn state_hash_v(&self, version: HashVersion) -> [u8; 32] {
        crate::position::state_hash::hash(&self.state, version)
    }

    /// The state hash as lowercase hex.
    pub fn state_hash_hex(&self) -> String {
        hex::encode(self.state_hash())
    }

    /// The units of a side still on the map, by kind — for invariant checks and reports.
    pub fn on_map(&self, side: Side) -> impl Iterator<Item = (UnitId, UnitKind)> + '_ {
        self.scenario
            .counters
            .counters
            .iter()
            .filter(move |c| c.side == side && matches!(self.state.unit(c.id).loc, Loc::Map(_)))
            .map(|c| (c.id, c.kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::random::Bot;
    use crate::face::testkit::scenario;
    use crate::position::event::EventKind;
    use siege_protocol::Phase;

    fn new_game() -> Game {
        Game::new(scenario(), [5; 32])
    }

    /// Play with the random player until `stop` says so or the game ends; returns the events.
    fn play_until(game: &mut Game, seed: u64, stop: impl Fn(&Game) -> bool) -> Vec<Event> {
        let mut bot = Bot::new(seed, Vec::new());
        let mut all = Vec::new();
        while game.result().is_none() && !stop(game) {
            let side = game.to_act().expect("someone acts");
            let legal = game.legal_actions(side);
            let action = bot.choose(game, &legal).expect("a legal action").clone();
            all.extend(game.apply(side, &action).expect("legal actions apply"));
        }
        all
    }

    #[test]
    fn setup_comes_before_the_chinese_entry_and_turn_1_22() {
        let mut game = new_game();
        assert_eq!(
            (game.state().phase(), game.to_act()),
            (Phase::AlliedSetup, Some(Side::Allied))
        );
        assert!(
            !game.legal_actions(Side::Allied).contains(&Action::EndPhase),
            "nothing placed yet"
        );
        game.apply(Side::Allied, &Action::DeployDefault).unwrap();
        game.apply(Side::Allied, &Action::EndPhase).unwrap();
        assert_eq!(
            (game.state().phase(), game.to_act()),
            (Phase::ChineseSetup, Some(Side::Chinese))
        );
        // The default entry brings every unit on and leaves the entry open: the Chinese player
        // ends it, and turn 1 begins.
        game.apply(Side::Chinese, &Action::DeployDefault).unwrap();
        assert_eq!(
            (game.state().phase(), game.to_act()),
            (Phase::ChineseSetup, Some(Side::Chinese))
        );
        assert_eq!(
            game.legal_actions(Side::Chinese).first(),
            Some(&Action::EndPhase)
        );
        let events = game.apply(Side::Chinese, &Action::EndPhase).unwrap();
        assert!(
            events
                .iter()
                .any(|e| e.kind == EventKind::TurnBegan { turn: 1 })
        );
        assert_eq!(
            (game.state().turn, game.state().phase()),
            (1, Phase::BigGun)
        );
    }

    #[test]
    fn the_seven_phases_come_in_the_order_of_section_4() {
        let mut game = new_game();
        let events = play_until(&mut game, 11, |g| g.state().turn >= 3);
        let turn2: Vec<Phase> = events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::PhaseBegan { turn: 2, phase } => Some(phase),
                _ => None,
            })
            .collect();
        let mut expected: Vec<Phase> = Phase::TURN.to_vec();
        expected.push(Phase::EndOfTurn);
        // Every phase begins once, in order (a phase with nothing to decide still begins).
        assert_eq!(turn2, expected);
    }

    #[test]
    fn a_refused_action_changes_nothing_and_says_why() {
        let mut game = new_game();
        let before = game.state().clone();
        let err = game.apply(Side::Allied, &Action::Resolve).unwrap_err();
        assert_eq!(err.code(), "not_legal_now");
        assert_eq!(game.state(), &before);
        let err = game
            .apply(Side::Chinese, &Action::DeployDefault)
            .unwrap_err();
        assert_eq!(
            err,
            RuleError::NotYourTurn {
                side: Side::Chinese,
                to_act: Some(Side::Allied)
            }
        );
        let err = game
            .apply(
                Side::Allied,
                &Action::Place {
                    hex: "0101".parse().unwrap(),
                },
            )
            .unwrap_err();
        assert!(matches!(err, RuleError::Illegal { .. }));
        assert_eq!(game.state(), &before);
    }

    #[test]
    fn the_other_side_and_spectators_get_no_legal_actions_4() {
        let game = new_game();
        assert!(!game.legal_actions(Side::Allied).is_empty());
        assert!(game.legal_actions(Side::Chinese).is_empty());
    }

    #[test]
    fn the_same_seed_and_actions_give_the_same_states_byte_for_byte() {
        let mut a = new_game();
        let mut b = new_game();
        play_until(&mut a, 3, |g| g.state().turn >= 2);
        play_until(&mut b, 3, |g| g.state().turn >= 2);
        assert_eq!(a.state_hash(), b.state_hash());
        assert_eq!(
            serde_json::to_string(a.state()).unwrap(),
            serde_json::to_string(b.state()).unwrap()
        );
        let mut c = Game::new(scenario(), [6; 32]);
        play_until(&mut c, 3, |g| g.state().turn >= 2);
        assert_ne!(a.state_hash(), c.state_hash(), "another seed, other dice");
    }

    #[test]
    fn a_state_survives_a_round_trip_through_json() {
        let mut game = new_game();
        play_until(&mut game, 4, |g| g.state().turn >= 2);
        let json = serde_json::to_string(game.state()).unwrap();
        let back: State = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, game.state());
    }

    #[test]
    fn a_finished_game_offers_nothing_more_21() {
        let mut game = new_game();
        play_until(&mut game, 8, |_| false);
        assert!(game.result().is_some());
        assert_eq!(game.to_act(), None);
        assert!(
            game.legal_actions(Side::Allied).is_empty()
                && game.legal_actions(Side::Chinese).is_empty()
        );
        assert_eq!(
            game.apply(Side::Allied, &Action::EndPhase),
            Err(RuleError::GameOver)
        );
        assert_eq!(game.view().phase, Phase::GameOver);
    }
}
