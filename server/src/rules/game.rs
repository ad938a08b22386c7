//! The game: the rules engine's public face (STYLE: `Game::new`, `legal_actions`, `apply`,
//! `view`). It owns the state and the scenario it is played on; every decision goes through
//! [`Game::apply`], which refuses anything not in [`Game::legal_actions`] with an error citing
//! the rule and changes nothing, or applies it and returns the events in words.

use super::action::Action;
use super::board::Board;
use super::dice::Dice;
use super::error::RuleError;
use super::event::{Event, EventKind};
use super::explain;
use super::phases;
use super::scenario::Scenario;
use super::state::{GameResult, Loc, State, Step};
use super::units::{UnitId, UnitKind};
use super::view::{self, View};
use sha2::{Digest, Sha256};
use siege_protocol::{Phase, Side};
use std::sync::Arc;

/// A game of Siege at Peking.
#[derive(Clone, Debug)]
pub struct Game {
    scenario: Arc<Scenario>,
    state: State,
}

/// What an apply works on: the scenario, the state being changed, and the events so far.
pub struct Ctx<'a> {
    pub scn: &'a Scenario,
    pub st: &'a mut State,
    pub events: Vec<Event>,
}

impl Ctx<'_> {
    /// Record an event.
    pub fn emit(&mut self, kind: EventKind, text: String) {
        self.events.push(Event { kind, text });
    }

    /// A unit's printed name.
    pub fn name(&self, u: UnitId) -> String {
        self.scn.counters.get(u).name.clone()
    }

    /// Several units' names joined in words.
    pub fn names(&self, units: &[UnitId]) -> String {
        names(self.scn, units)
    }

    /// Roll the game's die.
    pub fn roll(&mut self) -> u8 {
        self.st.dice.roll()
    }

    /// The per-hex summary of the current position.
    pub fn board(&self) -> Board {
        Board::new(self.scn, self.st)
    }
}

/// Units' names joined in words: "British 1, British 2 and Myers".
pub fn names(scn: &Scenario, units: &[UnitId]) -> String {
    let list: Vec<&str> = units
        .iter()
        .map(|u| scn.counters.get(*u).name.as_str())
        .collect();
    match list.as_slice() {
        [] => "nobody".into(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl Game {
    /// A new game at the start of the Allied setup (22), its dice seeded with `seed`.
    pub fn new(scenario: Arc<Scenario>, seed: [u8; 32]) -> Game {
        let units = scenario
            .counters
            .counters
            .iter()
            .map(|c| super::state::UnitState {
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
            phase: Phase::AlliedSetup,
            step: Step::AlliedSetup {
                selected: None,
                area: None,
            },
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
            result: None,
            dice: Dice::from_seed(seed),
        };
        Game { scenario, state }
    }

    /// A game resumed from a state (a custom start from the analysis board, or a saved state).
    pub fn from_state(scenario: Arc<Scenario>, state: State) -> Game {
        Game { scenario, state }
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
        phases::to_act(&self.scenario, &self.state)
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.state.result.as_ref()
    }

    /// Every action `side` may take now: empty for the side not to act and after the end.
    pub fn legal_actions(&self, side: Side) -> Vec<Action> {
        if self.to_act() != Some(side) {
            return Vec::new();
        }
        phases::legal(&self.scenario, &self.state)
    }

    /// Apply `side`'s `action`. Refused actions change nothing and say which rule refused them.
    pub fn apply(&mut self, side: Side, action: &Action) -> Result<Vec<Event>, RuleError> {
        if self.state.result.is_some() {
            return Err(RuleError::GameOver);
        }
        let to_act = self.to_act();
        if to_act != Some(side) {
            return Err(RuleError::NotYourTurn { side, to_act });
        }
        let legal = phases::legal(&self.scenario, &self.state);
        if !legal.contains(action) {
            return Err(explain::refusal(
                &self.scenario,
                &self.state,
                action,
                &legal,
            ));
        }
        let mut state = self.state.clone();
        let mut ctx = Ctx {
            scn: &self.scenario,
            st: &mut state,
            events: Vec::new(),
        };
        phases::apply(&mut ctx, action);
        phases::settle(&mut ctx);
        let events = ctx.events;
        self.state = state;
        Ok(events)
    }

    /// Everything a client needs to draw the game, the same for players and spectators.
    pub fn view(&self) -> View {
        view::build(&self.scenario, &self.state)
    }

    /// SHA-256 of the canonical serialization of the state: equal states, equal hashes.
    pub fn state_hash(&self) -> [u8; 32] {
        let bytes = serde_json::to_vec(&self.state).unwrap_or_default();
        Sha256::digest(&bytes).into()
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
