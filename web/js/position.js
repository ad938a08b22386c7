// A position as the analysis route reads it (docs/protocol.md, `POST /api/analysis`): the turn,
// one of the seven phases, the units on the map named by counter code, ruins, fortifications and
// the victory hexes not held by the Allies. This module turns a game's view into one, reads and
// writes the `#analyse=` link, and keeps the board's own model of a position (which counter of
// the mix stands where). It checks nothing: whether a position is legal is the server's call.

/** Phases a position may be in (4); a view between them (setup, end of turn) is taken as the
 *  nearest one, which is what a player analysing it means. */
const POSITION_PHASE = {
  allied_setup: 'big_gun', chinese_setup: 'big_gun', end_of_turn: 'allied_combat', game_over: 'allied_combat',
};

/** One unit of a position, from a counter of the mix: the counter code is both its `ref` (what
 *  queries name) and its `name` (which makes the server pick exactly that counter). */
export function placedUnit(c, hex, reduced) {
  const p = { ref: c.code, side: c.side, type: c.type, name: c.code, hex };
  if (c.nationality) p.nationality = c.nationality;
  if (reduced) p.reduced = true;
  return p;
}

/** The position of a game's view: every unit on the map by counter code, with its markers. */
export function positionOf(view) {
  const control = {};
  for (const v of view.victory?.hexes ?? []) if (v.side !== 'allied') control[v.hex] = v.side;
  return {
    turn: Math.min(11, Math.max(1, view.turn)),
    phase: POSITION_PHASE[view.phase] ?? view.phase,
    units: view.units.filter((u) => u.status === 'on_map' && u.hex).map((u) => placedUnit(u, u.hex, u.reduced)),
    ruins: view.ruins ?? [],
    fortifications: (view.fortifications ?? []).map((f) => ({ hex: f.hex, built_by: f.built_by })),
    control,
  };
}

// --- the link: `#analyse=<base64url of the position's JSON>` ----------------------------------

/** The position's JSON as base64url (RFC 4648 §5, no padding), UTF-8 safe. */
export function encodePosition(position) {
  const bytes = new TextEncoder().encode(JSON.stringify(position));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The position in a link's fragment, or throws with a message a person can read. */
export function decodePosition(text) {
  let json;
  try {
    const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    json = new TextDecoder().decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)));
  } catch {
    throw new Error('the link is damaged (not base64url)');
  }
  let p;
  try { p = JSON.parse(json); } catch { throw new Error('the link is damaged (not JSON)'); }
  if (!p || typeof p !== 'object' || !Array.isArray(p.units ?? [])) throw new Error('the link holds no position');
  return p;
}

export function analyseLink(position) {
  return `${location.origin}${location.pathname}#analyse=${encodePosition(position)}`;
}

// --- the board's model ---------------------------------------------------------------------------

/** Counters of one kind are interchangeable on the palette: the same side, type, nationality
 *  and strength, and a code that differs only in its number (`gb1`, `gb2`; `bx01`…). */
export function kindKey(c) {
  return [c.side, c.type, c.nationality ?? '', c.code.replace(/\d+$/, ''), c.strength].join('|');
}

/** Which counter of the mix stands where, and the markers: what the analysis board edits. */
export class PositionModel {
  constructor(counters) {
    this.counters = counters;
    this.byId = new Map(counters.map((c) => [c.id, c]));
    this.byCode = new Map(counters.map((c) => [c.code.toLowerCase(), c]));
    this.kinds = new Map(); // kind key → its counters, in the mix's order
    for (const c of counters) {
      const k = kindKey(c);
      if (!this.kinds.has(k)) this.kinds.set(k, []);
      this.kinds.get(k).push(c);
    }
    this.turn = 1;
    this.phase = 'big_gun';
    this.units = new Map(); // counter id → {hex, reduced}
    this.ruins = new Set();
    this.forts = new Map(); // hex → side that built it
    this.control = new Map(); // victory hex → side, when not Allied
  }

  /** Fill the model from a position's JSON; returns the units it could not match to the mix. */
  load(p) {
    this.turn = Number.isInteger(p.turn) ? p.turn : 1;
    this.phase = typeof p.phase === 'string' ? p.phase : 'big_gun';
    this.units.clear();
    const lost = [];
    for (const u of p.units ?? []) {
      const c = this.match(u);
      if (c) this.units.set(c.id, { hex: String(u.hex), reduced: Boolean(u.reduced) });
      else lost.push(u);
    }
    this.ruins = new Set(p.ruins ?? []);
    this.forts = new Map((p.fortifications ?? []).map((f) => [f.hex, f.built_by]));
    this.control = new Map(Object.entries(p.control ?? {}).filter(([, s]) => s !== 'allied'));
    return lost;
  }

  /** The counter a position's unit names, as the server picks it: by code or name, else the
   *  first free counter of its side, type and nationality. */
  match(u) {
    const free = (c) => c && !this.units.has(c.id) && c.side === u.side && c.type === u.type;
    for (const key of [u.name, u.ref]) {
      const c = typeof key === 'string' ? this.byCode.get(key.toLowerCase()) : null;
      if (free(c)) return c;
    }
    const name = typeof u.name === 'string' ? u.name.toLowerCase() : null;
    return this.counters.find((c) => free(c)
      && (!u.nationality || c.nationality === u.nationality)
      && (!name || c.name.toLowerCase() === name)) ?? null;
  }

  /** The position's JSON, units in the mix's order so equal boards give equal links. */
  toJSON() {
    const units = [...this.units].sort(([a], [b]) => a - b)
      .map(([id, u]) => placedUnit(this.byId.get(id), u.hex, u.reduced));
    return {
      turn: this.turn,
      phase: this.phase,
      units,
      ruins: [...this.ruins].sort(),
      fortifications: [...this.forts].sort().map(([hex, side]) => ({ hex, built_by: side })),
      control: Object.fromEntries([...this.control].sort()),
    };
  }

  /** The next counter of a kind not on the board, or null when all are used. */
  nextFree(key) {
    return (this.kinds.get(key) ?? []).find((c) => !this.units.has(c.id)) ?? null;
  }

  freeCount(key) {
    return (this.kinds.get(key) ?? []).filter((c) => !this.units.has(c.id)).length;
  }

  /** Units at each hex, as the map draws them (the view's unit shape). */
  stacks() {
    const byHex = new Map();
    for (const [id, u] of this.units) {
      if (!byHex.has(u.hex)) byHex.set(u.hex, []);
      byHex.get(u.hex).push(this.unit(id));
    }
    return byHex;
  }

  /** A unit on the board in the view's shape, for the counters and menus. */
  unit(id) {
    const c = this.byId.get(id);
    const u = this.units.get(id);
    const reduced = Boolean(u?.reduced);
    return {
      ...c, hex: u?.hex ?? null, reduced, status: u ? 'on_map' : 'off_map',
      strength: reduced && c.reduced !== null && c.reduced !== undefined ? c.reduced : c.strength,
    };
  }

  /** Whether a counter has a reduced side to show. */
  static twoSided(c) {
    return c.reduced !== null && c.reduced !== undefined && (c.steps ?? 2) > 1;
  }
}
