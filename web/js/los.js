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
      this.say(a.clear ? `${from} → ${to}: line of sight is clear.` : `${from} → ${to}: blocked at ${a.blocked_at}.`, a.clear ? 'ok' : 'no');
    } catch (e) {
      if (ticket !== this.asked) return;
      const missing = e.status === 404 || e.status === 405;
      this.say(missing
        ? `${from} → ${to}: the server has no line-of-sight check yet (analysis route missing); the line is drawn for reference only.`
        : `${from} → ${to}: the server could not answer (${e.message}); the line is drawn for reference only.`, 'warn');
    }
  }
}

/** The current view as an analysis position (issue 8): the units on the map, ruins and forts. */
export function positionOf(view) {
  return {
    turn: view.turn,
    phase: view.phase,
    units: view.units.filter((u) => u.hex).map((u) => {
      const p = { ref: String(u.id), side: u.side, type: u.type, hex: u.hex, reduced: u.reduced };
      if (u.nationality) p.nationality = u.nationality;
      if (u.type === 'leader') p.name = u.name;
      return p;
    }),
    ruins: view.ruins ?? [],
    fortifications: view.fortifications ?? [],
  };
}
