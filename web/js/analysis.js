// The analysis board: any position set up by hand — counters from the mix placed on
// hexes, ruins, fortifications, victory-hex control, the turn and phase — and after every click
// the engine's answers about it from `POST /api/analysis`: both sides' zones of control, where a
// unit can move and at what cost, its command control, a line of sight, the odds of an attack,
// the legal actions, each with the rule sections that decided it; and on request an engine
// hint — a computer player's plan for one side, drawn on the map, and how it rates the
// position. The page knows no rules: it only draws what it is told, and an invalid position
// shows the server's reason.
//
// The position lives in the URL fragment (`#analyse=<base64url JSON>`), so a reload or a shared
// link restores the board, and a game can be started from it.

import { byId, toast, svg, clear } from './dom.js';
import { api } from './api.js';
import { Board } from './map.js';
import { Viewport, wireMapButtons } from './viewport.js';
import { R, HEX_H, centre, hexPoints, hexAt } from './geometry.js';
import { stack, pileOrder } from './counters.js';
import { HexMenu } from './menu.js';
import { LosTool } from './los.js';
import { PositionModel, encodePosition, analyseLink } from './position.js';
import { AnalysisPanel } from './analysis-panel.js';
import { saveSeat } from './seats.js';
import { ChartsPanel } from './charts.js';

/** Types that fight in an attack (artillery only lends its odds bonus; civilians and the doctor
 *  never attack). */
const FIGHTERS = new Set(['combat', 'volunteer', 'leader', 'boxer', 'imperial']);

/** Wait this long after a click before asking, so a burst of clicks is one question. */
const ASK_DELAY = 40;

export class AnalysisBoard {
  /** `position`: a position's JSON to start from (a link, a game's view), or null. */
  constructor(scenario, position) {
    this.scenario = scenario;
    // A fresh <svg>, so no listener of the previous screen's map survives.
    const old = byId('map');
    const fresh = old.cloneNode(false);
    old.replaceWith(fresh);
    this.board = new Board(fresh, scenario);
    this.viewport = new Viewport(fresh, this.board.width, this.board.height, (x, y, e) => this.tapAt(x, y, e));
    wireMapButtons(this.viewport);
    this.model = new PositionModel(scenario.counters);
    this.victoryHexes = new Set((scenario.victory_hexes ?? []).map((v) => v.hex));

    this.tool = 'select'; // what a click on the map does (see analysis-panel.js's TOOLS)
    this.armed = null; // a kind of counter being placed
    this.placeReduced = false;
    this.selected = null; // a counter id: its moves and command control are asked
    this.moving = null; // a counter id waiting for the hex it moves to
    this.attack = { side: null, attackers: new Set(), artillery: new Set(), defenders: new Set(), leaderUse: new Map(), bayonet: false };
    this.shade = { allied: true, chinese: true };
    this.answers = null; // the latest answers, by name (see ask())
    // The engine hint: asked only on request (a search can take a moment), forgotten when the
    // position changes.
    this.hint = { side: 'allied', level: 'normal', answer: null, asking: false, error: null };
    this.error = null; // why the server refused the position, or could not answer
    this.round = 0;

    this.los = new LosTool(this.board.layers.los, byId('los-box'), () => this.model.toJSON(), () => this.changed(false));
    this.menu = new HexMenu(byId('menu'), (a) => a.label, (a) => this.menuPick(a));
    this.panel = new AnalysisPanel(byId('analysis-panel'), this);

    if (position) {
      const lost = this.model.load(position);
      if (lost.length) toast(`${lost.length} unit${lost.length > 1 ? 's' : ''} of the link could not be matched to the counter mix and ${lost.length > 1 ? 'were' : 'was'} left off.`, 'error');
    }
    if (['allied_combat', 'chinese_combat'].includes(this.model.phase)) this.attack.side = this.model.phase.split('_')[0];

    const map = byId('map');
    map.addEventListener('pointermove', (e) => this.hover(e));
    map.addEventListener('pointerleave', () => { byId('hexinfo').textContent = ''; });
    this.onKey = (e) => {
      if (e.key !== 'Escape') return;
      this.menu.close();
      if (this.armed || this.moving !== null) this.setTool('select');
    };
    this.onOutside = (e) => { if (!this.menu.contains(e.target)) this.menu.close(); };
    document.addEventListener('keydown', this.onKey);
    document.addEventListener('pointerdown', this.onOutside, true);
    byId('toggle-los').onclick = () => this.setTool(this.tool === 'los' ? 'select' : 'los');
    // The tables, lit with the attack examined here.
    this.charts = new ChartsPanel(byId('charts'), scenario, () => {
      const r = this.answers?.odds;
      return r?.column ? { column: r.column, modifier: r.modifier ?? 0, label: 'attack examined' } : null;
    });
    byId('toggle-charts').onclick = () => this.charts.toggle();
    this.startView();
    this.changed();
  }

  close() {
    clearTimeout(this.askTimer);
    this.round += 1; // an answer still on its way is dropped
    document.removeEventListener('keydown', this.onKey);
    document.removeEventListener('pointerdown', this.onOutside, true);
    this.menu.close();
    if (this.los.active) this.los.toggle(false);
    byId('toggle-los').setAttribute('aria-pressed', 'false');
    byId('map').classList.remove('los-mode');
    this.charts.toggle(false);
    delete document.body.dataset.analysis;
  }

  /** First view: the whole board on a phone; on a laptop the units of the position (or the
   *  Legation Quarter when there are none) at a readable size. */
  startView() {
    const box = byId('map').getBoundingClientRect();
    const fitScale = Math.min(box.width / this.board.width, box.height / this.board.height);
    if (fitScale >= 0.55 || box.width < 500) { this.viewport.fit(); return; }
    const pts = [...this.model.units.values()].map((u) => centre(u.hex).map((v) => v + this.board.origin));
    if (!pts.length) { this.viewport.focus(this.board.width / 2, this.board.height * 0.45, 0.8); return; }
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    this.viewport.focus((Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2, 0.8);
  }

  // --- tools -------------------------------------------------------------------------------

  /** Choose what a click on the map does. */
  setTool(tool) {
    const wasLos = this.los.active;
    this.tool = tool;
    if (tool !== 'place') this.armed = null;
    if (tool !== 'move') this.moving = null;
    const los = tool === 'los';
    if (los !== this.los.active) this.los.toggle(los);
    byId('toggle-los').setAttribute('aria-pressed', String(los));
    byId('map').classList.toggle('los-mode', los);
    if (tool === 'attack' && !this.attack.side && ['allied_combat', 'chinese_combat'].includes(this.model.phase)) {
      this.attack.side = this.model.phase.split('_')[0];
    }
    this.menu.close();
    this.panel.render();
    if (wasLos && !los) this.changed(false); // the line of sight is no longer asked about
  }

  /** A palette chip: arm that kind (or disarm it when it was armed). */
  arm(key) {
    if (this.armed === key) { this.setTool('select'); return; }
    this.setTool('place');
    this.armed = key;
    this.panel.render();
    // Where the panel is under the map (a phone), the next thing to touch is the map.
    if (matchMedia('(max-width: 820px)').matches) byId('map-wrap').scrollIntoView({ block: 'start' });
  }

  setPlaceReduced(on) {
    this.placeReduced = on;
    this.panel.render();
  }

  // --- clicks on the map ---------------------------------------------------------------------

  hexOf(x, y) {
    const [fx, fy] = this.board.toField(x, y);
    return hexAt(fx, fy, this.board.cols, this.board.rows);
  }

  hover(e) {
    if (e.pointerType === 'touch') return;
    const [x, y] = this.viewport.toMap(e.clientX, e.clientY);
    const hex = this.hexOf(x, y);
    if (hex === this.hovered) return;
    this.hovered = hex;
    const units = hex ? this.stacks.get(hex) ?? [] : [];
    const mp = hex ? this.reach()?.destinations?.[hex] : undefined;
    byId('hexinfo').textContent = hex
      ? `${this.board.describe(hex)}${units.length ? ` — ${units.map((u) => u.name).join(', ')}` : ''}${mp !== undefined ? ` — ${mp} MP` : ''}`
      : '';
  }

  tapAt(x, y, e) {
    const hex = this.hexOf(x, y);
    if (!hex) { this.menu.close(); return; }
    const units = pileOrder(this.stacks.get(hex) ?? []);
    switch (this.tool) {
      case 'los': this.los.tap(hex); return;
      case 'place': this.place(hex); return;
      case 'move': this.moveTo(hex); return;
      case 'ruin': this.toggleRuin(hex); return;
      case 'fort-allied': this.toggleFort(hex, 'allied'); return;
      case 'fort-chinese': this.toggleFort(hex, 'chinese'); return;
      case 'control': this.toggleControl(hex); return;
      case 'attack': this.pickForAttack(hex, units); return;
      case 'remove':
        if (units.length === 1) this.remove(units[0].id);
        else if (units.length > 1) this.stackMenu(hex, units, e, ['remove']);
        return;
      default:
        if (units.length === 1) this.select(units[0].id);
        else if (units.length > 1) this.stackMenu(hex, units, e, ['select', 'remove']);
        else { this.select(null); byId('hexinfo').textContent = this.board.describe(hex); }
    }
  }

  /** A stack's units in a menu, each with its choices (`select`, `remove`). */
  stackMenu(hex, units, e, kinds) {
    const label = { select: 'Inspect', remove: 'Remove' };
    const acts = (u) => kinds.map((k) => ({ type: k, unit: u.id, label: label[k] }));
    this.menu.openAtHex(this.board.describe(hex), [], units, acts, e.clientX, e.clientY, hex);
  }

  menuPick(a) {
    this.menu.close();
    if (a.type === 'select') this.select(a.unit);
    else if (a.type === 'remove') this.remove(a.unit);
  }

  // --- edits ---------------------------------------------------------------------------------

  place(hex) {
    const c = this.armed ? this.model.nextFree(this.armed) : null;
    if (!c) { this.setTool('select'); return; }
    this.model.units.set(c.id, { hex, reduced: this.placeReduced && PositionModel.twoSided(c) });
    if (!this.model.nextFree(this.armed)) { this.armed = null; this.tool = 'select'; }
    this.changed();
  }

  select(id) {
    this.selected = id;
    this.changed(false);
  }

  remove(id) {
    this.model.units.delete(id);
    this.changed();
  }

  /** The selected unit waits for the hex it moves to. */
  startMove(id) {
    this.setTool('move');
    this.moving = id;
    this.panel.render();
  }

  moveTo(hex) {
    const u = this.model.units.get(this.moving);
    if (u) u.hex = hex;
    this.tool = 'select';
    this.moving = null;
    this.changed();
  }

  toggleReduced(id) {
    const u = this.model.units.get(id);
    if (u && PositionModel.twoSided(this.model.byId.get(id))) u.reduced = !u.reduced;
    this.changed();
  }

  toggleRuin(hex) {
    if (!this.model.ruins.delete(hex)) this.model.ruins.add(hex);
    this.changed();
  }

  toggleFort(hex, side) {
    if (this.model.forts.get(hex) === side) this.model.forts.delete(hex);
    else this.model.forts.set(hex, side);
    this.changed();
  }

  toggleControl(hex) {
    if (!this.victoryHexes.has(hex)) { toast(`${hex} is not a victory hex.`); return; }
    if (this.model.control.has(hex)) this.model.control.delete(hex);
    else this.model.control.set(hex, 'chinese');
    this.changed();
  }

  setTurn(turn) { this.model.turn = turn; this.changed(); }

  setPhase(phase) {
    this.model.phase = phase;
    // In a combat phase, the side whose phase it is attacks.
    if (['allied_combat', 'chinese_combat'].includes(phase)) this.setAttackSide(phase.split('_')[0], false);
    this.changed();
  }

  clearBoard() {
    this.model.units.clear();
    this.model.ruins.clear();
    this.model.forts.clear();
    this.model.control.clear();
    this.selected = null;
    this.clearAttack();
    this.changed();
  }

  // --- the attack being examined --------------------------------------------------------------

  /** Who attacks; changing it starts the attack over. */
  setAttackSide(side, ask = true) {
    if (side === this.attack.side) return;
    this.clearAttack();
    this.attack.side = side;
    if (ask) this.changed(false);
  }

  clearAttack() {
    const a = this.attack;
    a.attackers.clear(); a.artillery.clear(); a.defenders.clear(); a.leaderUse.clear();
    a.bayonet = false;
  }

  /** A stack of the attacking side joins the attack (or leaves it, when it is all in already);
   *  an enemy stack becomes a defending hex (or stops being one). */
  pickForAttack(hex, units) {
    if (!units.length) return;
    const a = this.attack;
    const side = units[0].side;
    if (!a.side) a.side = side;
    if (side === a.side) {
      const set = (u) => (u.type === 'artillery' ? a.artillery : a.attackers);
      const joining = units.filter((u) => u.type === 'artillery' || FIGHTERS.has(u.type));
      const allIn = joining.every((u) => set(u).has(u.id));
      for (const u of joining) {
        if (allIn) set(u).delete(u.id);
        else set(u).add(u.id);
      }
    } else if (!a.defenders.delete(hex)) {
      a.defenders.add(hex);
    }
    this.changed(false);
  }

  dropFromAttack(id) {
    this.attack.attackers.delete(id);
    this.attack.artillery.delete(id);
    this.changed(false);
  }

  dropDefender(hex) {
    this.attack.defenders.delete(hex);
    this.changed(false);
  }

  setLeaderUse(id, use) {
    this.attack.leaderUse.set(id, use);
    this.changed(false);
  }

  setBayonet(on) {
    this.attack.bayonet = on;
    this.changed(false);
  }

  /** Leaders whose 1 the attack counts: attacking ones and those in a defending hex (11.1). */
  attackLeaders() {
    const a = this.attack;
    const ids = [...a.attackers].filter((id) => this.model.byId.get(id)?.type === 'leader');
    for (const hex of a.defenders) for (const u of this.stacks.get(hex) ?? []) if (u.type === 'leader') ids.push(u.id);
    return ids;
  }

  // --- after every change --------------------------------------------------------------------

  /** Redraw, keep the link in the address, and ask the server again. `edited`: the position
   *  itself changed (not only what is asked about it). */
  changed(edited = true) {
    const m = this.model;
    this.stacks = m.stacks();
    // Forget picks that no longer stand on the board.
    if (this.selected !== null && !m.units.has(this.selected)) this.selected = null;
    const a = this.attack;
    for (const set of [a.attackers, a.artillery]) for (const id of set) if (!m.units.has(id)) set.delete(id);
    for (const hex of a.defenders) if (!this.stacks.has(hex)) a.defenders.delete(hex);
    for (const id of a.leaderUse.keys()) if (!m.units.has(id)) a.leaderUse.delete(id);
    if (edited) {
      this.position = m.toJSON();
      history.replaceState(null, '', `#analyse=${encodePosition(this.position)}`);
      this.hint.answer = null;
      this.hint.error = null;
    }
    this.position ??= m.toJSON();
    this.draw();
    this.panel.render();
    document.body.dataset.analysis = 'asking';
    clearTimeout(this.askTimer);
    this.askTimer = setTimeout(() => this.ask(), ASK_DELAY);
  }

  link() {
    return analyseLink(this.position ?? this.model.toJSON());
  }

  /** Everything worth asking about this board, in one request. */
  queries() {
    const ref = (id) => this.model.byId.get(id).code;
    const list = [];
    const names = {};
    const q = (name, query) => { names[name] = list.length; list.push(query); };
    q('zocAllied', { zoc: { side: 'allied' } });
    q('zocChinese', { zoc: { side: 'chinese' } });
    if (this.selected !== null) {
      q('reach', { reachable: { unit: ref(this.selected) } });
      if (this.model.byId.get(this.selected).side === 'allied') q('command', { command_control: { unit: ref(this.selected) } });
    }
    const los = this.los.active ? this.los.query() : null;
    if (los) q('los', los);
    const a = this.attack;
    if (a.attackers.size && a.defenders.size) {
      const defenders = [...a.defenders].flatMap((hex) => (this.stacks.get(hex) ?? []).map((u) => u.code));
      const leaderUse = {};
      for (const id of this.attackLeaders()) leaderUse[ref(id)] = a.leaderUse.get(id) ?? 'strength';
      q('odds', { odds: { attackers: [...a.attackers].map(ref), defenders, leader_use: leaderUse, artillery: [...a.artillery].map(ref), bayonet: a.bayonet } });
    }
    q('legalAllied', { legal_actions: { side: 'allied' } });
    q('legalChinese', { legal_actions: { side: 'chinese' } });
    return { list, names };
  }

  async ask() {
    const ticket = ++this.round;
    const { list, names } = this.queries();
    const position = this.position;
    const selected = this.selected;
    try {
      const res = await api.analysis({ position, queries: list });
      if (ticket !== this.round) return;
      this.answers = Object.fromEntries(Object.entries(names).map(([k, i]) => [k, res.answers?.[i] ?? null]));
      this.answers.selected = selected; // whose moves these are, while another unit's are asked
      this.error = null;
      if (this.answers.los) this.los.show(this.answers.los);
      document.body.dataset.analysis = 'ready';
    } catch (e) {
      if (ticket !== this.round) return;
      this.answers = null;
      this.error = e.code === 'invalid_position'
        ? { invalid: true, message: e.message, unit: (e.message.match(/unit `([^`]+)`/) ?? [])[1] ?? null }
        : { invalid: false, message: `The server could not answer: ${e.message}` };
      if (this.los.query()) this.los.fail(new Error(this.error.invalid ? 'the position is not valid' : e.message));
      document.body.dataset.analysis = this.error.invalid ? 'invalid' : 'error';
    }
    document.body.dataset.analysisRound = String(ticket);
    this.draw();
    this.panel.render();
    this.charts.render();
  }

  /** Ask a computer player of the chosen level for its plan for the chosen side. */
  async suggest() {
    const hint = this.hint;
    const position = this.position;
    hint.asking = true;
    hint.error = null;
    this.panel.render();
    document.body.dataset.hint = 'asking';
    try {
      const res = await api.analysis({ position, queries: [{ suggest: { side: hint.side, level: hint.level } }] });
      if (position !== this.position) return;
      const a = res.answers?.[0] ?? null;
      if (a?.error) hint.error = a.error.message;
      else hint.answer = a;
    } catch (e) {
      hint.error = `The server could not answer: ${e.message}`;
    } finally {
      hint.asking = false;
    }
    document.body.dataset.hint = hint.error ? 'error' : 'ready';
    this.draw();
    this.panel.render();
  }

  setHint(field, value) {
    this.hint[field] = value;
    this.hint.answer = null;
    this.hint.error = null;
    this.draw();
    this.panel.render();
  }

  /** The selected unit's moves, once answered for that unit. */
  reach() {
    return this.answers && this.answers.selected === this.selected ? this.answers.reach : null;
  }

  /** Its command control, likewise. */
  command() {
    return this.answers && this.answers.selected === this.selected ? this.answers.command : null;
  }

  // --- drawing -----------------------------------------------------------------------------

  draw() {
    const b = this.board;
    const m = this.model;
    b.drawRuins([...m.ruins]);
    b.drawForts([...m.forts].map(([hex, side]) => ({ hex, built_by: side })));
    const victory = { hexes: [...this.victoryHexes].map((hex) => ({ hex, side: m.control.get(hex) ?? 'allied' })) };
    b.drawVictory(victory);
    this.drawZoc();
    this.drawCounters();
    b.drawVictoryBadges(victory, new Set(this.stacks.keys()));
    this.drawMarks();
  }

  drawZoc() {
    const g = clear(this.board.layers.zoc);
    const ans = this.answers ?? {};
    for (const [side, key] of [['allied', 'zocAllied'], ['chinese', 'zocChinese']]) {
      if (!this.shade[side]) continue;
      for (const hex of ans[key]?.hexes ?? []) {
        const [x, y] = centre(hex);
        g.append(svg('polygon', { class: `zoc zoc-${side}`, points: hexPoints(x, y), 'data-hex': hex }));
      }
    }
  }

  drawCounters() {
    const g = clear(this.board.layers.counters);
    const bad = this.error?.unit ? this.model.byCode.get(this.error.unit.toLowerCase())?.id : undefined;
    for (const [hex, units] of this.stacks) {
      const [cx, cy] = centre(hex);
      const s = stack(units, cx, cy);
      s.setAttribute('data-hex', hex);
      s.setAttribute('data-units', units.map((u) => u.id).join(' '));
      s.setAttribute('data-side', units[0].side);
      if (units.some((u) => u.id === this.selected)) s.classList.add('selected');
      if (units.some((u) => u.id === bad)) s.classList.add('invalid');
      g.append(s);
    }
  }

  /** Rings and tags above the counters: the selected unit, its reachable hexes with their MP,
   *  the attack's hexes, the unit the server refused. */
  drawMarks() {
    const hl = clear(this.board.layers.highlights);
    const marks = clear(this.board.layers.marks);
    const ring = (hex, cls) => {
      const [x, y] = centre(hex);
      marks.append(svg('polygon', { class: `ring ${cls}`, points: hexPoints(x, y, R * 0.98), 'data-hex': hex }));
    };
    const dests = this.selected !== null ? this.reach()?.destinations ?? {} : {};
    for (const [hex, mp] of Object.entries(dests)) {
      const [cx, cy] = centre(hex);
      hl.append(svg('polygon', { class: 'hl hl-move reach', points: hexPoints(cx, cy, R * 0.96), 'data-hex': hex, 'data-mp': mp }));
      marks.append(svg('g', { class: 'mp-tag' },
        svg('rect', { x: cx + R * 0.18, y: cy + HEX_H * 0.12, width: 13, height: 9.5, rx: 2 }),
        svg('text', { x: cx + R * 0.18 + 6.5, y: cy + HEX_H * 0.12 + 7.4 }, String(mp))));
    }
    const sel = this.selected !== null ? this.model.units.get(this.selected) : null;
    if (sel) ring(sel.hex, 'sel');
    const a = this.attack;
    const from = new Set([...a.attackers, ...a.artillery].map((id) => this.model.units.get(id)?.hex).filter(Boolean));
    for (const hex of from) ring(hex, 'decl-att');
    for (const hex of a.defenders) ring(hex, 'decl-def');
    const bad = this.error?.unit ? this.model.byCode.get(this.error.unit.toLowerCase()) : null;
    const badHex = bad ? this.model.units.get(bad.id)?.hex : null;
    if (badHex) ring(badHex, 'invalid');
    this.drawHint();
  }

  /** The engine hint's plan on the map: an arrow for each move, the attacking stacks joined to
   *  the hex they attack, a ring where units enter or a marker goes; each numbered as in the
   *  panel's list. */
  drawHint() {
    const g = clear(this.board.layers.arrows);
    const plan = this.hint.answer?.plan ?? [];
    const side = this.hint.answer?.side ?? this.hint.side;
    const line = (hexes, cls) => {
      const pts = hexes.map((hex) => centre(hex).map((v) => v.toFixed(1)).join(',')).join(' ');
      g.append(svg('polyline', { class: `path plan-path ${cls}`, points: pts, 'marker-end': 'url(#arrowhead)' }));
    };
    const tag = (hex, n) => {
      const [x, y] = centre(hex);
      g.append(svg('g', { class: `plan-tag side-${side}` },
        svg('circle', { cx: x - R * 0.55, cy: y - HEX_H * 0.3, r: 6.5 }),
        svg('text', { x: x - R * 0.55, y: y - HEX_H * 0.3 + 3.2 }, String(n))));
    };
    plan.forEach((item, i) => {
      const n = i + 1;
      if (item.kind === 'move' || item.kind === 'charge') {
        line(item.hexes, `side-${side}${item.kind === 'charge' ? ' plan-charge' : ''}`);
        tag(item.hexes[item.hexes.length - 1], n);
      } else if (item.kind === 'attack') {
        const target = item.hexes[0];
        const from = new Set([...(item.attackers ?? []), ...(item.artillery ?? [])].map((id) => this.model.units.get(id)?.hex).filter(Boolean));
        for (const hex of from) line([hex, target], `plan-attack side-${side}`);
        for (const hex of item.hexes) {
          const [x, y] = centre(hex);
          g.append(svg('polygon', { class: 'ring plan-target', points: hexPoints(x, y, R * 0.98), 'data-hex': hex }));
        }
        tag(target, n);
      } else {
        for (const hex of item.hexes ?? []) {
          const [x, y] = centre(hex);
          g.append(svg('polygon', { class: `ring plan-spot side-${side}`, points: hexPoints(x, y, R * 0.98), 'data-hex': hex }));
          tag(hex, n);
        }
      }
    });
  }

  // --- a game from this position ------------------------------------------------------------

  async startGame(side, name) {
    try {
      const g = await api.createGame(side, name || undefined, this.model.toJSON());
      saveSeat(g.game_id, g.side, g.token, g.invite_code);
      location.hash = `game=${encodeURIComponent(g.game_id)}`;
    } catch (e) {
      toast(`The game could not be started: ${e.message}`, 'error');
      if (e.code === 'invalid_position') {
        this.error = { invalid: true, message: e.message, unit: (e.message.match(/unit `([^`]+)`/) ?? [])[1] ?? null };
        this.draw();
        this.panel.render();
      }
    }
  }
}
