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
    let board = HexIndex::new(scn, st);
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
        if c.kind == UnitKind::Civilian
            && !board.at(h).manned
            && !h.neighbours().any(|n| board.at(n).manned)
        {
            return Some(format!(
                "{} at {h} need a combat unit with or beside them (15)",
                c.name
            ));
        }
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
        let board = HexIndex::new(scn, st);
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
            for &(u, h) in &ctx.scn.deployment.hexes {
                ctx.st.unit_mut(u).loc = Loc::Map(h);
            }
            let count = u16::try_from(ctx.scn.deployment.hexes.len()).unwrap_or(u16::MAX);
            ctx.emit(
                EventKind::DeployedDefault {
                    side: Side::Allied,
                    count,
                },
                format!("The Allies take up the default deployment: {count} units placed"),
            );
        }
        _ => {}
    }
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
}
