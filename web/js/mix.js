// The counter mix as a palette for the analysis board: one chip per kind of counter (British
// combat units, Boxers, each leader, each gun...), grouped by side and type, drawn as the counter
// with how many are left. A chip is greyed out once every counter of its kind is on the board.
// Clicking a chip arms it: each click on the map then places the next free counter of that kind.

import { h, svg, clear } from './dom.js';
import { counter, describeUnit } from './counters.js';
import { PositionModel } from './position.js';

/** Type groups in the order a player looks for them; a type not listed here still gets a group. */
const GROUPS = [
  ['allied', 'combat', 'Combat units'], ['allied', 'volunteer', 'Volunteers'], ['allied', 'leader', 'Leaders'],
  ['allied', 'artillery', 'Artillery'], ['allied', 'civilian', 'Civilians'], ['allied', 'doctor', 'Doctor'],
  ['chinese', 'boxer', 'Boxers'], ['chinese', 'imperial', 'Imperials'],
];
const SIDES = [['allied', 'Allies'], ['chinese', 'Chinese']];

/**
 * Draw the palette into `el`.
 * @param {PositionModel} model  which counters are on the board
 * @param {string|null} armed  the kind key being placed
 * @param {boolean} reduced  show (and place) reduced sides
 * @param {(key: string) => void} onPick
 */
export function renderMix(el, model, armed, reduced, onPick) {
  clear(el);
  const byGroup = new Map();
  for (const [key, list] of model.kinds) {
    const c = list[0];
    const g = `${c.side}|${c.type}`;
    if (!byGroup.has(g)) byGroup.set(g, []);
    byGroup.get(g).push(key);
  }
  const known = new Set(GROUPS.map(([s, t]) => `${s}|${t}`));
  const groups = [...GROUPS, ...[...byGroup.keys()].filter((g) => !known.has(g)).map((g) => [...g.split('|'), g.split('|')[1]])];
  for (const [side, sideName] of SIDES) {
    const box = h('div', { class: `mix-side side-${side}` }, h('h4', { text: sideName }));
    for (const [s, type, title] of groups) {
      if (s !== side || !byGroup.has(`${s}|${type}`)) continue;
      const row = h('div', { class: 'mix-kinds' });
      for (const key of byGroup.get(`${s}|${type}`)) row.append(chip(model, key, armed === key, reduced, onPick));
      box.append(h('div', { class: 'mix-group' }, h('div', { class: 'mix-title', text: title }), row));
    }
    el.append(box);
  }
}

function chip(model, key, armed, reduced, onPick) {
  const list = model.kinds.get(key);
  const left = model.freeCount(key);
  const c = model.nextFree(key) ?? list[0];
  const showReduced = reduced && PositionModel.twoSided(c);
  const u = { ...c, reduced: showReduced, strength: showReduced ? c.reduced : c.strength };
  const name = list.length > 1 ? `${describeUnit(u)} — ${left} of ${list.length} left` : `${describeUnit(u)}${left ? '' : ' — on the board'}`;
  return h('button', {
    type: 'button', class: `mix-kind${armed ? ' armed' : ''}`, 'data-kind': key, 'data-left': left,
    'aria-pressed': String(armed), disabled: left === 0 ? true : null, title: name, 'aria-label': name,
    onclick: () => onPick(key),
  },
  svg('svg', { viewBox: '-19 -19 38 38', width: 40, height: 40, 'aria-hidden': 'true' }, counter(u, 0, 0)),
  list.length > 1 ? h('span', { class: 'mix-left', text: `${left}` }) : null);
}
