//! The map (rulings R2, R3; rules 1.2, 18, 21, 22): terrain of every hex, the named areas and
//! buildings, the victory hexes, the Allied setup line and the hospital, read from the text data
//! file `scenario/map.txt` and validated when it is loaded, so that a bad map is a clear start-up
//! error naming the hex rather than a surprise in the middle of a game.
//!
//! The file may also carry an optional `[labels]` section: hand-placed names for the rendered
//! map (`map_svg`), because a computed centroid puts "Legation Street" or "Customs Street" in
//! the wrong place. Labels are presentation only; no rule reads them.

use crate::vocabulary::hex::{HEX_COUNT, Hex};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Terrain of a hex as printed (R3). A ruin marker replaces it during play (17); that is game
/// state, not map data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Terrain {
    Clear,
    /// Clear ground outside the legation area (18.1's 8 MP case; R2).
    Outside,
    Bridge,
    /// The stone bridge on Legation Street: a bridge that blocks LOS (18.3).
    StoneBridge,
    Building,
    /// Compound walls and printed barricades (18.4).
    Wall,
    TartarWall,
    Canal,
}

impl Terrain {
    /// The map-file symbol of this terrain.
    pub fn symbol(self) -> char {
        match self {
            Terrain::Clear => '.',
            Terrain::Outside => ':',
            Terrain::Bridge => '=',
            Terrain::StoneBridge => '+',
            Terrain::Building => 'B',
            Terrain::Wall => 'W',
            Terrain::TartarWall => 'T',
            Terrain::Canal => '~',
        }
    }

    fn from_symbol(c: char) -> Option<Terrain> {
        Some(match c {
            '.' => Terrain::Clear,
            ':' => Terrain::Outside,
            '=' => Terrain::Bridge,
            '+' => Terrain::StoneBridge,
            'B' => Terrain::Building,
            'W' => Terrain::Wall,
            'T' => Terrain::TartarWall,
            '~' => Terrain::Canal,
            _ => return None,
        })
    }

    /// The snake_case name used in JSON and messages.
    pub fn name(self) -> &'static str {
        match self {
            Terrain::Clear => "clear",
            Terrain::Outside => "outside",
            Terrain::Bridge => "bridge",
            Terrain::StoneBridge => "stone_bridge",
            Terrain::Building => "building",
            Terrain::Wall => "wall",
            Terrain::TartarWall => "tartar_wall",
            Terrain::Canal => "canal",
        }
    }

    /// Clear terrain for fortifications (13) and the Big Gun (10): clear and outside ground.
    pub fn is_clear(self) -> bool {
        matches!(self, Terrain::Clear | Terrain::Outside)
    }

    /// Bridges of either kind.
    pub fn is_bridge(self) -> bool {
        matches!(self, Terrain::Bridge | Terrain::StoneBridge)
    }
}

/// Primary or secondary victory hex (21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VictoryKind {
    Primary,
    Secondary,
}

/// Index of a named area in [`Map::areas`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct AreaId(pub u8);

/// A named area of the map: a legation, the Fu, the Hanlin, a street, the canal...
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Area {
    /// One-character symbol in the map file's area grid.
    pub symbol: char,
    /// Short stable key, e.g. `british`.
    pub key: String,
    /// The name as a wargamer would say it, e.g. `British Legation`.
    pub name: String,
    /// The hexes of the area in `CCRR` order.
    pub hexes: Vec<Hex>,
}

/// How large a map label is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelSize {
    /// Minor features: a bridge, a gate, a ramp.
    Small,
    /// Area names.
    Normal,
    /// The great landmarks: the Tartar Wall, the Chinese City.
    Large,
}

/// A hand-placed name on the rendered map (optional `[labels]` section). Presentation only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Label {
    /// The hex whose centre the text is centred on.
    pub hex: Hex,
    /// The text to print.
    pub text: String,
    /// Printed reading upwards (rotated 90° anticlockwise), for north–south streets and the
    /// canal.
    pub vertical: bool,
    pub size: LabelSize,
}

/// The victory hexes of section 21 as ruling R2 places them (1618 for the illegible one),
/// with the key of the area each must lie in.
pub const VICTORY_HEXES: [(&str, VictoryKind, &str); 11] = [
    ("0914", VictoryKind::Primary, "carriage_park"),
    ("1618", VictoryKind::Primary, "british"),
    ("1227", VictoryKind::Primary, "american"),
    ("1228", VictoryKind::Primary, "american"),
    ("1726", VictoryKind::Primary, "russian"),
    ("2019", VictoryKind::Primary, "british"),
    ("2020", VictoryKind::Primary, "british"),
    ("1236", VictoryKind::Secondary, "tartar_wall"),
    ("2208", VictoryKind::Secondary, "fu"),
    ("3012", VictoryKind::Secondary, "austrian"),
    ("3235", VictoryKind::Secondary, "tartar_wall"),
];

/// The Allied setup line of section 22, in order.
pub const SETUP_LINE: [&str; 21] = [
    "0103", "3903", "3907", "3811", "3813", "3723", "3824", "3825", "3728", "3737", "3337", "2440",
    "0340", "0335", "0333", "0325", "0322", "0321", "0218", "0207", "0106",
];

/// Why the map file was refused. Every variant names the hex or line at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("map.txt line {line}: {message}")]
    Syntax { line: usize, message: String },
    #[error("map.txt: hex {hex} has unknown {layer} symbol `{symbol}`")]
    UnknownSymbol {
        hex: Hex,
        layer: &'static str,
        symbol: char,
    },
    #[error("map.txt: section [{0}] is missing or incomplete")]
    Missing(&'static str),
    #[error("map.txt: victory hex {hex}: {message} (ruling R2, rule 21)")]
    Victory { hex: String, message: String },
    #[error(
        "map.txt: setup line differs from section 22 at position {index}: {found} instead of {expected}"
    )]
    SetupLine {
        index: usize,
        found: String,
        expected: String,
    },
    #[error("map.txt: canal hex {hex} belongs to a canal with no bridge (ruling R2)")]
    CanalWithoutBridge { hex: Hex },
    #[error("map.txt: bridge hex {hex} does not cross a canal (ruling R2)")]
    BridgeWithoutCanal { hex: Hex },
    #[error(
        "map.txt: building hex {hex} belongs to no named area (ruling R2: every legation hex belongs to a named building)"
    )]
    BuildingWithoutArea { hex: Hex },
    #[error("map.txt: hex {hex} of {area} cannot be reached from the map edge (ruling R2)")]
    Unreachable { hex: Hex, area: String },
    #[error("map.txt: hospital hex {hex}: {message} (8.6)")]
    Hospital { hex: String, message: String },
    /// The shape R2 fixes is broken at `hex`: the Tartar Wall band, the canal's course,
    /// outside ground, a courtyard with no gate.
    #[error("map.txt: hex {hex}: {message} (ruling R2)")]
    Layout { hex: Hex, message: String },
    #[error("map.txt: {0}")]
    Other(String),
}

/// The validated map. Built only through [`Map::parse`], so every query can trust it.
#[derive(Clone, Debug)]
pub struct Map {
    terrain: Vec<Terrain>,
    area: Vec<Option<AreaId>>,
    areas: Vec<Area>,
    victory: Vec<(Hex, VictoryKind)>,
    setup_line: Vec<Hex>,
    setup_area: Vec<bool>,
    hospital: Vec<Hex>,
    wall_group: Vec<Option<u16>>,
    labels: Vec<Label>,
}

impl Map {
    /// The map shipped with the game (`scenario/map.txt`).
    pub const DEFAULT_TEXT: &'static str = include_str!("../../scenario/map.txt");

    /// Parse and validate a map file.
    pub fn parse(text: &str) -> Result<Map, MapError> {
        let sections = parse_sections(text)?;
        let terrain_grid = sections.grid("terrain")?;
        let area_grid = sections.grid("areas")?;
        let mut areas: Vec<Area> = Vec::new();
        for (line, body) in sections.lines("area-names") {
            let mut parts = body.splitn(3, char::is_whitespace);
            let (Some(sym), Some(key), Some(name)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(syntax(line, "expected `symbol key Name of the area`"));
            };
            let mut chars = sym.chars();
            let (Some(symbol), None) = (chars.next(), chars.next()) else {
                return Err(syntax(line, "an area symbol is one character"));
            };
            if areas.iter().any(|a| a.symbol == symbol || a.key == key) {
                return Err(syntax(line, "area symbol or key defined twice"));
            }
            areas.push(Area {
                symbol,
                key: key.to_string(),
                name: name.trim().to_string(),
                hexes: Vec::new(),
            });
        }
        let mut terrain = vec![Terrain::Clear; HEX_COUNT];
        let mut area = vec![None; HEX_COUNT];
        for hex in Hex::all() {
            let t = terrain_grid.at(hex);
            terrain[hex.index()] = Terrain::from_symbol(t).ok_or(MapError::UnknownSymbol {
                hex,
                layer: "terrain",
                symbol: t,
            })?;
            let a = area_grid.at(hex);
            if a != '-' {
                let idx =
                    areas
                        .iter()
                        .position(|x| x.symbol == a)
                        .ok_or(MapError::UnknownSymbol {
                            hex,
                            layer: "area",
                            symbol: a,
                        })?;
                let id = AreaId(
                    u8::try_from(idx).map_err(|_| MapError::Other("too many areas".into()))?,
                );
                area[hex.index()] = Some(id);
                areas[idx].hexes.push(hex);
            }
        }
        let victory = parse_victory(&sections)?;
        let setup_line = parse_hex_list(&sections, "setup-line")?;
        let hospital = parse_hex_list(&sections, "hospital")?;
        let labels = parse_labels(&sections)?;
        let mut map = Map {
            terrain,
            area,
            areas,
            victory,
            setup_line,
            setup_area: vec![false; HEX_COUNT],
            hospital,
            wall_group: vec![None; HEX_COUNT],
            labels,
        };
        map.setup_area = Hex::all()
            .map(|h| {
                inside_polygon(h, &map.setup_line)
                    && !matches!(map.terrain(h), Terrain::Outside | Terrain::Canal)
            })
            .collect();
        map.wall_group = wall_groups(&map);
        crate::vocabulary::map_check::validate(&map)?;
        Ok(map)
    }

    /// The terrain printed in `hex`.
    pub fn terrain(&self, hex: Hex) -> Terrain {
        self.terrain[hex.index()]
    }

    /// The named area `hex` lies in, if any.
    pub fn area(&self, hex: Hex) -> Option<AreaId> {
        self.area[hex.index()]
    }

    /// Which building a building hex belongs to: its area (R2: every legation hex belongs to a
    /// named building, so "the same building" of 6 and 18.2 can be decided).
    pub fn building(&self, hex: Hex) -> Option<AreaId> {
        (self.terrain(hex) == Terrain::Building)
            .then(|| self.area(hex))
            .flatten()
    }

    /// Every named area, indexed by [`AreaId`].
    pub fn areas(&self) -> &[Area] {
        &self.areas
    }

    /// The area with this id.
    pub fn area_info(&self, id: AreaId) -> &Area {
        &self.areas[usize::from(id.0)]
    }

    /// The area with this key, if the map has one.
    pub fn area_by_key(&self, key: &str) -> Option<AreaId> {
        self.areas
            .iter()
            .position(|a| a.key == key)
            .and_then(|i| u8::try_from(i).ok())
            .map(AreaId)
    }

    /// Whether `hex` is a victory hex, and which kind (21).
    pub fn victory(&self, hex: Hex) -> Option<VictoryKind> {
        self.victory
            .iter()
            .find(|(h, _)| *h == hex)
            .map(|(_, k)| *k)
    }

    /// The 11 victory hexes in the order of section 21.
    pub fn victory_hexes(&self) -> &[(Hex, VictoryKind)] {
        &self.victory
    }

    /// The Allied setup line of section 22 as hexes.
    pub fn setup_line(&self) -> &[Hex] {
        &self.setup_line
    }

    /// Whether the Allies may set up in `hex` (22, R2): inside the setup line, not on outside
    /// ground, not in the canal.
    pub fn in_setup_area(&self, hex: Hex) -> bool {
        self.setup_area[hex.index()]
    }

    /// Whether the centre of `hex` lies inside or on the setup line of 22, whatever its
    /// terrain. Outside ground (R2) is defined by this line: the band outside it.
    pub fn inside_setup_line(&self, hex: Hex) -> bool {
        inside_polygon(hex, &self.setup_line)
    }

    /// The hospital hexes of the British Legation (8.6).
    pub fn hospital(&self) -> &[Hex] {
        &self.hospital
    }

    /// Whether `hex` is a hospital hex (8.6).
    pub fn is_hospital(&self, hex: Hex) -> bool {
        self.hospital.contains(&hex)
    }

    /// Which connected wall `hex` belongs to: wall hexes joined side to side form one wall, and
    /// the whole Tartar Wall is one. "The same wall" of 18.4 and firing along a wall (8.5).
    pub fn wall_group(&self, hex: Hex) -> Option<u16> {
        self.wall_group[hex.index()]
    }

    /// The hand-placed labels of the optional `[labels]` section, in file order (empty when the
    /// file has none; the renderer then labels each area at its centroid).
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }
}

#[cfg(test)]
impl Map {
    /// A map of open ground everywhere, with the victory hexes, setup line and hospital of
    /// `base` but no areas or walls: a blank board for rule tests to paint terrain on.
    pub(crate) fn open_ground(base: &Map) -> Map {
        let mut map = base.clone();
        map.terrain = vec![Terrain::Clear; HEX_COUNT];
        map.area = vec![None; HEX_COUNT];
        map.setup_area = vec![true; HEX_COUNT];
        map.wall_group = wall_groups(&map);
        map
    }

    /// Paint one hex's terrain (tests only).
    pub(crate) fn paint(&mut self, hex: Hex, t: Terrain) {
        self.terrain[hex.index()] = t;
        self.wall_group = wall_groups(self);
    }
}

/// A named section of the map file: its lines with their line numbers.
struct Sections<'a> {
    sections: Vec<(&'a str, Vec<(usize, &'a str)>)>,
}

/// A 39 × 40 grid of symbols, one line per row.
struct Grid {
    cells: Vec<char>,
}

impl Grid {
    fn at(&self, hex: Hex) -> char {
        self.cells[usize::from(hex.row() - 1) * 39 + usize::from(hex.col() - 1)]
    }
}

impl<'a> Sections<'a> {
    fn lines<'b>(&'b self, name: &'b str) -> impl Iterator<Item = (usize, &'a str)> + 'b {
        self.sections
            .iter()
            .filter(move |(n, _)| *n == name)
            .flat_map(|(_, l)| l.iter().copied())
    }

    /// A grid section: rows `RR <39 symbols>`; other lines (column rulers) start with a space
    /// and are skipped.
    fn grid(&self, name: &'static str) -> Result<Grid, MapError> {
        let mut cells = vec![' '; HEX_COUNT];
        let mut seen = [false; 40];
        for (line, body) in self.lines(name) {
            if body.starts_with(' ') || body.starts_with('\t') {
                continue;
            }
            let (label, rest) = body
                .split_once(' ')
                .ok_or_else(|| syntax(line, "expected `RR` followed by 39 symbols"))?;
            let row: usize = label
                .parse()
                .map_err(|_| syntax(line, "a grid row starts with its two-digit row number"))?;
            if !(1..=40).contains(&row) || seen[row - 1] {
                return Err(syntax(line, "row number out of range or repeated"));
            }
            seen[row - 1] = true;
            let symbols: Vec<char> = rest.trim_start().chars().collect();
            if symbols.len() != 39 {
                return Err(syntax(
                    line,
                    &format!("row {row:02} has {} symbols, expected 39", symbols.len()),
                ));
            }
            cells[(row - 1) * 39..row * 39].copy_from_slice(&symbols);
        }
        if seen.iter().any(|s| !s) {
            return Err(MapError::Missing(name));
        }
        Ok(Grid { cells })
    }
}

fn syntax(line: usize, message: &str) -> MapError {
    MapError::Syntax {
        line,
        message: message.to_string(),
    }
}

fn parse_sections(text: &str) -> Result<Sections<'_>, MapError> {
    let mut sections: Vec<(&str, Vec<(usize, &str)>)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let body = raw.split('#').next().unwrap_or("").trim_end();
        if body.trim().is_empty() {
            continue;
        }
        if let Some(name) = body
            .trim()
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
        {
            sections.push((name, Vec::new()));
            continue;
        }
        let Some(current) = sections.last_mut() else {
            return Err(syntax(line, "text before the first [section]"));
        };
        current.1.push((line, body));
    }
    Ok(Sections { sections })
}

fn parse_hex_list(sections: &Sections<'_>, name: &'static str) -> Result<Vec<Hex>, MapError> {
    let mut out = Vec::new();
    for (line, body) in sections.lines(name) {
        for word in body.split_whitespace() {
            out.push(
                word.parse()
                    .map_err(|e: crate::vocabulary::hex::BadHex| syntax(line, &e.to_string()))?,
            );
        }
    }
    if out.is_empty() {
        return Err(MapError::Missing(name));
    }
    Ok(out)
}

/// The optional `[labels]` section: lines `CCRR [@v] [@s|@l] Text`, `@v` printing the text
/// vertically, `@s` small and `@l` large.
fn parse_labels(sections: &Sections<'_>) -> Result<Vec<Label>, MapError> {
    let mut out = Vec::new();
    for (line, body) in sections.lines("labels") {
        let mut rest = body.trim_start();
        let (word, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let hex: Hex = word
            .parse()
            .map_err(|e: crate::vocabulary::hex::BadHex| syntax(line, &e.to_string()))?;
        rest = tail.trim_start();
        let mut vertical = false;
        let mut size = LabelSize::Normal;
        while let Some(option) = rest.strip_prefix('@') {
            let (flag, tail) = option
                .split_once(char::is_whitespace)
                .unwrap_or((option, ""));
            match flag {
                "v" => vertical = true,
                "s" => size = LabelSize::Small,
                "l" => size = LabelSize::Large,
                _ => {
                    return Err(syntax(
                        line,
                        &format!("unknown label option `@{flag}`: use @v, @s or @l"),
                    ));
                }
            }
            rest = tail.trim_start();
        }
        if rest.is_empty() {
            return Err(syntax(line, "a label needs text after its hex"));
        }
        out.push(Label {
            hex,
            text: rest.to_string(),
            vertical,
            size,
        });
    }
    Ok(out)
}

fn parse_victory(sections: &Sections<'_>) -> Result<Vec<(Hex, VictoryKind)>, MapError> {
    let mut out = Vec::new();
    for (line, body) in sections.lines("victory") {
        let mut words = body.split_whitespace();
        let kind = match words.next() {
            Some("primary") => VictoryKind::Primary,
            Some("secondary") => VictoryKind::Secondary,
            _ => {
                return Err(syntax(
                    line,
                    "a victory line starts with `primary` or `secondary`",
                ));
            }
        };
        for word in words {
            let hex: Hex = word
                .parse()
                .map_err(|e: crate::vocabulary::hex::BadHex| syntax(line, &e.to_string()))?;
            out.push((hex, kind));
        }
    }
    if out.is_empty() {
        return Err(MapError::Missing("victory"));
    }
    Ok(out)
}

/// Whether the centre of `hex` lies inside or on the polygon through the centres of `line`.
fn inside_polygon(hex: Hex, line: &[Hex]) -> bool {
    let (px, py) = hex.centre_units();
    let pts: Vec<(i64, i64)> = line.iter().map(|h| h.centre_units()).collect();
    let n = pts.len();
    let mut inside = false;
    for i in 0..n {
        let (ax, ay) = pts[i];
        let (bx, by) = pts[(i + 1) % n];
        // On the boundary counts as inside.
        let cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
        if cross == 0
            && px >= ax.min(bx)
            && px <= ax.max(bx)
            && py >= ay.min(by)
            && py <= ay.max(by)
        {
            return true;
        }
        if (ay > py) != (by > py) {
            // x coordinate of the edge at height py, compared without division.
            let lhs = (px - ax) * (by - ay);
            let rhs = (bx - ax) * (py - ay);
            if (by - ay > 0 && lhs < rhs) || (by - ay < 0 && lhs > rhs) {
                inside = !inside;
            }
        }
    }
    inside
}

/// Label connected groups of wall hexes (ordinary walls and, separately, the Tartar Wall).
fn wall_groups(map: &Map) -> Vec<Option<u16>> {
    let mut group: Vec<Option<u16>> = vec![None; HEX_COUNT];
    let mut next: u16 = 0;
    for start in Hex::all() {
        let t = map.terrain(start);
        if !matches!(t, Terrain::Wall | Terrain::TartarWall) || group[start.index()].is_some() {
            continue;
        }
        let mut queue = VecDeque::from([start]);
        group[start.index()] = Some(next);
        while let Some(h) = queue.pop_front() {
            for n in h.neighbours() {
                if map.terrain(n) == t && group[n.index()].is_none() {
                    group[n.index()] = Some(next);
                    queue.push_back(n);
                }
            }
        }
        next += 1;
    }
    group
}

/// Hexes reachable from any map-edge hex without entering the canal (R2's reachability check).
pub(super) fn reachable_from_edge(map: &Map) -> Vec<bool> {
    let mut seen = vec![false; HEX_COUNT];
    let mut queue: VecDeque<Hex> = Hex::all()
        .filter(|h| h.is_edge() && map.terrain(*h) != Terrain::Canal)
        .collect();
    for h in &queue {
        seen[h.index()] = true;
    }
    while let Some(h) = queue.pop_front() {
        for n in h.neighbours() {
            if !seen[n.index()] && map.terrain(n) != Terrain::Canal {
                seen[n.index()] = true;
                queue.push_back(n);
            }
        }
    }
    seen
}
