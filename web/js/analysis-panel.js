// The analysis board's side panel: the turn and phase, what a click on the map does, the
// counter mix, and the engine's answers — zones of control, the selected unit's moves and
// command control, the attack being examined with its odds, the legal actions — each with the
// rule sections that decided it; an engine hint on request (a computer player's plan and its
// rating of the position); then the link to share and a game to start from the position.
// It draws the board's state (analysis.js) and calls the board back; it holds no state itself.

import { h, svg, clear, copyText } from './dom.js';
import { counter, describeUnit } from './counters.js';
import { renderMix } from './mix.js';
import { oddsTable, phaseName, turnsAndPhases, SIDE_NAME } from './panels.js';
import { actionLabel } from './labels.js';
import { PositionModel } from './position.js';
import { warningOf } from './confirm.js';
import { chancesBox } from './charts.js';

/** What a click on the map can do: [tool, button text, what to do with it]. */
export const TOOLS = [
  ['select', 'Inspect', 'Click a unit to see where it can move (its MP on each hex) and, for an Allied unit, its command control. A stack lists its units.'],
  ['attack', 'Attack', 'Click stacks of the attacking side to add them to the attack, an enemy stack to attack it; click again to take it out.'],
  ['los', 'Line of sight', 'Click the firing hex, then the target hex.'],
  ['ruin', 'Ruin', 'Click a hex to add or remove a ruin (17).'],
  ['fort-allied', 'Allied fort', 'Click a hex to add or remove an Allied fortification (13).'],
  ['fort-chinese', 'Chinese fort', 'Click a hex to add or remove a Chinese fortification (13).'],
  ['control', 'Control', 'Click a victory hex to give it to the Chinese, or back to the Allies (21).'],
  ['remove', 'Remove', 'Click a unit to take it off the board.'],
];

/** `el.append` that skips the nulls of optional parts (the DOM's own would print "null"). */
const put = (el, ...kids) => el.append(...kids.filter((k) => k !== null && k !== undefined && k !== false));
const rulesLine = (a) => (a?.rules?.length ? h('div', { class: 'an-rules', text: `Rules: ${a.rules.join(', ')}` }) : null);
const sideName = (s) => (s === 'allied' ? 'Allies' : 'Chinese');

export class AnalysisPanel {
  constructor(el, board) {
    this.el = el;
    this.board = board;
    this.build();
  }

  /** The parts that stay: controls whose values render() keeps in step with the board. */
  build() {
    const b = this.board;
    const { turns, phases } = turnsAndPhases(b.scenario);
    this.turn = h('select', { id: 'an-turn', onchange: () => b.setTurn(Number(this.turn.value)) },
      Array.from({ length: turns }, (_, i) => h('option', { value: i + 1, text: String(i + 1) })));
    this.phase = h('select', { id: 'an-phase', onchange: () => b.setPhase(this.phase.value) },
      phases.map((p) => h('option', { value: p, text: phaseName(p) })));
    this.tools = h('div', { class: 'an-tools', role: 'group', 'aria-label': 'What a click on the map does' },
      TOOLS.map(([tool, text, hint]) => h('button', {
        type: 'button', class: 'small an-tool', 'data-tool': tool, title: hint, text,
        onclick: () => b.setTool(b.tool === tool ? 'select' : tool),
      })));
    this.hint = h('p', { class: 'an-hint', id: 'an-hint', 'aria-live': 'polite' });
    this.error = h('div', { id: 'an-error', class: 'an-error', role: 'alert', hidden: true });
    this.reduced = h('input', { type: 'checkbox', id: 'an-reduced', onchange: () => b.setPlaceReduced(this.reduced.checked) });
    this.mix = h('div', { id: 'an-mix', class: 'an-mix' });
    this.zoc = h('div', { id: 'an-zoc' });
    this.unit = h('section', { id: 'an-unit', class: 'an-section' });
    this.attack = h('section', { id: 'an-attack', class: 'an-section' });
    this.legal = h('section', { id: 'an-legal', class: 'an-section' });
    this.hint = h('section', { id: 'an-hint-plan', class: 'an-section' });
    this.link = h('input', { id: 'an-link', readonly: true, 'aria-label': 'Link to this position', onfocus: (e) => e.target.select() });
    const startName = h('input', { id: 'an-game-name', maxlength: 60, placeholder: 'Game name (optional)', autocomplete: 'off' });
    const start = h('form', {
      id: 'an-start', class: 'an-section an-start',
      onsubmit: (e) => {
        e.preventDefault();
        const side = new FormData(start).get('an-side') ?? 'allied';
        b.startGame(side, startName.value.trim());
      },
    },
    h('h3', { text: 'Play it out' }),
    h('p', { class: 'hint', text: 'Start a real game from this position; both players are told it is a custom start. Send your opponent the invite link as usual.' }),
    h('fieldset', { class: 'side-choice compact' },
      h('legend', { text: 'Your side' }),
      h('label', { class: 'side-opt allied' }, h('input', { type: 'radio', name: 'an-side', value: 'allied', checked: true }), h('span', { text: 'Allies' })),
      h('label', { class: 'side-opt chinese' }, h('input', { type: 'radio', name: 'an-side', value: 'chinese' }), h('span', { text: 'Chinese' }))),
    startName,
    h('button', { type: 'submit', id: 'an-start-game', class: 'primary', text: 'Start a game from this position' }));

    clear(this.el).append(
      h('div', { class: 'an-head' },
        h('h2', { text: 'Analysis board' }),
        h('button', { type: 'button', id: 'an-clear', class: 'small quiet', onclick: () => b.clearBoard(), text: 'Clear the board' })),
      h('p', { class: 'hint an-intro', text: 'Set up any position and ask the engine: zones of control, moves, line of sight, odds. Nothing is rolled here.' }),
      this.error,
      h('div', { class: 'an-row' }, h('label', {}, 'Turn ', this.turn), h('label', {}, 'Phase ', this.phase)),
      h('section', { class: 'an-section' }, h('h3', { text: 'A click on the map' }), this.tools, this.hint),
      this.unit,
      this.attack,
      h('section', { class: 'an-section' },
        h('div', { class: 'an-title-row' }, h('h3', { text: 'Counter mix' }),
          h('label', { class: 'an-check' }, this.reduced, ' reduced side up')),
        this.mix),
      h('section', { class: 'an-section' }, h('h3', { text: 'Zones of control' }), this.zoc),
      this.hint,
      this.legal,
      h('section', { class: 'an-section an-share' },
        h('h3', { text: 'Share' }),
        h('div', { class: 'link-row' }, this.link,
          h('button', { type: 'button', id: 'an-copy-link', class: 'small', onclick: () => copyText(this.link.value), text: 'Copy link' }))),
      start);
  }

  /** Bring everything in step with the board and its latest answers. */
  render() {
    const b = this.board;
    const m = b.model;
    this.turn.value = String(m.turn);
    this.phase.value = m.phase;
    this.link.value = b.link();
    for (const btn of this.tools.children) {
      const on = btn.dataset.tool === b.tool;
      btn.setAttribute('aria-pressed', String(on));
      btn.classList.toggle('on', on);
    }
    this.hint.textContent = this.hintText();
    this.reduced.checked = b.placeReduced;
    renderMix(this.mix, m, b.armed, b.placeReduced, (key) => b.arm(key));
    this.renderError();
    this.renderZoc();
    this.renderUnit();
    this.renderAttack();
    this.renderHint();
    this.renderLegal();
  }

  hintText() {
    const b = this.board;
    if (b.tool === 'place' && b.armed) {
      const c = b.model.nextFree(b.armed);
      return c ? `Click hexes to place ${c.name}${b.placeReduced && PositionModel.twoSided(c) ? ' (reduced)' : ''}: ${b.model.freeCount(b.armed)} left. Click the counter again or press Esc to stop.` : '';
    }
    if (b.tool === 'move' && b.moving !== null) return `Click the hex ${b.model.byId.get(b.moving).name} moves to.`;
    return TOOLS.find(([t]) => t === b.tool)?.[2] ?? '';
  }

  renderError() {
    const e = this.board.error;
    this.error.hidden = !e;
    if (!e) return;
    put(clear(this.error),
      h('b', { text: e.invalid ? 'The rules refuse this position: ' : '' }), e.message);
  }

  renderZoc() {
    const b = this.board;
    const ans = b.answers ?? {};
    clear(this.zoc);
    for (const side of ['allied', 'chinese']) {
      const a = ans[side === 'allied' ? 'zocAllied' : 'zocChinese'];
      const box = h('input', {
        type: 'checkbox', id: `an-zoc-${side}`, checked: b.shade[side] ? true : null,
        onchange: (e) => { b.shade[side] = e.target.checked; b.draw(); },
      });
      const count = a?.hexes ? ` — ${a.hexes.length} hex${a.hexes.length === 1 ? '' : 'es'}` : '';
      this.zoc.append(h('label', { class: `an-check zoc-key zoc-${side}` }, box, h('span', { class: 'swatch' }), ` ${SIDE_NAME[side]} ZOC${count}`));
    }
    put(this.zoc, rulesLine(ans.zocAllied));
  }

  /** The selected unit: what it is, its moves and (Allied) its command control. */
  renderUnit() {
    const b = this.board;
    const el = clear(this.unit);
    if (b.selected === null) {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const u = b.model.unit(b.selected);
    el.append(h('h3', { text: 'Selected unit' }),
      h('div', { class: 'an-unit-head' },
        svg('svg', { viewBox: '-19 -19 38 38', width: 44, height: 44, 'aria-hidden': 'true' }, counter(u, 0, 0)),
        h('div', {},
          h('div', { class: 'an-unit-name', text: `${describeUnit(u)} at ${u.hex}` }),
          h('div', { class: 'button-row' },
            PositionModel.twoSided(u) ? h('button', { type: 'button', class: 'small', id: 'an-flip', onclick: () => b.toggleReduced(u.id), text: u.reduced ? 'Full side up' : 'Reduced side up' }) : null,
            h('button', { type: 'button', class: 'small', id: 'an-move', onclick: () => b.startMove(u.id), text: 'Move' }),
            h('button', { type: 'button', class: 'small', id: 'an-remove', onclick: () => b.remove(u.id), text: 'Remove' }),
            h('button', { type: 'button', class: 'small quiet', onclick: () => b.select(null), text: 'Deselect' })))));
    const r = b.reach();
    const moves = h('div', { id: 'an-reach', class: 'an-answer' });
    if (r?.error) moves.append(r.error.message);
    else if (r) {
      const n = Object.keys(r.destinations ?? {}).length;
      put(moves, h('b', { text: 'Moves' }), ` in the ${phaseName(r.phase)} phase: allowance ${r.allowance} MP, `,
        h('b', { class: 'an-reach-count', text: String(n) }), ` hex${n === 1 ? '' : 'es'} reachable${n ? ' (green on the map, with the MP each costs)' : ''}.`,
        r.why_not ? h('div', { class: 'why', text: r.why_not }) : null, rulesLine(r));
    } else moves.append(h('span', { class: 'muted', text: 'Asking…' }));
    el.append(moves);
    if (u.side === 'allied') {
      const c = b.command();
      const cc = h('div', { id: 'an-command', class: 'an-answer' });
      if (c?.error) cc.append(c.error.message);
      else if (c) {
        put(cc, h('b', { text: 'Command control: ' }),
          h('span', { class: c.in_command ? 'ok' : 'no', text: c.in_command ? 'in command' : 'out of command' }),
          ` — movement allowance ${c.movement_allowance} MP, reaction ${c.reaction_allowance} MP.`, rulesLine(c));
      }
      el.append(cc);
    }
  }

  /** The attack being examined: who takes part, leaders' use, artillery, bayonet, the odds. */
  renderAttack() {
    const b = this.board;
    const a = b.attack;
    const m = b.model;
    const el = clear(this.attack);
    const name = (id) => m.byId.get(id)?.name ?? `unit ${id}`;
    el.append(h('div', { class: 'an-title-row' }, h('h3', { text: 'Attack' }),
      h('div', { class: 'an-side-pick', role: 'group', 'aria-label': 'Attacking side' },
        ['allied', 'chinese'].map((s) => h('button', {
          type: 'button', class: `small an-attack-side side-${s}${a.side === s ? ' on' : ''}`, 'data-side': s,
          'aria-pressed': String(a.side === s), onclick: () => b.setAttackSide(s), text: `${sideName(s)} attack`,
        })))));
    const picked = a.attackers.size + a.artillery.size + a.defenders.size;
    if (!picked) {
      el.append(h('p', { class: 'hint' }, b.tool === 'attack' ? 'Click the attacking stacks, then the stack they attack.' : 'Pick the units of an attack to see its odds: ',
        b.tool === 'attack' ? null : h('button', { type: 'button', class: 'small', id: 'an-pick-attack', onclick: () => b.setTool('attack'), text: 'Pick an attack' })));
      return;
    }
    const chip = (id, extra = null) => h('span', { class: 'an-chip', 'data-unit': id },
      svg('svg', { viewBox: '-19 -19 38 38', width: 26, height: 26, 'aria-hidden': 'true' }, counter(m.unit(id), 0, 0)),
      ` ${name(id)}`, extra,
      h('button', { type: 'button', class: 'an-x', title: `Take ${name(id)} out`, 'aria-label': `Take ${name(id)} out`, onclick: () => b.dropFromAttack(id), text: '×' }));
    const leaders = new Set(b.attackLeaders());
    const useOf = (id) => h('select', {
      class: 'an-leader-use', 'data-leader': id, 'aria-label': `How ${name(id)} lends his 1 (11.1)`,
      onchange: (e) => b.setLeaderUse(id, e.target.value),
    },
    h('option', { value: 'strength', text: 'strength 1', selected: (a.leaderUse.get(id) ?? 'strength') === 'strength' ? true : null }),
    h('option', { value: 'modifier', text: 'die roll modifier', selected: a.leaderUse.get(id) === 'modifier' ? true : null }));
    const list = h('div', { class: 'an-picks' });
    list.append(h('div', { class: 'an-pick-row' }, h('span', { class: 'an-pick-label', text: 'Attackers' }),
      ...(a.attackers.size ? [...a.attackers].map((id) => chip(id, leaders.has(id) ? useOf(id) : null)) : [h('span', { class: 'muted', text: 'none yet' })])));
    if (a.artillery.size) {
      list.append(h('div', { class: 'an-pick-row' }, h('span', { class: 'an-pick-label', text: 'Artillery' }), ...[...a.artillery].map((id) => chip(id))));
    }
    const defenders = [...a.defenders].map((hex) => h('span', { class: 'an-chip', 'data-hex': hex },
      `${hex}: ${(b.stacks.get(hex) ?? []).map((u) => u.name).join(', ')}`,
      ...(b.stacks.get(hex) ?? []).filter((u) => leaders.has(u.id)).map((u) => useOf(u.id)),
      h('button', { type: 'button', class: 'an-x', title: `Stop attacking ${hex}`, 'aria-label': `Stop attacking ${hex}`, onclick: () => b.dropDefender(hex), text: '×' })));
    list.append(h('div', { class: 'an-pick-row' }, h('span', { class: 'an-pick-label', text: 'Defending' }),
      ...(defenders.length ? defenders : [h('span', { class: 'muted', text: 'click an enemy stack' })])));
    list.append(h('label', { class: 'an-check' },
      h('input', { type: 'checkbox', id: 'an-bayonet', checked: a.bayonet ? true : null, onchange: (e) => b.setBayonet(e.target.checked) }),
      ' bayonet charge (8.1.3)'));
    el.append(list);
    const r = b.answers?.odds;
    const odds = h('div', { id: 'an-odds', class: 'odds an-odds' });
    if (r?.error) odds.append(h('div', { class: 'legal no', text: r.error.message }));
    else if (r) {
      put(odds, oddsTable(r, (id) => m.byId.get(id)?.name ?? `unit ${id}`, [...a.attackers], b.scenario.crt ?? null),
        b.scenario.crt && r.column ? chancesBox(b.scenario.crt, r.column, r.modifier ?? 0) : null,
        // A forced attack below 1-3 is legal but has no roll to read: say what it is.
        r.legal
          ? h('div', { class: 'legal ok', text: r.automatic ? `A forced attack below 1-3: ${r.automatic}, whatever the die.` : 'A legal attack.' })
          : h('div', { class: 'legal no', text: `Not legal: ${r.why_not ?? ''}` }),
        rulesLine(r));
    } else if (a.attackers.size && a.defenders.size && !b.error) odds.append(h('span', { class: 'muted', text: 'Asking…' }));
    if (odds.childNodes.length) el.append(odds);
  }

  /** The engine hint: a side and a level to ask for, then the bot's plan in words (numbered
   *  as on the map) and its rating of the position for that side. */
  renderHint() {
    const b = this.board;
    const hint = b.hint;
    const el = clear(this.hint);
    const sidePick = h('div', { class: 'an-side-pick', role: 'group', 'aria-label': 'Hint for' },
      ['allied', 'chinese'].map((s) => h('button', {
        type: 'button', class: `small an-hint-side side-${s}${hint.side === s ? ' on' : ''}`, 'data-side': s,
        'aria-pressed': String(hint.side === s), onclick: () => b.setHint('side', s), text: sideName(s),
      })));
    const level = h('select', { id: 'an-hint-level', 'aria-label': 'Computer player level', onchange: (e) => b.setHint('level', e.target.value) },
      ['easy', 'normal', 'hard'].map((l) => h('option', { value: l, text: l, selected: hint.level === l ? true : null })));
    const ask = h('button', {
      type: 'button', id: 'an-suggest', class: 'small primary', disabled: hint.asking || b.error ? true : null,
      onclick: () => b.suggest(), text: hint.asking ? 'Thinking…' : 'Suggest a plan',
    });
    el.append(h('div', { class: 'an-title-row' }, h('h3', { text: 'Engine hint' }), sidePick),
      h('div', { class: 'an-row' }, h('label', {}, 'Level ', level), ask));
    if (hint.error) { el.append(h('p', { class: 'legal no', text: hint.error })); return; }
    const a = hint.answer;
    if (!a) {
      el.append(h('p', { class: 'hint', text: 'What a computer player would do here for the side chosen, drawn on the map, and how it rates the position.' }));
      return;
    }
    const pct = Math.round(100 * a.evaluation);
    el.append(h('p', { class: 'an-answer', id: 'an-eval' },
      h('b', { text: `${sideName(a.side)}: ${pct}%` }), ` — their winning chances as the ${a.level} bot judges the position.`));
    if (a.note) el.append(h('p', { class: 'muted', text: a.note }));
    if (a.plan?.length) {
      el.append(h('ol', { class: 'an-plan', id: 'an-plan' }, a.plan.map((item) => h('li', { 'data-kind': item.kind, text: item.text }))));
    }
    put(el, rulesLine(a));
  }

  /** What the game would offer the side to act in this position. */
  renderLegal() {
    const b = this.board;
    const ans = b.answers ?? {};
    const el = clear(this.legal);
    el.append(h('h3', { text: 'Legal actions' }));
    const any = ans.legalAllied ?? ans.legalChinese;
    if (!any) { el.append(h('p', { class: 'muted', text: b.error ? '—' : 'Asking…' })); return; }
    if (any.error) { el.append(h('p', { text: any.error.message })); return; }
    const side = any.to_act;
    const a = side === 'chinese' ? ans.legalChinese : side === 'allied' ? ans.legalAllied : null;
    const list = a?.legal_actions ?? [];
    const unitName = (id) => b.model.byId.get(id)?.name ?? `unit ${id}`;
    const label = (x) => actionLabel(x, unitName, (k) => b.board.areaName(k));
    el.append(h('p', { class: 'an-answer', id: 'an-to-act' },
      side ? `${SIDE_NAME[side]} to act: ${list.length} choice${list.length === 1 ? '' : 's'}, as the game would offer them.` : 'Nobody is to act.'));
    if (list.length) {
      // An order with a loss the player might not expect carries the engine's warning, shown
      // here as the game would ask about it before sending it.
      const items = h('ul', { class: 'an-actions' }, list.map((x) => {
        const w = warningOf(x);
        return h('li', { 'data-action': JSON.stringify(x), class: w ? 'has-warning' : null }, label(x),
          w ? h('div', { class: 'why warn', text: `⚠ ${w.text}${w.rule && !w.text.includes(`(${w.rule})`) ? ` (${w.rule})` : ''}` }) : null);
      }));
      el.append(list.length > 12 ? h('details', {}, h('summary', { text: `All ${list.length}` }), items) : items);
    }
    put(el, rulesLine(any));
  }
}
