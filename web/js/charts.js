// The tables printed on the game's map sheet, on screen: the Combat Results Table and the
// Terrain Effects Chart, both as the server publishes them (`GET /api/scenario`: `crt`,
// `terrain_chart`) — the same data the engine plays by. For the attack being declared the CRT
// lights its column and the rows each die roll reads after the leader's modifier, and
// `chances` gives the probability of each result; each result is spelled out in words.

import { h, clear } from './dom.js';

/** The results from worst to best for the attacker, as the odds panel lists them. */
export const RESULT_ORDER = ['AE', 'AL1', 'AR', 'EX', 'DR', 'DL1', 'DE'];

/** Short words for each result, used where the server publishes none (an older server). */
const RESULT_SHORT = {
  AE: 'attacker eliminated', AL1: 'attacker loses a step and retreats', AR: 'attacker retreats',
  DR: 'defender retreats', DL1: 'defender loses a step and retreats', EX: 'exchange', DE: 'defender eliminated',
};

/** Who a result hurts: the CRT colours its cells by this. */
const RESULT_TONE = { AE: 'bad', AL1: 'bad', AR: 'poor', EX: 'even', DR: 'fair', DL1: 'good', DE: 'best' };

/** "DL1: defender loses a step and retreats (8.2, 8.3)" — the server's words when it has them. */
export function resultWords(crt, code) {
  const t = (crt?.results ?? []).find((r) => r.code === code)?.text;
  return t ?? RESULT_SHORT[code] ?? code;
}

/** The first clause of a result's words ("defender loses a step and retreats"). */
export function resultShort(crt, code) {
  return resultWords(crt, code).split(':')[0].replace(/\s*\([^)]*\)\s*$/, '');
}

/**
 * The chance of each result of an attack read on `column` with die modifier `modifier`: the
 * die 1–6, modified, read between 1 and 6 (R4); odds below the first column are the table's
 * automatic result (8.1.2).
 * @returns {{code: string, sixths: number, dice: number[]}[]} in RESULT_ORDER, results that
 *   cannot happen left out; `dice` are the faces of the unmodified die that give it.
 */
export function chances(crt, column, modifier = 0) {
  if (!crt?.die || !Array.isArray(crt.columns)) return [];
  const c = crt.columns.indexOf(column);
  const by = new Map();
  for (let die = 1; die <= 6; die++) {
    const read = Math.min(6, Math.max(1, die + (modifier ?? 0)));
    const code = c < 0 ? (crt.below ?? 'AE') : crt.die[String(read)]?.[c];
    if (!code) return [];
    if (!by.has(code)) by.set(code, []);
    by.get(code).push(die);
  }
  const order = [...RESULT_ORDER, ...[...by.keys()].filter((k) => !RESULT_ORDER.includes(k))];
  return order.filter((k) => by.has(k)).map((code) => ({ code, sixths: by.get(code).length, dice: by.get(code) }));
}

/** "50%" for three sixths, "17%" for one. */
export function percent(sixths) {
  return `${Math.round((sixths / 6) * 100)}%`;
}

/** The chances as a bar of coloured segments with a line per result, for the odds panel. */
export function chancesBox(crt, column, modifier) {
  const list = chances(crt, column, modifier);
  if (!list.length) return null;
  const bar = h('div', { class: 'chance-bar', role: 'img', 'aria-label': list.map((x) => `${x.code} ${percent(x.sixths)}`).join(', ') },
    // The width through the CSSOM: the server's CSP (style-src 'self') blocks a style attribute.
    list.map((x) => {
      const seg = h('span', { class: `seg res tone-${RESULT_TONE[x.code] ?? 'even'}`, title: `${x.code}: ${percent(x.sixths)}`, text: x.code });
      seg.style.flex = String(x.sixths);
      return seg;
    }));
  const rows = list.map((x) => h('li', { 'data-result': x.code, 'data-sixths': x.sixths },
    h('b', { class: `res tone-${RESULT_TONE[x.code] ?? 'even'}`, text: x.code }),
    h('span', { class: 'pct', text: percent(x.sixths) }),
    h('span', { class: 'words', text: resultShort(crt, x.code) }),
    h('span', { class: 'dice', text: `die ${x.dice.join(', ')}` })));
  const note = modifier ? ` Die ${modifier > 0 ? '+' : '−'}${Math.abs(modifier)} for the leader (11.1).` : '';
  return h('div', { class: 'chances', id: 'chances' },
    h('div', { class: 'chances-head', text: `Chances on ${column}:${note}` }), bar, h('ul', { class: 'chance-list' }, rows));
}

/** The CRT as a table; `column` and `modifier` (the attack being declared) light its column
 *  and, on each die row, the cell that row reads after the modifier. */
export function crtTable(crt, column = null, modifier = 0) {
  const c = column ? crt.columns.indexOf(column) : -1;
  const head = h('tr', {}, h('th', { scope: 'col', text: 'Die' }),
    crt.columns.map((name, i) => h('th', { scope: 'col', class: i === c ? 'lit' : null, text: i === 0 ? `≤${name}` : i === crt.columns.length - 1 ? `≥${name}` : name })));
  const rows = [];
  for (let die = 1; die <= 6; die++) {
    const read = Math.min(6, Math.max(1, die + (modifier ?? 0)));
    rows.push(h('tr', { 'data-die': die }, h('th', { scope: 'row', text: String(die) }),
      crt.columns.map((_, i) => {
        const code = crt.die[String(die)][i];
        const lit = i === c && die === read;
        return h('td', { class: `res tone-${RESULT_TONE[code] ?? 'even'}${i === c ? ' col' : ''}${lit ? ' lit' : ''}`, title: resultWords(crt, code), text: code });
      })));
  }
  return h('table', { class: 'crt', id: 'crt-table' }, h('thead', {}, head), h('tbody', {}, rows));
}

const TERRAIN_ORDER = ['clear', 'outside', 'bridge', 'stone_bridge', 'building', 'wall', 'tartar_wall', 'canal', 'ruin', 'fortification'];
const TERRAIN_NAME = {
  clear: 'Clear', outside: 'Outside ground', bridge: 'Bridge', stone_bridge: 'Stone bridge', building: 'Building',
  wall: 'Wall, barricade', tartar_wall: 'Tartar Wall', canal: 'Canal', ruin: 'Ruin marker', fortification: 'Fortification',
};
/** When the defence multiplier does not apply: the chart's notes (R3; 18.1, 18.2, 18.4). */
const TERRAIN_NOTE = {
  building: 'always (18.2); no ZOC into a building (6)',
  wall: 'unless an attacker is on the same wall or attackers stand on both sides (18.4)',
  tartar_wall: 'unless an attacker is on the Tartar Wall (18.1); ZOC only from a unit on the wall',
  canal: 'prohibited; a unit forced into it is eliminated (5.1)',
  ruin: 'replaces the hex\'s terrain (17)',
  fortification: 'as a wall, on a clear or ruin hex (13)',
};

/** The Terrain Effects Chart: movement cost, defence multiplier, line of sight, ZOC. */
export function terrainTable(chart) {
  const keys = [...TERRAIN_ORDER.filter((k) => chart[k]), ...Object.keys(chart).filter((k) => !TERRAIN_ORDER.includes(k))];
  const mp = (t) => {
    if (t.mp === null || t.mp === undefined) return 'no entry';
    if (t.mp_from_outside) return `${t.mp} (${t.mp_from_outside} from outside, ${t.mp_along} along)`;
    return t.mp === 0 ? '+0' : String(t.mp);
  };
  const zoc = { yes: 'yes', no: 'no', from_wall: 'from the wall' };
  return h('table', { class: 'tec', id: 'tec-table' },
    h('thead', {}, h('tr', {}, ['Terrain', 'MP', 'Defence', 'Blocks LOS', 'ZOC into it'].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, keys.map((k) => {
      const t = chart[k];
      return h('tr', { 'data-terrain': k },
        h('th', { scope: 'row' }, TERRAIN_NAME[k] ?? k.replace(/_/g, ' '), TERRAIN_NOTE[k] ? h('div', { class: 'note', text: TERRAIN_NOTE[k] }) : null),
        h('td', { text: mp(t) }), h('td', { text: `×${t.defence}` }), h('td', { text: t.blocks_los ? 'yes' : 'no' }), h('td', { text: zoc[t.zoc] ?? String(t.zoc) }));
    })));
}

/** The drawer with both tables; `attack()` gives the `{column, modifier}` to light, or null. */
export class ChartsPanel {
  constructor(el, scenario, attack) {
    this.el = el;
    this.scenario = scenario;
    this.attack = attack;
  }

  get open() { return !this.el.hidden; }

  toggle(on = !this.open) {
    this.el.hidden = !on;
    document.getElementById('toggle-charts')?.setAttribute('aria-pressed', String(on));
    if (on) this.render();
  }

  render() {
    if (!this.open) return;
    const crt = this.scenario.crt;
    const chart = this.scenario.terrain_chart;
    const el = clear(this.el);
    el.append(h('div', { class: 'charts-head' },
      h('h2', { text: 'Tables' }),
      h('button', { type: 'button', class: 'close small quiet', 'aria-label': 'Close the tables', onclick: () => this.toggle(false), text: '×' })));
    if (crt?.die) {
      const a = this.attack();
      el.append(...[h('h3', { text: 'Combat Results Table (8.2)' }),
        a ? h('p', { class: 'hint', text: `Lit: the ${a.label} on ${a.column}${a.modifier ? `, die ${a.modifier > 0 ? '+' : '−'}${Math.abs(a.modifier)}` : ''}.` }) : null,
        crtTable(crt, a?.column ?? null, a?.modifier ?? 0),
        h('p', { class: 'hint', text: 'Odds round in the defender\'s favour (8.2); below 1-3 is an automatic AE (8.1.2); each artillery bonus point shifts one column right (9); a modified die reads between 1 and 6 (R4).' }),
        h('dl', { class: 'results-key' }, RESULT_ORDER.flatMap((code) => [h('dt', { class: `res tone-${RESULT_TONE[code]}`, text: code }), h('dd', { text: resultWords(crt, code) })]))].filter(Boolean));
    } else {
      el.append(h('p', { class: 'muted', text: 'This server does not publish its combat results table.' }));
    }
    if (chart) {
      el.append(h('h3', { text: 'Terrain Effects Chart (18)' }), terrainTable(chart),
        h('p', { class: 'hint', text: 'Terrain effects do not add up: the defender takes the best one present (18.4).' }));
    }
  }
}
