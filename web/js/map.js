// The board: every hex of `GET /api/scenario` drawn once as SVG (terrain tinted per legation,
// walls, area boundaries, names, hex numbers, the setup line, victory hexes, the hospital), and
// the markers that change with the view (victory control, ruins, fortifications, Big Guns).
// Counters, highlights and tools draw into the layers this module creates.

import { svg, clear } from './dom.js';
import { R, HEX_H, centre, hexPoints, starPoints, fieldSize, neighbour, corner, SIDE_CORNERS, DIRECTIONS } from './geometry.js';
import { TERRAIN, PAPER, INK, SIDE, areaColour, mix } from './palette.js';

const WHITE = '#ffffff';
/** Room around the hex field, in map units. */
const PAD = 14;

export class Board {
  /** Draw the scenario's map into `svgEl` (an empty <svg>). */
  constructor(svgEl, scenario) {
    this.scenario = scenario;
    this.cols = scenario.columns;
    this.rows = scenario.rows;
    this.hexes = new Map(scenario.hexes.map((h) => [h.id, h]));
    this.areas = new Map(scenario.areas.map((a) => [a.key, a]));
    const [w, hgt] = fieldSize(this.cols, this.rows);
    this.width = w + 2 * PAD;
    this.height = hgt + 2 * PAD;
    svgEl.setAttribute('viewBox', `0 0 ${this.width} ${this.height}`);
    clear(svgEl);
    svgEl.append(defs());
    // One transformed group holds everything, so pan and zoom move the board as one sheet.
    this.world = svg('g', { class: 'world' });
    svgEl.append(this.world);
    const sheet = svg('g', { transform: `translate(${PAD} ${PAD})` });
    this.world.append(svg('rect', {
      x: 0, y: 0, width: this.width, height: this.height, fill: PAPER, class: 'paper',
    }), sheet);
    const layer = (id) => { const g = svg('g', { class: `layer ${id}` }); sheet.append(g); return g; };
    this.layers = {};
    for (const id of ['terrain', 'walls', 'outlines', 'setup', 'numbers', 'ruins', 'forts',
      'victory', 'hospital', 'labels', 'zoc', 'highlights', 'guns', 'counters', 'badges', 'marks', 'arrows', 'los']) {
      this.layers[id] = layer(id);
    }
    this.origin = PAD;
    this.drawTerrain();
    this.drawWalls();
    this.drawOutlines();
    this.drawSetupLine();
    this.drawNumbers();
    this.drawHospital();
    this.drawLabels();
    this.drawVictory(null);
  }

  /** Map units (relative to the hex field) of a point in the world group's coordinates. */
  toField(x, y) { return [x - this.origin, y - this.origin]; }

  adjacent(a, b) { return DIRECTIONS.some((d) => neighbour(a, d, this.cols, this.rows) === b); }

  areaOf(hex) { return this.hexes.get(hex)?.area ?? null; }

  /** An area's name; a setup area the map does not name (the open ground of a quarter of the
   *  map, `open_ne`) in words from its key. */
  areaName(key) { return this.areas.get(key)?.name ?? keyWords(key); }

  /** A description of a hex in words: "1512 · British Legation · building". */
  describe(hex) {
    const h = this.hexes.get(hex);
    if (!h) return hex;
    const parts = [hex];
    if (h.area) parts.push(this.areaName(h.area));
    parts.push(h.terrain.replace('_', ' '));
    if (h.victory) parts.push(`${h.victory} victory hex`);
    if (h.hospital) parts.push('hospital');
    return parts.join(' · ');
  }

  // --- static layers ---------------------------------------------------------------------

  drawTerrain() {
    // An area with buildings or walls is a compound: its open ground is tinted so it reads as one.
    const compound = new Set();
    for (const h of this.hexes.values()) {
      if (h.area && (h.terrain === 'building' || h.terrain === 'wall')) compound.add(h.area);
    }
    const g = this.layers.terrain;
    for (const h of this.hexes.values()) {
      const [cx, cy] = centre(h.id);
      let fill = TERRAIN[h.terrain] ?? TERRAIN.clear;
      if (h.terrain === 'clear' && h.area && compound.has(h.area)) fill = mix(TERRAIN.clear, areaColour(h.area), 0.16);
      if (h.terrain === 'building') fill = mix(h.area ? areaColour(h.area) : TERRAIN.wall, WHITE, 0.08);
      g.append(svg('polygon', { class: `hex t-${h.terrain}`, points: hexPoints(cx, cy), fill }));
      decorate(g, h.terrain, cx, cy);
    }
  }

  /** Light lines joining neighbouring wall hexes, so walls read as runs of masonry. */
  drawWalls() {
    const g = this.layers.walls;
    const isWall = (id) => id && this.hexes.get(id)?.terrain === 'wall';
    for (const h of this.hexes.values()) {
      if (h.terrain !== 'wall') continue;
      const [x1, y1] = centre(h.id);
      let alone = true;
      for (const dir of DIRECTIONS) {
        const n = neighbour(h.id, dir, this.cols, this.rows);
        if (!isWall(n)) continue;
        alone = false;
        // Where three wall hexes touch (a corner of a ring, a barricade meeting a wall), skip
        // the slanting side of the triangle so corners stay square, as map_svg.rs does.
        const slanting = parseCol(n) !== parseCol(h.id) && parseRow(n) !== parseRow(h.id);
        const cornerSkip = slanting && DIRECTIONS.some((d) => {
          const m = neighbour(h.id, d, this.cols, this.rows);
          return m && isWall(m) && this.adjacent(m, n);
        });
        if (n < h.id || cornerSkip) continue;
        const [x2, y2] = centre(n);
        g.append(svg('line', { x1, y1, x2, y2 }));
      }
      if (alone) g.append(svg('circle', { cx: x1, cy: y1, r: 3 }));
    }
  }

  /** A line along every hexside where the area changes. */
  drawOutlines() {
    const g = this.layers.outlines;
    const d = [];
    for (const h of this.hexes.values()) {
      const [cx, cy] = centre(h.id);
      for (const dir of ['se', 's', 'sw']) {
        const n = neighbour(h.id, dir, this.cols, this.rows);
        if (!n || this.hexes.get(n)?.area === h.area) continue;
        const [a, b] = SIDE_CORNERS[dir];
        const [x1, y1] = corner(cx, cy, a);
        const [x2, y2] = corner(cx, cy, b);
        d.push(`M${x1.toFixed(1)},${y1.toFixed(1)}L${x2.toFixed(1)},${y2.toFixed(1)}`);
      }
    }
    g.append(svg('path', { d: d.join('') }));
  }

  /** The Allied setup line of rule 22, a dashed loop through the centres of its hexes. */
  drawSetupLine() {
    const line = this.scenario.setup_line ?? [];
    if (line.length < 2) return;
    const pts = line.map((id) => centre(id).map((v) => v.toFixed(1)).join(',')).join(' ');
    this.layers.setup.append(
      svg('polygon', { points: pts, class: 'setup-halo' }),
      svg('polygon', { points: pts, class: 'setup-line' }),
    );
  }

  drawNumbers() {
    const g = this.layers.numbers;
    for (const h of this.hexes.values()) {
      const [cx, cy] = centre(h.id);
      const dark = ['building', 'wall', 'tartar_wall'].includes(h.terrain);
      g.append(svg('text', { x: cx, y: cy - HEX_H * 0.27, class: dark ? 'on-dark' : '' }, h.id));
    }
  }

  drawHospital() {
    for (const h of this.hexes.values()) {
      if (!h.hospital) continue;
      const [cx, cy] = centre(h.id);
      const s = R * 0.3, t = s * 0.36, y = cy + HEX_H * 0.12;
      this.layers.hospital.append(svg('g', { class: 'hospital-mark' },
        svg('rect', { x: cx - s, y: y - s, width: 2 * s, height: 2 * s, fill: WHITE, stroke: '#7a1010', 'stroke-width': 0.8 }),
        svg('rect', { x: cx - s * 0.8, y: y - t, width: 1.6 * s, height: 2 * t, fill: '#d01c1c' }),
        svg('rect', { x: cx - t, y: y - s * 0.8, width: 2 * t, height: 1.6 * s, fill: '#d01c1c' }),
        svg('title', {}, 'Hospital (8.6)')));
    }
  }

  /** Area names: the scenario's own labels when it has them, else one at each area's centroid. */
  drawLabels() {
    const g = this.layers.labels;
    let labels = this.scenario.labels;
    if (!Array.isArray(labels) || labels.length === 0) {
      labels = this.scenario.areas.map((a) => {
        const pts = a.hexes.map(centre);
        const x = pts.reduce((s, p) => s + p[0], 0) / pts.length;
        const y = pts.reduce((s, p) => s + p[1], 0) / pts.length;
        return { x, y, text: a.name, size: a.hexes.length < 20 ? 'small' : 'normal' };
      });
    }
    for (const l of labels) {
      const [x, y] = l.hex ? centre(l.hex) : [l.x, l.y];
      const attrs = { x, y, class: `label ${l.size ?? 'normal'}` };
      if (l.vertical) attrs.transform = `rotate(-90 ${x} ${y})`;
      g.append(svg('text', attrs, l.text));
    }
  }

  // --- markers that change with the view ----------------------------------------------------

  /** Victory hexes with who holds them: a disc in the holder's colour under the star or ring. */
  drawVictory(victory) {
    const g = clear(this.layers.victory);
    const held = new Map((victory?.hexes ?? []).map((v) => [v.hex, v.side]));
    for (const v of this.scenario.victory_hexes ?? []) {
      const [cx, cy] = centre(v.hex);
      const side = held.get(v.hex) ?? 'allied';
      const m = svg('g', { class: `victory-mark ${v.kind} held-${side}`, 'data-hex': v.hex },
        svg('circle', { cx, cy, r: R * 0.62, fill: SIDE[side], class: 'control' }),
        v.kind === 'primary'
          ? svg('polygon', { points: starPoints(cx, cy, R * 0.5), class: 'star' })
          : svg('circle', { cx, cy, r: R * 0.36, class: 'ring' }),
        svg('title', {}, victoryTitle(v, side)));
      g.append(m);
    }
  }

  /** Victory hexes under counters: the disc and star are hidden by the stack, so a small badge
   *  in the holder's colour sits on the stack's lower-left corner, above the counters. */
  drawVictoryBadges(victory, occupied) {
    const g = clear(this.layers.badges);
    const held = new Map((victory?.hexes ?? []).map((v) => [v.hex, v.side]));
    for (const v of this.scenario.victory_hexes ?? []) {
      if (!occupied.has(v.hex)) continue;
      const [cx, cy] = centre(v.hex);
      const side = held.get(v.hex) ?? 'allied';
      const x = cx - R * 0.6, y = cy + HEX_H * 0.3, r = 7;
      g.append(svg('g', { class: `victory-badge ${v.kind} held-${side}`, 'data-hex': v.hex, 'data-side': side },
        svg('circle', { cx: x, cy: y, r, fill: SIDE[side], class: 'control' }),
        v.kind === 'primary'
          ? svg('polygon', { points: starPoints(x, y, r * 0.78), class: 'star' })
          : svg('circle', { cx: x, cy: y, r: r * 0.5, class: 'ring' }),
        svg('title', {}, victoryTitle(v, side))));
    }
  }

  drawRuins(ruins) {
    const g = clear(this.layers.ruins);
    for (const hex of ruins ?? []) {
      const [cx, cy] = centre(hex);
      g.append(svg('polygon', { class: 'ruin', points: hexPoints(cx, cy, R * 0.94) },
        svg('title', {}, `${hex}: ruin (17)`)));
    }
  }

  /** Fortifications: a toothed ring inside the hexside, in the builder's colour, visible
   *  around any stack standing on it. */
  drawForts(forts) {
    const g = clear(this.layers.forts);
    for (const f of forts ?? []) {
      const [cx, cy] = centre(f.hex);
      g.append(svg('polygon', {
        class: `fort built-${f.built_by}`, points: hexPoints(cx, cy, R * 0.8),
      }, svg('title', {}, `${f.hex}: fortification built by the ${f.built_by === 'allied' ? 'Allies' : 'Chinese'} (13)`)));
    }
  }

  /** The Big Guns placed this turn. */
  drawGuns(guns) {
    const g = clear(this.layers.guns);
    (guns ?? []).forEach((hex, i) => {
      const [cx, cy] = centre(hex);
      const x = cx - R * 0.55, y = cy - R * 0.55;
      g.append(svg('g', { class: 'big-gun', 'data-hex': hex },
        svg('circle', { cx: x, cy: y, r: 8.5 }),
        svg('path', { d: `M${x - 5},${y + 3} L${x + 4},${y - 4}`, class: 'barrel' }),
        svg('circle', { cx: x - 2, cy: y + 3.2, r: 2.4, class: 'wheel' }),
        svg('text', { x: x + 5.5, y: y + 7.5, class: 'gun-no' }, String(i + 1)),
        svg('title', {}, `Big Gun ${i + 1} at ${hex} (10)`)));
    });
  }
}

const COMPASS = { n: 'north', ne: 'north-east', e: 'east', se: 'south-east', s: 'south', sw: 'south-west', w: 'west', nw: 'north-west' };

/** A key in words: `open_ne` → "open ground, north-east", `chinese_houses` → "chinese houses". */
export function keyWords(key) {
  const parts = String(key).split('_').filter(Boolean);
  const where = parts.filter((p) => COMPASS[p]).map((p) => COMPASS[p]);
  const what = parts.filter((p) => !COMPASS[p]).join(' ');
  const head = what === 'open' ? 'open ground' : what;
  return where.length ? `${head}${head ? ', ' : ''}${where.join(' ')}` : head;
}

function victoryTitle(v, side) {
  return `${v.hex}: ${v.kind} victory hex, held by the ${side === 'allied' ? 'Allies' : 'Chinese'} (21)`;
}

function parseRow(id) { return Number(id.slice(2, 4)); }
function parseCol(id) { return Number(id.slice(0, 2)); }

/** Terrain details over the fill, as on the printed map: bridge decks, the canal bed, the
 *  Tartar Wall's parapet. */
function decorate(g, terrain, cx, cy) {
  if (terrain === 'bridge' || terrain === 'stone_bridge') {
    const [deck, rail] = terrain === 'bridge' ? ['#d2a86e', '#5e3d1a'] : ['#c4c4c4', '#4a4a4a'];
    const y0 = cy - HEX_H * 0.24, y1 = cy + HEX_H * 0.24;
    g.append(
      svg('rect', { x: cx - R, y: y0, width: 2 * R, height: y1 - y0, fill: deck }),
      svg('line', { x1: cx - R * 0.86, y1: y0, x2: cx + R * 0.86, y2: y0, stroke: rail, 'stroke-width': 2.2 }),
      svg('line', { x1: cx - R * 0.86, y1: y1, x2: cx + R * 0.86, y2: y1, stroke: rail, 'stroke-width': 2.2 }));
  } else if (terrain === 'canal') {
    g.append(svg('line', { x1: cx, y1: cy - HEX_H / 2, x2: cx, y2: cy + HEX_H / 2, class: 'canal-bed' }));
  } else if (terrain === 'tartar_wall') {
    g.append(svg('polygon', { points: hexPoints(cx, cy, R * 0.72), class: 'parapet' }));
  }
}

/** Patterns used by the markers. */
function defs() {
  return svg('defs', {},
    svg('pattern', { id: 'rubble', width: 9, height: 9, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(20)' },
      svg('rect', { width: 9, height: 9, fill: '#8d8579' }),
      svg('path', { d: 'M1,2 l3,-1 l1,2 z M5,6 l3,1 l-2,2 z', fill: '#5b544b' }),
      svg('circle', { cx: 6.5, cy: 2.5, r: 1, fill: '#b9b1a4' })),
    // Zones of control on the analysis board: each side hatched its own way, so a hex in both
    // zones shows both (cross-hatched) and neither colour hides the map under it.
    svg('pattern', { id: 'zoc-allied', width: 7, height: 7, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      svg('rect', { width: 7, height: 7, fill: '#24467a22' }),
      svg('line', { x1: 0, y1: 0, x2: 0, y2: 7, stroke: '#24467a', 'stroke-width': 2.2, 'stroke-opacity': 0.55 })),
    svg('pattern', { id: 'zoc-chinese', width: 7, height: 7, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(-45)' },
      svg('rect', { width: 7, height: 7, fill: '#b3261e22' }),
      svg('line', { x1: 0, y1: 0, x2: 0, y2: 7, stroke: '#b3261e', 'stroke-width': 2.2, 'stroke-opacity': 0.55 })),
    svg('filter', { id: 'lift', x: '-30%', y: '-30%', width: '160%', height: '160%' },
      svg('feDropShadow', { dx: 0.8, dy: 1.2, stdDeviation: 0.9, 'flood-color': '#000', 'flood-opacity': 0.55 })),
    svg('marker', { id: 'arrowhead', viewBox: '0 0 10 10', refX: 6, refY: 5, markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' })));
}

export { INK };
