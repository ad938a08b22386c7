//! What follows every action, whatever caused it: the checks that hold after any change to the
//! position, run by the sequence of play after every applied action and every automatic step,
//! in a fixed order, until nothing changes. Mechanics change the position and say what happened
//! (their events); they never call these checks, so no cause — combat, retreat, withdrawal,
//! advance, the Big Gun, a mine, attrition, a stacking loss — can forget one.
//!
//! In order:
//! 1. civilians with no Allied combat unit in or next to their hex are lost (15, R7);
//! 2. a leader whose stack's last combat unit was eliminated goes to the nearest friendly unit
//!    (11.1);
//! 3. a hex over the stacking limit where no stack is in motion is thinned by its owner (7);
//! 4. victory hexes change hands as units pass through or stand in them (21);
//! 5. the instant Chinese victories: as many victory hexes as the turn, or no Allied combat unit
//!    or leader left (21).

use crate::mechanics::{civilians, leaders, victory};
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::pending::Pending;
use crate::position::stacking;
use crate::position::state::Step;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::units::UnitKind;
use siege_protocol::Side;

/// Rounds of checks after one change before giving up on a fixed point; each round that
/// changes something removes a unit or settles a hex, so a few always suffice.
const ROUNDS: usize = 16;

/// Run the checks in order until a round changes nothing.
pub fn run(ctx: &mut Ctx<'_>) {
    for _ in 0..ROUNDS {
        let events = ctx.events.len();
        let pending = ctx.st.pending.len();
        let from = ctx.checked;
        ctx.checked = ctx.events.len();
        civilians::check(ctx);
        leaders_left_alone(ctx, from);
        over_stacking(ctx);
        victory_hexes(ctx, from);
        victory::check_instant(ctx);
        if ctx.events.len() == events && ctx.st.pending.len() == pending {
            return;
        }
    }
}

/// Leaders in hexes where a combat unit or volunteers were eliminated since event `from`, and
/// no Allied combat unit is left, go to the nearest friendly unit (11.1).
fn leaders_left_alone(ctx: &mut Ctx<'_>, from: usize) {
    let mut hexes: Vec<Hex> = Vec::new();
    for e in &ctx.events[from..] {
        let (unit, hex) = match &e.kind {
            EventKind::Eliminated { unit, hex, .. } => (*unit, *hex),
            EventKind::Attrition { unit, hex } => (*unit, *hex),
            _ => continue,
        };
        let kind = ctx.scn.counters.get(unit).kind;
        if let Some(h) = hex
            && matches!(kind, UnitKind::Combat | UnitKind::Volunteer)
            && !hexes.contains(&h)
        {
            hexes.push(h);
        }
    }
    for h in hexes {
        leaders::displace_if_alone(ctx, h);
    }
}

/// The hexes where a stack is still on its way: the stack being moved and the stack
/// retreating. Stacking counts only where a move or retreat ends (7).
fn in_motion(ctx: &Ctx<'_>) -> Vec<Hex> {
    let mut out = Vec::new();
    if let Step::Move { group: Some(g) } | Step::Bayonet { group: Some(g) } = &ctx.st.step {
        out.push(g.hex);
    }
    if let Some(Pending::Retreat(r)) = ctx.st.pending.first() {
        out.push(r.at);
    }
    out
}

/// A hex over the stacking limit where nothing is in motion: its owner eliminates units until
/// it is within the limit (7, 8.3). Settled before anything else waiting.
fn over_stacking(ctx: &mut Ctx<'_>) {
    let moving = in_motion(ctx);
    let board = HexIndex::new(ctx.scn, ctx.st);
    let mut hexes: Vec<Hex> = ctx.st.units.iter().filter_map(|u| u.hex()).collect();
    hexes.sort();
    hexes.dedup();
    for hex in hexes {
        let waiting = ctx
            .st
            .pending
            .iter()
            .any(|p| matches!(p, Pending::Overstack { hex: h, .. } if *h == hex));
        if moving.contains(&hex) || waiting || stacking::is_legal(&board, hex) {
            continue;
        }
        if let Some(side) = board.at(hex).side {
            ctx.st.pending.insert(0, Pending::Overstack { side, hex });
        }
    }
}

/// Victory hexes change hands (21): every hex a stack passed through since event `from`, in
/// order, then every victory hex where units stand.
fn victory_hexes(ctx: &mut Ctx<'_>, from: usize) {
    let mut passed: Vec<(Side, Hex)> = Vec::new();
    for e in &ctx.events[from..] {
        if let EventKind::Moved { units, path, .. } = &e.kind
            && let Some(u) = units.first()
        {
            let side = ctx.scn.counters.get(*u).side;
            passed.extend(path.iter().skip(1).map(|h| (side, *h)));
        }
    }
    for (side, hex) in passed {
        victory::enter(ctx, side, hex);
    }
    let board = HexIndex::new(ctx.scn, ctx.st);
    let standing: Vec<(Side, Hex)> = ctx
        .scn
        .map
        .victory_hexes()
        .iter()
        .filter_map(|(hex, _)| board.at(*hex).side.map(|s| (s, *hex)))
        .collect();
    for (side, hex) in standing {
        victory::enter(ctx, side, hex);
    }
}
