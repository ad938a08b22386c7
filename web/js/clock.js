// The game's clocks and the seated player's way out, in the top bar: each side's time (a live
// bank or a correspondence window) as the server's `clock` frames give it, counted down here
// between frames for the side whose clock runs; a Resign button (asked once more: it ends the
// game at once) and, once the opponent's clock has run out while it is their decision, a button
// to claim the win on time — or, in a game without a clock, to claim the game once the opponent
// has left the decision waiting longer than the server allows (`--abandon-days`). Both are the
// always-allowed actions of docs/protocol.md, sent as they are (never listed in
// `legal_actions`).

import { h, clear } from './dom.js';
import { SIDE_NAME } from './panels.js';
import { ConfirmBox } from './confirm.js';

const SIDES = ['allied', 'chinese'];

/** Time left in words a player reads at a glance: days and hours for a correspondence window,
 *  h:mm:ss for a long bank, m:ss for the last hour. */
export function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86400), hr = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  const two = (n) => String(n).padStart(2, '0');
  if (d > 0) return `${d} d ${hr} h`;
  if (hr > 0) return `${hr}:${two(m)}:${two(sec)}`;
  return `${m}:${two(sec)}`;
}

export class GameClock {
  /** `el`: the top bar's span; `act(action)` sends an action for this seat (null to watch). */
  constructor(el, act) {
    this.el = el;
    this.act = act;
    this.clock = null;
    this.at = 0; // when the last clock frame arrived (this browser's time)
    this.you = null;
    this.toAct = null;
    this.over = false;
    // An untimed game: from when (this browser's ms) the opponent's waiting decision may be
    // claimed as abandoned (`abandon_at` of `GET /api/games/{id}`), or null.
    this.abandon = null;
    this.confirm = new ConfirmBox(document.getElementById('confirm'));
    this.timer = setInterval(() => this.tick(), 1000);
    this.render();
  }

  state(f) {
    const over = Boolean(f.view.result);
    const changed = f.you !== this.you || f.view.to_act !== this.toAct || over !== this.over;
    this.you = f.you;
    this.toAct = f.view.to_act ?? null;
    this.over = over;
    if (over) this.confirm.close();
    if (changed) this.render();
  }

  /** A `clock` frame, or the `clock` of `GET /api/games/{id}`. */
  update(clock) {
    if (!clock) return;
    this.clock = clock;
    this.at = Date.now();
    this.render();
  }

  /** `abandon_at` of `GET /api/games/{id}` (RFC 3339), or nothing. */
  abandonAt(iso) {
    const at = Date.parse(iso ?? '');
    this.abandon = Number.isFinite(at) ? at : null;
    this.render();
  }

  /** Whether the opponent's decision has waited long enough to claim the game as abandoned. */
  abandoned(other) {
    return !this.clock && this.abandon !== null && this.toAct === other && Date.now() >= this.abandon;
  }

  /** Milliseconds `side` has left now. */
  left(side) {
    const c = this.clock;
    const ms = c[`${side}_ms`] ?? 0;
    return c.running === side ? ms - (Date.now() - this.at) : ms;
  }

  /** The side out of time: as the server said, or the running side whose count here reached
   *  zero (the claim is the server's to check when it arrives). */
  outOfTime() {
    const c = this.clock;
    if (!c) return null;
    if (c.out_of_time) return c.out_of_time;
    return c.running && this.left(c.running) <= 0 ? c.running : null;
  }

  seated() {
    return Boolean(this.act) && SIDES.includes(this.you);
  }

  render() {
    const el = clear(this.el);
    const c = this.clock;
    if (c && c.control?.kind && c.control.kind !== 'none') {
      const kind = c.control.kind === 'correspondence' ? 'Time to answer' : 'Time left';
      for (const side of SIDES) {
        el.append(h('span', {
          class: `clock side-${side}${c.running === side ? ' running' : ''}${this.outOfTime() === side ? ' out' : ''}`,
          'data-side': side, title: `${kind}: ${SIDE_NAME[side]}${c.running === side ? ' (running)' : ''}`,
        }, h('span', { class: 'clock-side', text: `${SIDE_NAME[side]} ` }), h('span', { class: 'clock-time', text: clockText(this.left(side)) })));
      }
    }
    if (!this.seated() || this.over) { el.hidden = !el.childNodes.length; return; }
    const other = this.you === 'allied' ? 'chinese' : 'allied';
    if (this.outOfTime() === other && this.toAct === other) {
      el.append(h('button', {
        type: 'button', id: 'claim-timeout', class: 'small primary', title: `The ${SIDE_NAME[other]} clock has run out: claim the win`,
        onclick: () => this.act({ type: 'claim_timeout' }), text: 'Claim the win on time',
      }));
    }
    if (this.abandoned(other)) {
      el.append(h('button', {
        type: 'button', id: 'claim-abandoned', class: 'small primary', title: `The ${SIDE_NAME[other]} player has left the decision waiting too long: claim the game`,
        onclick: () => this.confirm.ask('Claim the game', { text: `The ${SIDE_NAME[other]} player has not decided for a long time. Claiming ends the game at once as your win on time. Or keep waiting.`, rule: null },
          () => this.act({ type: 'claim_timeout' }), 'Claim the game'),
        text: 'Claim the game (abandoned)',
      }));
    }
    el.append(h('button', {
      type: 'button', id: 'resign', class: 'small quiet', title: 'Give up this game: the other side wins',
      onclick: () => this.confirm.ask('Resign', { text: `The ${SIDE_NAME[other]} side wins at once, and the game is over for both of you. This cannot be undone.`, rule: null },
        () => this.act({ type: 'resign' }), 'Resign'),
      text: 'Resign',
    }));
    el.hidden = false;
  }

  /** Count the running side down between frames (the server decides when time is out). */
  tick() {
    const c = this.clock;
    // An untimed game's abandonment comes due here, without waiting for a frame.
    if (!c && this.seated() && !this.over) {
      const other = this.you === 'allied' ? 'chinese' : 'allied';
      if (this.abandoned(other) !== Boolean(this.el.querySelector('#claim-abandoned'))) this.render();
    }
    if (!c?.running) return;
    const span = this.el.querySelector(`.clock[data-side='${c.running}'] .clock-time`);
    if (span) span.textContent = clockText(this.left(c.running));
    // Run out here: marked, and the opponent offered the claim, without waiting for a frame.
    const out = this.outOfTime() === c.running;
    if (out !== Boolean(span?.parentElement.classList.contains('out'))) this.render();
  }

  close() {
    clearInterval(this.timer);
    this.confirm.dispose();
    clear(this.el).hidden = true;
  }
}
