// Keyboard shortcuts of the game table, and the help panel that lists them. A game is well
// over a thousand decisions: the common ones (end the phase, take back, the next stack with
// an order, zoom) are one key each. Keys are ignored while typing in a field, and none acts
// for a player who is not to move.

import { h, clear } from './dom.js';

/** Every shortcut: the keys as shown, what it does, and the name the table dispatches on. */
export const SHORTCUTS = [
  { keys: ['E'], what: 'End the phase (or the step), when that is offered', name: 'end' },
  { keys: ['Ctrl+Z', 'U'], what: 'Undo: take back your last decision, when the rules allow', name: 'undo' },
  { keys: ['Enter'], what: 'Roll the die for the attack being declared', name: 'resolve' },
  { keys: ['N', 'Shift+N'], what: 'Next (previous) stack or hex with an order: the map shows it', name: 'next' },
  { keys: ['+', '−'], what: 'Zoom in, zoom out', name: 'zoom' },
  { keys: ['0'], what: 'The whole map', name: 'fit' },
  { keys: ['T'], what: 'The combat results table and the terrain chart', name: 'charts' },
  { keys: ['L'], what: 'Line of sight: pick two hexes', name: 'los' },
  { keys: ['#'], what: 'Hex numbers on or off', name: 'numbers' },
  { keys: ['Esc'], what: 'Close a menu, a dialog or this help', name: 'close' },
  { keys: ['?'], what: 'This help', name: 'help' },
];

/** Which shortcut a key event is, or null (typing in a field, or an unknown key). */
export function shortcutOf(e) {
  const t = e.target;
  if (t?.closest?.('input, select, textarea, [contenteditable]')) return null;
  if (e.altKey || e.metaKey) return (e.metaKey && (e.key === 'z' || e.key === 'Z') && !e.shiftKey) ? 'undo' : null;
  if (e.ctrlKey) return (e.key === 'z' || e.key === 'Z') && !e.shiftKey ? 'undo' : null;
  switch (e.key) {
    case 'e': case 'E': return 'end';
    case 'u': case 'U': return 'undo';
    case 'n': return 'next';
    case 'N': return 'previous';
    case '+': case '=': return 'zoom-in';
    case '-': case '_': return 'zoom-out';
    case '0': return 'fit';
    case 't': case 'T': return 'charts';
    case 'l': case 'L': return 'los';
    case '#': return 'numbers';
    case '?': return 'help';
    case 'Enter': return t?.closest?.('button, a, summary, [role=button]') ? null : 'resolve';
    default: return null;
  }
}

/** The help panel: the shortcuts and what a click or a tap does. */
export class HelpPanel {
  constructor(el) {
    this.el = el;
  }

  get open() { return !this.el.hidden; }

  toggle(on = !this.open) {
    this.el.hidden = !on;
    document.getElementById('toggle-help')?.setAttribute('aria-pressed', String(on));
    if (on) this.render();
  }

  render() {
    const el = clear(this.el);
    el.append(
      h('div', { class: 'charts-head' },
        h('h2', { text: 'Keys and clicks' }),
        h('button', { type: 'button', class: 'close small quiet', 'aria-label': 'Close the help', onclick: () => this.toggle(false), text: '×' })),
      h('table', { class: 'keys', id: 'shortcut-list' }, h('tbody', {}, SHORTCUTS.map((s) => h('tr', { 'data-shortcut': s.name },
        h('th', { scope: 'row' }, s.keys.flatMap((k, i) => [i ? ' or ' : null, h('kbd', { text: k })]).filter(Boolean)),
        h('td', { text: s.what }))))),
      h('h3', { text: 'On the map' }),
      h('ul', { class: 'help-list' },
        h('li', { text: 'Lit hexes and ringed counters are your choices. Click one to give that order; where a hex offers several, a menu lists them with the units of the stack.' }),
        h('li', { text: 'On a touch screen a tap selects and a second tap on the same hex confirms, so no order is given by a stray tap.' }),
        h('li', { text: 'An order with a loss you may not expect (civilians left without escort, artillery left unmanned...) asks you first.' }),
        h('li', { text: 'Clicking a hex that is not a choice says why, when the server can tell.' }),
        h('li', { text: 'Drag to pan, wheel or pinch to zoom. Every choice is also in the panel\'s list of all choices.' })));
  }
}
