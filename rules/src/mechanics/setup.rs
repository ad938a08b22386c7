//! Allied setup (22; ruling R2): every Allied unit is placed inside the setup line, off outside
//! ground, obeying stacking (7); artillery must stand with a combat unit (9) and civilians with or
//! beside one (15). Placement is chosen in small steps — unit, area of the map, hex — and a
//! default deployment from the data file `scenario/deployment.txt` places everyone at once.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::stacking;
use crate::position::state::{Loc, State, Step};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::map::Map;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// Pseudo-area keys for setup hexes that belong to no named area, by quarter of the map.
const OPEN_GROUND: [(&str, &str); 4] = [
    ("open_nw", "open ground, north-west"),
    ("open_ne", "open ground, north-east"),
    ("open_sw", "open ground, south-west"),
    ("open_se", "open ground, south-east"),
];

/// The setup-area key of a hex: its named area, or the quarter of open ground it lies in.
pub fn area_key(map: &Map, hex: Hex) -> &str {
    match map.area(hex) {
        Some(a) => &map.area_info(a).key,
        None => {
            let east = usize::from(hex.col() > 20);
            let south = usize::from(hex.row() > 18);
            OPEN_GROUND[south * 2 + east].0
        }
    }
}

/// Whether the Allied unit `u` may be placed in `hex` now (22, 7).
fn can_place(scn: &Scenario, st: &State, board: &HexIndex, u: UnitId, hex: Hex) -> bool {
    if !scn.map.in_setup_area(hex) {
        return false;
    }
    let (mut points, mut guns) = stacking::load(scn, st, &[u]);
    if st.unit(u).loc == Loc::Map(hex) {
        // Already here: it is counted in the board.
        points = 0;
        guns = 0;
    }
    stacking::fits(board, Side::Allied, hex, points, guns).is_ok()
}

/// What still stops the Allied setup from ending, in words (22, 9, 15).
pub fn unready(scn: &Scenario, st: &State) -> Option<String> {
    let unplaced = scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Allied && st.unit(c.id).loc == Loc::Unplaced)
        .count();
    if unplaced > 0 {
        return Some(format!(
            "{unplaced} Allied units are still to be placed (22)"
        ));
    }
    let board = HexIndex::of(scn, st);
    for c in scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Allied)
    {
        let Some(h) = st.unit(c.id).hex() else {
            continue;
        };
        if c.kind == UnitKind::Artillery && !board.at(h).manned {
            return Some(format!("{} at {h} needs a combat unit with it (9)", c.name));
        }
        if c.kind == UnitKind::Civilian && !crate::mechanics::civilians::escorted(&board, h) {
            return Some(format!(
                "{} at {h} need a combat unit with or beside them (15)",
                c.name
            ));
        }
    }
    None
}

/// Why placing the selected unit at `hex` is refused, in words with the rule (22, 7, 9, 15);
/// `None` if these rules do not refuse it.
pub fn why_not_place(
    scn: &Scenario,
    st: &State,
    hex: Hex,
) -> Option<crate::vocabulary::error::RuleError> {
    use crate::vocabulary::error::RuleError;
    use siege_protocol::codes;
    let Step::AlliedSetup { selected, area } = st.step else {
        return None;
    };
    let Some(u) = selected else {
        return Some(RuleError::illegal(
            codes::NOT_LEGAL_NOW,
            "22",
            "select the unit to place first, then its area and hex (22)",
        ));
    };
    if !scn.map.in_setup_area(hex) {
        let why = if scn.map.inside_setup_line(hex) {
            "it is outside ground, where the Allies never set up (22, R2)"
        } else {
            "it lies outside the Allied setup line (22)"
        };
        return Some(RuleError::illegal(
            codes::NOT_A_LEGAL_CHOICE,
            "22",
            format!(
                "{} cannot be placed at {hex}: {why}",
                scn.counters.get(u).name
            ),
        ));
    }
    let board = HexIndex::of(scn, st);
    let (points, guns) = stacking::load(scn, st, &[u]);
    if st.unit(u).loc != Loc::Map(hex)
        && let Err(e) = stacking::fits(&board, Side::Allied, hex, points, guns)
    {
        return Some(e);
    }
    let key = area_key(&scn.map, hex);
    if area.map(|a| area_name_by_index(scn, a)).as_deref() != Some(key) {
        return Some(RuleError::illegal(
            codes::NOT_A_LEGAL_CHOICE,
            "22",
            format!(
                "{hex} lies in {}: choose that area first, then the hex (22)",
                area_title(scn, key)
            ),
        ));
    }
    None
}

/// The legal actions of the Allied setup step.
pub fn legal(
    scn: &Scenario,
    st: &State,
    selected: Option<UnitId>,
    area: Option<u8>,
    out: &mut Vec<Action>,
) {
    out.push(Action::DeployDefault);
    for c in scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Allied)
    {
        if selected != Some(c.id) {
            out.push(Action::SelectUnit { unit: c.id });
        }
    }
    if let Some(u) = selected {
        let board = HexIndex::of(scn, st);
        let mut keys: Vec<&str> = Vec::new();
        let mut places: Vec<Hex> = Vec::new();
        let chosen = area.map(|a| area_name_by_index(scn, a));
        for h in Hex::all().filter(|h| can_place(scn, st, &board, u, *h)) {
            let key = area_key(&scn.map, h);
            if !keys.contains(&key) {
                keys.push(key);
            }
            if chosen.as_deref() == Some(key) {
                places.push(h);
            }
        }
        keys.sort_unstable();
        for key in keys.into_iter().filter(|k| Some(*k) != chosen.as_deref()) {
            out.push(Action::ChooseArea {
                area: key.to_string(),
            });
        }
        out.extend(places.into_iter().map(|hex| Action::Place { hex }));
    }
    if unready(scn, st).is_none() {
        out.push(Action::EndPhase);
    }
}

/// Setup areas are numbered: named areas by their index, open ground after them.
fn area_name_by_index(scn: &Scenario, a: u8) -> String {
    let named = scn.map.areas().len();
    match usize::from(a).checked_sub(named) {
        None => scn.map.areas()[usize::from(a)].key.clone(),
        Some(i) => OPEN_GROUND
            .get(i)
            .map_or(String::new(), |(k, _)| (*k).to_string()),
    }
}

fn area_index_by_name(scn: &Scenario, key: &str) -> Option<u8> {
    if let Some(a) = scn.map.area_by_key(key) {
        return Some(a.0);
    }
    let i = OPEN_GROUND.iter().position(|(k, _)| *k == key)?;
    u8::try_from(scn.map.areas().len() + i).ok()
}

/// The name in words of a setup area key.
pub fn area_title(scn: &Scenario, key: &str) -> String {
    match scn.map.area_by_key(key) {
        Some(a) => scn.map.area_info(a).name.clone(),
        None => OPEN_GROUND
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(key.to_string(), |(_, n)| (*n).to_string()),
    }
}

/// Apply an Allied setup action (already known to be legal).
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Step::AlliedSetup { selected, area } = &mut ctx.st.step else {
        return;
    };
    match action {
        Action::SelectUnit { unit } => {
            *selected = Some(*unit);
            *area = None;
        }
        Action::ChooseArea { area: key } => {
            *area = area_index_by_name(ctx.scn, key);
        }
        Action::Place { hex } => {
            let Some(u) = selected.take() else { return };
            *area = None;
            ctx.st.unit_mut(u).loc = Loc::Map(*hex);
            let text = format!("{} is placed at {hex}", ctx.name(u));
            ctx.emit(EventKind::Placed { unit: u, hex: *hex }, text);
        }
        Action::DeployDefault => {
            *selected = None;
            *area = None;
            deploy_default(ctx);
        }
        _ => {}
    }
}

/// Whether a unit of this kind has the company it needs in `hex`: artillery a combat unit in
/// the hex (9), civilians one in or beside it (15).
fn company(scn: &Scenario, board: &HexIndex, u: UnitId, hex: Hex) -> bool {
    match scn.counters.get(u).kind {
        UnitKind::Artillery => board.at(hex).manned,
        UnitKind::Civilian => board.at(hex).manned || hex.neighbours().any(|n| board.at(n).manned),
        _ => true,
    }
}

/// The default deployment (22) for the units not yet placed: each goes to its hex in
/// `scenario/deployment.txt`, or — where units placed by hand leave no room or no company — to
/// the nearest hex where it may stand. Units already placed stay where they are. Combat units
/// and leaders go first so that guns and civilians find their escorts.
fn deploy_default(ctx: &mut Ctx<'_>) {
    let scn = ctx.scn;
    let kept: Vec<UnitId> = scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == Side::Allied && matches!(ctx.st.unit(c.id).loc, Loc::Map(_)))
        .map(|c| c.id)
        .collect();
    let mut todo: Vec<(UnitId, Hex)> = scn
        .deployment
        .hexes
        .iter()
        .copied()
        .filter(|(u, _)| ctx.st.unit(*u).loc == Loc::Unplaced)
        .collect();
    todo.sort_by_key(|(u, _)| scn.counters.get(*u).kind.is_passenger());
    let mut placed: Vec<UnitId> = Vec::new();
    for (u, home) in todo {
        let board = HexIndex::of(scn, ctx.st);
        let fits = |h: Hex| can_place(scn, ctx.st, &board, u, h) && company(scn, &board, u, h);
        let spot = if fits(home) {
            Some(home)
        } else {
            Hex::all()
                .filter(|h| fits(*h))
                .min_by_key(|h| (h.distance(home), *h))
        };
        if let Some(h) = spot {
            ctx.st.unit_mut(u).loc = Loc::Map(h);
            placed.push(u);
        }
    }
    let text = crate::mechanics::entry::default_text(
        ctx,
        "The Allies take up the default deployment",
        &placed,
        &kept,
    );
    ctx.emit(
        EventKind::DeployedDefault {
            side: Side::Allied,
            count: u16::try_from(placed.len()).unwrap_or(u16::MAX),
            units: placed,
            kept,
        },
        text,
    );
}

/// The prompt of the Allied setup step.
pub fn prompt(scn: &Scenario, st: &State, selected: Option<UnitId>, area: Option<u8>) -> String {
    match (selected, area) {
        (Some(u), Some(a)) => format!(
            "Place {} in a hex of {} (22).",
            scn.counters.get(u).name,
            area_title(scn, &area_name_by_index(scn, a))
        ),
        (Some(u), None) => format!(
            "Choose the area of the map where {} sets up (22).",
            scn.counters.get(u).name
        ),
        (None, _) => match unready(scn, st) {
            Some(why) => format!(
                "Allied setup: place your units inside the setup line, or take the default deployment. {why}."
            ),
            None => "Allied setup: every unit is placed. Adjust, or end the setup.".to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};

    #[test]
    fn placement_refuses_outside_ground_and_overstacking_22_7() {
        let mut kit = Kit::new();
        let board = kit.board();
        let gb1 = kit.id("gb1");
        assert!(!can_place(&kit.scn, &kit.st, &board, gb1, hex("0101")));
        let inside = hex("2019");
        assert!(can_place(&kit.scn, &kit.st, &board, gb1, inside));
        kit.put("vol1", inside);
        kit.put("gb2", inside);
        let board = kit.board();
        assert!(!can_place(&kit.scn, &kit.st, &board, gb1, inside));
        assert!(!can_place(
            &kit.scn,
            &kit.st,
            &board,
            kit.id("myers"),
            inside
        ));
        assert!(can_place(&kit.scn, &kit.st, &board, kit.id("civ1"), inside));
    }

    #[test]
    fn setup_cannot_end_with_unmanned_artillery_9_22() {
        let mut kit = Kit::new();
        for (u, h) in kit.scn.deployment.hexes.clone() {
            kit.st.unit_mut(u).loc = Loc::Map(h);
        }
        assert_eq!(unready(&kit.scn, &kit.st), None);
        let betsy = kit.id("betsy");
        let lonely = kit.some_clear_hex_where(|k, h| {
            k.scn.map.in_setup_area(h) && k.board().at(h).side.is_none()
        });
        kit.st.unit_mut(betsy).loc = Loc::Map(lonely);
        assert!(unready(&kit.scn, &kit.st).unwrap().contains("(9)"));
    }

    #[test]
    fn the_default_deployment_places_only_the_units_not_yet_placed_and_says_so_22() {
        let mut kit = Kit::new();
        let gb1 = kit.id("gb1");
        let home = kit
            .scn
            .deployment
            .hexes
            .iter()
            .find(|(u, _)| *u == gb1)
            .map(|(_, h)| *h)
            .expect("gb1 has a default hex");
        // A hex of the setup area where the default deployment puts nobody.
        let elsewhere = Hex::all()
            .find(|h| {
                kit.scn.map.in_setup_area(*h)
                    && kit.ground(*h).is_clear()
                    && kit.scn.deployment.hexes.iter().all(|(_, d)| d != h)
            })
            .expect("an empty hex inside the setup line");
        assert_ne!(home, elsewhere);
        kit.put("gb1", elsewhere);
        let mut game = kit.game();
        let events = game.apply(Side::Allied, &Action::DeployDefault).unwrap();
        assert_eq!(
            game.state().unit(gb1).loc,
            Loc::Map(elsewhere),
            "kept where placed"
        );
        let (count, units, kept) = events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::DeployedDefault {
                    count, units, kept, ..
                } => Some((*count, units.clone(), kept.clone())),
                _ => None,
            })
            .expect("logged");
        assert_eq!(kept, vec![gb1]);
        assert_eq!(usize::from(count), units.len());
        assert_eq!(units.len(), kit.scn.deployment.hexes.len() - 1);
        let text = &events[0].text;
        assert!(
            text.contains(&format!("{} units placed", units.len()))
                && text.contains(&format!("at {elsewhere}")),
            "{text}"
        );
        // Every unit placed by the default stands where it may (7, 9, 15): the setup can end.
        assert_eq!(unready(&kit.scn, game.state()), None);
    }

    #[test]
    fn placing_outside_the_setup_line_is_refused_with_its_rule_22() {
        let kit = Kit::new();
        let mut game = kit.game();
        let e = game
            .apply(Side::Allied, &Action::Place { hex: hex("0101") })
            .unwrap_err();
        assert_eq!(e.rule(), Some("22"));
        assert!(e.to_string().contains("select the unit"), "{e}");
        let gb1 = kit.id("gb1");
        game.apply(Side::Allied, &Action::SelectUnit { unit: gb1 })
            .unwrap();
        let e = game
            .apply(Side::Allied, &Action::Place { hex: hex("0101") })
            .unwrap_err();
        assert!(e.to_string().contains("cannot be placed at 0101"), "{e}");
    }
}
