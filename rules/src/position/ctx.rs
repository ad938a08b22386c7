//! The context every change to a game is written into: the scenario, the state being changed
//! and the events so far. Mechanics take a `&mut Ctx` and nothing else, so a rule can read the
//! tables, change the position and say what it did, but cannot reach the sequence of play.

use crate::position::event::{Event, EventKind};
use crate::position::hex_index::HexIndex;
use crate::position::state::State;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::UnitId;

/// What an apply works on: the scenario, the state being changed, and the events so far.
pub struct Ctx<'a> {
    pub scn: &'a Scenario,
    pub st: &'a mut State,
    pub events: Vec<Event>,
    /// Set by a rule whose step's one decision is made (the sniper's shot, attrition's
    /// removal): the sequence of play then moves on. Rules never choose the next step.
    pub step_done: bool,
    /// How many of `events` the after-action checks have already read.
    pub checked: usize,
    /// Set when the after-action checks ran out of rounds while still changing the position
    /// (an engine bug): the sequence of play then refuses the action rather than go on from
    /// a position whose checks never finished.
    pub unsettled: bool,
}

impl<'a> Ctx<'a> {
    /// A context for changing `st`, with no events yet.
    pub fn new(scn: &'a Scenario, st: &'a mut State) -> Ctx<'a> {
        Ctx {
            scn,
            st,
            events: Vec::new(),
            step_done: false,
            checked: 0,
            unsettled: false,
        }
    }

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

    /// The per-hex summary of the current position (remembered in the state while its units
    /// stay put: [`HexIndex::of`]).
    pub fn board(&self) -> std::sync::Arc<HexIndex> {
        HexIndex::of(self.scn, self.st)
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

/// A count with its noun in the right number: "1 victory hex", "3 victory hexes".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}
