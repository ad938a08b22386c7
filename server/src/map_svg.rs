//! SVG rendering of the map (rulings R1, R2, R3; rules 18, 21, 22): every hex as a flat-topped
//! hexagon in its true place (even columns half a hex lower), terrain fills with buildings tinted
//! per legation, hex numbers, area names, the victory hexes of 21, the hospital of 8.6 and the
//! Allied setup line of 22, with a legend and a title.
//!
//! The output is a standalone SVG document built from plain strings (std only), so the server
//! can hand it to a browser and a player can print it. It reads only the validated [`Map`]; the
//! same function draws any map file the loader accepts.

use crate::rules::hex::{COLUMNS, Direction, Hex, ROWS};
use crate::rules::map::{LabelSize, Map, Terrain, VictoryKind};
use std::fmt::Write;

/// Circumradius of a hex in SVG units. Hex numbers stay legible at 1,800 pixels wide.
const R: f64 = 24.0;
/// Left margin of the map.
const MARGIN_X: f64 = 24.0;
/// Top of the map: room for the title above it.
const MARGIN_Y: f64 = 84.0;
/// Width of the legend panel to the right of the map.
const LEGEND_W: f64 = 372.0;

/// Height of a hex (flat side to flat side).
fn hex_h() -> f64 {
    R * 3f64.sqrt()
}

/// Width of the hex field: 38 column steps of 1.5 R plus one full hex.
fn field_width() -> f64 {
    R * (1.5 * f64::from(COLUMNS - 1) + 2.0)
}

/// Height of the hex field: 40 rows plus the half hex the even columns hang down.
fn field_height() -> f64 {
    hex_h() * (f64::from(ROWS) + 0.5)
}

/// Centre of `hex` in SVG units (R1: flat-topped, even columns half a hex lower).
fn centre(hex: Hex) -> (f64, f64) {
    let col = f64::from(hex.col() - 1);
    let row = f64::from(hex.row() - 1);
    let drop = if hex.col() & 1 == 0 { 0.5 } else { 0.0 };
    (
        MARGIN_X + R + 1.5 * R * col,
        MARGIN_Y + hex_h() * (0.5 + row + drop),
    )
}

/// Corner `k` (0–5, clockwise from east on screen) of a flat-topped hex of radius `r`.
fn corner(cx: f64, cy: f64, r: f64, k: u8) -> (f64, f64) {
    let a = std::f64::consts::PI / 3.0 * f64::from(k);
    (cx + r * a.cos(), cy + r * a.sin())
}

/// The `points` attribute of a flat-topped hexagon of radius `r`.
fn points(cx: f64, cy: f64, r: f64) -> String {
    (0..6)
        .map(|k| {
            let (x, y) = corner(cx, cy, r, k);
            format!("{x:.1},{y:.1}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The hex side shared with the neighbour in `dir`, as the two corner indices of [`corner`].
fn side(dir: Direction) -> (u8, u8) {
    match dir {
        Direction::Se => (0, 1),
        Direction::S => (1, 2),
        Direction::Sw => (2, 3),
        Direction::Nw => (3, 4),
        Direction::N => (4, 5),
        Direction::Ne => (5, 0),
    }
}

/// An sRGB colour.
#[derive(Clone, Copy)]
struct Rgb(u8, u8, u8);

impl Rgb {
    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// `self` moved a fraction `t` (0–1) of the way towards `other`.
    fn mix(self, other: Rgb, t: f64) -> Rgb {
        let m = |a: u8, b: u8| {
            let v = f64::from(a) + (f64::from(b) - f64::from(a)) * t;
            // Clamped to 0–255 first, so the cast cannot truncate.
            v.round().clamp(0.0, 255.0) as u8
        };
        Rgb(m(self.0, other.0), m(self.1, other.1), m(self.2, other.2))
    }
}

const PAPER: Rgb = Rgb(0xf3, 0xee, 0xdf);
const CLEAR: Rgb = Rgb(0xf1, 0xe8, 0xcc);
const OUTSIDE: Rgb = Rgb(0xcf, 0xc4, 0xa4);
const WALL: Rgb = Rgb(0x4a, 0x3a, 0x2e);
const TARTAR: Rgb = Rgb(0x56, 0x58, 0x62);
const CANAL: Rgb = Rgb(0x8d, 0xb6, 0xd3);
const BRIDGE: Rgb = Rgb(0xb8, 0x8a, 0x52);
const STONE_BRIDGE: Rgb = Rgb(0x9c, 0x9c, 0x9c);
const INK: Rgb = Rgb(0x2b, 0x23, 0x1c);
const WHITE: Rgb = Rgb(0xff, 0xff, 0xff);

/// The colour of an area's buildings: each legation its own, so a player finds "the French"
/// at a glance. Unknown keys (a modded map) get a stable colour from their name.
fn area_colour(key: &str) -> Rgb {
    match key {
        "british" => Rgb(0xb0, 0x3a, 0x35),
        "russian" => Rgb(0x2f, 0x6e, 0x4c),
        "american" => Rgb(0x34, 0x56, 0x9e),
        "dutch" => Rgb(0xe0, 0x85, 0x2c),
        "german" => Rgb(0x60, 0x7d, 0x8b),
        "club" => Rgb(0x9c, 0x7c, 0xc0),
        "japanese" => Rgb(0xc8, 0x3c, 0x70),
        "french" => Rgb(0x2a, 0x86, 0xa8),
        "austrian" => Rgb(0xc0, 0x98, 0x20),
        "italian" => Rgb(0x6c, 0xa6, 0x3c),
        "spanish" => Rgb(0xd8, 0xb0, 0x28),
        "hotel" => Rgb(0x9a, 0x62, 0x42),
        "customs" => Rgb(0x4f, 0x9a, 0x8a),
        "fu" => Rgb(0x8e, 0x3e, 0x7e),
        "hanlin" => Rgb(0x8a, 0x78, 0x50),
        "carriage_park" => Rgb(0x7a, 0x7c, 0x4e),
        "mongol_market" | "chinese_houses" => Rgb(0x96, 0x84, 0x70),
        "imperial_city" => Rgb(0xa8, 0x3a, 0x2a),
        _ => {
            let h = key
                .bytes()
                .fold(17u32, |a, b| a.wrapping_mul(31).wrapping_add(u32::from(b)));
            let c = |s: u32| u8::try_from(60 + (h >> s) % 140).unwrap_or(128);
            Rgb(c(0), c(8), c(16))
        }
    }
}

/// Whether an area is a compound (it has buildings or walls): its open ground is tinted so the
/// compound reads as one place; streets and the canal stay plain.
fn compound_flags(map: &Map) -> Vec<bool> {
    map.areas()
        .iter()
        .map(|a| {
            a.hexes
                .iter()
                .any(|h| matches!(map.terrain(*h), Terrain::Building | Terrain::Wall))
        })
        .collect()
}

/// The fill of one hex.
fn fill(map: &Map, hex: Hex, compound: &[bool]) -> Rgb {
    let area = map.area(hex);
    let tint = area.map(|a| area_colour(&map.area_info(a).key));
    let in_compound = area.is_some_and(|a| compound[usize::from(a.0)]);
    match map.terrain(hex) {
        Terrain::Clear => match (tint, in_compound) {
            (Some(t), true) => CLEAR.mix(t, 0.16),
            _ => CLEAR,
        },
        Terrain::Outside => OUTSIDE,
        Terrain::Bridge => BRIDGE,
        Terrain::StoneBridge => STONE_BRIDGE,
        Terrain::Building => tint.unwrap_or(WALL).mix(WHITE, 0.08),
        // Walls stay one dark colour everywhere so a compound's ring reads as a wall and
        // never as one of its buildings.
        Terrain::Wall => WALL,
        Terrain::TartarWall => TARTAR,
        Terrain::Canal => CANAL,
    }
}

/// Whether text on this hex should be light (dark fills).
fn dark(terrain: Terrain) -> bool {
    matches!(
        terrain,
        Terrain::Building | Terrain::Wall | Terrain::TartarWall
    )
}

/// XML-escape text content and attribute values.
/// One line of the legend's text at (x, y).
fn legend_text(out: &mut String, x: f64, y: f64, text: &str) {
    let _ = writeln!(
        out,
        r#"<text x="{x:.1}" y="{y:.1}" font-size="12.5" fill="{}">{}</text>"#,
        INK.hex(),
        esc(text)
    );
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// A five-pointed star of outer radius `r` centred on (cx, cy).
fn star(cx: f64, cy: f64, r: f64) -> String {
    (0..10)
        .map(|i| {
            let rad = if i % 2 == 0 { r } else { r * 0.42 };
            let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::PI / 5.0 * f64::from(i);
            format!("{:.1},{:.1}", cx + rad * a.cos(), cy + rad * a.sin())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A primary victory hex: a gold star. `class` tells map markers from the legend's samples.
fn primary_marker(out: &mut String, class: &str, cx: f64, cy: f64) {
    let _ = writeln!(
        out,
        r##"<polygon class="{class}" points="{}" fill="#ffd23f" stroke="#7a1010" stroke-width="1.6"/>"##,
        star(cx, cy, R * 0.5)
    );
}

/// A secondary victory hex: a gold ring.
fn secondary_marker(out: &mut String, class: &str, cx: f64, cy: f64) {
    let _ = writeln!(
        out,
        r##"<circle class="{class}" cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="none" stroke="#ffd23f" stroke-width="3.2"/><circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="none" stroke="#7a1010" stroke-width="1.2"/>"##,
        R * 0.42,
        R * 0.42
    );
}

/// A hospital hex: a red cross on white.
fn hospital_marker(out: &mut String, cx: f64, cy: f64) {
    let s = R * 0.34;
    let t = s * 0.36;
    let _ = writeln!(
        out,
        r##"<g class="hospital"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#ffffff" stroke="#7a1010" stroke-width="0.8"/><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#d01c1c"/><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#d01c1c"/></g>"##,
        cx - s,
        cy - s,
        2.0 * s,
        2.0 * s,
        cx - s * 0.8,
        cy - t,
        1.6 * s,
        2.0 * t,
        cx - t,
        cy - s * 0.8,
        2.0 * t,
        1.6 * s
    );
}

/// Render the whole map as a standalone SVG document: title, hex field, legend. Layers go
/// bottom to top as terrain, walls, area boundaries, numbers, setup line, markers, labels, so
/// nothing a player needs is hidden under a fill.
pub fn render_svg(map: &Map) -> String {
    let width = MARGIN_X + field_width() + 24.0 + LEGEND_W;
    let height = (MARGIN_Y + field_height() + 36.0).max(900.0);
    let mut out = String::with_capacity(600_000);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="Georgia, 'Times New Roman', serif">"#
    );
    let _ = writeln!(
        out,
        "<title>Siege at Peking: the Legation Quarter, 20 June to 14 August 1900</title>"
    );
    let _ = writeln!(
        out,
        r#"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="{}"/>"#,
        PAPER.hex()
    );
    title(&mut out);
    hexes(&mut out, map);
    wall_traces(&mut out, map);
    area_outlines(&mut out, map);
    hex_numbers(&mut out, map);
    setup_line(&mut out, map);
    markers(&mut out, map);
    labels(&mut out, map);
    compass(&mut out);
    legend(&mut out, map, MARGIN_X + field_width() + 24.0);
    out.push_str("</svg>\n");
    out
}

/// The title and a one-line subtitle above the map.
fn title(out: &mut String) {
    let _ = writeln!(
        out,
        r##"<text x="{:.1}" y="40" font-size="30" font-weight="bold" fill="{}">Siege at Peking — the Legation Quarter, 1900</text>"##,
        MARGIN_X,
        INK.hex()
    );
    let _ = writeln!(
        out,
        r##"<text x="{:.1}" y="66" font-size="15" font-style="italic" fill="{}">The siege of the foreign legations by the Boxers and Imperial troops, 20 June – 14 August. One hex ≈ 20 yards; north is up.</text>"##,
        MARGIN_X,
        INK.hex()
    );
}

/// Every hex as a filled flat-topped hexagon (`class="hex t-<terrain>"`) with its terrain
/// decoration.
fn hexes(out: &mut String, map: &Map) {
    let compound = compound_flags(map);
    out.push_str("<g id=\"hexes\" stroke=\"#00000033\" stroke-width=\"0.6\">\n");
    for hex in Hex::all() {
        let (cx, cy) = centre(hex);
        let terrain = map.terrain(hex);
        let _ = writeln!(
            out,
            r#"<polygon class="hex t-{}" points="{}" fill="{}"/>"#,
            terrain.name(),
            points(cx, cy, R),
            fill(map, hex, &compound).hex()
        );
        decorate(out, terrain, cx, cy);
    }
    out.push_str("</g>\n");
}

/// Terrain details drawn over the fill: bridge decks and parapets, the Tartar Wall's
/// battlements, the dry canal's bed.
fn decorate(out: &mut String, terrain: Terrain, cx: f64, cy: f64) {
    let h = hex_h();
    match terrain {
        Terrain::Bridge | Terrain::StoneBridge => {
            // The deck runs east–west across the north–south canal.
            let (deck, rail) = if terrain == Terrain::Bridge {
                ("#d2a86e", "#5e3d1a")
            } else {
                ("#c4c4c4", "#4a4a4a")
            };
            let _ = writeln!(
                out,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{deck}" stroke="none"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{rail}" stroke-width="2.2"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{rail}" stroke-width="2.2"/>"#,
                cx - R,
                cy - h * 0.24,
                2.0 * R,
                h * 0.48,
                cx - R * 0.86,
                cy - h * 0.24,
                cx + R * 0.86,
                cy - h * 0.24,
                cx - R * 0.86,
                cy + h * 0.24,
                cx + R * 0.86,
                cy + h * 0.24
            );
        }
        Terrain::Canal => {
            let _ = writeln!(
                out,
                r##"<line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{:.1}" stroke="#5f8fb3" stroke-width="1.2" stroke-dasharray="3 3"/>"##,
                cy - h * 0.5,
                cy + h * 0.5
            );
        }
        Terrain::TartarWall => {
            let _ = writeln!(
                out,
                r##"<polygon points="{}" fill="none" stroke="#3b3d45" stroke-width="1"/>"##,
                points(cx, cy, R * 0.72)
            );
        }
        _ => {}
    }
}

/// A light line from the centre of each wall hex to each neighbouring wall hex, so compound
/// walls and barricade lines read as continuous runs of masonry and a gate as a break in them.
fn wall_traces(out: &mut String, map: &Map) {
    out.push_str(
        "<g id=\"walls\" stroke=\"#9a8268\" stroke-width=\"3.2\" stroke-linecap=\"round\">\n",
    );
    for hex in Hex::all().filter(|h| map.terrain(*h) == Terrain::Wall) {
        let (x1, y1) = centre(hex);
        let mut alone = true;
        for n in hex.neighbours() {
            if map.terrain(n) != Terrain::Wall {
                continue;
            }
            alone = false;
            // Where three wall hexes touch each other (a corner of a ring, a barricade
            // meeting a wall), skip the slanting side of the triangle so corners stay square.
            let slanting = n.col() != hex.col() && n.row() != hex.row();
            let corner = slanting
                && hex
                    .neighbours()
                    .any(|m| map.terrain(m) == Terrain::Wall && m.is_adjacent(n));
            if n < hex || corner {
                continue;
            }
            let (x2, y2) = centre(n);
            let _ = writeln!(
                out,
                r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}"/>"#
            );
        }
        if alone {
            let _ = writeln!(
                out,
                r##"<circle cx="{x1:.1}" cy="{y1:.1}" r="3" fill="#9a8268" stroke="none"/>"##
            );
        }
    }
    out.push_str("</g>\n");
}

/// Lines along every hexside where the area changes, so each legation's boundary reads at a
/// glance even where its wall is broken by gates.
fn area_outlines(out: &mut String, map: &Map) {
    out.push_str("<g id=\"areas\" stroke-linecap=\"round\" fill=\"none\">\n");
    for hex in Hex::all() {
        let Some(area) = map.area(hex) else {
            continue;
        };
        let (cx, cy) = centre(hex);
        for dir in Direction::ALL {
            let other = hex.neighbour(dir).and_then(|n| map.area(n));
            if other == Some(area) {
                continue;
            }
            // Draw a shared side once, from the hex with the smaller area id or no neighbour.
            if other.is_some_and(|o| o < area) {
                continue;
            }
            let (a, b) = side(dir);
            let (x1, y1) = corner(cx, cy, R, a);
            let (x2, y2) = corner(cx, cy, R, b);
            let _ = writeln!(
                out,
                r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#2b231c" stroke-width="1.3" stroke-opacity="0.55"/>"##
            );
        }
    }
    out.push_str("</g>\n");
}

/// The printed `CCRR` number at the top of every hex (R1), light on dark terrain.
fn hex_numbers(out: &mut String, map: &Map) {
    out.push_str(
        "<g id=\"numbers\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"7.4\" text-anchor=\"middle\">\n",
    );
    for hex in Hex::all() {
        let (cx, cy) = centre(hex);
        let colour = if dark(map.terrain(hex)) {
            "#ffffffb0"
        } else {
            "#00000080"
        };
        let _ = writeln!(
            out,
            r#"<text x="{cx:.1}" y="{:.1}" fill="{colour}">{hex}</text>"#,
            cy - hex_h() * 0.27
        );
    }
    out.push_str("</g>\n");
}

/// The Allied setup line of 22 as a closed dashed line through the centres of its hexes, with
/// a dot on each listed hex: the setup area is what it encloses.
fn setup_line(out: &mut String, map: &Map) {
    let pts = map
        .setup_line()
        .iter()
        .map(|h| {
            let (x, y) = centre(*h);
            format!("{x:.1},{y:.1}")
        })
        .collect::<Vec<_>>()
        .join(" ");
    let _ = writeln!(
        out,
        r##"<polygon id="setup-line" points="{pts}" fill="none" stroke="#ffffff" stroke-width="5" stroke-opacity="0.6" stroke-linejoin="round"/>"##
    );
    let _ = writeln!(
        out,
        r##"<polygon points="{pts}" fill="none" stroke="#c0186b" stroke-width="2.6" stroke-dasharray="10 5" stroke-linejoin="round"/>"##
    );
    for h in map.setup_line() {
        let (x, y) = centre(*h);
        let _ = writeln!(
            out,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="3.2" fill="#c0186b" stroke="#ffffff" stroke-width="1"/>"##
        );
    }
}

/// Victory hexes (21) and hospital hexes (8.6), drawn above the terrain and the setup line.
fn markers(out: &mut String, map: &Map) {
    out.push_str("<g id=\"markers\">\n");
    for (hex, kind) in map.victory_hexes() {
        let (cx, cy) = centre(*hex);
        match kind {
            VictoryKind::Primary => {
                primary_marker(out, "victory primary", cx, cy + hex_h() * 0.08);
            }
            VictoryKind::Secondary => {
                secondary_marker(out, "victory secondary", cx, cy + hex_h() * 0.08);
            }
        }
    }
    for hex in map.hospital() {
        let (cx, cy) = centre(*hex);
        hospital_marker(out, cx, cy + hex_h() * 0.1);
    }
    out.push_str("</g>\n");
}

/// The labels of the `[labels]` section, or one per area at its centroid if there is none.
fn labels(out: &mut String, map: &Map) {
    out.push_str(
        "<g id=\"labels\" text-anchor=\"middle\" dominant-baseline=\"central\" paint-order=\"stroke\" stroke=\"#fbf8ee\" stroke-linejoin=\"round\">\n",
    );
    let mut placed: Vec<(f64, f64, String, bool, LabelSize)> = map
        .labels()
        .iter()
        .map(|l| {
            let (x, y) = centre(l.hex);
            (x, y, l.text.clone(), l.vertical, l.size)
        })
        .collect();
    if placed.is_empty() {
        for area in map.areas() {
            let n = area.hexes.len().max(1) as f64;
            let (sx, sy) = area.hexes.iter().fold((0.0, 0.0), |(sx, sy), h| {
                let (x, y) = centre(*h);
                (sx + x, sy + y)
            });
            placed.push((sx / n, sy / n, area.name.clone(), false, LabelSize::Normal));
        }
    }
    for (x, y, text, vertical, size) in placed {
        let (font, weight, stroke, style) = match size {
            LabelSize::Small => (10.5, "normal", 2.6, "italic"),
            LabelSize::Normal => (14.0, "bold", 3.6, "normal"),
            LabelSize::Large => (20.0, "bold", 4.4, "normal"),
        };
        let rotate = if vertical {
            format!(r#" transform="rotate(-90 {x:.1} {y:.1})""#)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{font}" font-weight="{weight}" font-style="{style}" stroke-width="{stroke}" fill="{}"{rotate}>{}</text>"#,
            INK.hex(),
            esc(&text)
        );
    }
    out.push_str("</g>\n");
}

/// A north arrow above the map's north-east corner.
fn compass(out: &mut String) {
    let x = MARGIN_X + field_width() - 30.0;
    let y = MARGIN_Y - 52.0;
    let _ = writeln!(
        out,
        r##"<g id="compass"><polygon points="{x:.1},{:.1} {:.1},{:.1} {x:.1},{:.1} {:.1},{:.1}" fill="#2b231c"/><text x="{x:.1}" y="{:.1}" font-size="14" font-weight="bold" text-anchor="middle" fill="#2b231c">N</text></g>"##,
        y,
        x + 8.0,
        y + 30.0,
        y + 22.0,
        x - 8.0,
        y + 30.0,
        y + 46.0
    );
}

/// The legend panel: terrain swatches with their costs (R3), the markers, the setup line,
/// a scale bar and the sources.
fn legend(out: &mut String, map: &Map, x0: f64) {
    let ink = INK.hex();
    let mut y = MARGIN_Y + 10.0;
    let _ = writeln!(
        out,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#fbf8ee" stroke="{ink}" stroke-width="1.2"/>"##,
        x0,
        MARGIN_Y,
        LEGEND_W - 12.0,
        field_height()
    );
    let tx = x0 + 16.0;
    let head = |out: &mut String, y: &mut f64, text: &str| {
        *y += 26.0;
        let _ = writeln!(
            out,
            r#"<text x="{tx:.1}" y="{:.1}" font-size="17" font-weight="bold" fill="{ink}">{}</text>"#,
            *y,
            esc(text)
        );
        *y += 8.0;
    };
    head(out, &mut y, "Terrain (MP to enter · defence)");
    let rows: [(Rgb, &str, Option<Terrain>); 9] = [
        (CLEAR, "Clear ground, street · 1 · ×1", None),
        (
            OUTSIDE,
            "Outside ground, Chinese City · 1 · ×1",
            Some(Terrain::Outside),
        ),
        (
            area_colour("british").mix(WHITE, 0.12),
            "Building (tinted per legation) · 2 · ×3",
            Some(Terrain::Building),
        ),
        (WALL, "Wall, barricade · 2 · ×3 (18.4)", Some(Terrain::Wall)),
        (
            TARTAR,
            "Tartar Wall · 6 (8 from outside, 1 along) · ×4",
            Some(Terrain::TartarWall),
        ),
        (CANAL, "Jade Canal (dry) · prohibited", Some(Terrain::Canal)),
        (BRIDGE, "Bridge · 1 · ×1", Some(Terrain::Bridge)),
        (
            STONE_BRIDGE,
            "Stone bridge · 1 · blocks LOS (18.3)",
            Some(Terrain::StoneBridge),
        ),
        (
            CLEAR.mix(area_colour("british"), 0.16),
            "Courtyard inside a compound · 1 · ×1",
            None,
        ),
    ];
    for (colour, text, terrain) in rows {
        y += 30.0;
        let (cx, cy) = (tx + 14.0, y - 5.0);
        let _ = writeln!(
            out,
            r##"<polygon class="swatch" points="{}" fill="{}" stroke="#00000055" stroke-width="0.8"/>"##,
            points(cx, cy, 13.0),
            colour.hex()
        );
        if terrain == Some(Terrain::Wall) {
            let _ = writeln!(
                out,
                r##"<line x1="{:.1}" y1="{cy:.1}" x2="{:.1}" y2="{cy:.1}" stroke="#9a8268" stroke-width="2.4" stroke-linecap="round"/>"##,
                cx - 9.0,
                cx + 9.0
            );
        }
        if let Some(t) = terrain {
            // The same decorations as on the map, at swatch size.
            let mut deco = String::new();
            decorate(&mut deco, t, cx, cy);
            if !deco.is_empty() {
                let scale = 13.0 / R;
                let _ = writeln!(
                    out,
                    r#"<g transform="translate({:.2} {:.2}) scale({scale:.3})">{}</g>"#,
                    cx * (1.0 - scale),
                    cy * (1.0 - scale),
                    deco.trim_end()
                );
            }
        }
        legend_text(out, tx + 36.0, y, text);
    }
    head(out, &mut y, "Markers");
    y += 30.0;
    primary_marker(out, "sample", tx + 14.0, y - 5.0);
    legend_text(out, tx + 36.0, y, "Primary victory hex (21)");
    y += 30.0;
    secondary_marker(out, "sample", tx + 14.0, y - 5.0);
    legend_text(out, tx + 36.0, y, "Secondary victory hex (21)");
    y += 30.0;
    hospital_marker(out, tx + 14.0, y - 5.0);
    legend_text(out, tx + 36.0, y, "Hospital (8.6)");
    y += 30.0;
    let _ = writeln!(
        out,
        r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#c0186b" stroke-width="2.6" stroke-dasharray="10 5"/><circle cx="{:.1}" cy="{:.1}" r="3.2" fill="#c0186b" stroke="#ffffff" stroke-width="1"/>"##,
        tx,
        y - 5.0,
        tx + 28.0,
        y - 5.0,
        tx + 14.0,
        y - 5.0
    );
    legend_text(out, tx + 36.0, y, "Allied setup line (22)");
    head(out, &mut y, "Victory hexes");
    let mut vic: Vec<String> = map
        .victory_hexes()
        .iter()
        .map(|(h, k)| {
            let name = map
                .area(*h)
                .map_or(String::new(), |a| map.area_info(a).name.clone());
            let kind = match k {
                VictoryKind::Primary => "primary",
                VictoryKind::Secondary => "secondary",
            };
            format!("{h} {kind} — {name}")
        })
        .collect();
    vic.sort();
    for line in vic {
        y += 18.0;
        let _ = writeln!(
            out,
            r#"<text x="{tx:.1}" y="{y:.1}" font-size="12" fill="{ink}">{}</text>"#,
            esc(&line)
        );
    }
    head(out, &mut y, "Buildings");
    // One swatch per area with buildings, two to a line, in the order of [area-names].
    let built: Vec<(String, Rgb)> = map
        .areas()
        .iter()
        .filter(|a| a.hexes.iter().any(|h| map.terrain(*h) == Terrain::Building))
        .map(|a| (a.name.clone(), area_colour(&a.key).mix(WHITE, 0.08)))
        .collect();
    for (i, (name, colour)) in built.iter().enumerate() {
        let column = if i % 2 == 0 { 0.0 } else { 170.0 };
        if i % 2 == 0 {
            y += 19.0;
        }
        let short = name.split(" (").next().unwrap_or(name);
        let _ = writeln!(
            out,
            r##"<polygon class="swatch" points="{}" fill="{}" stroke="#00000055" stroke-width="0.8"/><text x="{:.1}" y="{y:.1}" font-size="11.5" fill="{ink}">{}</text>"##,
            points(tx + column + 7.0, y - 4.0, 7.5),
            colour.hex(),
            tx + column + 19.0,
            esc(short)
        );
    }
    head(out, &mut y, "Scale");
    y += 16.0;
    // Five hexes north to south, flat side to flat side: about 100 yards.
    let len = 5.0 * hex_h();
    let _ = writeln!(
        out,
        r##"<rect x="{tx:.1}" y="{:.1}" width="{:.1}" height="6" fill="{ink}"/><rect x="{:.1}" y="{:.1}" width="{:.1}" height="6" fill="#fbf8ee" stroke="{ink}" stroke-width="1"/>"##,
        y - 6.0,
        len / 2.0,
        tx + len / 2.0,
        y - 6.0,
        len / 2.0,
    );
    y += 18.0;
    let _ = writeln!(
        out,
        r#"<text x="{tx:.1}" y="{y:.1}" font-size="12" fill="{ink}">0 · 50 · 100 yards: five hexes ≈ 100 yards</text>"#
    );
    head(out, &mut y, "Notes");
    let notes = [
        "Hex numbers CCRR: column 01–39 west→east,",
        "row 01–40 north→south (R1).",
        "Chinese units enter on map-edge hexes (22).",
        "Zones of control never extend into",
        "building hexes (6, 18.2).",
        "Layout reconstructed after Weale, Coltman,",
        "Hart's legation plan and contemporary",
        "photographs (RULINGS R2); hex 1618 stands",
        "for the primary hex illegible in the source.",
    ];
    for line in notes {
        y += 17.0;
        let _ = writeln!(
            out,
            r#"<text x="{tx:.1}" y="{y:.1}" font-size="12" fill="{ink}">{}</text>"#,
            esc(line)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::map::VICTORY_HEXES;

    fn default_map() -> Map {
        Map::parse(Map::DEFAULT_TEXT).expect("the shipped map is valid")
    }

    #[test]
    fn the_svg_draws_every_hex_and_names_every_victory_hex_r1_21() {
        let svg = render_svg(&default_map());
        assert!(svg.starts_with("<svg "));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polygon class=\"hex ").count(), 1560);
        for (hex, _, _) in VICTORY_HEXES {
            assert!(svg.contains(&format!(">{hex}</text>")), "{hex}");
        }
        assert_eq!(svg.matches("class=\"victory primary\"").count(), 7);
        assert_eq!(svg.matches("class=\"victory secondary\"").count(), 4);
    }

    #[test]
    fn even_columns_hang_half_a_hex_lower_r1() {
        let (x1, y1) = centre("0101".parse().unwrap());
        let (x2, y2) = centre("0201".parse().unwrap());
        assert!((x2 - x1 - 1.5 * R).abs() < 1e-9);
        assert!((y2 - y1 - hex_h() / 2.0).abs() < 1e-9);
    }

    #[test]
    fn the_setup_line_is_drawn_closed_through_its_hex_centres_22() {
        let map = default_map();
        let svg = render_svg(&map);
        let (x, y) = centre(map.setup_line()[0]);
        assert!(svg.contains(&format!(
            r#"<polygon id="setup-line" points="{x:.1},{y:.1} "#
        )));
    }

    /// The shipped map text without its optional `[labels]` section.
    fn without_labels(text: &str) -> String {
        let mut out = String::new();
        let mut skipping = false;
        for line in text.lines() {
            if line.trim_start().starts_with('[') {
                skipping = line.trim() == "[labels]";
            }
            if !skipping {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }

    #[test]
    fn every_area_is_labelled_without_a_labels_section_r2() {
        let map = Map::parse(&without_labels(Map::DEFAULT_TEXT)).unwrap();
        assert!(map.labels().is_empty());
        let svg = render_svg(&map);
        for area in map.areas() {
            assert!(
                svg.contains(&format!(">{}</text>", esc(&area.name))),
                "{}",
                area.name
            );
        }
    }

    /// The drawing of the shipped map is pinned: a change to the map data or to the renderer
    /// that alters a single byte of `siege map --svg` fails here, so it is made on purpose.
    /// After such a change, put the new digest here and look at the new drawing.
    #[test]
    fn the_shipped_map_draws_to_the_pinned_svg_r2() {
        use sha2::{Digest, Sha256};
        let svg = render_svg(&default_map());
        assert_eq!(
            hex::encode(Sha256::digest(svg.as_bytes())),
            "3799052aeda85ada5cbf4d47c6cce7f7a3a5ee8e7deca80c2d896309fe2d4dc4"
        );
    }

    /// Writes the rendering for a human to look at: `SIEGE_MAP_SVG=/tmp/map.svg cargo test -p
    /// siege --lib map_svg`. `SIEGE_MAP_TXT` renders another map file instead of the shipped one.
    #[test]
    fn write_the_svg_when_asked() {
        let Ok(path) = std::env::var("SIEGE_MAP_SVG") else {
            return;
        };
        let text = match std::env::var("SIEGE_MAP_TXT") {
            Ok(file) => std::fs::read_to_string(file).unwrap(),
            Err(_) => Map::DEFAULT_TEXT.to_string(),
        };
        let map = Map::parse(&text).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(path, render_svg(&map)).unwrap();
    }
}
