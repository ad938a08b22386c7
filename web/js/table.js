// The game table: the board with its counters, the orders offered on it, and the side panel,
// drawn from one `state` (view + legal_actions). Live play, spectating and replay all draw
// through here; only live play passes an `act` function, so the others are read-only.

import { svg, clear, byId, toast } from './dom.js';
import { Board } from './map.js';
import { Viewport, wireMapButtons } from './viewport.js';
import { R, HEX_H, centre, hexPoints, hexAt, neighbour, starPoints } from './geometry.js';
import { stack, pileOrder } from './counters.js';
import { HexMenu } from './menu.js';
import { indexActions, drawTargets, drawFireArrows, firingGun, actionUnit } from './orders.js';
import { actionLabel } from './labels.js';
import { renderStatus, renderPrompt, renderButtons, renderOdds, renderTray, renderResult } from './panels.js';
import { LosTool } from './los.js';
import { positionOf } from './position.js';
import { ConfirmBox, warningOf, wireAction } from './confirm.js';
import { ChartsPanel } from './charts.js';
import { HelpPanel, shortcutOf } from './keys.js';

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export class Table {
  constructor(scenario) {
    this.scenario = scenario;
    // A fresh <svg> per table, so no listener of a previous game's table survives.
    const old = byId('map');
    const fresh = old.cloneNode(false);
    old.replaceWith(fresh);
    this.board = new Board(fresh, scenario);
    this.viewport = new Viewport(byId('map'), this.board.width, this.board.height, (x, y, e) => this.tapAt(x, y, e));
    this.act = null; // set by live play: (action) => sent?
    this.explain = null; // set by live play: (action) => Promise of the engine's refusal, or null
    this.state = null;
    this.index = indexActions([], new Map(), this.board);
    this.follow = null; // an action to send as soon as it becomes legal (choose_area → place)
    this.arrows = []; // recent moves: {path, side, phase}
    this.phaseNo = 0;
    this.waiting = false;
    this.los = new LosTool(this.board.layers.los, byId('los-box'), () => positionOf(this.state.view));
    this.menu = new HexMenu(byId('menu'), this.labelOf, (a, hex) => this.send(a, hex));
    this.confirm = new ConfirmBox(byId('confirm'));
    this.charts = new ChartsPanel(byId('charts'), scenario, () => this.attackShown());
    this.help = new HelpPanel(byId('help'));
    this.armed = null; // a touch: the hex (or gun arrow) tapped once, waiting for its second tap
    this.nextAt = -1; // the N key's place in the list of hexes with an order
    this.wireTools();
    const map = byId('map');
    map.addEventListener('pointermove', (e) => this.hover(e));
    map.addEventListener('pointerleave', () => { if (!this.armed) byId('hexinfo').textContent = ''; });
    this.onKey = (e) => this.key(e);
    this.onOutside = (e) => { if (!this.menu.contains(e.target)) this.closeMenu(); };
    document.addEventListener('keydown', this.onKey);
    document.addEventListener('pointerdown', this.onOutside, true);
    this.startView();
  }

  close() {
    document.removeEventListener('keydown', this.onKey);
    document.removeEventListener('pointerdown', this.onOutside, true);
    this.closeMenu();
    this.confirm.dispose();
    this.charts.toggle(false);
    this.help.toggle(false);
    if (this.los.active) this.los.toggle(false);
    byId('toggle-los').setAttribute('aria-pressed', 'false');
  }

  /** First view: the whole board on a phone, the quarter at a readable size on a laptop. */
  startView() {
    const box = byId('map').getBoundingClientRect();
    const fitScale = Math.min(box.width / this.board.width, box.height / this.board.height);
    if (fitScale >= 0.55 || box.width < 500) this.viewport.fit();
    else this.viewport.focus(this.board.width / 2, this.board.height * 0.45, 0.8);
  }

  wireTools() {
    wireMapButtons(this.viewport);
    byId('toggle-los').onclick = () => this.toggleLos();
    byId('toggle-charts').onclick = () => this.charts.toggle();
    byId('toggle-help').onclick = () => this.help.toggle();
  }

  toggleLos() {
    const on = this.los.toggle();
    byId('toggle-los').setAttribute('aria-pressed', String(on));
    byId('map').classList.toggle('los-mode', on);
  }

  /** The attack the tables light: the one being declared, else the last one resolved. */
  attackShown() {
    const v = this.state?.view;
    const r = v?.declaration?.odds ?? v?.last_combat ?? null;
    const label = v?.declaration ? 'attack being declared' : 'last combat';
    return r?.column ? { column: r.column, modifier: r.modifier ?? 0, label } : null;
  }

  // --- keys --------------------------------------------------------------------------------

  /** A keyboard shortcut (keys.js). Orders only for the player to move, and never while a
   *  confirmation is open. */
  key(e) {
    if (e.key === 'Escape') {
      this.closeMenu();
      this.disarm();
      if (this.help.open) this.help.toggle(false);
      else if (this.charts.open) this.charts.toggle(false);
      return;
    }
    if (this.confirm.open) return;
    const name = shortcutOf(e);
    if (!name) return;
    const offered = (type) => (this.canAct() && !this.waiting ? this.state.legal_actions.find((a) => a.type === type) : null);
    const run = {
      'zoom-in': () => this.viewport.zoom(1.4),
      'zoom-out': () => this.viewport.zoom(1 / 1.4),
      fit: () => this.viewport.fit(),
      charts: () => this.charts.toggle(),
      help: () => this.help.toggle(),
      los: () => this.toggleLos(),
      numbers: () => byId('toggle-numbers').click(),
      next: () => this.nextOrder(1),
      previous: () => this.nextOrder(-1),
      end: () => { const a = offered('end_phase'); if (a) this.send(a); else if (this.canAct()) toast('Ending the phase is not offered now.'); },
      undo: () => {
        const a = offered('undo');
        if (a) this.send(a);
        else if (this.act) toast(this.canAct() ? 'Nothing to undo: the rules allow no take-back now.' : 'You can undo only when it is your move.');
      },
      resolve: () => { const a = offered('resolve'); if (a) this.send(a); else return false; },
    }[name];
    if (!run) return;
    if (run() !== false) e.preventDefault();
  }

  /** N: the next hex with an order for this player, shown on the map with its choices. */
  nextOrder(step) {
    const hexes = [...new Set([...this.index.byHex.keys(),
      ...[...this.index.byUnit.keys()].map((id) => this.unitsById.get(id)?.hex)].filter((hex) => hex && this.board.hexes.has(hex)))].sort();
    if (!hexes.length) { toast(this.canAct() ? 'Nothing to do on the map: see the panel.' : 'It is not your move.'); return; }
    this.nextAt = (this.nextAt + step + hexes.length) % hexes.length;
    const hex = hexes[this.nextAt];
    const [x, y] = centre(hex).map((v) => v + this.board.origin);
    this.viewport.reveal(x, y, 140);
    clear(this.board.layers.los);
    const [cx, cy] = centre(hex);
    this.board.layers.los.append(svg('polygon', { class: 'ring focus-ring', points: hexPoints(cx, cy, R * 1.05), 'data-hex': hex }));
    const units = this.byHex.get(hex) ?? [];
    const acts = [...new Set([...(this.index.byHex.get(hex) ?? []), ...units.flatMap((u) => this.index.byUnit.get(u.id) ?? [])])];
    byId('hexinfo').textContent = `${this.board.describe(hex)}${units.length ? ` — ${units.map((u) => u.name).join(', ')}` : ''}: ${acts.map(this.labelOf).join(' · ')}`;
    document.body.dataset.focusHex = hex;
  }

  /** Draw a state frame ({view, legal_actions, you, seq}). */
  render(state) {
    this.state = state;
    this.waiting = false;
    const { view } = state;
    this.units = view.units;
    this.unitsById = new Map(view.units.map((u) => [u.id, u]));
    this.byHex = new Map();
    for (const u of view.units) {
      if (u.status !== 'on_map' || !u.hex) continue;
      if (!this.byHex.has(u.hex)) this.byHex.set(u.hex, []);
      this.byHex.get(u.hex).push(u);
    }
    const mine = this.canAct();
    this.index = indexActions(mine ? state.legal_actions ?? [] : [], this.unitsById, this.board);
    const b = this.board;
    b.drawVictory(view.victory);
    b.drawRuins(view.ruins);
    b.drawForts(view.fortifications);
    b.drawGuns(view.big_guns);
    drawTargets(b.layers.highlights, b.layers.marks, this.index);
    this.drawCounters(view);
    b.drawVictoryBadges(view.victory, new Set(this.byHex.keys()));
    this.drawSituation(view);
    drawFireArrows(b.layers.marks, firingGun(view), this.index.fire, (a, e) => this.tapOrder(`fire:${a.direction}`, a, e, null));
    this.drawArrows();
    this.armed = null;
    this.renderPanels();
    this.charts.render();
    this.closeMenu();
    this.confirm.close();
    this.bringIntoView(view);
    this.runFollowUp();
  }

  /** When a new decision is asked of this player, the view stays where the player is looking
   *  as long as one of its places on the map is in sight. Only when all of them are out of
   *  sight (the Big Gun off at the edge, a retreat across the map) does it pan — as little as
   *  needed, to the one nearest what was on screen, keeping the zoom. Never to the middle of
   *  the choices: edge hexes all round the map average to its empty middle. */
  bringIntoView(view) {
    const key = `${view.turn}|${view.phase}|${view.prompt}`;
    if (key === this.lastPrompt || !this.canAct()) { this.lastPrompt = key; return; }
    this.lastPrompt = key;
    const pts = this.choicePoints(view);
    if (!pts.length || pts.some(([x, y]) => this.viewport.isVisible(x, y))) return;
    const [x, y] = pts.reduce((best, p) => (this.viewport.distanceFromMiddle(...p) < this.viewport.distanceFromMiddle(...best) ? p : best));
    this.viewport.reveal(x, y);
  }

  /** Where on the map (world units) this player's choices are: the firing Big Gun, every hex
   *  target, every unit on the map with an order. */
  choicePoints(view) {
    const gun = this.index.fire.length ? firingGun(view) : null;
    const hexes = gun ? [gun] : [...this.index.byHex.keys(),
      ...[...this.index.byUnit.keys()].map((id) => this.unitsById.get(id)?.hex).filter(Boolean)];
    return [...new Set(hexes)].filter((hex) => this.board.hexes.has(hex)).map((hex) => centre(hex).map((v) => v + this.board.origin));
  }

  canAct() {
    const s = this.state;
    return Boolean(this.act && s && s.you !== 'spectator' && s.view.to_act === s.you && !s.view.result);
  }

  unitName = (id) => this.unitsById?.get(id)?.name ?? `unit ${id}`;
  labelOf = (a) => actionLabel(a, this.unitName, (k) => this.board.areaName(k));

  renderPanels() {
    const { view, you } = this.state;
    renderStatus(byId('status'), view, you, this.scenario);
    renderPrompt(byId('prompt'), view, you);
    renderButtons(byId('actions'), this.index, this.labelOf, (a) => this.send(a), this.canAct() && !this.waiting, view.undo?.text ?? null);
    renderOdds(byId('odds'), view, this.unitName, this.scenario.crt ?? null);
    // A new attack being declared: its odds come into sight in the panel (beside the map; on a
    // phone the panel is under the map, and the map stays where it is).
    const decl = view.declaration ? JSON.stringify(view.declaration.defenders) : null;
    if (decl && decl !== this.declShown && !matchMedia('(max-width: 820px)').matches) {
      byId('odds').scrollIntoView({ block: 'nearest' });
    }
    this.declShown = decl;
    renderTray(byId('tray-body'), this.units, this.index, (u, acts) => this.unitMenu(u, acts));
    renderResult(byId('result'), view);
  }

  drawCounters(view) {
    const g = clear(this.board.layers.counters);
    const selected = new Set(view.selection?.units ?? []);
    for (const [hex, units] of this.byHex) {
      const [cx, cy] = centre(hex);
      const s = stack(units, cx, cy);
      // Which units are here, also those under the top counters: for tests and tools.
      s.setAttribute('data-hex', hex);
      s.setAttribute('data-units', units.map((u) => u.id).join(' '));
      s.setAttribute('data-side', units[0].side);
      const acts = units.some((u) => this.index.byUnit.has(u.id))
        || (this.index.byHex.get(hex) ?? []).some((a) => a.type === 'select_stack');
      if (acts) s.classList.add('actionable');
      if (units.some((u) => selected.has(u.id))) s.classList.add('selected');
      g.append(s);
    }
  }

  /** Outlines for what is going on: the selected stack, the attack being declared, a retreat. */
  drawSituation(view) {
    const marks = this.board.layers.marks;
    const ring = (hex, cls) => {
      const [x, y] = centre(hex);
      marks.append(svg('polygon', { class: `ring ${cls}`, points: hexPoints(x, y, R * 0.98) }));
    };
    if (view.selection) {
      ring(view.selection.hex, 'sel');
      if (view.selection.mp_left !== null && view.selection.mp_left !== undefined) {
        const [x, y] = centre(view.selection.hex);
        marks.append(svg('g', { class: 'mp-left' },
          svg('rect', { x: x - 13, y: y + HEX_H * 0.5 - 4, width: 26, height: 10, rx: 3 }),
          svg('text', { x, y: y + HEX_H * 0.5 + 3.8 }, `${view.selection.mp_left} MP`)));
      }
    }
    const d = view.declaration;
    if (d) {
      for (const hex of d.defenders) ring(hex, 'decl-def');
      const from = new Set([...d.attackers, ...d.artillery].map((id) => this.unitsById.get(id)?.hex).filter(Boolean));
      for (const hex of from) ring(hex, 'decl-att');
    }
    const p = view.pending?.detail;
    if (p && Array.isArray(p.visited) && p.visited.length > 1) this.arrow(p.visited, 'retreat-path');
  }

  /** Remember the moves an events frame (of the action numbered `seq`) reports, to draw them
   *  as arrows on the map; an action taken back (`undone`) takes its arrows with it. */
  noteEvents(events, seq = null) {
    for (const e of events ?? []) {
      if (e.kind === 'phase_began') this.phaseNo += 1;
      if (e.kind === 'undone') {
        const gone = new Set([e.seqs, e.seq_undone, e.undone, e.entry].flat().filter(Number.isInteger));
        this.arrows = this.arrows.filter((a) => !gone.has(a.seq));
      }
      if (e.kind === 'shot' && typeof e.gun === 'string') {
        this.arrows.push({ shot: e, phase: this.phaseNo, seq, side: 'chinese' });
        continue;
      }
      const path = e.kind === 'moved' ? e.path
        : (e.kind === 'retreated' || e.kind === 'advanced' || e.kind === 'leader_moved') ? [e.from, e.to] : null;
      if (path && path.length > 1) {
        const unit = this.unitsById?.get(e.units?.[0] ?? e.unit ?? e.leader);
        this.arrows.push({ path, side: unit?.side ?? 'neutral', phase: this.phaseNo, seq });
      }
    }
    // Keep the moves of this phase and the one before: what the opponent just did.
    this.arrows = this.arrows.filter((a) => a.phase >= this.phaseNo - 1).slice(-60);
    this.drawArrows();
  }

  clearArrows() {
    this.arrows = [];
    clear(this.board.layers.arrows);
  }

  drawArrows() {
    clear(this.board.layers.arrows);
    let shotNo = 0;
    for (const a of this.arrows) {
      if (a.shot) this.drawShot(a.shot, (shotNo += 1), a.phase < this.phaseNo);
      else this.arrow(a.path, `move-path side-${a.side}${a.phase < this.phaseNo ? ' older' : ''}`, this.board.layers.arrows);
    }
  }

  /** A Big Gun shot: its track from the gun and a burst where it landed, numbered in firing
   *  order; a shot that flew off the map is drawn to the edge. */
  drawShot(e, n, older) {
    let to = typeof e.hit === 'string' && this.board.hexes.has(e.hit) ? e.hit : null;
    let off = false;
    if (!to && Number.isInteger(e.distance) && e.direction) {
      to = e.gun;
      for (let i = 0; i < e.distance; i++) {
        const next = neighbour(to, e.direction, this.board.cols, this.board.rows);
        if (!next) { off = true; break; }
        to = next;
      }
    }
    if (!to) return;
    const layer = this.board.layers.arrows;
    const [x1, y1] = centre(e.gun);
    const [x2, y2] = centre(to);
    const g = svg('g', { class: `shot${older ? ' older' : ''}${off ? ' off-map' : ''}`, 'data-hex': off ? '' : to, 'data-shot': n },
      svg('line', { x1, y1, x2, y2, class: 'shot-track' }),
      off ? null : svg('polygon', { points: starPoints(x2, y2, R * 0.7), class: 'burst' }),
      svg('text', { x: x2, y: y2 + 3, class: 'shot-no' }, String(n)),
      svg('title', {}, e.text ?? `Big Gun shot ${n}`));
    layer.append(g);
  }

  arrow(path, cls, layer = this.board.layers.marks) {
    const pts = path.map((hex) => centre(hex).map((v) => v.toFixed(1)).join(',')).join(' ');
    layer.append(svg('polyline', { class: `path ${cls}`, points: pts, 'marker-end': 'url(#arrowhead)' }));
  }

  // --- clicks ------------------------------------------------------------------------------

  hover(e) {
    if (e.pointerType === 'touch') return;
    const [x, y] = this.viewport.toMap(e.clientX, e.clientY);
    const [fx, fy] = this.board.toField(x, y);
    const hex = hexAt(fx, fy, this.board.cols, this.board.rows);
    if (hex === this.hovered) return;
    this.hovered = hex;
    // The touch confirmation keeps the line, and so does a refusal for a few seconds.
    if (this.armed || Date.now() - (this.refusedAt ?? 0) < 4000) return;
    const units = hex ? this.byHex?.get(hex) ?? [] : [];
    byId('hexinfo').classList.remove('refusal');
    byId('hexinfo').textContent = hex
      ? `${this.board.describe(hex)}${units.length ? ` — ${units.map((u) => `${u.name}${u.out_of_command ? ' (out of command)' : ''}`).join(', ')}` : ''}`
      : '';
  }

  tapAt(x, y, e) {
    const [fx, fy] = this.board.toField(x, y);
    const hex = hexAt(fx, fy, this.board.cols, this.board.rows);
    if (!hex) { this.closeMenu(); return; }
    if (this.los.active) { this.los.tap(hex); return; }
    this.tapHex(hex, e.clientX, e.clientY, e.pointerType);
  }

  /** What a click on `hex` means: the one thing it can do, or a menu of its choices and units;
   *  for a hex that is no choice of the player to move, why not. */
  tapHex(hex, clientX, clientY, pointerType = 'mouse') {
    const units = this.byHex?.get(hex) ?? [];
    const hexActs = this.index.byHex.get(hex) ?? [];
    const unitActs = units.flatMap((u) => this.index.byUnit.get(u.id) ?? []);
    const options = [...new Set([...hexActs, ...unitActs])];
    if (options.length === 1 && (units.length <= 1 || actionUnit(options[0]) === null)) {
      this.tapOrder(`hex:${hex}`, options[0], { pointerType }, hex);
      return;
    }
    this.disarm();
    if (options.length === 0 && this.canAct() && this.state.legal_actions.length) this.whyNot(hex, units);
    if (options.length === 0 && units.length === 0) {
      this.closeMenu();
      if (!this.canAct()) byId('hexinfo').textContent = this.board.describe(hex);
      return;
    }
    this.openMenu(hex, units, hexActs, clientX, clientY);
  }

  /** One order from one click. A touch only selects it — the hex ringed, the order named —
   *  and a second tap on the same target gives it, so a stray tap on a phone's whole-map view
   *  never moves a unit. */
  tapOrder(key, a, e, hex) {
    if (e?.pointerType === 'touch' && this.armed?.key !== key) {
      this.arm(key, a, hex);
      return;
    }
    this.disarm();
    this.send(a, hex);
  }

  arm(key, a, hex) {
    this.disarm();
    this.armed = { key, action: a };
    const at = hex ?? (a.type === 'fire' ? firingGun(this.state.view) : null);
    if (at) {
      const [cx, cy] = centre(at);
      this.board.layers.los.append(svg('polygon', { class: 'ring armed-ring', points: hexPoints(cx, cy, R * 1.02), 'data-hex': at }));
    }
    const line = byId('hexinfo');
    line.textContent = `Tap again to confirm: ${this.labelOf(a)}`;
    line.classList.add('armed');
    document.body.dataset.armed = key;
  }

  disarm() {
    if (!this.armed) return;
    this.armed = null;
    for (const r of this.board.layers.los.querySelectorAll('.armed-ring')) r.remove();
    const line = byId('hexinfo');
    line.classList.remove('armed');
    line.textContent = '';
    delete document.body.dataset.armed;
  }

  /** A click on a hex that offers the player to move nothing: ask the engine why, with the
   *  rule (live play's `explain`), as what that click would have meant — a move there while a
   *  stack is selected, an entry there, selecting the stack there, an attack on it. */
  async whyNot(hex, units) {
    const probe = this.probeFor(hex, units);
    const line = byId('hexinfo');
    line.classList.remove('refusal');
    const fallback = `No order at ${hex}${this.index.byHex.size ? ': it is not one of the lit hexes' : ''}.`;
    if (!probe || !this.explain) { line.textContent = fallback; return; }
    const seq = this.state.seq;
    line.textContent = `${hex}: asking the server why not…`;
    let answer = null;
    try { answer = await this.explain(probe); } catch { answer = null; }
    if (this.state.seq !== seq || this.armed) return;
    const useful = answer && answer.legal === false && answer.message && answer.code !== 'not_a_legal_choice';
    const text = useful ? `${answer.message}${answer.rule && !answer.message.includes(`(${answer.rule})`) ? ` (rule ${answer.rule})` : ''}` : '';
    line.textContent = useful ? (text.startsWith(hex) ? text : `${hex}: ${text}`) : fallback;
    line.classList.toggle('refusal', Boolean(useful));
    this.refusedAt = Date.now();
    line.dataset.refusal = useful ? (answer.code ?? '') : '';
    document.body.dataset.refused = hex;
  }

  /** The action a click on `hex` stands for, built from a legal action of the same kind: its
   *  hex field pointed at this hex. Selecting a stack when the hex holds the player's units,
   *  else the first kind of hex order on offer. */
  probeFor(hex, units) {
    const legal = this.state.legal_actions;
    const mine = units.some((u) => u.side === this.state.you);
    const hexField = (a) => (typeof a.hex === 'string' ? 'hex' : typeof a.to === 'string' ? 'to' : null);
    const kinds = legal.filter((a) => hexField(a) && a.type !== 'choose_area');
    if (mine && this.state.view.selection === null) {
      const sample = legal.find((a) => a.type === 'select_stack');
      if (sample) return { ...wireAction(sample), hex };
    }
    const sample = (mine ? kinds.find((a) => a.type === 'select_stack') : null) ?? kinds.find((a) => a.type !== 'select_stack') ?? kinds[0];
    if (!sample) return null;
    return { ...wireAction(sample), [hexField(sample)]: hex };
  }

  /** The menu at a hex: its actions, then each unit of the stack with its own. */
  openMenu(hex, units, hexActs, clientX, clientY) {
    const unitActs = (u) => this.index.byUnit.get(u.id) ?? [];
    this.menu.openAtHex(this.board.describe(hex), hexActs, pileOrder(units), unitActs, clientX, clientY, hex);
  }

  /** A unit in the tray (off the map): its one action at once, or a menu. Where the panel is
   *  under the map (a phone), the map comes back into view: what follows is chosen there. */
  unitMenu(u, acts) {
    if (acts.length === 1) {
      this.send(acts[0]);
      if (matchMedia('(max-width: 820px)').matches) byId('map-wrap').scrollIntoView({ block: 'start' });
      return;
    }
    const r = document.querySelector(`.tray-unit[data-unit="${u.id}"]`)?.getBoundingClientRect();
    this.menu.openForUnit(u, acts, r ? r.left : innerWidth / 2, r ? r.bottom : innerHeight / 2);
  }

  closeMenu() {
    this.menu.close();
  }

  // --- sending -----------------------------------------------------------------------------

  /** Send a legal action as it is (less the advice of its `warning`, asked about first).
   *  Choosing an area by clicking one of its hexes also places the selected unit there, as
   *  soon as the server offers that hex. */
  send(a, hex = null, confirmed = false) {
    if (!this.canAct() || this.waiting) return;
    if (!this.state.legal_actions.includes(a)) return; // only ever elements of the latest list
    this.closeMenu();
    const warning = warningOf(a);
    if (warning && !confirmed) {
      this.confirm.ask(this.labelOf(a), warning, () => this.send(a, hex, true));
      return;
    }
    this.follow = a.type === 'choose_area' && hex ? { type: 'place', hex } : null;
    if (this.act(wireAction(a))) {
      this.waiting = true;
      document.body.classList.add('waiting');
      for (const btn of document.querySelectorAll('#actions button')) btn.disabled = true;
    }
  }

  runFollowUp() {
    document.body.classList.remove('waiting');
    const f = this.follow;
    this.follow = null;
    if (!f || !this.canAct()) return;
    const a = this.state.legal_actions.find((x) => same(wireAction(x), f));
    if (a) setTimeout(() => this.send(a), 0);
  }
}
