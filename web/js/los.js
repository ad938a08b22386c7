// The line-of-sight tool: pick a firing hex and a target hex, see the line between their
// centres and the engine's verdict (clear, or blocked at a hex) from the analysis route
// (`POST /api/analysis`, issue 8). The page draws the line itself only for display; whether it
// is blocked is the server's call, never the page's.

import { svg, clear, h } from './dom.js';
import { R, centre, hexPoints } from './geometry.js';
import { api } from './api.js';

export class LosTool {
  /** `layer`: an SVG group on the map; `box`: the element for the verdict; `position()`: the
   *  current position as the analysis route reads it. */
  constructor(layer, box, position) {
    this.layer = layer;
    this.box = box;
    this.position = position;
    this.active = false;
    this.from = null;
    this.to = null;
    this.asked = 0;
  }

  toggle(on = !this.active) {
    this.active = on;
    this.from = this.to = null;
    clear(this.layer);
    this.box.hidden = !on;
    this.say(on ? 'Line of sight: click the firing hex.' : '');
    return on;
  }

  say(text, cls = '') {
    clear(this.box).append(h('p', { class: cls, text }));
  }

  /** A map tap while the tool is on. */
  tap(hex) {
    if (!this.from || this.to) {
      this.from = hex;
      this.to = null;
      this.draw();
      this.say(`From ${hex}: now click the target hex.`);
      return;
    }
    this.to = hex;
    this.draw();
    this.ask();
  }

  draw(answer = null) {
    clear(this.layer);
    for (const hex of answer?.path ?? []) {
      const [x, y] = centre(hex);
      this.layer.append(svg('polygon', { class: 'los-path', points: hexPoints(x, y, R * 0.9) }));
    }
    if (answer?.blocked_at) {
      const [x, y] = centre(answer.blocked_at);
      this.layer.append(svg('polygon', { class: 'los-blocked', points: hexPoints(x, y, R * 0.9) }));
    }
    if (this.from) {
      const [x1, y1] = centre(this.from);
      if (this.to) {
        const [x2, y2] = centre(this.to);
        const cls = answer ? (answer.clear ? 'clear' : 'blocked') : 'unknown';
        this.layer.append(svg('line', { x1, y1, x2, y2, class: `los-line ${cls}` }));
        this.layer.append(svg('circle', { cx: x2, cy: y2, r: 5, class: 'los-end' }));
      }
      this.layer.append(svg('circle', { cx: x1, cy: y1, r: 5, class: 'los-end' }));
    }
  }

  async ask() {
    const { from, to } = this;
    const ticket = ++this.asked;
    this.say(`${from} → ${to}: asking the server…`);
    try {
      const res = await api.analysis({ position: this.position(), queries: [{ los: { from, to } }] });
      if (ticket !== this.asked) return;
      const a = res?.answers?.[0];
      if (!a || typeof a.clear !== 'boolean') throw new Error('no answer');
      this.draw(a);
      const why = a.reason ? ` ${a.reason}` : '';
      this.say(a.clear ? `${from} → ${to}: line of sight is clear.${why}` : `${from} → ${to}: blocked at ${a.blocked_at}.${why}`, a.clear ? 'ok' : 'no');
    } catch (e) {
      if (ticket !== this.asked) return;
      const missing = e.status === 404 || e.status === 405;
      this.say(missing
        ? `${from} → ${to}: the server has no line-of-sight check yet (analysis route missing); the line is drawn for reference only.`
        : `${from} → ${to}: the server could not answer (${e.message}); the line is drawn for reference only.`, 'warn');
    }
  }
}

/** The phases a position may be in (4); a view between them (setup, end of turn) is asked about
 *  as the nearest one, which does not change what blocks a line of sight. */
const POSITION_PHASE = {
  allied_setup: 'big_gun', chinese_setup: 'big_gun', chinese_entry: 'big_gun', end_of_turn: 'allied_combat', game_over: 'allied_combat',
};

/** The current view as an analysis position (issue 8): units on the map by type, nationality and
 *  counter code, ruins, fortifications and who holds each victory hex. */
export function positionOf(view) {
  const control = {};
  for (const v of view.victory?.hexes ?? []) if (v.side !== 'allied') control[v.hex] = v.side;
  return {
    turn: Math.min(11, Math.max(1, view.turn)),
    phase: POSITION_PHASE[view.phase] ?? view.phase,
    units: view.units.filter((u) => u.status === 'on_map' && u.hex).map((u) => {
      const p = { ref: String(u.id), side: u.side, type: u.type, hex: u.hex, reduced: u.reduced };
      if (u.nationality) p.nationality = u.nationality;
      if (['leader', 'artillery', 'doctor'].includes(u.type)) p.name = u.code;
      return p;
    }),
    ruins: view.ruins ?? [],
    fortifications: view.fortifications ?? [],
    control,
  };
}
