// The small menu that opens where a hex (or a unit in the tray) is clicked when there is more
// than one thing it could mean: the hex's own actions, then every unit of the stack drawn as its
// counter with its name and its actions — which is also how a stack is opened to pick a unit.

import { h, svg, clear } from './dom.js';
import { counter, describeUnit } from './counters.js';
import { warningOf } from './confirm.js';
import { OUT_OF_COMMAND } from './panels.js';

export class HexMenu {
  /** `labelOf(action)` words an action; `send(action, hex)` takes it. */
  constructor(el, labelOf, send) {
    this.el = el;
    this.labelOf = labelOf;
    this.send = send;
  }

  contains(node) {
    return !this.el.hidden && this.el.contains(node);
  }

  /** The menu of a hex: `title`, its actions, then each unit with `unitActs(unit)`. */
  openAtHex(title, hexActs, units, unitActs, x, y, hex) {
    const m = this.start(title);
    if (hexActs.length) m.append(h('div', { class: 'menu-actions' }, hexActs.map((a) => this.button(a, hex))));
    for (const u of units) m.append(this.unitRow(u, unitActs(u).filter((a) => !hexActs.includes(a))));
    this.place(x, y);
  }

  /** The menu of one unit and its actions. */
  openForUnit(u, acts, x, y) {
    this.start(u.name).append(this.unitRow(u, acts));
    this.place(x, y);
  }

  start(title) {
    const m = clear(this.el);
    m.append(h('div', { class: 'menu-head' },
      h('span', { text: title }),
      h('button', { type: 'button', class: 'close', 'aria-label': 'Close', onclick: () => this.close(), text: '×' })));
    return m;
  }

  unitRow(u, acts) {
    return h('div', { class: 'menu-unit' },
      svg('svg', { viewBox: '-19 -19 38 38', width: 46, height: 46, 'aria-hidden': 'true' }, counter(u, 0, 0)),
      h('div', { class: 'menu-unit-body' },
        h('div', { class: 'menu-unit-name', text: describeUnit(u) }),
        u.out_of_command ? h('div', { class: 'menu-unit-note ooc-note', text: `Out of command${OUT_OF_COMMAND.slice('out of command'.length)}` }) : null,
        acts.length ? h('div', { class: 'menu-actions' }, acts.map((a) => this.button(a))) : null));
  }

  button(a, hex = null) {
    const warning = warningOf(a);
    return h('button', {
      type: 'button', class: `act small act-${a.type}${warning ? ' has-warning' : ''}`, 'data-action': JSON.stringify(a),
      title: warning ? `Asks first: ${warning.text}` : null, onclick: () => this.send(a, hex),
    }, warning ? h('span', { class: 'warn-icon', 'aria-label': 'warning', text: '⚠ ' }) : null, this.labelOf(a));
  }

  /** Show the menu next to the screen point (x, y), kept inside the window. */
  place(x, y) {
    const m = this.el;
    m.hidden = false;
    const w = m.offsetWidth, hgt = m.offsetHeight;
    m.style.left = `${Math.max(6, Math.min(x + 12, innerWidth - w - 6))}px`;
    m.style.top = `${Math.max(6, Math.min(y + 12, innerHeight - hgt - 6))}px`;
    m.querySelector('button.act')?.focus({ preventScroll: true });
  }

  close() {
    this.el.hidden = true;
  }
}
