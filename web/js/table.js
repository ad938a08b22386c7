// The game table: the board with its counters, the orders offered on it, and the side panel,
// drawn from one `state` (view + legal_actions). Live play, spectating and replay all draw
// through here; only live play passes an `act` function, so the others are read-only.

import { svg, clear, byId } from './dom.js';
import { Board } from './map.js';
import { Viewport, wireMapButtons } from './viewport.js';
import { R, HEX_H, centre, hexPoints, hexAt } from './geometry.js';
import { stack, pileOrder } from './counters.js';
import { HexMenu } from './menu.js';
import { indexActions, drawTargets, drawFireArrows, firingGun, actionUnit } from './orders.js';
import { actionLabel } from './labels.js';
import { renderStatus, renderPrompt, renderButtons, renderOdds, renderTray, renderResult } from './panels.js';
import { LosTool } from './los.js';
import { positionOf } from './position.js';

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
    this.state = null;
    this.index = indexActions([], new Map(), this.board);
    this.follow = null; // an action to send as soon as it becomes legal (choose_area → place)
    this.arrows = []; // recent moves: {path, side, phase}
    this.phaseNo = 0;
    this.waiting = false;
    this.los = new LosTool(this.board.layers.los, byId('los-box'), () => positionOf(this.state.view));
    this.menu = new HexMenu(byId('menu'), this.labelOf, (a, hex) => this.send(a, hex));
    this.wireTools();
    const map = byId('map');
    map.addEventListener('pointermove', (e) => this.hover(e));
    map.addEventListener('pointerleave', () => { byId('hexinfo').textContent = ''; });
    this.onKey = (e) => { if (e.key === 'Escape') this.closeMenu(); };
    this.onOutside = (e) => { if (!this.menu.contains(e.target)) this.closeMenu(); };
    document.addEventListener('keydown', this.onKey);
    document.addEventListener('pointerdown', this.onOutside, true);
    this.startView();
  }

  close() {
    document.removeEventListener('keydown', this.onKey);
    document.removeEventListener('pointerdown', this.onOutside, true);
    this.closeMenu();
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
    const los = byId('toggle-los');
    los.onclick = () => {
      const on = this.los.toggle();
      los.setAttribute('aria-pressed', String(on));
      byId('map').classList.toggle('los-mode', on);
    };
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
    this.drawSituation(view);
    drawFireArrows(b.layers.marks, firingGun(view), this.index.fire, (a) => this.send(a));
    this.drawArrows();
    this.renderPanels();
    this.closeMenu();
    this.bringIntoView(view);
    this.runFollowUp();
  }

  /** When a new decision is asked of this player and none of its places on the map is in view,
   *  pan there (the Big Gun off at the edge, a retreat across the map), keeping the zoom. */
  bringIntoView(view) {
    const key = `${view.turn}|${view.phase}|${view.prompt}`;
    if (key === this.lastPrompt || !this.canAct()) { this.lastPrompt = key; return; }
    this.lastPrompt = key;
    const gun = this.index.fire.length ? firingGun(view) : null;
    const hexes = gun ? [gun] : [...this.index.byHex.keys(),
      ...[...this.index.byUnit.keys()].map((id) => this.unitsById.get(id)?.hex).filter(Boolean)];
    if (!hexes.length) return;
    const pts = hexes.map((hex) => centre(hex).map((v) => v + this.board.origin));
    if (pts.some(([x, y]) => this.viewport.isVisible(x, y))) return;
    const x = pts.reduce((a, p) => a + p[0], 0) / pts.length;
    const y = pts.reduce((a, p) => a + p[1], 0) / pts.length;
    this.viewport.focus(x, y);
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
    renderButtons(byId('actions'), this.index, this.labelOf, (a) => this.send(a), this.canAct() && !this.waiting);
    renderOdds(byId('odds'), view, this.unitName);
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

  /** Remember the moves an events frame reports, to draw them as arrows on the map. */
  noteEvents(events) {
    for (const e of events ?? []) {
      if (e.kind === 'phase_began') this.phaseNo += 1;
      const path = e.kind === 'moved' ? e.path
        : (e.kind === 'retreated' || e.kind === 'advanced' || e.kind === 'leader_moved') ? [e.from, e.to] : null;
      if (path && path.length > 1) {
        const unit = this.unitsById?.get(e.units?.[0] ?? e.unit ?? e.leader);
        this.arrows.push({ path, side: unit?.side ?? 'neutral', phase: this.phaseNo });
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
    for (const a of this.arrows) this.arrow(a.path, `move-path side-${a.side}${a.phase < this.phaseNo ? ' older' : ''}`, this.board.layers.arrows);
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
    const units = hex ? this.byHex?.get(hex) ?? [] : [];
    byId('hexinfo').textContent = hex
      ? `${this.board.describe(hex)}${units.length ? ` — ${units.map((u) => u.name).join(', ')}` : ''}`
      : '';
  }

  tapAt(x, y, e) {
    const [fx, fy] = this.board.toField(x, y);
    const hex = hexAt(fx, fy, this.board.cols, this.board.rows);
    if (!hex) { this.closeMenu(); return; }
    if (this.los.active) { this.los.tap(hex); return; }
    this.tapHex(hex, e.clientX, e.clientY);
  }

  /** What a click on `hex` means: the one thing it can do, or a menu of its choices and units. */
  tapHex(hex, clientX, clientY) {
    const units = this.byHex?.get(hex) ?? [];
    const hexActs = this.index.byHex.get(hex) ?? [];
    const unitActs = units.flatMap((u) => this.index.byUnit.get(u.id) ?? []);
    const options = [...new Set([...hexActs, ...unitActs])];
    if (options.length === 1 && (units.length <= 1 || actionUnit(options[0]) === null)) {
      this.send(options[0], hex);
      return;
    }
    if (options.length === 0 && units.length === 0) {
      this.closeMenu();
      byId('hexinfo').textContent = this.board.describe(hex);
      return;
    }
    this.openMenu(hex, units, hexActs, clientX, clientY);
  }

  /** The menu at a hex: its actions, then each unit of the stack with its own. */
  openMenu(hex, units, hexActs, clientX, clientY) {
    const unitActs = (u) => this.index.byUnit.get(u.id) ?? [];
    this.menu.openAtHex(this.board.describe(hex), hexActs, pileOrder(units), unitActs, clientX, clientY, hex);
  }

  /** A unit in the tray (off the map): its one action at once, or a menu. */
  unitMenu(u, acts) {
    if (acts.length === 1) { this.send(acts[0]); return; }
    const r = document.querySelector(`.tray-unit[data-unit="${u.id}"]`)?.getBoundingClientRect();
    this.menu.openForUnit(u, acts, r ? r.left : innerWidth / 2, r ? r.bottom : innerHeight / 2);
  }

  closeMenu() {
    this.menu.close();
  }

  // --- sending -----------------------------------------------------------------------------

  /** Send a legal action as it is. Choosing an area by clicking one of its hexes also places the
   *  selected unit there, as soon as the server offers that hex. */
  send(a, hex = null) {
    if (!this.canAct() || this.waiting) return;
    if (!this.state.legal_actions.includes(a)) return; // only ever elements of the latest list
    this.closeMenu();
    this.follow = a.type === 'choose_area' && hex ? { type: 'place', hex } : null;
    if (this.act(a)) {
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
    const a = this.state.legal_actions.find((x) => same(x, f));
    if (a) setTimeout(() => this.send(a), 0);
  }
}
