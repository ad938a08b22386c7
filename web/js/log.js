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
    // The log follows the newest entry unless the reader scrolled up on purpose: a scroll away
    // from the bottom that the reader made (wheel, touch, keys, the scrollbar) stops following,
    // and any scroll back to the bottom resumes it. Other scrolls never stop it — the ones this
    // code makes, and those the browser makes when the box shrinks or moves under a new
    // combat report — and the observer scrolls the newest entry back into view whenever the
    // box or its list changes size.
    this.following = true;
    this.touched = 0; // when the reader last wheeled, touched, keyed or pressed in the log
    const touch = () => { this.touched = Date.now(); };
    this.inputs = ['wheel', 'touchmove', 'keydown', 'pointerdown'];
    for (const t of this.inputs) el.addEventListener(t, touch, { passive: true });
    this.touch = touch;
    this.onScroll = () => {
      if (this.atBottom()) this.following = true;
      else if (Date.now() - this.touched < 1500) this.following = false;
      el.dataset.following = String(this.following);
    };
    el.addEventListener('scroll', this.onScroll);
    el.dataset.following = 'true';
    this.resize = typeof ResizeObserver === 'function' ? new ResizeObserver(() => { if (this.following) this.scrollDown(); }) : null;
    this.resize?.observe(el);
    this.resize?.observe(this.list);
  }

  close() {
    this.resize?.disconnect();
    this.el.removeEventListener('scroll', this.onScroll);
    for (const t of this.inputs) this.el.removeEventListener(t, this.touch);
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
    for (const e of events ?? []) if (e.kind === 'undone') this.strike(e);
    if (this.following) this.scrollDown();
  }

  /** An `undone` event (an action taken back, logged as an action of its own): the entries it
   *  names stay in the log, struck through. */
  strike(e) {
    const seqs = [e.seqs, e.seq_undone, e.undone, e.entry].flat().filter(Number.isInteger);
    for (const n of seqs) this.list.querySelector(`li.entry[data-seq="${n}"]`)?.classList.add('undone');
  }

  atBottom() {
    return this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 24;
  }

  /** Show the newest entry and follow from now on. */
  scrollDown() {
    this.following = true;
    this.el.dataset.following = 'true';
    this.el.scrollTop = this.el.scrollHeight;
  }

  /** Mark the entry of `seq` (replay) and keep it in view; `null` marks none (the position
   *  before the first action). */
  mark(seq) {
    for (const li of this.list.querySelectorAll('li.entry.current')) li.classList.remove('current');
    const li = seq === null ? null : this.list.querySelector(`li.entry[data-seq="${seq}"]`);
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
