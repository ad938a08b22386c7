// The line-of-sight tool: pick a firing hex and a target hex, see the line between their
// centres and the engine's verdict (clear, or blocked at a hex, and why) from the analysis route
// (`POST /api/analysis`). The page draws the line itself only for display; whether it
// is blocked is the server's call, never the page's. At a game's table the tool asks on its own;
// the analysis board asks it together with its other questions (`onPair`).

import { svg, clear, h } from './dom.js';
import { R, centre, hexPoints } from './geometry.js';
import { api } from './api.js';

export class LosTool {
  /** `layer`: an SVG group on the map; `box`: the element for the verdict; `position()`: the
   *  current position as the analysis route reads it; `onPair()`, if given, is called instead of
   *  asking when both hexes are picked. */
  constructor(layer, box, position, onPair = null) {
    this.layer = layer;
    this.box = box;
    this.position = position;
    this.onPair = onPair;
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

  say(text, cls = '', rules = null) {
    clear(this.box).append(h('p', { class: cls, text }));
    if (rules?.length) this.box.append(h('p', { class: 'los-rules', text: `Rules: ${rules.join(', ')}` }));
    this.box.dataset.verdict = cls === 'ok' ? 'clear' : cls === 'no' ? 'blocked' : '';
  }

  /** Both hexes picked: the query to ask, or null. */
  query() {
    return this.from && this.to ? { los: { from: this.from, to: this.to } } : null;
  }

  /** A map tap while the tool is on. */
  tap(hex) {
    if (!this.from || this.to) {
      this.from = hex;
      this.to = null;
      this.draw();
      this.say(`From ${hex}: now click the target hex.`);
      if (this.onPair) this.onPair();
      return;
    }
    this.to = hex;
    this.draw();
    this.say(`${this.from} → ${hex}: asking the server…`);
    if (this.onPair) this.onPair();
    else this.ask();
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

  /** Show the engine's answer to `query()` (the line, the blocking hex, the verdict). */
  show(a) {
    const { from, to } = this;
    if (!a || typeof a.clear !== 'boolean') {
      this.fail(new Error(a?.error?.message ?? 'no answer'));
      return;
    }
    this.draw(a);
    const why = a.reason ? ` — ${a.reason}` : '';
    this.say(a.clear ? `${from} → ${to}: line of sight is clear${why}` : `${from} → ${to}: blocked at ${a.blocked_at}${why}`, a.clear ? 'ok' : 'no', a.rules);
  }

  /** The server gave no verdict: the line stays, drawn for reference only. */
  fail(e) {
    this.draw();
    this.say(`${this.from} → ${this.to}: the server could not answer (${e.message}); the line is drawn for reference only.`, 'warn');
  }

  async ask() {
    const q = this.query();
    if (!q) return;
    const ticket = ++this.asked;
    try {
      const res = await api.analysis({ position: this.position(), queries: [q] });
      if (ticket === this.asked) this.show(res?.answers?.[0]);
    } catch (e) {
      if (ticket === this.asked) this.fail(e);
    }
  }
}
