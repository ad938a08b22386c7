// The one extra click before an order whose consequence a player may not expect. The engine
// marks such a legal action with a `warning` (a loss it will cause, in words with the rule:
// civilians left without escort, artillery left unmanned beside the enemy, a fortification
// built...); the page shows it here and sends the order only on "Do it anyway". The warning is
// advice about the action, not part of it: the action goes back without it.

import { h, clear } from './dom.js';

/** The warning an action carries, as `{text, rule}`, or null. */
export function warningOf(a) {
  const w = a?.warning;
  if (!w) return null;
  if (typeof w === 'string') return { text: w, rule: null };
  if (typeof w === 'object' && typeof (w.text ?? w.message) === 'string') return { text: w.text ?? w.message, rule: w.rule ?? null };
  return null;
}

/** The action as it goes on the wire: the element of `legal_actions` without its warning. */
export function wireAction(a) {
  if (!a || !('warning' in a)) return a;
  const { warning, ...rest } = a; // eslint-disable-line no-unused-vars
  return rest;
}

export class ConfirmBox {
  constructor(el) {
    this.el = el;
    this.onKey = (e) => {
      if (this.el.hidden) return;
      if (e.key === 'Escape') { e.stopPropagation(); this.close(); }
    };
    document.addEventListener('keydown', this.onKey, true);
  }

  get open() { return !this.el.hidden; }

  /** Ask before `label` is done: `warning` says why; `yes()` runs on confirmation, whose
   *  button says `yesText`. */
  ask(label, warning, yes, yesText = 'Do it anyway') {
    const el = clear(this.el);
    const go = () => { this.close(); yes(); };
    el.append(
      h('h3', { id: 'confirm-title', text: 'Are you sure?' }),
      h('p', { class: 'confirm-order' }, 'Your order: ', h('b', { text: label })),
      h('p', { class: 'confirm-warning', id: 'confirm-text' },
        h('span', { class: 'warn-icon', 'aria-hidden': 'true', text: '⚠ ' }), warning.text,
        warning.rule && !warning.text.includes(`(${warning.rule})`) ? h('span', { class: 'rule', text: ` (rule ${warning.rule})` }) : null),
      h('div', { class: 'button-row' },
        h('button', { type: 'button', id: 'confirm-yes', class: 'primary', onclick: go, text: yesText }),
        h('button', { type: 'button', id: 'confirm-no', onclick: () => this.close(), text: 'Cancel' })));
    el.hidden = false;
    el.querySelector('#confirm-no').focus({ preventScroll: true });
  }

  close() {
    this.el.hidden = true;
  }

  dispose() {
    this.close();
    document.removeEventListener('keydown', this.onKey, true);
  }
}
