// Hex geometry of the board (ruling R1), the same as the server's map_svg.rs: flat-topped
// hexes in vertical columns, even columns half a hex lower; "CCRR" = column 01–39 west→east,
// row 01–40 north→south. All map drawing and every click go through these functions.

/** Circumradius of a hex in map units (the SVG's user units). */
export const R = 24;
/** Height of a hex, flat side to flat side. */
export const HEX_H = R * Math.sqrt(3);

/** The six directions, clockwise from north, as the wire names them (Big Gun `fire`). */
export const DIRECTIONS = ['n', 'ne', 'se', 's', 'sw', 'nw'];
/** Screen angle in degrees of each direction (flat-topped: neighbours every 60° from north). */
export const DIRECTION_ANGLE = { n: -90, ne: -30, se: 30, s: 90, sw: 150, nw: 210 };
export const DIRECTION_NAME = {
  n: 'north', ne: 'north-east', se: 'south-east', s: 'south', sw: 'south-west', nw: 'north-west',
};

export function parseHex(id) {
  return { col: Number(id.slice(0, 2)), row: Number(id.slice(2, 4)) };
}

export function hexId(col, row) {
  return String(col).padStart(2, '0') + String(row).padStart(2, '0');
}

/** Centre of a hex in map units. */
export function centre(id) {
  const { col, row } = parseHex(id);
  const drop = col % 2 === 0 ? 0.5 : 0;
  return [R + 1.5 * R * (col - 1), HEX_H * (0.5 + row - 1 + drop)];
}

/** Width and height of the whole hex field. */
export function fieldSize(cols, rows) {
  return [R * (1.5 * (cols - 1) + 2), HEX_H * (rows + 0.5)];
}

/** The `points` attribute of a flat-topped hexagon of radius `r` around (cx, cy). */
export function hexPoints(cx, cy, r = R) {
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 3) * k;
    pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(' ');
}

/** Corner k (0–5, clockwise from east) of the hex around (cx, cy). */
export function corner(cx, cy, k, r = R) {
  const a = (Math.PI / 3) * k;
  return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
}

/** The two corners (indices for `corner`) of the hexside towards `dir`. */
export const SIDE_CORNERS = { se: [0, 1], s: [1, 2], sw: [2, 3], nw: [3, 4], n: [4, 5], ne: [5, 0] };

/** The neighbour of `id` towards `dir`, or null off the board. */
export function neighbour(id, dir, cols, rows) {
  const { col, row } = parseHex(id);
  const even = col % 2 === 0;
  const [dc, dr] = {
    n: [0, -1], s: [0, 1],
    ne: [1, even ? 0 : -1], se: [1, even ? 1 : 0],
    nw: [-1, even ? 0 : -1], sw: [-1, even ? 1 : 0],
  }[dir];
  const c = col + dc, r = row + dr;
  if (c < 1 || r < 1 || c > cols || r > rows) return null;
  return hexId(c, r);
}

/** The hex under the point (x, y) in map units, or null off the board: the nearest centre. */
export function hexAt(x, y, cols, rows) {
  const guess = Math.round((x - R) / (1.5 * R)) + 1;
  let best = null, bestD = Infinity;
  for (let col = guess - 1; col <= guess + 1; col++) {
    if (col < 1 || col > cols) continue;
    const drop = col % 2 === 0 ? 0.5 : 0;
    const rowGuess = Math.round(y / HEX_H - 0.5 - drop) + 1;
    for (let row = rowGuess - 1; row <= rowGuess + 1; row++) {
      if (row < 1 || row > rows) continue;
      const id = hexId(col, row);
      const [cx, cy] = centre(id);
      const d = (cx - x) ** 2 + (cy - y) ** 2;
      if (d < bestD) { bestD = d; best = id; }
    }
  }
  return bestD <= R * R ? best : null;
}

/** The points of a five-pointed star of outer radius `r` centred on (cx, cy): victory hexes and
 * leaders' counters. */
export function starPoints(cx, cy, r) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const rad = i % 2 === 0 ? r : r * 0.42;
    const a = -Math.PI / 2 + (Math.PI / 5) * i;
    pts.push(`${(cx + rad * Math.cos(a)).toFixed(1)},${(cy + rad * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(' ');
}
