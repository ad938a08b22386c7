//! Start-up validation of the map data (RULINGS R2): the victory hexes of 21 where R2 puts
//! them, the setup line of 22, every canal crossed by a bridge, every building named, every
//! legation reachable from the map edge, the hospital of 8.6 inside the British Legation.

use super::hex::Hex;
use super::map::{
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
    Ok(())
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
    let mut seen = vec![false; super::hex::HEX_COUNT];
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
}
