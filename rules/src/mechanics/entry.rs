//! Chinese entry at the map edge (22, 19; ruling R6): at setup the Chinese player may bring on
//! every unit, each on a map-edge hex, at most 30 strength points a hex; each later turn, units
//! lifted off at the end of the previous turn and replacements from the pool enter the same way
//! and may move normally. Units may enter in an enemy ZOC but never into an enemy hex.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::stacking;
use crate::position::state::{EntryKind, Loc, State, Step};
use crate::vocabulary::hex::{COLUMNS, Hex, ROWS};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::{Phase, Side};

/// The kind of an off-map Chinese unit.
fn kind_of(scn: &Scenario, st: &State, u: UnitId) -> Option<EntryKind> {
    match scn.counters.get(u).kind {
        UnitKind::Boxer if st.unit(u).reduced => Some(EntryKind::ReducedBoxer),
        UnitKind::Boxer => Some(EntryKind::Boxer),
        UnitKind::Imperial => Some(EntryKind::Imperial),
        _ => None,
    }
}

/// The next off-map unit of a kind, lowest id first.
fn next_of(scn: &Scenario, st: &State, kind: EntryKind) -> Option<UnitId> {
    scn.counters
        .counters
        .iter()
        .filter(|c| st.unit(c.id).loc == Loc::OffMap)
        .map(|c| c.id)
        .find(|u| kind_of(scn, st, *u) == Some(kind))
}

/// The kinds of unit waiting off the map.
fn waiting(scn: &Scenario, st: &State) -> Vec<EntryKind> {
    let mut kinds: Vec<EntryKind> = scn
        .counters
        .counters
        .iter()
        .filter(|c| st.unit(c.id).loc == Loc::OffMap)
        .filter_map(|c| kind_of(scn, st, c.id))
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// Whether any Chinese unit waits off the map.
pub fn any_waiting(scn: &Scenario, st: &State) -> bool {
    !waiting(scn, st).is_empty()
}

/// The map-edge hexes clockwise from the north-west corner (R1).
pub fn perimeter() -> Vec<Hex> {
    let mut out = Vec::new();
    let mut push = |c: u8, r: u8| {
        if let Some(h) = Hex::new(c, r)
            && !out.contains(&h)
        {
            out.push(h);
        }
    };
    (1..=COLUMNS).for_each(|c| push(c, 1));
    (1..=ROWS).for_each(|r| push(COLUMNS, r));
    (1..=COLUMNS).rev().for_each(|c| push(c, ROWS));
    (1..=ROWS).rev().for_each(|r| push(1, r));
    out
}

/// Whether a unit bringing `points` may enter at `hex` (22): a map-edge hex that is not canal,
/// holds no Allied unit, and keeps within 30 points.
fn can_enter(scn: &Scenario, board: &HexIndex, hex: Hex, points: u8) -> bool {
    hex.is_edge()
        && scn.map.terrain(hex) != crate::vocabulary::map::Terrain::Canal
        && board.at(hex).side != Some(Side::Allied)
        && stacking::fits(board, Side::Chinese, hex, points, 0).is_ok()
}

/// The legal actions of an entry step.
pub fn legal(scn: &Scenario, st: &State, selected: Option<EntryKind>, out: &mut Vec<Action>) {
    let kinds = waiting(scn, st);
    if !kinds.is_empty() {
        out.push(Action::DeployDefault);
    }
    for &kind in &kinds {
        if Some(kind) != selected {
            out.push(Action::SelectEntry { kind });
        }
    }
    if let Some(u) = selected.and_then(|k| next_of(scn, st, k)) {
        let board = HexIndex::new(scn, st);
        let (points, _) = stacking::load(scn, st, &[u]);
        for hex in perimeter() {
            if can_enter(scn, &board, hex, points) {
                out.push(Action::Enter { hex });
            }
        }
    }
    out.push(Action::EndPhase);
}

/// Apply an entry action (already known to be legal).
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    match action {
        Action::SelectEntry { kind } => {
            ctx.st.step = Step::Entry {
                selected: Some(*kind),
            }
        }
        Action::Enter { hex } => {
            let Step::Entry {
                selected: Some(kind),
            } = ctx.st.step
            else {
                return;
            };
            if let Some(u) = next_of(ctx.scn, ctx.st, kind) {
                enter(ctx, u, *hex);
            }
            if next_of(ctx.scn, ctx.st, kind).is_none() {
                ctx.st.step = Step::Entry { selected: None };
            }
        }
        Action::DeployDefault => deploy_default(ctx),
        _ => {}
    }
}

fn enter(ctx: &mut Ctx<'_>, u: UnitId, hex: Hex) {
    ctx.st.unit_mut(u).loc = Loc::Map(hex);
    let text = format!("{} enter at {hex}", ctx.name(u));
    ctx.emit(EventKind::Entered { unit: u, hex }, text);
}

/// Bring every waiting unit on, spread evenly around the map edge, one unit a hex where there
/// is room: a sensible default for the Chinese entry (22).
fn deploy_default(ctx: &mut Ctx<'_>) {
    let units: Vec<UnitId> = ctx
        .scn
        .counters
        .counters
        .iter()
        .filter(|c| ctx.st.unit(c.id).loc == Loc::OffMap)
        .map(|c| c.id)
        .collect();
    let ring = perimeter();
    let n = ring.len();
    let count = units.len().max(1);
    for (i, u) in units.into_iter().enumerate() {
        let board = HexIndex::new(ctx.scn, ctx.st);
        let (points, _) = stacking::load(ctx.scn, ctx.st, &[u]);
        let start = i * n / count;
        let spot = (0..n)
            .map(|k| ring[(start + k) % n])
            .find(|h| board.at(*h).side.is_none() && can_enter(ctx.scn, &board, *h, points))
            .or_else(|| {
                (0..n)
                    .map(|k| ring[(start + k) % n])
                    .find(|h| can_enter(ctx.scn, &board, *h, points))
            });
        if let Some(h) = spot {
            enter(ctx, u, h);
        }
    }
    ctx.st.step = Step::Entry { selected: None };
}

/// The prompt of an entry step.
pub fn prompt(scn: &Scenario, st: &State, selected: Option<EntryKind>) -> String {
    let count = scn
        .counters
        .counters
        .iter()
        .filter(|c| st.unit(c.id).loc == Loc::OffMap)
        .count();
    let when = if st.phase == Phase::ChineseSetup {
        "Chinese entry (22)"
    } else {
        "Chinese units enter (19, 22)"
    };
    match selected {
        Some(k) => format!(
            "{when}: {count} units wait off the map. Click a map-edge hex to bring on {}.",
            kind_name(k)
        ),
        None => format!(
            "{when}: {count} units wait off the map. Choose a kind of unit, take the default spread, or end."
        ),
    }
}

fn kind_name(k: EntryKind) -> &'static str {
    match k {
        EntryKind::Boxer => "a Boxer unit",
        EntryKind::ReducedBoxer => "a reduced Boxer unit",
        EntryKind::Imperial => "an Imperial unit",
    }
}

/// The Chinese units that may be lifted off at the end of the turn (22), and ending the turn.
pub fn lift_legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    let mut hexes: Vec<Hex> = scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Chinese)
        .filter_map(|c| st.unit(c.id).hex())
        .collect();
    hexes.sort();
    hexes.dedup();
    out.extend(hexes.into_iter().map(|hex| Action::Lift { hex }));
    out.push(Action::EndPhase);
}

/// Lift the Chinese units in a hex off the map, to re-enter at a map edge next turn (22).
pub fn lift_apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Action::Lift { hex } = action else { return };
    let units: Vec<UnitId> = ctx
        .st
        .units_at(*hex)
        .filter(|u| ctx.scn.counters.get(*u).side == Side::Chinese)
        .collect();
    for &u in &units {
        ctx.st.unit_mut(u).loc = Loc::OffMap;
    }
    let text = format!(
        "{} are lifted off the map at {hex}, to re-enter at a map edge next turn (22)",
        ctx.names(&units)
    );
    ctx.emit(EventKind::Lifted { units, hex: *hex }, text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};

    #[test]
    fn entry_is_on_map_edge_hexes_only_22() {
        let mut kit = Kit::new();
        kit.st.phase = Phase::ChineseSetup;
        kit.st.step = Step::Entry {
            selected: Some(EntryKind::Boxer),
        };
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, Some(EntryKind::Boxer), &mut out);
        let hexes: Vec<Hex> = out
            .iter()
            .filter_map(|a| match a {
                Action::Enter { hex } => Some(*hex),
                _ => None,
            })
            .collect();
        assert!(!hexes.is_empty());
        assert!(hexes.iter().all(|h| h.is_edge()));
        assert!(
            !hexes.contains(&hex("2101"))
                || kit.scn.map.terrain(hex("2101")) != crate::vocabulary::map::Terrain::Canal
        );
        let _ = &mut kit;
    }

    #[test]
    fn at_most_30_points_enter_a_hex_22_7() {
        let mut kit = Kit::new();
        let edge = hex("0501");
        for _ in 0..3 {
            kit.place(UnitKind::Boxer, Side::Chinese, edge);
        }
        let board = kit.board();
        assert!(!can_enter(&kit.scn, &board, edge, 10));
        assert!(can_enter(&kit.scn, &board, hex("0601"), 10));
    }

    #[test]
    fn units_may_enter_in_an_allied_zoc_but_not_into_allied_units_22() {
        let mut kit = Kit::new();
        let edge = hex("3920");
        kit.put("gb1", hex("3820"));
        let board = kit.board();
        assert!(
            board.in_zoc_of(Side::Allied, edge)
                || kit.scn.map.terrain(edge) == crate::vocabulary::map::Terrain::Building
        );
        assert!(can_enter(&kit.scn, &board, edge, 10));
        kit.put("gb2", edge);
        assert!(!can_enter(&kit.scn, &kit.board(), edge, 10));
    }

    #[test]
    fn the_default_entry_brings_every_unit_on_22() {
        let mut kit = Kit::new();
        kit.st.phase = Phase::ChineseSetup;
        kit.st.step = Step::Entry { selected: None };
        kit.run(deploy_default);
        assert!(!any_waiting(&kit.scn, &kit.st));
        let board = kit.board();
        for h in Hex::all() {
            assert!(stacking::is_legal(&board, h));
        }
    }

    #[test]
    fn lifted_units_wait_off_the_map_to_re_enter_22() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, h);
        kit.run(|ctx| lift_apply(ctx, &Action::Lift { hex: h }));
        assert_eq!(kit.st.unit(bx).loc, Loc::OffMap);
        assert!(any_waiting(&kit.scn, &kit.st));
    }

    #[test]
    fn the_perimeter_lists_every_edge_hex_once_r1() {
        let p = perimeter();
        assert_eq!(p.len(), Hex::all().filter(|h| h.is_edge()).count());
    }
}
