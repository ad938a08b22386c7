//! Chinese entry at the map edge (22, 19; ruling R6): at setup the Chinese player may bring on
//! every unit, each on a map-edge hex, at most 30 strength points a hex; each later turn, units
//! lifted off at the end of the previous turn and replacements from the pool enter the same way
//! and may move normally. Units may enter in an enemy ZOC but never into an enemy hex.

use crate::position::action::Action;
use crate::position::ctx::{Ctx, plural};
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::stacking;
use crate::position::state::{EntryKind, Loc, State, Step};
use crate::position::step_id::StepId;
use crate::vocabulary::hex::{COLUMNS, Hex, ROWS};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

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

/// The map-edge hexes clockwise from the north-west corner (R1). Listed once: the Chinese
/// entry asks for them at every entry, and walking the edge (skipping its corners twice) each
/// time was 1 % of a replay.
pub fn perimeter() -> &'static [Hex] {
    static PERIMETER: std::sync::OnceLock<Vec<Hex>> = std::sync::OnceLock::new();
    PERIMETER.get_or_init(|| {
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
    })
}

/// Whether a unit bringing `points` may enter at `hex` (22): a map-edge hex that is not canal,
/// holds no Allied unit, and keeps within 30 points.
fn can_enter(scn: &Scenario, board: &HexIndex, hex: Hex, points: u8) -> bool {
    hex.is_edge()
        && scn.map.terrain(hex) != crate::vocabulary::map::Terrain::Canal
        && board.at(hex).side != Some(Side::Allied)
        && stacking::fits(board, Side::Chinese, hex, points, 0).is_ok()
}

/// The off-map units of a kind, lowest id first: the order they enter in.
fn all_of(scn: &Scenario, st: &State, kind: EntryKind) -> Vec<UnitId> {
    scn.counters
        .counters
        .iter()
        .filter(|c| st.unit(c.id).loc == Loc::OffMap)
        .map(|c| c.id)
        .filter(|u| kind_of(scn, st, *u) == Some(kind))
        .collect()
}

/// The units of `kind` that enter `hex` together: the next ones waiting, as many as the hex
/// still has room for within 30 points (7, R6). Offered only when two or more fit.
fn group_for(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    waiting: &[UnitId],
    hex: Hex,
) -> Vec<UnitId> {
    let mut group: Vec<UnitId> = Vec::new();
    for &u in waiting {
        let mut more = group.clone();
        more.push(u);
        let (points, _) = stacking::load(scn, st, &more);
        if !can_enter(scn, board, hex, points) {
            break;
        }
        group = more;
    }
    if group.len() >= 2 { group } else { Vec::new() }
}

/// The legal actions of an entry step: one unit of the selected kind at a map-edge hex, or as
/// many of them as the hex has room for in one decision.
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
    if let Some(kind) = selected {
        let queue = all_of(scn, st, kind);
        if let Some(&u) = queue.first() {
            let board = HexIndex::of(scn, st);
            let (points, _) = stacking::load(scn, st, &[u]);
            let edge: Vec<Hex> = perimeter()
                .iter()
                .copied()
                .filter(|h| can_enter(scn, &board, *h, points))
                .collect();
            out.extend(edge.iter().map(|&hex| Action::Enter {
                hex,
                units: Vec::new(),
            }));
            if queue.len() >= 2 {
                for &hex in &edge {
                    let units = group_for(scn, st, &board, &queue, hex);
                    if !units.is_empty() {
                        out.push(Action::Enter { hex, units });
                    }
                }
            }
        }
    }
    out.push(Action::EndPhase);
}

/// Why `enter` at `hex` (with `units`, or the next unit of the selected kind) is refused, in
/// words with the rule (19, 22, 7, R6); `None` if this rule does not refuse it.
pub fn why_not_enter(
    scn: &Scenario,
    st: &State,
    hex: Hex,
    units: &[UnitId],
) -> Option<crate::vocabulary::error::RuleError> {
    use crate::vocabulary::error::RuleError;
    use siege_protocol::codes;
    let Step::Entry { selected } = st.step else {
        return None;
    };
    let Some(kind) = selected else {
        return Some(RuleError::illegal(
            codes::NOT_LEGAL_NOW,
            "22",
            "choose which kind of unit enters first (Boxers, reduced Boxers or Imperials), then the map-edge hex (19, 22)",
        ));
    };
    if !hex.is_edge() {
        return Some(RuleError::illegal(
            codes::NOT_A_LEGAL_CHOICE,
            "22",
            format!(
                "{hex} is not on the map edge: Chinese units enter only on map-edge hexes (19, 22)"
            ),
        ));
    }
    if scn.map.terrain(hex) == crate::vocabulary::map::Terrain::Canal {
        return Some(RuleError::illegal(
            codes::TERRAIN,
            "5.1",
            format!("{hex} is canal: no unit may enter it (5.1, R3)"),
        ));
    }
    let board = HexIndex::of(scn, st);
    if board.at(hex).side == Some(Side::Allied) {
        return Some(RuleError::illegal(
            codes::ENEMY_HEX,
            "22",
            format!(
                "{hex} holds Allied units: Chinese units may enter in an Allied ZOC but never into an Allied hex (5.1, 22)"
            ),
        ));
    }
    let queue = all_of(scn, st, kind);
    let coming: Vec<UnitId> = if units.is_empty() {
        queue.first().copied().into_iter().collect()
    } else {
        units.to_vec()
    };
    if coming.is_empty() {
        return None;
    }
    if !units.is_empty() && !queue.starts_with(units) {
        return Some(RuleError::illegal(
            codes::NOT_A_LEGAL_CHOICE,
            "22",
            format!(
                "units of the selected kind enter in counter order: the next ones waiting are {} (22)",
                crate::position::ctx::names(scn, &queue[..queue.len().min(units.len())])
            ),
        ));
    }
    let (points, _) = stacking::load(scn, st, &coming);
    if stacking::fits(&board, Side::Chinese, hex, points, 0).is_err() {
        let have = board.at(hex).points;
        return Some(RuleError::illegal(
            codes::STACKING,
            "7",
            format!(
                "{hex} already holds {have} Chinese strength points: {} more would make {}, over the 30 points a hex may hold (7, R6)",
                points,
                u16::from(have) + u16::from(points)
            ),
        ));
    }
    None
}

/// Apply an entry action (already known to be legal).
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    match action {
        Action::SelectEntry { kind } => {
            ctx.st.step = Step::Entry {
                selected: Some(*kind),
            }
        }
        Action::Enter { hex, units } => {
            let Step::Entry {
                selected: Some(kind),
            } = ctx.st.step
            else {
                return;
            };
            if units.is_empty() {
                if let Some(u) = next_of(ctx.scn, ctx.st, kind) {
                    enter(ctx, u, *hex);
                }
            } else {
                for &u in units {
                    enter(ctx, u, *hex);
                }
            }
            if next_of(ctx.scn, ctx.st, kind).is_none() {
                ctx.st.step = Step::Entry { selected: None };
            }
        }
        Action::DeployDefault => deploy_default(ctx),
        _ => {}
    }
}

/// Bring unit `u` on at `hex`. Entering is moving: the unit may still move this phase (19), but
/// it has moved in its movement phase and may not help build a fortification (13, R7).
fn enter(ctx: &mut Ctx<'_>, u: UnitId, hex: Hex) {
    let us = ctx.st.unit_mut(u);
    us.loc = Loc::Map(hex);
    us.marks.moved_full = true;
    let text = format!("{} enter at {hex}", ctx.name(u));
    ctx.emit(EventKind::Entered { unit: u, hex }, text);
}

/// Bring every waiting unit on, spread evenly around the map edge, one unit a hex where there
/// is room: a sensible default for the Chinese entry (22). Units already entered stay where
/// they are, and the step stays open: the player may still take it back or end it.
fn deploy_default(ctx: &mut Ctx<'_>) {
    let units: Vec<UnitId> = ctx
        .scn
        .counters
        .counters
        .iter()
        .filter(|c| ctx.st.unit(c.id).loc == Loc::OffMap)
        .map(|c| c.id)
        .collect();
    let kept: Vec<UnitId> = ctx
        .scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Chinese && matches!(ctx.st.unit(c.id).loc, Loc::Map(_)))
        .map(|c| c.id)
        .collect();
    let ring = perimeter();
    let n = ring.len();
    let count = units.len().max(1);
    let mut entered: Vec<UnitId> = Vec::new();
    for (i, u) in units.into_iter().enumerate() {
        let board = HexIndex::of(ctx.scn, ctx.st);
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
            ctx.st.unit_mut(u).loc = Loc::Map(h);
            entered.push(u);
        }
    }
    ctx.st.step = Step::Entry { selected: None };
    let text = default_text(ctx, "The Chinese enter by default", &entered, &kept);
    ctx.emit(
        EventKind::DeployedDefault {
            side: Side::Chinese,
            count: u16::try_from(entered.len()).unwrap_or(u16::MAX),
            units: entered,
            kept,
        },
        text,
    );
}

/// The words of a default deployment: how many units it placed, and which units placed by hand
/// stayed where (22).
pub fn default_text(ctx: &Ctx<'_>, what: &str, placed: &[UnitId], kept: &[UnitId]) -> String {
    let mut text = format!("{what}: {} placed", plural(placed.len(), "unit", "units"));
    if !kept.is_empty() {
        let at: Vec<String> = kept
            .iter()
            .map(|u| {
                let hex = ctx
                    .st
                    .unit(*u)
                    .hex()
                    .map_or(String::new(), |h| format!(" at {h}"));
                format!("{}{hex}", ctx.name(*u))
            })
            .collect();
        text.push_str(&format!(
            "; placed by hand and kept where they were: {}",
            at.join(", ")
        ));
    }
    text
}

/// The prompt of an entry step.
pub fn prompt(scn: &Scenario, st: &State, selected: Option<EntryKind>) -> String {
    let count = scn
        .counters
        .counters
        .iter()
        .filter(|c| st.unit(c.id).loc == Loc::OffMap)
        .count();
    let when = if st.slot == StepId::ChineseSetup {
        "Chinese entry (22)"
    } else {
        "Chinese units enter (19, 22)"
    };
    let wait = match count {
        1 => "1 unit waits".to_string(),
        n => format!("{n} units wait"),
    };
    match selected {
        Some(k) => format!(
            "{when}: {wait} off the map. Click a map-edge hex to bring on {} (or as many as the hex holds).",
            kind_name(k)
        ),
        None if count == 0 => {
            format!(
                "{when}: every unit is on the map. Look it over, take it back, or end the entry."
            )
        }
        None => format!(
            "{when}: {wait} off the map. Choose a kind of unit, take the default spread, or end."
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
    use siege_protocol::Phase;

    #[test]
    fn chinese_units_may_enter_on_the_tartar_wall_edge_hexes_22_r7() {
        let kit = Kit::new();
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, Some(EntryKind::Boxer), &mut out);
        let wall_ends: Vec<Hex> = perimeter()
            .iter()
            .copied()
            .filter(|h| kit.scn.map.terrain(*h) == crate::vocabulary::map::Terrain::TartarWall)
            .collect();
        assert_eq!(
            wall_ends.len(),
            4,
            "two hexes of the wall at each end of the map"
        );
        for hex in wall_ends {
            assert!(out.contains(&Action::Enter { hex, units: vec![] }), "{hex}");
        }
    }

    #[test]
    fn entry_is_on_map_edge_hexes_only_22() {
        let mut kit = Kit::new();
        kit.set(
            Phase::ChineseSetup,
            Step::Entry {
                selected: Some(EntryKind::Boxer),
            },
        );
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, Some(EntryKind::Boxer), &mut out);
        let hexes: Vec<Hex> = out
            .iter()
            .filter_map(|a| match a {
                Action::Enter { hex, .. } => Some(*hex),
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
        kit.set(Phase::ChineseSetup, Step::Entry { selected: None });
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

    /// A Chinese setup's entry step with Boxers selected, in a game.
    fn boxers_selected() -> Kit {
        let mut kit = Kit::new();
        kit.deploy_allies();
        kit.set(
            Phase::ChineseSetup,
            Step::Entry {
                selected: Some(EntryKind::Boxer),
            },
        );
        kit
    }

    #[test]
    fn a_group_enters_one_edge_hex_together_as_many_as_its_30_points_hold_22_7_r6() {
        let kit = boxers_selected();
        let edge = hex("0501");
        let queue = all_of(&kit.scn, &kit.st, EntryKind::Boxer);
        let mut game = kit.game();
        let offered = game.legal_actions(Side::Chinese);
        let group = offered
            .iter()
            .find_map(|a| match a {
                Action::Enter { hex, units } if *hex == edge && !units.is_empty() => {
                    Some(units.clone())
                }
                _ => None,
            })
            .expect("a group entry at the edge hex");
        // Boxers are 10 points: three fill a hex (7, R6), the next ones waiting.
        assert_eq!(group, queue[..3].to_vec());
        let events = game
            .apply(
                Side::Chinese,
                &Action::Enter {
                    hex: edge,
                    units: group.clone(),
                },
            )
            .unwrap();
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Entered { .. }))
                .count(),
            3
        );
        for u in &group {
            assert_eq!(game.state().unit(*u).loc, Loc::Map(edge));
        }
        // The hex is full now: no more entries there, and the refusal says why.
        let again = Action::Enter {
            hex: edge,
            units: Vec::new(),
        };
        assert!(!game.legal_actions(Side::Chinese).contains(&again));
        let e = game.apply(Side::Chinese, &again).unwrap_err();
        assert_eq!(e.rule(), Some("7"));
        assert!(e.to_string().contains("30 points"), "{e}");
    }

    #[test]
    fn a_group_must_be_the_next_units_waiting_22() {
        let kit = boxers_selected();
        let queue = all_of(&kit.scn, &kit.st, EntryKind::Boxer);
        let mut game = kit.game();
        let skip = Action::Enter {
            hex: hex("0501"),
            units: vec![queue[1], queue[2]],
        };
        let before = game.state_hash();
        let e = game.apply(Side::Chinese, &skip).unwrap_err();
        assert_eq!(e.rule(), Some("22"));
        assert_eq!(game.state_hash(), before);
    }

    #[test]
    fn entering_off_the_edge_or_into_allied_units_is_refused_with_its_rule_22() {
        let kit = boxers_selected();
        let mut game = kit.game();
        let inside = Action::Enter {
            hex: hex("1515"),
            units: Vec::new(),
        };
        let e = game.apply(Side::Chinese, &inside).unwrap_err();
        assert!(e.to_string().contains("map edge"), "{e}");
        let mut kit = boxers_selected();
        let edge = hex("3920");
        kit.put("gb2", edge);
        let e = kit
            .game()
            .apply(
                Side::Chinese,
                &Action::Enter {
                    hex: edge,
                    units: Vec::new(),
                },
            )
            .unwrap_err();
        assert!(e.to_string().contains("Allied"), "{e}");
    }

    #[test]
    fn the_default_entry_keeps_units_entered_by_hand_says_so_and_leaves_the_step_open_22() {
        let mut kit = boxers_selected();
        let first = all_of(&kit.scn, &kit.st, EntryKind::Boxer)[0];
        kit.run(|ctx| {
            apply(
                ctx,
                &Action::Enter {
                    hex: hex("0501"),
                    units: Vec::new(),
                },
            )
        });
        kit.st.step = Step::Entry { selected: None };
        let mut game = kit.game();
        let events = game.apply(Side::Chinese, &Action::DeployDefault).unwrap();
        assert_eq!(game.state().unit(first).loc, Loc::Map(hex("0501")));
        let (units, kept) = events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::DeployedDefault { units, kept, .. } => Some((units, kept)),
                _ => None,
            })
            .expect("the default entry is logged");
        assert_eq!(kept, &vec![first]);
        assert!(!units.contains(&first));
        let text = &events.last().unwrap().text;
        assert!(
            text.contains("kept where they were") && text.contains("0501"),
            "{text}"
        );
        // Every unit is on, but the entry stays open until the Chinese player ends it.
        assert!(!any_waiting(&game.scenario().clone(), game.state()));
        assert_eq!(game.state().phase(), Phase::ChineseSetup);
        assert_eq!(game.to_act(), Some(Side::Chinese));
    }
}
