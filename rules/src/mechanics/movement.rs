//! Movement (5, 6, 7, 9, 11.2, 15, 18.1; rulings R3, R6): stacks move hex by hex paying the
//! terrain chart, never into the canal or an enemy hex, stopping on entering an enemy zone of
//! control and never moving directly from one enemy ZOC hex to another; in the Allied reaction
//! phase at half allowance and never out of an enemy ZOC. Stacking is checked where a stack
//! stops. Artillery and civilians move only with an Allied combat unit; Chinese units overrun
//! unmanned Allied artillery.
//!
//! A move is chosen in small steps: select units in one hex, then choose a destination among
//! the hexes reachable by a cheapest legal path (and continue from there, or stop).

use crate::position::action::Action;
use crate::position::command;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::stacking;
use crate::position::state::phasing_side;
use crate::position::state::{Group, Loc, State, Step};
use crate::vocabulary::hex::{HEX_COUNT, Hex};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::{Phase, Side};

/// Cheapest legal costs from a start hex: `cost[h]` in MP (`u8::MAX` = unreachable) and the hex
/// each was reached from, so the path can be walked back.
pub struct Reach {
    pub cost: Vec<u8>,
    prev: Vec<u16>,
    /// Every hex given a cost, start included, in the order first reached: the few dozen
    /// hexes a stack can reach, without scanning the whole map for them.
    reached: Vec<Hex>,
}

const NONE: u16 = u16::MAX;

/// The path from a search's start to `to`, start excluded, read back from its costs and the
/// hex each was reached from.
fn walk_back(cost: &[u8], prev: &[u16], to: Hex) -> Vec<Hex> {
    let mut path = vec![to];
    let mut at = to;
    while prev[at.index()] != NONE {
        let Some(p) = Hex::from_index(usize::from(prev[at.index()])) else {
            break;
        };
        if cost[p.index()] == 0 {
            break;
        }
        path.push(p);
        at = p;
    }
    path.reverse();
    path
}

impl Reach {
    /// The hexes reached, start included, in hex order.
    pub fn hexes(&self) -> Vec<Hex> {
        let mut hexes = self.reached.clone();
        hexes.sort_unstable();
        hexes
    }

    /// The path from the start to `to`, start excluded.
    pub fn path(&self, to: Hex) -> Vec<Hex> {
        walk_back(&self.cost, &self.prev, to)
    }
}

/// Every hex `side` can reach from `start` with `budget` MP (5.1, 6, 18.1): the canal and enemy
/// hexes are never entered, a hex in enemy ZOC ends the move, and a stack that starts in enemy
/// ZOC may not step straight into another enemy ZOC hex.
pub fn reach(board: &HexIndex, side: Side, start: Hex, budget: u8) -> Reach {
    with_scratch(|s| {
        s.run(board, side, start, budget, None);
        Reach {
            cost: s.cost.clone(),
            prev: s.prev.clone(),
            reached: s.set.clone(),
        }
    })
}

/// The cheapest legal path from `start` to `to`, start excluded, and its cost in MP; `None`
/// if `to` cannot be reached. It is the same search as [`reach`] stopped as soon as `to` is
/// settled, which gives the same path (costs only improve strictly, so a settled hex's
/// predecessors are final).
///
/// It also never expands a hex from which `to` lies farther in hexes than the movement points
/// left, since every step costs at least 1 MP (the terrain chart refuses less, 5.1). That
/// changes no hex of the path, nor the order in which those hexes are reached: a hex reached
/// at its least cost from such a hex could not reach `to` either, so every hex that can lies
/// on paths through hexes that are still expanded, in the same order
/// (test `a_path_to_one_hex_is_the_path_the_whole_search_finds_5_1`).
pub fn path_to(
    board: &HexIndex,
    side: Side,
    start: Hex,
    budget: u8,
    to: Hex,
) -> Option<(Vec<Hex>, u8)> {
    with_scratch(|s| {
        s.run(board, side, start, budget, Some(to))
            .then(|| (walk_back(&s.cost, &s.prev, to), s.cost[to.index()]))
    })
}

/// What a search works in, kept between searches on each thread: a search is asked for every
/// move applied and every stack offered moves, and making and filling two map-sized arrays
/// and a bucket per movement point each time was a fifth of its cost. At rest every cost is
/// `u8::MAX` and every predecessor `NONE`; a search resets only the hexes it set.
struct Scratch {
    cost: Vec<u8>,
    prev: Vec<u16>,
    /// The hexes given a cost by the search under way, in the order first reached.
    set: Vec<Hex>,
    buckets: Vec<Vec<Hex>>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Option<Scratch>> = const { std::cell::RefCell::new(None) };
}

/// Run `f` with this thread's [`Scratch`], made at its first use.
fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => f(slot.get_or_insert_with(Scratch::new)),
        // Not reached (a search never starts another), but never a panic for it.
        Err(_) => f(&mut Scratch::new()),
    })
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            cost: vec![u8::MAX; HEX_COUNT],
            prev: vec![NONE; HEX_COUNT],
            set: Vec::new(),
            buckets: Vec::new(),
        }
    }

    /// Put back at rest every hex the last search set — also one a panic interrupted.
    fn reset(&mut self) {
        for h in self.set.drain(..) {
            self.cost[h.index()] = u8::MAX;
            self.prev[h.index()] = NONE;
        }
    }

    /// Dial's algorithm: buckets by cost, each taken first in first out, so that among paths
    /// of equal cost the one found first is kept — the same path every time for the same
    /// position. Leaves the costs, predecessors and hexes set in `self`; with a `goal`, stops
    /// once it is settled and says whether it was.
    fn run(
        &mut self,
        board: &HexIndex,
        side: Side,
        start: Hex,
        budget: u8,
        goal: Option<Hex>,
    ) -> bool {
        self.reset();
        let Scratch {
            cost,
            prev,
            set,
            buckets,
        } = self;
        cost[start.index()] = 0;
        set.push(start);
        let levels = usize::from(budget) + 1;
        if buckets.len() < levels {
            buckets.resize_with(levels, Vec::new);
        }
        for b in buckets.iter_mut() {
            b.clear();
        }
        buckets[0].push(start);
        let enemy = side.other();
        let target = goal.map(Hex::axial);
        for c in 0..levels {
            let mut i = 0;
            while i < buckets[c].len() {
                let h = buckets[c][i];
                i += 1;
                if usize::from(cost[h.index()]) != c {
                    continue;
                }
                if goal == Some(h) {
                    return true;
                }
                if let Some(t) = target
                    && c + h.axial().distance(t) as usize > usize::from(budget)
                {
                    continue; // the goal is out of reach from here (see `path_to`)
                }
                let in_zoc = board.in_zoc_of(enemy, h);
                if in_zoc && h != start {
                    continue; // entered an enemy ZOC: the move ends here (6)
                }
                if c >= usize::from(budget) {
                    continue; // not a point left for a step (every step costs at least 1)
                }
                for n in h.neighbours() {
                    // A neighbour already reached for one more point or less is not bettered
                    // by a step from here (at least 1 MP, 5.1), whatever the step would cost.
                    if usize::from(cost[n.index()]) <= c + 1 {
                        continue;
                    }
                    if !board.enterable_by(side, n) {
                        continue;
                    }
                    let Some(step) = board.entry_cost(h, n) else {
                        continue;
                    };
                    if in_zoc && board.in_zoc_of(enemy, n) {
                        continue; // no moving directly from one enemy ZOC to another (6)
                    }
                    let total = c + usize::from(step);
                    if total > usize::from(budget) || total >= usize::from(cost[n.index()]) {
                        continue;
                    }
                    if cost[n.index()] == u8::MAX {
                        set.push(n);
                    }
                    cost[n.index()] = total as u8;
                    prev[n.index()] = h.index() as u16;
                    buckets[total].push(n);
                }
            }
        }
        false
    }
}

/// Whether unit `u` may still be selected to move in this phase.
///
/// The board is needed only in the reaction phase; pass it when you have it.
pub fn movable(
    scn: &Scenario,
    st: &State,
    board: Option<&HexIndex>,
    u: UnitId,
    phase: Phase,
) -> bool {
    let us = st.unit(u);
    let Some(h) = us.hex() else { return false };
    let c = scn.counters.get(u);
    if us.marks.moved || command::allowance(scn, st, u, phase) == 0 {
        return false;
    }
    if phase != Phase::AlliedReaction || c.side != Side::Allied {
        return true;
    }
    // Allied units may not leave an enemy ZOC in the reaction phase (6).
    let in_zoc = match board {
        Some(b) => b.in_zoc_of(Side::Chinese, h),
        None => HexIndex::of(scn, st).in_zoc_of(Side::Chinese, h),
    };
    !in_zoc
}

/// Whether any unit of the side moving may still be selected in this phase.
pub fn anyone_movable(scn: &Scenario, st: &State) -> bool {
    let phase = st.phase();
    let side = phasing_side(phase);
    let board = (phase == Phase::AlliedReaction).then(|| HexIndex::of(scn, st));
    scn.counters
        .counters
        .iter()
        .any(|c| c.side == side && movable(scn, st, board.as_deref(), c.id, phase))
}

/// Movement points the stack may still spend: the least allowance among the units that move
/// on their own; artillery and civilians ride along (9, 15). `None` if nothing carries them.
pub fn budget(scn: &Scenario, st: &State, group: &Group, phase: Phase) -> Option<u8> {
    let carriers: Vec<UnitId> = group
        .units
        .iter()
        .copied()
        .filter(|u| !scn.counters.get(*u).kind.is_passenger())
        .collect();
    let needs_escort = group
        .units
        .iter()
        .any(|u| scn.counters.get(*u).kind.is_passenger());
    let escorted = group.units.iter().any(|u| {
        matches!(
            scn.counters.get(*u).kind,
            UnitKind::Combat | UnitKind::Volunteer
        )
    });
    if carriers.is_empty() || (needs_escort && !escorted) {
        return None;
    }
    let least = carriers
        .iter()
        .map(|u| command::allowance(scn, st, *u, phase))
        .min()?;
    Some(least.saturating_sub(group.spent))
}

/// The destinations of the selected stack, with their cost.
pub fn destinations(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    side: Side,
    group: &Group,
    phase: Phase,
) -> Vec<(Hex, u8)> {
    if group.halted {
        return Vec::new();
    }
    let Some(left) = budget(scn, st, group, phase) else {
        return Vec::new();
    };
    if left == 0 {
        return Vec::new();
    }
    let (points, guns) = stacking::load(scn, st, &group.units);
    // Read in place from the search's scratch: the stack is offered every hex it reaches, so
    // the costs need not be copied out into a [`Reach`] first.
    let mut out: Vec<(Hex, u8)> = with_scratch(|s| {
        s.run(board, side, group.hex, left, None);
        s.set
            .iter()
            .filter(|h| **h != group.hex && stacking::has_room(board, side, **h, points, guns))
            .map(|h| (*h, s.cost[h.index()]))
            .collect()
    });
    out.sort_unstable_by_key(|(h, _)| *h);
    out
}

/// The legal actions of a movement step.
pub fn legal(scn: &Scenario, st: &State, group: Option<&Group>, out: &mut Vec<Action>) {
    let phase = st.phase();
    let side = phasing_side(phase);
    // Selecting needs the board only to keep reacting units in enemy ZOC (6).
    let needs_board = group.is_some() || phase == Phase::AlliedReaction;
    let board = needs_board.then(|| HexIndex::of(scn, st));
    match group {
        None => {
            let mut stacks: Vec<Hex> = Vec::new();
            for c in scn.counters.counters.iter().filter(|c| c.side == side) {
                if movable(scn, st, board.as_deref(), c.id, phase) {
                    out.push(Action::SelectUnit { unit: c.id });
                    if let Some(h) = st.unit(c.id).hex() {
                        stacks.push(h);
                    }
                }
            }
            stacks.sort();
            let multi: Vec<Hex> = stacks
                .windows(2)
                .filter(|w| w[0] == w[1])
                .map(|w| w[0])
                .collect();
            let mut multi = multi;
            multi.dedup();
            out.extend(multi.into_iter().map(|hex| Action::SelectStack { hex }));
            out.push(Action::EndPhase);
        }
        Some(g) => {
            if !g.started {
                for u in st.units_at(g.hex) {
                    if !g.units.contains(&u) && movable(scn, st, board.as_deref(), u, phase) {
                        out.push(Action::SelectUnit { unit: u });
                    }
                }
                if g.units.len() > 1 {
                    out.extend(g.units.iter().map(|&unit| Action::UnselectUnit { unit }));
                }
            }
            let board = board.unwrap_or_else(|| HexIndex::of(scn, st));
            for (to, mp) in destinations(scn, st, &board, side, g, phase) {
                out.push(Action::Move { to, mp });
            }
            out.push(Action::Stop);
        }
    }
}

/// Why selecting units (`select_stack` at `hex`, or `select_unit` of the unit in `hex`) is
/// refused while another stack is selected (5); `None` if that is not why.
pub fn why_not_select(
    scn: &Scenario,
    st: &State,
    hex: Option<Hex>,
) -> Option<crate::vocabulary::error::RuleError> {
    use crate::vocabulary::error::RuleError;
    use siege_protocol::codes;
    let Step::Move { group: Some(g) } = &st.step else {
        return None;
    };
    let names = crate::position::ctx::names(scn, &g.units);
    if hex == Some(g.hex) && !g.started {
        return None;
    }
    let why = if g.started {
        format!(
            "{names} have begun moving from {}: move them on or stop them before selecting other units (5)",
            g.hex
        )
    } else {
        format!(
            "{names} at {} are selected: move them or stop them before selecting units elsewhere (5)",
            g.hex
        )
    };
    Some(RuleError::illegal(codes::NOT_LEGAL_NOW, "5", why))
}

/// Apply a movement action (already known to be legal).
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let phase = ctx.st.phase();
    let side = phasing_side(phase);
    match action {
        Action::SelectUnit { unit } => {
            let hex = ctx.st.unit(*unit).hex();
            let Step::Move { group } = &mut ctx.st.step else {
                return;
            };
            match (group.as_mut(), hex) {
                (Some(g), _) => g.units.push(*unit),
                (None, Some(hex)) => {
                    *group = Some(Group {
                        units: vec![*unit],
                        hex,
                        spent: 0,
                        started: false,
                        halted: false,
                    });
                }
                (None, None) => {}
            }
        }
        Action::SelectStack { hex } => {
            let board = HexIndex::of(ctx.scn, ctx.st);
            let units: Vec<UnitId> = ctx
                .st
                .units_at(*hex)
                .filter(|u| movable(ctx.scn, ctx.st, Some(&board), *u, phase))
                .collect();
            ctx.st.step = Step::Move {
                group: Some(Group {
                    units,
                    hex: *hex,
                    spent: 0,
                    started: false,
                    halted: false,
                }),
            };
        }
        Action::UnselectUnit { unit } => {
            if let Step::Move { group: Some(g) } = &mut ctx.st.step {
                g.units.retain(|u| u != unit);
            }
        }
        Action::Move { to, .. } => {
            let Step::Move { group: Some(g) } = &ctx.st.step else {
                return;
            };
            let mut g = g.clone();
            move_group(ctx, side, &mut g, *to, phase);
            let done = g.halted || budget(ctx.scn, ctx.st, &g, phase) == Some(0);
            ctx.st.step = Step::Move { group: Some(g) };
            if done {
                stop(ctx);
            }
        }
        Action::Stop => stop(ctx),
        _ => {}
    }
}

/// Move a stack along the cheapest path to `to`, taking control of victory hexes passed (21)
/// and overrunning unmanned artillery (9).
pub fn move_group(ctx: &mut Ctx<'_>, side: Side, g: &mut Group, to: Hex, phase: Phase) {
    let board = HexIndex::of(ctx.scn, ctx.st);
    let left = budget(ctx.scn, ctx.st, g, phase).unwrap_or(0);
    // A destination the legal list did not offer (a trusted replay never holds one) is entered
    // straight, at no cost the stack could pay.
    let (path, mp) = path_to(&board, side, g.hex, left, to).unwrap_or((vec![to], u8::MAX));
    let from = g.hex;
    for &h in &path {
        if side == Side::Chinese && board.at(h).only_guns {
            let guns: Vec<UnitId> = ctx.st.units_at(h).collect();
            for gun in guns {
                ctx.st.unit_mut(gun).loc = Loc::Eliminated;
                let text = format!(
                    "{} at {h} is overrun: no Allied combat unit mans it (9)",
                    ctx.name(gun)
                );
                ctx.emit(EventKind::Overrun { unit: gun, hex: h }, text);
            }
        }
    }
    for &u in &g.units {
        ctx.st.unit_mut(u).loc = Loc::Map(to);
    }
    g.hex = to;
    g.spent = g.spent.saturating_add(mp);
    g.started = true;
    // Our own move changes no enemy ZOC (overrun guns exert none).
    g.halted = board.in_zoc_of(side.other(), to);
    let names = ctx.names(&g.units);
    let mut full_path = vec![from];
    full_path.extend(path.iter().copied());
    let halt = if g.halted {
        ", stopping in enemy ZOC (6)"
    } else {
        ""
    };
    // Written into one string: a move is the commonest action of every game and replay.
    use std::fmt::Write as _;
    let mut text = format!("{names} move {from}");
    for h in &path {
        let _ = write!(text, " → {h}");
    }
    let _ = write!(text, " ({mp} MP){halt}");
    ctx.emit(
        EventKind::Moved {
            units: g.units.clone(),
            path: full_path,
            mp,
        },
        text,
    );
}

/// The selected stack stops: its units have moved for this phase.
pub fn stop(ctx: &mut Ctx<'_>) {
    let full = matches!(
        ctx.st.phase(),
        Phase::ChineseMovement | Phase::AlliedMovement
    );
    if let Step::Move { group } = &mut ctx.st.step
        && let Some(g) = group.take()
        && g.started
    {
        for u in g.units {
            let m = &mut ctx.st.unit_mut(u).marks;
            m.moved = true;
            m.moved_full |= full;
        }
    }
}

/// The prompt of a movement step.
pub fn prompt(scn: &Scenario, st: &State, group: Option<&Group>) -> String {
    let phase = st.phase();
    match group {
        None => match phase {
            Phase::AlliedReaction => "Allied reaction: select units to move up to half their allowance, or end the phase (4, 6).".into(),
            Phase::ChineseMovement => "Chinese movement: select a unit or stack to move, or end the phase (5).".into(),
            _ => "Allied movement: select a unit or stack to move, or end the phase (5, 11.2).".into(),
        },
        Some(g) => {
            let names: Vec<&str> = g.units.iter().map(|u| scn.counters.get(*u).name.as_str()).collect();
            let left = budget(scn, st, g, phase);
            match left {
                None => format!("{} at {} cannot move without an Allied combat unit (9, 15): add one or stop.", names.join(", "), g.hex),
                Some(mp) => format!("{} at {}: {mp} MP left. Choose a destination or stop.", names.join(", "), g.hex),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};
    use crate::vocabulary::map::Terrain;
    use crate::vocabulary::units::UnitKind;

    fn moving(kit: &mut Kit, phase: Phase) {
        kit.at(3, phase, Step::Move { group: None });
    }

    fn group(units: Vec<UnitId>, hex: Hex) -> Group {
        Group {
            units,
            hex,
            spent: 0,
            started: false,
            halted: false,
        }
    }

    fn dests(kit: &Kit, side: Side, g: &Group) -> Vec<(Hex, u8)> {
        destinations(&kit.scn, &kit.st, &kit.board(), side, g, kit.st.phase())
    }

    fn cost_to(kit: &Kit, side: Side, g: &Group, to: Hex) -> Option<u8> {
        dests(kit, side, g)
            .into_iter()
            .find(|(h, _)| *h == to)
            .map(|(_, mp)| mp)
    }

    /// Every stack on the map (every `step`-th unit's hex) with its owner and the board, at
    /// every `every`-th decision of the random game of `seed`.
    fn stacks_of_a_random_game(
        seed: u8,
        every: usize,
        step: usize,
        mut check: impl FnMut(&HexIndex, Side, Hex),
    ) {
        let scn = crate::face::testkit::scenario();
        let mut game = crate::face::game::Game::new(scn.clone(), [seed; 32]);
        let mut bot = crate::face::random::Bot::new(u64::from(seed), scn.map.hospital().to_vec());
        let mut decisions = 0;
        while let Some(side) = game.to_act() {
            decisions += 1;
            if decisions % every == 0 {
                let st = game.state();
                let board = HexIndex::of(&scn, st);
                for h in st.units.iter().step_by(step).filter_map(|u| u.hex()) {
                    if let Some(owner) = board.at(h).side {
                        check(&board, owner, h);
                    }
                }
            }
            let legal = game.legal_actions(side);
            let action = bot.choose(&game, &legal).expect("a legal action").clone();
            game.apply(side, &action).expect("legal actions apply");
        }
    }

    /// A search left half done (a panic in another search on this thread) does not change the
    /// next one: each search first puts back at rest every hex the last one set (5.1).
    #[test]
    fn a_search_left_half_done_does_not_change_the_next_5_1() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedMovement);
        let board = kit.board();
        let from = hex("1010");
        let clean = reach(&board, Side::Allied, from, 6);
        with_scratch(|s| {
            s.run(&board, Side::Allied, hex("2020"), 8, None);
            // As a panic would leave it: costs set, nothing reset.
        });
        let after = reach(&board, Side::Allied, from, 6);
        assert_eq!(after.hexes(), clean.hexes());
        assert_eq!(after.cost, clean.cost);
        assert_eq!(after.path(hex("1013")), clean.path(hex("1013")));
        with_scratch(|s| assert!(s.set.len() > 1, "the last search's hexes are kept to reset"));
    }

    /// The hexes a search lists as reached are exactly those it gave a cost, in hex order —
    /// what destinations (5.1) and bayonet charges (8.1.3) offer — for every stack of both
    /// sides at every twentieth decision of a whole random game.
    #[test]
    fn the_hexes_reached_are_the_hexes_given_a_cost_5_1() {
        let mut compared = 0;
        stacks_of_a_random_game(9, 20, 1, |board, owner, h| {
            let reach = reach(board, owner, h, 10);
            let scanned: Vec<Hex> = Hex::all()
                .filter(|x| reach.cost[x.index()] != u8::MAX)
                .collect();
            assert_eq!(reach.hexes(), scanned, "from {h}");
            assert_eq!(path_to(board, owner, h, 10, h), Some((vec![h], 0)));
            compared += 1;
        });
        assert!(compared > 1000, "{compared} searches compared");
    }

    /// The destinations offered a selected stack are the hexes its search reaches, start left
    /// out, where stacking leaves it room, each with its cost, in hex order (5.1, 7) — read in
    /// place from the search, as [`reach`] would copy them out — at every selected stack's
    /// decision of a whole random game.
    #[test]
    fn a_stacks_destinations_are_the_hexes_it_reaches_with_room_5_1_7() {
        let scn = crate::face::testkit::scenario();
        let mut game = crate::face::game::Game::new(scn.clone(), [13; 32]);
        let mut bot = crate::face::random::Bot::new(13, scn.map.hospital().to_vec());
        let mut compared = 0;
        while let Some(side) = game.to_act() {
            let st = game.state();
            if let Step::Move { group: Some(g) } = &st.step
                && let Some(left) = budget(&scn, st, g, st.phase()).filter(|l| *l > 0)
                && !g.halted
            {
                let board = HexIndex::of(&scn, st);
                let (points, guns) = stacking::load(&scn, st, &g.units);
                let whole = reach(&board, side, g.hex, left);
                let expected: Vec<(Hex, u8)> = whole
                    .hexes()
                    .into_iter()
                    .filter(|h| *h != g.hex && stacking::has_room(&board, side, *h, points, guns))
                    .map(|h| (h, whole.cost[h.index()]))
                    .collect();
                let offered = destinations(&scn, st, &board, side, g, st.phase());
                assert_eq!(offered, expected, "stack at {}", g.hex);
                compared += usize::from(!offered.is_empty());
            }
            let legal = game.legal_actions(side);
            let action = bot.choose(&game, &legal).expect("a legal action").clone();
            game.apply(side, &action).expect("legal actions apply");
        }
        assert!(compared > 100, "{compared} stacks compared");
    }

    /// The search for one hex's path finds the path and cost the whole search finds, for every
    /// hex a stack can reach — what makes a replayed move take the route it took when it was
    /// offered (5.1, 6) — from stacks of both sides through a whole random game.
    #[test]
    fn a_path_to_one_hex_is_the_path_the_whole_search_finds_5_1() {
        let mut paths = 0;
        stacks_of_a_random_game(11, 40, 7, |board, owner, h| {
            for budget in [3, 8] {
                let whole = reach(board, owner, h, budget);
                for to in whole.hexes() {
                    assert_eq!(
                        path_to(board, owner, h, budget, to),
                        Some((whole.path(to), whole.cost[to.index()])),
                        "{h} to {to}"
                    );
                    paths += 1;
                }
            }
        });
        assert!(paths > 5000, "{paths} paths compared");
    }

    #[test]
    fn boxers_move_8_imperials_10_hexes_of_clear_ground_5_2() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::ChineseMovement);
        let h = hex("2010");
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, h);
        let g = group(vec![bx], h);
        assert_eq!(
            cost_to(
                &kit,
                Side::Chinese,
                &g,
                h.ray(crate::vocabulary::hex::Direction::S, 8).unwrap()
            ),
            Some(8)
        );
        assert_eq!(
            cost_to(
                &kit,
                Side::Chinese,
                &g,
                h.ray(crate::vocabulary::hex::Direction::S, 9).unwrap()
            ),
            None
        );
        let im = kit.place(UnitKind::Imperial, Side::Chinese, hex("2210"));
        let g = group(vec![im], hex("2210"));
        assert_eq!(cost_to(&kit, Side::Chinese, &g, hex("2220")), Some(10));
    }

    #[test]
    fn buildings_and_walls_cost_2_and_the_canal_is_prohibited_5_1_r3() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::ChineseMovement);
        let h = hex("2010");
        kit.paint(hex("2011"), Terrain::Building);
        kit.paint(hex("2012"), Terrain::Wall);
        kit.paint(hex("2013"), Terrain::Canal);
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, h);
        let g = group(vec![bx], h);
        assert_eq!(cost_to(&kit, Side::Chinese, &g, hex("2011")), Some(2));
        assert_eq!(cost_to(&kit, Side::Chinese, &g, hex("2012")), Some(4));
        assert_eq!(cost_to(&kit, Side::Chinese, &g, hex("2013")), None);
    }

    #[test]
    fn the_tartar_wall_costs_8_from_outside_ground_6_from_inside_18_1() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::ChineseMovement);
        for c in 1..=39 {
            kit.paint(
                crate::vocabulary::hex::Hex::new(c, 30).unwrap(),
                Terrain::TartarWall,
            );
            for r in 31..=40 {
                kit.paint(
                    crate::vocabulary::hex::Hex::new(c, r).unwrap(),
                    Terrain::Outside,
                );
            }
        }
        let im = kit.place(UnitKind::Imperial, Side::Chinese, hex("2031"));
        assert_eq!(
            cost_to(
                &kit,
                Side::Chinese,
                &group(vec![im], hex("2031")),
                hex("2030")
            ),
            Some(8)
        );
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("2029"));
        assert_eq!(
            cost_to(
                &kit,
                Side::Chinese,
                &group(vec![bx], hex("2029")),
                hex("2030")
            ),
            Some(6)
        );
    }

    #[test]
    fn no_unit_enters_an_enemy_hex_5_1() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedMovement);
        let gb = kit.put("gb1", hex("1010"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        assert_eq!(
            cost_to(
                &kit,
                Side::Allied,
                &group(vec![gb], hex("1010")),
                hex("1014")
            ),
            None
        );
    }

    #[test]
    fn entering_an_enemy_zoc_ends_the_move_6() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedMovement);
        let gb = kit.put("gb1", hex("1010"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let g = group(vec![gb], hex("1010"));
        // 1013 is in the Boxers' ZOC: reachable, but nothing beyond it through the ZOC.
        assert_eq!(cost_to(&kit, Side::Allied, &g, hex("1013")), Some(3));
        let r = reach(&kit.board(), Side::Allied, hex("1010"), 6);
        let via_zoc = r.path(hex("1016"));
        assert!(
            !via_zoc.contains(&hex("1013")),
            "a path may not continue out of an enemy ZOC hex"
        );
    }

    #[test]
    fn no_moving_directly_from_one_enemy_zoc_hex_to_another_6() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedMovement);
        let gb = kit.put("gb1", hex("1013"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let g = group(vec![gb], hex("1013"));
        let board = kit.board();
        let r = reach(&board, Side::Allied, hex("1013"), 6);
        for (to, _) in dests(&kit, Side::Allied, &g) {
            if to.is_adjacent(hex("1013")) && board.in_zoc_of(Side::Chinese, to) {
                assert!(
                    r.path(to).len() >= 2,
                    "{to} must be reached around, not straight from 1013"
                );
            }
        }
        assert!(
            cost_to(&kit, Side::Allied, &g, hex("1012")).is_some(),
            "leaving to a free hex is fine"
        );
    }

    #[test]
    fn zoc_does_not_stop_a_move_into_a_building_6_18_2() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedMovement);
        kit.paint(hex("1013"), Terrain::Building);
        kit.paint(hex("1012"), Terrain::Building);
        let gb = kit.put("gb1", hex("1011"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        // Building to building beside the Boxers: no ZOC in buildings, so the move goes on.
        let r = reach(&kit.board(), Side::Allied, hex("1011"), 6);
        assert_eq!(r.cost[hex("1013").index()], 4);
        assert!(!kit.board().in_zoc_of(Side::Chinese, hex("1013")));
        let _ = gb;
    }

    #[test]
    fn in_the_reaction_phase_units_move_half_and_never_out_of_an_enemy_zoc_4_6() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedReaction);
        let gb = kit.put("gb1", hex("1010"));
        let g = group(vec![gb], hex("1010"));
        assert_eq!(
            budget(&kit.scn, &kit.st, &g, Phase::AlliedReaction),
            Some(3)
        );
        assert!(cost_to(&kit, Side::Allied, &g, hex("1014")).is_none());
        assert_eq!(cost_to(&kit, Side::Allied, &g, hex("1013")), Some(3));
        let gb2 = kit.put("gb2", hex("3013"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("3014"));
        assert!(!movable(
            &kit.scn,
            &kit.st,
            None,
            gb2,
            Phase::AlliedReaction
        ));
        assert!(!movable(
            &kit.scn,
            &kit.st,
            Some(&kit.board()),
            gb2,
            Phase::AlliedReaction
        ));
        assert!(movable(
            &kit.scn,
            &kit.st,
            Some(&kit.board()),
            gb2,
            Phase::AlliedMovement
        ));
    }

    #[test]
    fn a_stack_stops_only_where_stacking_allows_7() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedMovement);
        let gb = kit.put("gb1", hex("1010"));
        let vol = kit.put("vol1", hex("1010"));
        kit.put("gb2", hex("1012"));
        let g = group(vec![gb, vol], hex("1010"));
        assert_eq!(
            cost_to(&kit, Side::Allied, &g, hex("1012")),
            None,
            "4 + 10 > 10"
        );
        assert_eq!(
            cost_to(&kit, Side::Allied, &g, hex("1013")),
            Some(3),
            "passing through is fine"
        );
    }

    #[test]
    fn artillery_and_civilians_move_only_with_a_combat_unit_9_15_r6() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedMovement);
        let h = hex("1010");
        let betsy = kit.put("betsy", h);
        let myers = kit.put("myers", h);
        let civ = kit.put("civ1", h);
        assert_eq!(
            budget(
                &kit.scn,
                &kit.st,
                &group(vec![betsy], h),
                Phase::AlliedMovement
            ),
            None
        );
        assert_eq!(
            budget(
                &kit.scn,
                &kit.st,
                &group(vec![betsy, myers], h),
                Phase::AlliedMovement
            ),
            None,
            "leaders may not move artillery (9)"
        );
        assert_eq!(
            budget(
                &kit.scn,
                &kit.st,
                &group(vec![civ, myers], h),
                Phase::AlliedMovement
            ),
            None,
            "a leader is not enough (15)"
        );
        let gb = kit.put("gb1", h);
        assert_eq!(
            budget(
                &kit.scn,
                &kit.st,
                &group(vec![betsy, civ, gb], h),
                Phase::AlliedMovement
            ),
            Some(6)
        );
    }

    #[test]
    fn chinese_movement_overruns_unmanned_artillery_9_r6() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::ChineseMovement);
        let betsy = kit.put("betsy", hex("1012"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1010"));
        kit.st.step = Step::Move {
            group: Some(group(vec![bx], hex("1010"))),
        };
        let mut game = kit.game();
        let events = game
            .apply(
                Side::Chinese,
                &Action::Move {
                    to: hex("1014"),
                    mp: 4,
                },
            )
            .unwrap();
        assert!(
            events
                .iter()
                .any(|e| matches!(e.kind, EventKind::Overrun { unit, .. } if unit == betsy))
        );
        assert_eq!(game.state().unit(betsy).loc, Loc::Eliminated);
    }

    #[test]
    fn a_move_through_a_victory_hex_takes_control_of_it_21() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::ChineseMovement);
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("3010"));
        kit.st.step = Step::Move {
            group: Some(group(vec![bx], hex("3010"))),
        };
        let mut game = kit.game();
        game.apply(
            Side::Chinese,
            &Action::Move {
                to: hex("3014"),
                mp: 4,
            },
        )
        .unwrap();
        let i = game
            .scenario()
            .map
            .victory_hexes()
            .iter()
            .position(|(h, _)| *h == hex("3012"))
            .unwrap();
        assert_eq!(game.state().control[i], Side::Chinese);
    }

    #[test]
    fn a_unit_moves_once_a_phase_and_stops_when_its_allowance_is_spent_5_1() {
        let mut kit = Kit::open();
        moving(&mut kit, Phase::AlliedMovement);
        let gb = kit.put("gb1", hex("1010"));
        kit.put("gb2", hex("3010"));
        let mut game = kit.game();
        game.apply(Side::Allied, &Action::SelectUnit { unit: gb })
            .unwrap();
        let events = game
            .apply(
                Side::Allied,
                &Action::Move {
                    to: hex("1013"),
                    mp: 3,
                },
            )
            .unwrap();
        // The move is told hex by hex, with what it cost.
        assert!(
            events
                .iter()
                .any(|e| e.text.ends_with(" move 1010 → 1011 → 1012 → 1013 (3 MP)")),
            "{events:?}"
        );
        game.apply(
            Side::Allied,
            &Action::Move {
                to: hex("1016"),
                mp: 3,
            },
        )
        .unwrap();
        // All 6 MP spent: the stack stopped by itself and may not be selected again.
        assert_eq!(game.state().step, Step::Move { group: None });
        assert!(
            !game
                .legal_actions(Side::Allied)
                .contains(&Action::SelectUnit { unit: gb })
        );
    }
}
