// The side panel's parts that follow the view: the turn and phase track, whose move it is, the
// prompt, the buttons, the odds of the attack being declared, victory hexes held against what
// the Chinese need, units off the map, and the result.

import { h, svg, clear } from './dom.js';
import { counter, describeUnit, pileOrder } from './counters.js';
import { DIRECTION_NAME } from './geometry.js';
import { chancesBox, resultWords } from './charts.js';
import { warningOf } from './confirm.js';

/** Short names of the phases for the phase track; the order and the number of turns come from
 *  the scenario (`turns`, `phases`), and a phase not named here is shown by its key in words. */
export const PHASE_NAME = {
  big_gun: 'Big Gun', chinese_movement: 'Chinese move', allied_reaction: 'Allied reaction',
  sniper: 'Sniper', chinese_combat: 'Chinese combat', allied_movement: 'Allied move',
  allied_combat: 'Allied combat', end_of_turn: 'End of turn',
};
/** Used only when a server sends no `turns`/`phases` (an older one). */
const DEFAULT_TURNS = 11;
const DEFAULT_PHASES = ['big_gun', 'chinese_movement', 'allied_reaction', 'sniper', 'chinese_combat', 'allied_movement', 'allied_combat'];

export function phaseName(key) {
  return PHASE_NAME[key] ?? String(key).replace(/_/g, ' ');
}

/** The scenario's turn count and phases in order. */
export function turnsAndPhases(scenario) {
  const turns = Number.isInteger(scenario?.turns) ? scenario.turns : DEFAULT_TURNS;
  const phases = Array.isArray(scenario?.phases) && scenario.phases.length ? scenario.phases : DEFAULT_PHASES;
  return { turns, phases };
}

export const SIDE_NAME = { allied: 'Allied', chinese: 'Chinese', spectator: 'Spectator' };

/** Turn track, phase track, whose move it is, victory hexes. */
export function renderStatus(el, view, you, scenario) {
  clear(el);
  const { turns: lastTurn, phases: order } = turnsAndPhases(scenario);
  const turns = h('ol', { class: 'turn-track', 'aria-label': 'Turn track' });
  for (let t = 1; t <= Math.max(lastTurn, view.turn); t++) {
    turns.append(h('li', { class: t === view.turn ? 'now' : t < view.turn ? 'past' : '', 'aria-current': t === view.turn ? 'step' : null, text: String(t) }));
  }
  // The sequence of play stays on screen in every phase: the setup before turn 1 and the end
  // of each turn are steps of it too (4, 22).
  const phases = h('ol', { class: 'phase-track', 'aria-label': 'Sequence of play' });
  const setup = view.phase === 'allied_setup' || view.phase === 'chinese_setup';
  const track = [...(setup ? ['setup'] : []), ...order, 'end_of_turn'];
  const now = setup ? 'setup' : view.phase;
  if (!track.includes(now) && view.phase !== 'game_over') track.push(now);
  for (const key of track) {
    phases.append(h('li', { class: key === now ? 'now' : '', 'data-phase': key, 'aria-current': key === now ? 'step' : null, text: key === 'setup' ? 'Setup' : phaseName(key) }));
  }
  const toAct = view.to_act;
  let turnLine;
  if (view.result) turnLine = h('div', { class: 'to-act over', text: 'Game over' });
  else if (!toAct) turnLine = h('div', { class: 'to-act', text: '—' });
  else if (you === toAct) turnLine = h('div', { class: `to-act mine side-${toAct}`, text: `Your move (${SIDE_NAME[toAct]})` });
  else turnLine = h('div', { class: `to-act side-${toAct}`, text: `${SIDE_NAME[toAct]} to move${you === 'spectator' ? '' : ' — waiting'}` });
  const v = view.victory ?? {};
  const victory = h('div', { class: 'victory-line' },
    h('span', { class: 'vh', title: 'Victory hexes the Chinese hold, and how many win now (21)' },
      'Chinese hold ', h('b', { text: `${v.chinese_held ?? 0}` }), ` of ${v.needed_now ?? '?'} needed`),
    h('span', { class: 'vh', title: 'Primary victory hexes held by the Chinese, and needed at the end (21)' },
      ' · primary ', h('b', { text: `${v.primary_held ?? 0}/${v.primary_needed ?? 7}` })),
    v.civilians_lost ? h('span', { class: 'vh warn', text: ' · all civilians lost (15)' }) : null);
  el.append(...[
    h('div', { class: 'track-row' }, h('span', { class: 'track-label', text: 'Turn' }), turns),
    h('div', { class: 'phase-row' }, phases),
    h('div', { class: 'phase-title', text: phaseTitle(view) }),
    turnLine, victory,
    // Both players (and spectators) are told the game did not begin from the setup of rule 22.
    view.custom_start ? h('div', { class: 'custom-start', title: 'This game began from a position set up on the analysis board, not from the setup of rule 22', text: 'Custom start: this game began from a position set up on the analysis board.' }) : null,
  ].filter(Boolean));
}

/** The prompt in words, and whether it is for this player. */
export function renderPrompt(el, view, you) {
  clear(el);
  const mine = you === view.to_act && !view.result;
  el.classList.toggle('mine', mine);
  el.append(h('p', { text: view.prompt }));
  if (view.selection) {
    const s = view.selection;
    el.append(h('p', { class: 'selection-line', text: `Selected at ${s.hex}: ${s.units.length} unit${s.units.length > 1 ? 's' : ''}${s.mp_left !== null && s.mp_left !== undefined ? `, ${s.mp_left} MP left` : ''}.` }));
    const byId = new Map(view.units.map((u) => [u.id, u]));
    const ooc = s.units.map((id) => byId.get(id)).filter((u) => u?.out_of_command);
    if (ooc.length) el.append(h('p', { class: 'selection-line ooc-line', text: `${ooc.map((u) => u.name).join(', ')}: ${OUT_OF_COMMAND}` }));
  }
}

/** What being out of command means, for the unit's panel and the selection line (11.2). */
export const OUT_OF_COMMAND = 'out of command (11.2): no leader near enough at the start of the phase, so 3 MP instead of 6 in the Allied movement phase and 2 MP instead of 3 in the reaction phase. Combat is not affected.';

/** Buttons for actions with nothing to click on the map, and every choice in a list. */
export function renderButtons(el, index, labelOf, send, enabled, undoText = null) {
  clear(el);
  const main = h('div', { class: 'buttons' });
  const fire = index.buttons.filter((a) => a.type === 'fire');
  // Undo first, where it is always found, saying what it takes back when the view tells.
  const undo = index.buttons.find((a) => a.type === 'undo');
  if (undo) {
    const b = actionButton(undo, labelOf, send, enabled);
    b.id = 'undo';
    b.title = `${undoText ? `Take back: ${undoText}` : 'Take back your last decision'} (Ctrl+Z)`;
    b.append(h('kbd', { class: 'key-hint', text: 'Ctrl+Z' }));
    main.append(b);
  }
  for (const a of index.buttons) {
    if (a.type === 'fire' || a.type === 'undo') continue;
    main.append(actionButton(a, labelOf, send, enabled));
  }
  if (fire.length) el.append(compass(fire, send, enabled));
  el.append(main);
  // Every legal action, also the map's: keyboard users and anyone unsure of a click can pick
  // from here, and it proves nothing is unreachable.
  if (index.all.length > 0) {
    const many = index.all.length > 14;
    const list = h('details', { class: 'all-choices', open: !many && index.all.length > index.buttons.length ? true : null },
      h('summary', { text: `All ${index.all.length} choice${index.all.length > 1 ? 's' : ''}` }),
      h('div', { class: 'choice-list' }, index.all.map((a) => actionButton(a, labelOf, send, enabled, 'small'))));
    el.append(list);
  }
}

function actionButton(a, labelOf, send, enabled, size = '') {
  const cls = ['act', `act-${a.type}`, size];
  if (['end_phase', 'resolve'].includes(a.type)) cls.push('primary');
  if (['cancel_attack', 'pass', 'undo'].includes(a.type)) cls.push('quiet');
  const warning = warningOf(a);
  if (warning) cls.push('has-warning');
  return h('button', {
    type: 'button', class: cls.join(' '), 'data-action': JSON.stringify(a), disabled: !enabled ? true : null,
    title: warning ? `Asks first: ${warning.text}` : null, onclick: () => send(a),
  }, warning ? h('span', { class: 'warn-icon', 'aria-label': 'warning', text: '⚠ ' }) : null, labelOf(a));
}

/** The Big Gun's six directions as a compass of buttons. */
function compass(fire, send, enabled) {
  const box = h('div', { class: 'fire-compass', role: 'group', 'aria-label': 'Big Gun: direction of the shot' },
    h('span', { class: 'gun-centre', 'aria-hidden': 'true', text: 'Fire' }));
  for (const a of fire) {
    box.append(h('button', {
      type: 'button', class: `dir dir-${a.direction}`, 'data-action': JSON.stringify(a), disabled: !enabled ? true : null,
      title: `Fire ${DIRECTION_NAME[a.direction] ?? a.direction}`, onclick: () => send(a), text: a.direction.toUpperCase(),
    }));
  }
  return box;
}

/** The odds of the attack being declared, before the die, with the chance of each result
 *  (or the last combat, after it, its result in words). `crt`: the scenario's table. */
export function renderOdds(el, view, unitName, crt = null) {
  const wasOpen = el.querySelector('details.last-combat')?.open ?? false;
  clear(el);
  const d = view.declaration;
  const rep = d?.odds ?? null;
  const last = view.last_combat;
  if (!rep && !last) { el.hidden = true; return; }
  el.hidden = false;
  const r = rep ?? last;
  const table = oddsTable(r, unitName, d?.attackers ?? null, crt);
  const ready = r.automatic ? `Forced attack: ${r.automatic}.` : 'Legal attack: ready to roll.';
  const legal = r.legal
    ? h('div', { class: 'legal ok', text: rep ? ready : 'Resolved.' })
    : h('div', { class: 'legal no', text: `Not legal yet: ${r.why_not ?? ''}` });
  if (rep) {
    // What the player decides on first — the column and the chance of each result — then
    // every number that led to it.
    const odds = crt && r.column ? chancesBox(crt, r.column, r.modifier ?? 0) : null;
    el.append(h('h3', {}, `Attack on ${(r.defenders ?? []).join(', ')}: `, h('span', { class: 'odds-sum', text: `${r.attack} against ${r.defence}, read on ${r.column}` })),
      odds, legal, table,
      crt ? h('button', { type: 'button', class: 'small quiet', onclick: () => document.getElementById('toggle-charts')?.click(), text: 'Show the table (T)' }) : null);
    return;
  }
  // The last combat folds to one line once it is old news; open while it is fresh.
  const key = JSON.stringify(r);
  const seenBefore = el.dataset.lastCombat !== undefined;
  const fresh = key !== el.dataset.lastCombat && (seenBefore || /combat/.test(view.phase));
  el.dataset.lastCombat = key;
  const open = fresh || wasOpen;
  el.append(h('details', { class: 'last-combat', open: open ? true : null },
    h('summary', {}, h('b', { text: 'Last combat' }), ` — ${(r.defenders ?? []).join(', ')} at ${r.column}, rolled ${r.die ?? '–'}: `, h('b', { text: r.result ?? '' })),
    table, r.result ? h('p', { class: 'result-words', text: `${r.result}: ${resultWords(crt, r.result)}` }) : null));
}

/** A combat report as a table: who attacks with what, the defence and the terrain multiplier
 *  with its reason, the odds, the artillery shift, the column and the die modifier — and the
 *  die and result once rolled. `attackers` (unit ids) names the attackers being declared. */
export function oddsTable(r, unitName, attackers = null, crt = null) {
  const names = (ids) => (ids ?? []).map(unitName).join(', ');
  const rows = [];
  const row = (k, ...v) => rows.push(h('tr', { 'data-row': k.toLowerCase().replace(/\W+/g, '-') }, h('th', { scope: 'row', text: k }), h('td', {}, ...v)));
  row('Attacker', `${r.attacker === 'allied' ? 'Allies' : 'Chinese'}${r.bayonet ? ' — bayonet charge ×4' : ''}`);
  if (attackers) {
    row('Attackers', names(attackers) || '—');
    if ((r.ranged ?? []).length) row('Ranged fire', names(r.ranged));
  }
  row('Attack', h('b', { text: String(r.attack) }), r.attack_detail ? ` = ${r.attack_detail}` : '');
  row('Defenders', (r.defenders ?? []).join(', '));
  row('Defence', h('b', { text: String(r.defence) }), ` = ${r.defence_base} × ${r.multiplier}`);
  row('Terrain', `${r.terrain}`, r.terrain_reason ? h('div', { class: 'why', text: r.terrain_reason }) : '');
  row('Odds', h('b', { text: r.odds }), r.automatic ? ` — ${r.automatic}` : '');
  if (r.shift || (r.artillery ?? []).length) {
    row('Artillery', `${names(r.artillery) || 'none'}: shift ${r.shift >= 0 ? '+' : ''}${r.shift}`);
  }
  row('Column', h('b', { class: 'column', text: r.column }));
  row('Die modifier', r.modifier ? `${r.modifier > 0 ? '+' : '−'}${Math.abs(r.modifier)} (leader, 11.1)` : 'none');
  if (r.die !== null && r.die !== undefined) {
    row('Die', h('b', { class: 'die', text: String(r.die) }), r.modified !== r.die ? ` → ${r.modified}` : '');
    row('Result', h('b', { class: 'result', text: r.result ?? '' }), r.result ? h('div', { class: 'why', text: resultWords(crt, r.result) }) : '');
  }
  return h('table', { class: 'odds-table' }, h('tbody', {}, rows));
}

/** Units not on the map, by where they are, drawn as counters; those with an action are buttons. */
export function renderTray(el, units, index, onUnit) {
  clear(el);
  const groups = [
    ['unplaced', 'To set up'], ['off_map', 'Off the map'], ['eliminated', 'Eliminated'],
  ];
  let any = false;
  const counts = [];
  for (const [status, title] of groups) {
    const list = pileOrder(units.filter((u) => u.status === status));
    if (!list.length) continue;
    any = true;
    counts.push(`${list.length} ${title.toLowerCase()}`);
    const box = h('div', { class: 'tray-units' });
    for (const u of list) {
      const acts = index.byUnit.get(u.id) ?? [];
      const chit = svg('svg', { viewBox: '-19 -19 38 38', width: 36, height: 36, 'aria-hidden': 'true' }, counter(u, 0, 0));
      const attrs = { class: `tray-unit${acts.length ? ' actionable' : ''}`, title: describeUnit(u), 'data-unit': u.id };
      box.append(acts.length
        ? h('button', { ...attrs, type: 'button', 'aria-label': describeUnit(u), onclick: () => onUnit(u, acts) }, chit)
        : h('span', attrs, chit));
    }
    // A long list nobody has to pick from folds away (the Chinese waiting off the map).
    const fold = list.length > 12 && !box.querySelector('button');
    el.append(fold
      ? h('details', { class: 'tray-group' }, h('summary', { text: `${title} (${list.length}): ${kinds(list)}` }), box)
      : h('div', { class: 'tray-group' }, h('h4', { text: `${title} (${list.length})` }), box));
  }
  const box = el.closest('details');
  if (!box) return;
  box.hidden = !any;
  box.querySelector('summary').textContent = `Units off the map — ${counts.join(', ')}`;
  // Open by itself when a unit there has something to do (setup, entry), and close again after.
  const actionable = el.querySelector('button.tray-unit') ? 'true' : 'false';
  if (actionable !== box.dataset.actionable) {
    if (actionable === 'true') box.open = true;
    else if (box.dataset.actionable === 'true') box.open = false;
    box.dataset.actionable = actionable;
  }
}

/** "40 boxer, 24 imperial": how many of each type. */
function kinds(units) {
  const n = new Map();
  for (const u of units) n.set(u.type, (n.get(u.type) ?? 0) + 1);
  return [...n].map(([t, k]) => `${k} ${t}`).join(', ');
}

/** The end of the game, once the view carries a result. */
export function renderResult(el, view) {
  if (!view.result) { el.hidden = true; return; }
  el.hidden = false;
  const r = view.result;
  const winner = r.winner ?? r.side ?? null;
  clear(el).append(
    h('h2', { text: winner ? `${SIDE_NAME[winner] ?? winner} victory` : 'Game over' }),
    h('p', { text: r.text ?? JSON.stringify(r) }));
  el.className = `result-box${winner ? ` side-${winner}` : ''}`;
}

/** The phase and, when it says more, the step within it ("Chinese Combat · declare attacks";
 *  not "Game Over · over" nor "Allied Setup · allied setup"). */
function phaseTitle(view) {
  const step = view.step ? view.step.replace(/_/g, ' ') : '';
  const title = view.phase_title ?? '';
  return step && !title.toLowerCase().includes(step.toLowerCase()) ? `${title} · ${step}` : title;
}
