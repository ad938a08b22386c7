//! Start-up validation of the map data (ruling R2): the victory hexes of 21 where R2 puts
//! them, the setup line of 22, every canal crossed by a bridge, every building named, every
//! legation reachable from the map edge, the hospital of 8.6 inside the British Legation; and
//! the shape R2 fixes: the Tartar Wall as a band on rows 35–36, the Jade Canal in column 21 with
//! its three bridges, outside ground exactly outside the setup line and in the Chinese City,
//! and no courtyard sealed off without a gate. Each failure names the hex at fault.

use crate::vocabulary::hex::{HEX_COUNT, Hex};
use crate::vocabulary::map::{
    Map, MapError, SETUP_LINE, Terrain, VICTORY_HEXES, VictoryKind, reachable_from_edge,
};
use std::collections::VecDeque;

/// Check every constraint of R2 that the map file must meet; the first failure is returned.
pub(super) fn validate(map: &Map) -> Result<(), MapError> {
    check_victory(map)?;
    check_setup_line(map)?;
    check_canals(map)?;
    check_buildings(map)?;
    check_hospital(map)?;
    check_areas_used(map)?;
    check_victory_setup(map)?;
    check_tartar_wall(map)?;
    check_jade_canal(map)?;
    check_outside_ground(map)?;
    check_gates(map)?;
    Ok(())
}

/// The rows of the Tartar Wall band (R2: east–west, two hexes thick, along the south).
const TARTAR_ROWS: [u8; 2] = [35, 36];
/// The first row of the Chinese City, south of the Tartar Wall: outside ground (R2).
const CHINESE_CITY_FIRST_ROW: u8 = 37;
/// The Jade Canal's column (R2) and the last row before the Water Gate under the wall.
const CANAL_COLUMN: u8 = 21;
const CANAL_LAST_ROW: u8 = 34;
/// The three bridges of R2: North Bridge, Central Bridge, and the stone bridge on Legation
/// Street (18.3).
const BRIDGES: [(&str, Terrain); 3] = [
    ("2102", Terrain::Bridge),
    ("2117", Terrain::Bridge),
    ("2127", Terrain::StoneBridge),
];

fn layout(hex: Hex, message: impl Into<String>) -> MapError {
    MapError::Layout {
        hex,
        message: message.into(),
    }
}

/// An area named in `[area-names]` but drawn nowhere is a typo in one of the grids.
fn check_areas_used(map: &Map) -> Result<(), MapError> {
    match map.areas().iter().find(|a| a.hexes.is_empty()) {
        Some(area) => Err(MapError::Other(format!(
            "area `{}` ({}) is named in [area-names] but has no hex in [areas]",
            area.key, area.name
        ))),
        None => Ok(()),
    }
}

/// The Allies control every victory hex at the start (21), so each must be a hex they may set
/// up in (22).
fn check_victory_setup(map: &Map) -> Result<(), MapError> {
    match map
        .victory_hexes()
        .iter()
        .find(|(h, _)| !map.in_setup_area(*h))
    {
        Some((hex, _)) => Err(MapError::Victory {
            hex: hex.to_string(),
            message: "must lie in the Allied setup area (inside the line of 22, not outside ground or canal)".into(),
        }),
        None => Ok(()),
    }
}

/// The Tartar Wall is the whole of rows 35–36 and nothing else (R2).
fn check_tartar_wall(map: &Map) -> Result<(), MapError> {
    for hex in Hex::all() {
        let on_band = TARTAR_ROWS.contains(&hex.row());
        let is_wall = map.terrain(hex) == Terrain::TartarWall;
        if on_band && !is_wall {
            return Err(layout(
                hex,
                "the Tartar Wall is an unbroken band on rows 35-36: mark this hex `T`",
            ));
        }
        if is_wall && !on_band {
            return Err(layout(
                hex,
                "Tartar Wall `T` off rows 35-36: the wall is one band two hexes thick",
            ));
        }
    }
    Ok(())
}

/// The Jade Canal runs down column 21 from the north edge to the Water Gate under the Tartar
/// Wall, crossed at the three bridges of R2; no canal or bridge lies anywhere else.
fn check_jade_canal(map: &Map) -> Result<(), MapError> {
    for (number, want) in BRIDGES {
        let hex: Hex = number
            .parse()
            .map_err(|_| MapError::Other(format!("bad bridge hex {number}")))?;
        if map.terrain(hex) != want {
            return Err(layout(
                hex,
                format!("must be the {} `{}`", want.name(), want.symbol()),
            ));
        }
    }
    for hex in Hex::all() {
        let water = map.terrain(hex) == Terrain::Canal || map.terrain(hex).is_bridge();
        let in_bed = hex.col() == CANAL_COLUMN && hex.row() <= CANAL_LAST_ROW;
        // Row 01 of the canal's column may be the Imperial City wall it flows under.
        if in_bed && !water && hex.row() > 1 {
            return Err(layout(
                hex,
                "the Jade Canal runs unbroken down column 21 to the Tartar Wall: mark this hex `~` or a bridge",
            ));
        }
        if water && !in_bed {
            return Err(layout(
                hex,
                "canal or bridge off the Jade Canal (column 21, rows 01-34)",
            ));
        }
    }
    Ok(())
}

/// Outside ground (18.1's 8 MP case) is the band along the map edges outside the setup line,
/// and the Chinese City south of the Tartar Wall (R2). Outside the line only the Imperial City
/// wall on row 01, the canal and the Tartar Wall may be something else.
fn check_outside_ground(map: &Map) -> Result<(), MapError> {
    for hex in Hex::all() {
        let terrain = map.terrain(hex);
        let outside_terrain = terrain == Terrain::Outside;
        if hex.row() >= CHINESE_CITY_FIRST_ROW {
            if !outside_terrain {
                return Err(layout(
                    hex,
                    "the Chinese City south of the Tartar Wall is outside ground: mark it `:`",
                ));
            }
            continue;
        }
        let beyond_line = !map.inside_setup_line(hex);
        let exempt = terrain == Terrain::TartarWall
            || terrain == Terrain::Canal
            || terrain.is_bridge()
            || (hex.row() == 1 && terrain == Terrain::Wall);
        if beyond_line && !outside_terrain && !exempt {
            return Err(layout(
                hex,
                "lies outside the setup line of 22 and must be outside ground `:`",
            ));
        }
        if outside_terrain && !beyond_line {
            return Err(layout(
                hex,
                "outside ground `:` inside the setup line: only the band outside the line and the Chinese City are outside ground",
            ));
        }
    }
    Ok(())
}

/// Every open hex (clear, outside, bridge) can be reached from the map edge over open ground:
/// a compound's courtyards open onto the streets through gates (gaps in its wall), so no yard
/// is sealed off behind walls and buildings.
fn check_gates(map: &Map) -> Result<(), MapError> {
    let open = |h: Hex| map.terrain(h).is_clear() || map.terrain(h).is_bridge();
    let mut seen = vec![false; HEX_COUNT];
    let mut queue: VecDeque<Hex> = Hex::all().filter(|h| h.is_edge() && open(*h)).collect();
    for h in &queue {
        seen[h.index()] = true;
    }
    while let Some(h) = queue.pop_front() {
        for n in h.neighbours().filter(|n| open(*n)) {
            if !seen[n.index()] {
                seen[n.index()] = true;
                queue.push_back(n);
            }
        }
    }
    match Hex::all().find(|h| open(*h) && !seen[h.index()]) {
        Some(hex) => {
            let area = map
                .area(hex)
                .map_or("its block".to_string(), |a| map.area_info(a).name.clone());
            Err(layout(
                hex,
                format!(
                    "open ground of {area} is sealed off by walls and buildings: give it a gate (a gap in the wall)"
                ),
            ))
        }
        None => Ok(()),
    }
}

fn check_victory(map: &Map) -> Result<(), MapError> {
    let listed = map.victory_hexes();
    for (hex, kind) in listed {
        let Some((_, want_kind, area_key)) =
            VICTORY_HEXES.iter().find(|(h, _, _)| *h == hex.to_string())
        else {
            return Err(MapError::Victory {
                hex: hex.to_string(),
                message: "is not one of the 11 victory hexes of section 21".into(),
            });
        };
        if kind != want_kind {
            return Err(MapError::Victory {
                hex: hex.to_string(),
                message: format!("is listed as {kind:?} but section 21 makes it {want_kind:?}"),
            });
        }
        let in_area = map
            .area(*hex)
            .is_some_and(|a| map.area_info(a).key == *area_key);
        if !in_area {
            return Err(MapError::Victory {
                hex: hex.to_string(),
                message: format!("must lie in the area `{area_key}`"),
            });
        }
        if *area_key == "tartar_wall" && map.terrain(*hex) != Terrain::TartarWall {
            return Err(MapError::Victory {
                hex: hex.to_string(),
                message: "must be a Tartar Wall hex".into(),
            });
        }
    }
    for (h, _, _) in VICTORY_HEXES {
        if !listed.iter().any(|(x, _)| x.to_string() == h) {
            return Err(MapError::Victory {
                hex: h.to_string(),
                message: "is missing from [victory]".into(),
            });
        }
    }
    if listed.len() != VICTORY_HEXES.len() {
        return Err(MapError::Other("[victory] lists a hex twice".into()));
    }
    let primaries = listed
        .iter()
        .filter(|(_, k)| *k == VictoryKind::Primary)
        .count();
    debug_assert_eq!(primaries, 7);
    Ok(())
}

fn check_setup_line(map: &Map) -> Result<(), MapError> {
    let line = map.setup_line();
    for (index, expected) in SETUP_LINE.iter().enumerate() {
        let found = line
            .get(index)
            .map_or("nothing".to_string(), Hex::to_string);
        if found != *expected {
            return Err(MapError::SetupLine {
                index: index + 1,
                found,
                expected: (*expected).to_string(),
            });
        }
    }
    if line.len() != SETUP_LINE.len() {
        return Err(MapError::SetupLine {
            index: SETUP_LINE.len() + 1,
            found: line[SETUP_LINE.len()].to_string(),
            expected: "the end of the list".into(),
        });
    }
    Ok(())
}

/// Every waterway (connected canal and bridge hexes) has a bridge; every bridge touches a canal.
fn check_canals(map: &Map) -> Result<(), MapError> {
    let water = |h: Hex| map.terrain(h) == Terrain::Canal || map.terrain(h).is_bridge();
    let mut seen = vec![false; HEX_COUNT];
    for start in Hex::all().filter(|h| map.terrain(*h) == Terrain::Canal) {
        if seen[start.index()] {
            continue;
        }
        let mut has_bridge = false;
        let mut queue = VecDeque::from([start]);
        seen[start.index()] = true;
        while let Some(h) = queue.pop_front() {
            has_bridge |= map.terrain(h).is_bridge();
            for n in h.neighbours().filter(|n| water(*n)) {
                if !seen[n.index()] {
                    seen[n.index()] = true;
                    queue.push_back(n);
                }
            }
        }
        if !has_bridge {
            return Err(MapError::CanalWithoutBridge { hex: start });
        }
    }
    for hex in Hex::all().filter(|h| map.terrain(*h).is_bridge()) {
        if !hex.neighbours().any(|n| map.terrain(n) == Terrain::Canal) {
            return Err(MapError::BridgeWithoutCanal { hex });
        }
    }
    if !Hex::all().any(|h| map.terrain(h) == Terrain::StoneBridge) {
        return Err(MapError::Other(
            "the stone bridge (18.3) is missing: mark it `+`".into(),
        ));
    }
    Ok(())
}

fn check_buildings(map: &Map) -> Result<(), MapError> {
    let reachable = reachable_from_edge(map);
    for hex in Hex::all() {
        let terrain = map.terrain(hex);
        if terrain == Terrain::Building && map.area(hex).is_none() {
            return Err(MapError::BuildingWithoutArea { hex });
        }
        if terrain == Terrain::Building && !reachable[hex.index()] {
            let area = map
                .area(hex)
                .map_or(String::new(), |a| map.area_info(a).name.clone());
            return Err(MapError::Unreachable { hex, area });
        }
    }
    Ok(())
}

fn check_hospital(map: &Map) -> Result<(), MapError> {
    for hex in map.hospital() {
        let british = map
            .area(*hex)
            .is_some_and(|a| map.area_info(a).key == "british");
        if !british || map.terrain(*hex) != Terrain::Building {
            return Err(MapError::Hospital {
                hex: hex.to_string(),
                message: "must be a building hex of the British Legation".into(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_map() -> Map {
        Map::parse(Map::DEFAULT_TEXT).expect("the shipped map is valid")
    }

    /// Replace the symbol of one hex in one grid section of the shipped map.
    fn edit(section: &str, hex: &str, symbol: char) -> String {
        edit_text(Map::DEFAULT_TEXT, section, hex.parse().unwrap(), symbol)
    }

    #[test]
    fn the_shipped_map_is_valid_r2() {
        let map = default_map();
        assert_eq!(map.victory_hexes().len(), 11);
        assert_eq!(map.setup_line().len(), 21);
        assert!(!map.hospital().is_empty());
    }

    #[test]
    fn an_unknown_terrain_symbol_names_its_hex_r2() {
        let err = Map::parse(&edit("terrain", "1510", '?')).unwrap_err();
        assert_eq!(
            err,
            MapError::UnknownSymbol {
                hex: "1510".parse().unwrap(),
                layer: "terrain",
                symbol: '?'
            }
        );
        assert!(err.to_string().contains("1510"));
    }

    #[test]
    fn a_victory_hex_outside_its_area_is_refused_r2_21() {
        // 2208 must lie in the Fu.
        let err = Map::parse(&edit("areas", "2208", '-')).unwrap_err();
        assert!(
            matches!(err, MapError::Victory { ref hex, .. } if hex == "2208"),
            "{err}"
        );
    }

    #[test]
    fn a_canal_with_no_bridge_is_refused_r2() {
        let map = default_map();
        let mut text = Map::DEFAULT_TEXT.to_string();
        for h in Hex::all().filter(|h| map.terrain(*h).is_bridge()) {
            text = edit_text(&text, "terrain", h, '~');
        }
        let err = Map::parse(&text).unwrap_err();
        assert!(matches!(err, MapError::CanalWithoutBridge { .. }), "{err}");
    }

    #[test]
    fn a_legation_cut_off_from_the_edge_is_refused_r2() {
        // Surround the Austrian Legation's victory hex 3012 with canal.
        let map = default_map();
        let target: Hex = "3012".parse().unwrap();
        let mut text = Map::DEFAULT_TEXT.to_string();
        for n in target.neighbours() {
            text = edit_text(&text, "terrain", n, '~');
        }
        let _ = map;
        let err = Map::parse(&text).unwrap_err();
        assert!(
            matches!(err, MapError::Unreachable { hex, .. } if hex == target)
                || matches!(err, MapError::CanalWithoutBridge { .. }),
            "{err}"
        );
    }

    fn edit_text(text: &str, section: &str, hex: Hex, symbol: char) -> String {
        let mut out = String::new();
        let mut current = String::new();
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed.starts_with('[') {
                current = trimmed.to_string();
            }
            let label = format!("{:02} ", hex.row());
            if current == format!("[{section}]") && line.starts_with(&label) {
                let (head, rest) = line.split_at(3);
                let body = rest.trim_start();
                let pad = &rest[..rest.len() - body.len()];
                let mut cells: Vec<char> = body.chars().collect();
                cells[usize::from(hex.col() - 1)] = symbol;
                out.push_str(head);
                out.push_str(pad);
                out.extend(cells);
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        out
    }

    #[test]
    fn a_wrong_setup_line_is_refused_22() {
        let text = Map::DEFAULT_TEXT.replacen("0103 3903", "0104 3903", 1);
        let err = Map::parse(&text).unwrap_err();
        assert!(matches!(err, MapError::SetupLine { index: 1, .. }), "{err}");
    }

    #[test]
    fn the_setup_area_lies_inside_the_line_and_off_outside_ground_22() {
        let map = default_map();
        assert!(map.in_setup_area("2019".parse().unwrap()));
        assert!(!map.in_setup_area("0101".parse().unwrap()));
        assert!(!map.in_setup_area("2040".parse().unwrap()));
        for h in Hex::all().filter(|h| map.in_setup_area(*h)) {
            assert!(
                !matches!(map.terrain(h), Terrain::Outside | Terrain::Canal),
                "{h}"
            );
        }
    }

    fn layout_hex(err: &MapError) -> Option<String> {
        match err {
            MapError::Layout { hex, .. } => Some(hex.to_string()),
            _ => None,
        }
    }

    #[test]
    fn a_gap_in_the_tartar_wall_is_refused_r2() {
        let err = Map::parse(&edit("terrain", "2035", '.')).unwrap_err();
        assert_eq!(layout_hex(&err).as_deref(), Some("2035"), "{err}");
        assert!(err.to_string().contains("2035"));
    }

    #[test]
    fn a_tartar_wall_hex_off_its_band_is_refused_r2() {
        let err = Map::parse(&edit("terrain", "2034", 'T')).unwrap_err();
        assert_eq!(layout_hex(&err).as_deref(), Some("2034"), "{err}");
    }

    #[test]
    fn a_break_in_the_jade_canal_is_refused_r2() {
        // Both halves keep a bridge, so only the canal-course check can catch the break.
        let err = Map::parse(&edit("terrain", "2110", '.')).unwrap_err();
        assert_eq!(layout_hex(&err).as_deref(), Some("2110"), "{err}");
    }

    #[test]
    fn a_canal_hex_off_column_21_is_refused_r2() {
        // Joined to the canal, so it has a bridge: only the column check refuses it.
        let err = Map::parse(&edit("terrain", "2210", '~')).unwrap_err();
        assert_eq!(layout_hex(&err).as_deref(), Some("2210"), "{err}");
    }

    #[test]
    fn the_legation_street_bridge_is_the_stone_bridge_r2_18_3() {
        // Move the stone bridge up the canal: 2127 must still be the stone one.
        let text = edit_text(
            &edit("terrain", "2127", '='),
            "terrain",
            "2110".parse().unwrap(),
            '+',
        );
        let err = Map::parse(&text).unwrap_err();
        assert_eq!(layout_hex(&err).as_deref(), Some("2127"), "{err}");
        assert!(err.to_string().contains("stone_bridge"), "{err}");
    }

    #[test]
    fn outside_ground_inside_the_setup_line_is_refused_r2() {
        let err = Map::parse(&edit("terrain", "3005", ':')).unwrap_err();
        assert_eq!(layout_hex(&err).as_deref(), Some("3005"), "{err}");
    }

    #[test]
    fn open_ground_outside_the_setup_line_is_refused_r2() {
        // 0120 lies west of the line (0218-0321): it must be outside ground.
        let map = default_map();
        assert!(!map.inside_setup_line("0120".parse().unwrap()));
        let err = Map::parse(&edit("terrain", "0120", '.')).unwrap_err();
        assert_eq!(layout_hex(&err).as_deref(), Some("0120"), "{err}");
    }

    #[test]
    fn the_chinese_city_is_outside_ground_r2() {
        let err = Map::parse(&edit("terrain", "2038", '.')).unwrap_err();
        assert_eq!(layout_hex(&err).as_deref(), Some("2038"), "{err}");
    }

    #[test]
    fn a_compound_without_a_gate_is_refused_r2() {
        // Wall up every gate of the Austrian Legation: the open hexes of the area that touch
        // another area. Its courtyards are then sealed.
        let map = default_map();
        let austrian = map.area_by_key("austrian").unwrap();
        let mut text = Map::DEFAULT_TEXT.to_string();
        for h in &map.area_info(austrian).hexes {
            let gate = map.terrain(*h) == Terrain::Clear
                && h.neighbours().any(|n| map.area(n) != Some(austrian));
            if gate {
                text = edit_text(&text, "terrain", *h, 'W');
            }
        }
        let err = Map::parse(&text).unwrap_err();
        let hex: Hex = layout_hex(&err).expect("a layout error").parse().unwrap();
        assert_eq!(map.area(hex), Some(austrian), "{err}");
        assert!(err.to_string().contains("Austrian Legation"), "{err}");
    }

    #[test]
    fn a_victory_hex_outside_the_setup_area_is_refused_21_22() {
        let err = Map::parse(&edit("terrain", "0914", ':')).unwrap_err();
        assert!(
            matches!(err, MapError::Victory { ref hex, .. } if hex == "0914"),
            "{err}"
        );
    }

    #[test]
    fn an_area_name_with_no_hexes_is_refused_r2() {
        let text = Map::DEFAULT_TEXT.replacen(
            "[area-names]\n",
            "[area-names]\nQ belgian Belgian Legation\n",
            1,
        );
        let err = Map::parse(&text).unwrap_err();
        assert!(err.to_string().contains("belgian"), "{err}");
    }

    #[test]
    fn labels_are_optional_and_parsed_with_their_options_r2() {
        let map = default_map();
        assert!(!map.labels().is_empty());
        let text = format!("{}\n[labels]\n3835 @v @l Hata Men\n", Map::DEFAULT_TEXT);
        let map = Map::parse(&text).unwrap();
        let last = map.labels().last().unwrap();
        assert_eq!(last.hex.to_string(), "3835");
        assert_eq!(last.text, "Hata Men");
        assert!(last.vertical);
        assert_eq!(last.size, crate::vocabulary::map::LabelSize::Large);
        let bad = format!("{}\n[labels]\n3835 @x Hata Men\n", Map::DEFAULT_TEXT);
        assert!(matches!(
            Map::parse(&bad).unwrap_err(),
            MapError::Syntax { .. }
        ));
    }

    /// The default Allied deployment (`scenario/deployment.txt`) obeys the setup rules the
    /// engine enforces: inside the setup area (22), stacking (7), artillery (9), civilians
    /// (15) and a doctor in the hospital (8.6). Point values are those of R5.
    #[test]
    fn the_default_deployment_sets_up_legally_22_7_9_15() {
        const COMBAT: [&str; 15] = [
            "gb1", "gb2", "gb3", "ru1", "ru2", "ru3", "us1", "us2", "de1", "de2", "fr1", "fr2",
            "at1", "it1", "jp1",
        ];
        const VOLUNTEERS: [&str; 3] = ["vol1", "vol2", "vol3"];
        const LEADERS: [&str; 10] = [
            "myers",
            "hall",
            "strouts",
            "halliday",
            "von_rahden",
            "shiba",
            "darcy",
            "von_soden",
            "von_thomann",
            "paolini",
        ];
        const ARTILLERY: [&str; 5] = ["betsy", "it_gun", "at_maxim", "us_colt", "gb_nordenfelt"];
        const CIVILIANS: [&str; 4] = ["civ1", "civ2", "civ3", "civ4"];
        const DOCTORS: [&str; 2] = ["velde", "poole"];
        let map = default_map();
        let text = include_str!("../../scenario/deployment.txt");
        let mut placed: Vec<(&str, Hex)> = Vec::new();
        for line in text.lines() {
            let body = line.split('#').next().unwrap().trim();
            if body.is_empty() {
                continue;
            }
            let words: Vec<&str> = body.split_whitespace().collect();
            assert_eq!(words.len(), 2, "`{line}`: expected `code hex`");
            let hex: Hex = words[1].parse().unwrap_or_else(|e| panic!("`{line}`: {e}"));
            placed.push((words[0], hex));
        }
        let all: Vec<&str> = COMBAT
            .iter()
            .chain(&VOLUNTEERS)
            .chain(&LEADERS)
            .chain(&ARTILLERY)
            .chain(&CIVILIANS)
            .chain(&DOCTORS)
            .copied()
            .collect();
        assert_eq!(all.len(), 39);
        for code in &all {
            let n = placed.iter().filter(|(c, _)| c == code).count();
            assert_eq!(n, 1, "{code} is placed {n} times");
        }
        for (code, hex) in &placed {
            assert!(all.contains(code), "unknown counter {code}");
            assert!(
                map.in_setup_area(*hex),
                "{code} at {hex} is outside the setup area (22)"
            );
        }
        let points = |code: &str| -> u32 {
            if COMBAT.contains(&code) {
                4
            } else if VOLUNTEERS.contains(&code) {
                6
            } else if LEADERS.contains(&code) {
                1
            } else {
                0
            }
        };
        let fighters = |hex: Hex| {
            placed
                .iter()
                .any(|(c, h)| *h == hex && (COMBAT.contains(c) || VOLUNTEERS.contains(c)))
        };
        let mut hexes: Vec<Hex> = placed.iter().map(|(_, h)| *h).collect();
        hexes.sort();
        hexes.dedup();
        for hex in hexes {
            let here: Vec<&str> = placed
                .iter()
                .filter(|(_, h)| *h == hex)
                .map(|(c, _)| *c)
                .collect();
            let total: u32 = here.iter().map(|c| points(c)).sum();
            assert!(total <= 10, "{hex} stacks {total} points (7): {here:?}");
            let guns = here.iter().filter(|c| ARTILLERY.contains(c)).count();
            assert!(guns <= 1, "{hex} holds {guns} artillery (7)");
            assert!(
                guns == 0 || fighters(hex),
                "artillery at {hex} has no combat unit or volunteers with it (9)"
            );
        }
        for (code, hex) in placed.iter().filter(|(c, _)| CIVILIANS.contains(c)) {
            assert!(
                fighters(*hex) || hex.neighbours().any(fighters),
                "{code} at {hex} is neither with nor next to a combat unit or volunteers (15)"
            );
        }
        assert!(
            placed
                .iter()
                .any(|(c, h)| DOCTORS.contains(c) && map.is_hospital(*h)),
            "no doctor in a hospital hex (8.6)"
        );
    }
}
