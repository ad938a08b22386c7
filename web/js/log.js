// The game log: every event in words, grouped by the action (seq) that caused it, with turn and
// phase headings, dice picked out, and the newest at the bottom. It is filled from the log route
// when a game is opened and then from the live `events` frames; a seq is shown once.

import { h, clear } from './dom.js';
import { SIDE_NAME } from './panels.js';

const DIE_FACES = ['⚀', '⚁', '⚂', '⚃', '⚄', '⚅'];

export class GameLog {
  constructor(el) {
    this.el = el;
    this.seen = new Set();
    this.list = h('ol', { class: 'log-list' });
    clear(el).append(this.list);
  }

  reset() {
    this.seen.clear();
    clear(this.list);
  }

  /** Add the events of the action numbered `seq` (`side` acted, when known), in order: turn and
   *  phase headings go between the events they separate. */
  add(seq, events, side = null) {
    if (this.seen.has(seq)) return;
    this.seen.add(seq);
    const stick = this.atBottom();
    let item = null;
    const flush = () => {
      if (item?.childNodes.length > 1) this.list.append(item);
      item = null;
    };
    for (const e of events ?? []) {
      if (e.kind === 'turn_began' || e.kind === 'phase_began') {
        flush();
        this.list.append(h('li', { class: e.kind === 'turn_began' ? 'turn-head' : 'phase-head', text: e.text || e.kind }));
        continue;
      }
      if (!item) {
        item = h('li', { class: `entry${side ? ` side-${side}` : ''}`, 'data-seq': seq },
          h('span', { class: 'seq', title: side ? `${SIDE_NAME[side]} action ${seq}` : `Action ${seq}`, text: `#${seq}` }));
      }
      item.append(h('div', { class: `ev ev-${e.kind}` }, ...dice(e.text ?? JSON.stringify(e))));
    }
    flush();
    if (stick) this.scrollDown();
  }

  atBottom() {
    return this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 40;
  }

  scrollDown() {
    this.el.scrollTop = this.el.scrollHeight;
  }

  /** Mark the entry of `seq` (replay) and keep it in view. */
  mark(seq) {
    for (const li of this.list.querySelectorAll('li.entry.current')) li.classList.remove('current');
    const li = this.list.querySelector(`li.entry[data-seq="${seq}"]`);
    if (li) {
      li.classList.add('current');
      li.scrollIntoView({ block: 'nearest' });
    }
  }
}

/** The text with each "rolled N" shown with its die face, so every roll stands out. */
function dice(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/rolled (\d)/g)) {
    out.push(text.slice(last, m.index));
    const n = Number(m[1]);
    out.push(h('span', { class: 'die-roll', title: `die roll ${n}` }, 'rolled ', h('span', { class: 'die-face', 'aria-hidden': 'true', text: DIE_FACES[n - 1] ?? '' }), ` ${n}`));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}
