//! Test helpers: a scenario and an empty position to build situations in, finders for the
//! terrain a test needs, and rigged dice, so rule tests read as the rulebook's own examples.

use crate::face::game::Game;
use crate::position::ctx::Ctx;
use crate::position::declaration::Declaration;
use crate::position::event::Event;
use crate::position::hex_index::HexIndex;
use crate::position::state::ground;
use crate::position::state::{Loc, State};
use crate::position::step_id::StepId;
use crate::vocabulary::dice::Dice;
use crate::vocabulary::hex::{Direction, Hex};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::Ground;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;
use std::sync::Arc;

/// The shipped scenario, loaded once for all tests.
pub fn scenario() -> Arc<Scenario> {
    Scenario::shipped().expect("the shipped scenario loads")
}

/// A dice seed whose first rolls are `want`, found by trying seeds in order: tests that need a
/// result rig the game's own ChaCha dice this way, so the engine rolls as it always does.
/// Each roll asked for multiplies the search by six; a test asks for a few at most.
pub fn seed_rolling(want: &[u8]) -> [u8; 32] {
    (0u32..)
        .map(|n| {
            let mut seed = [0u8; 32];
            seed[..4].copy_from_slice(&n.to_le_bytes());
            seed
        })
        .find(|seed| {
            let mut dice = Dice::from_seed(*seed);
            want.iter().all(|w| dice.roll() == *w)
        })
        .expect("some seed rolls any short sequence")
}

/// A hex from its number.
pub fn hex(s: &str) -> Hex {
    s.parse().expect("a valid hex number")
}

/// A scenario and a position with no unit on the map.
pub struct Kit {
    pub scn: Arc<Scenario>,
    pub st: State,
}

impl Kit {
    /// The position of a new game before setup: Allied units unplaced, Chinese off the map.
    pub fn new() -> Kit {
        let scn = scenario();
        let st = Game::new(scn.clone(), [1; 32]).state().clone();
        Kit { scn, st }
    }

    /// A blank board: open ground everywhere (the shipped map's victory hexes, setup line and
    /// hospital kept), to paint the terrain a test needs with [`Kit::paint`].
    pub fn open() -> Kit {
        let mut kit = Kit::new();
        let mut scn = (*kit.scn).clone();
        scn.map = crate::vocabulary::map::Map::open_ground(&kit.scn.map);
        kit.scn = Arc::new(scn);
        kit.st.board.forget();
        kit
    }

    /// Paint the printed terrain of a hex.
    pub fn paint(&mut self, hex: Hex, t: crate::vocabulary::map::Terrain) {
        Arc::make_mut(&mut self.scn).map.paint(hex, t);
        // The scenario may change in place: a board remembered for the old terrain is stale.
        self.st.board.forget();
    }

    pub fn board(&self) -> HexIndex {
        HexIndex::new(&self.scn, &self.st)
    }

    pub fn ground(&self, h: Hex) -> Ground {
        ground(&self.scn.map, &self.st, h)
    }

    /// The id of the counter with this code.
    pub fn id(&self, code: &str) -> UnitId {
        self.scn
            .counters
            .by_code(code)
            .expect("a known counter code")
            .id
    }

    /// Put the counter with this code in `hex`.
    pub fn put(&mut self, code: &str, hex: Hex) -> UnitId {
        let u = self.id(code);
        self.st.unit_mut(u).loc = Loc::Map(hex);
        u
    }

    /// Put the next counter of this kind that is not on the map in `hex`.
    pub fn place(&mut self, kind: UnitKind, side: Side, hex: Hex) -> UnitId {
        let c = self
            .scn
            .counters
            .counters
            .iter()
            .find(|c| {
                c.kind == kind && c.side == side && !matches!(self.st.unit(c.id).loc, Loc::Map(_))
            })
            .expect("a counter of this kind is free");
        let id = c.id;
        self.st.unit_mut(id).loc = Loc::Map(hex);
        id
    }

    /// Place every Allied unit at its default hex.
    pub fn deploy_allies(&mut self) {
        for (u, h) in self.scn.deployment.hexes.clone() {
            self.st.unit_mut(u).loc = Loc::Map(h);
        }
    }

    /// Whether every hex within `r` of `h` is open ground on the map, empty, away from edges.
    pub fn open_around(&self, h: Hex, r: u32) -> bool {
        let board = self.board();
        Hex::all().filter(|x| x.distance(h) <= r + 1).count()
            == Hex::all().filter(|x| x.distance(h) <= r + 1).count()
            && h.edge_depth() > r as u8 + 1
            && Hex::all()
                .filter(|x| x.distance(h) <= r)
                .all(|x| self.ground(x).is_clear() && board.at(x).side.is_none())
    }

    /// The first open hex (in `CCRR` order) meeting `pred`.
    pub fn some_clear_hex_where(&self, pred: impl Fn(&Kit, Hex) -> bool) -> Hex {
        Hex::all()
            .filter(|h| self.ground(*h).is_clear() && !h.is_edge())
            .find(|h| pred(self, *h))
            .expect("the map has such a hex")
    }

    /// An empty clear hex away from the edge.
    pub fn some_clear_hex(&self) -> Hex {
        self.some_clear_hex_where(|k, h| k.open_around(h, 1))
    }

    /// `n` different clear hexes.
    pub fn clear_hexes(&self, n: usize) -> Vec<Hex> {
        Hex::all()
            .filter(|h| self.ground(*h).is_clear())
            .take(n)
            .collect()
    }

    /// The hex `d` hexes due south of `h`.
    pub fn hex_at_distance(&self, h: Hex, d: u32) -> Hex {
        h.ray(Direction::S, d).expect("on the map")
    }

    /// The hexes exactly `r` away from `h`.
    pub fn ring(&self, h: Hex, r: u32) -> Vec<Hex> {
        Hex::all().filter(|x| x.distance(h) == r).collect()
    }

    /// A building hex and a clear hex next to it.
    pub fn building_next_to_clear(&self) -> (Hex, Hex) {
        Hex::all()
            .filter(|h| self.ground(*h) == Ground::Building)
            .find_map(|b| {
                b.neighbours()
                    .find(|n| self.ground(*n) == Ground::Clear)
                    .map(|c| (b, c))
            })
            .expect("a building beside open ground")
    }

    /// Two adjacent hexes whose ground meets `pred`.
    pub fn two_adjacent(&self, pred: impl Fn(Ground) -> bool) -> (Hex, Hex) {
        Hex::all()
            .filter(|h| pred(self.ground(*h)))
            .find_map(|a| {
                a.neighbours()
                    .find(|n| pred(self.ground(*n)))
                    .map(|b| (a, b))
            })
            .expect("two such hexes side by side")
    }

    /// Rig the dice: the next rolls of the game are `want`, in order.
    pub fn rig(&mut self, want: &[u8]) {
        self.st.dice = Dice::from_seed(seed_rolling(want));
    }

    /// A game from the kit's position (for tests through the public API).
    pub fn game(&self) -> Game {
        Game::from_state(self.scn.clone(), self.st.clone())
    }

    /// An open board in the combat step of `phase`, turn 3.
    pub fn combat(phase: siege_protocol::Phase) -> Kit {
        let mut kit = Kit::open();
        kit.at(3, phase, crate::position::state::Step::Combat);
        kit
    }

    /// Declare a combat by `side` on the hexes `defenders` (the first is the main one) with
    /// `attackers`, as the declaration actions would leave it.
    pub fn declare(&mut self, side: Side, defenders: &[&str], attackers: &[UnitId]) -> Declaration {
        let d = Declaration {
            defenders: defenders.iter().map(|h| hex(h)).collect(),
            attackers: attackers.to_vec(),
            ..Declaration::new(side, hex(defenders[0]))
        };
        self.st.declaration = Some(d.clone());
        d
    }

    /// Set the turn, and the step of `phase` whose data is `step`.
    pub fn at(
        &mut self,
        turn: u8,
        phase: siege_protocol::Phase,
        step: crate::position::state::Step,
    ) {
        self.st.turn = turn;
        self.set(phase, step);
    }

    /// Put the position in the step of `phase` whose data is `step` (4).
    pub fn set(&mut self, phase: siege_protocol::Phase, step: crate::position::state::Step) {
        let slot = StepId::find(phase, &step)
            .unwrap_or_else(|| panic!("no step of the {phase:?} phase is a {step:?}"));
        self.st.go_to(slot, step);
    }

    /// Run a piece of the engine on the position and return its events.
    pub fn run(&mut self, f: impl FnOnce(&mut Ctx<'_>)) -> Vec<Event> {
        let mut ctx = Ctx::new(&self.scn, &mut self.st);
        f(&mut ctx);
        ctx.events
    }

    /// Run a piece of the engine and return its value.
    pub fn run_value<T>(&mut self, f: impl FnOnce(&mut Ctx<'_>) -> T) -> T {
        let mut ctx = Ctx::new(&self.scn, &mut self.st);
        f(&mut ctx)
    }
}
