// From `legal_actions` to things to click. Each action is anchored where a player would look for
// it: a hex (move, attack, place, retreat...), a unit (select, add to the attack, lose a step...),
// an area (choose_area lights every hex of it), the Big Gun (fire arrows) — or a button for the
// rest (end phase, pass, resolve...). Unknown action types anchor on any hex-like field, else
// become a button, so every legal action can always be taken. Actions are never altered: what is
// clicked is sent exactly as the server listed it.

import { svg, clear } from './dom.js';
import { R, HEX_H, centre, hexPoints, DIRECTION_ANGLE } from './geometry.js';
import { BUTTON_FIRST } from './labels.js';

const HEX_LIKE = /^\d{4}$/;

/** The hex an action is about, if any. */
export function actionHex(a) {
  if (typeof a.hex === 'string') return a.hex;
  if (typeof a.to === 'string') return a.to;
  for (const [k, v] of Object.entries(a)) {
    if (k !== 'type' && typeof v === 'string' && HEX_LIKE.test(v)) return v;
  }
  return null;
}

/** The unit an action is about, if any. */
export function actionUnit(a) {
  for (const k of ['unit', 'leader']) if (Number.isInteger(a[k])) return a[k];
  return null;
}

/** How a hex target is lit: the CSS class of its highlight. */
function hexClass(type) {
  switch (type) {
    case 'move': case 'charge': return 'hl-move';
    case 'attack': case 'add_defender': case 'snipe': return 'hl-attack';
    case 'retreat': return 'hl-retreat';
    case 'advance': return 'hl-advance';
    case 'place': case 'enter': case 'place_gun': case 'place_leader': return 'hl-place';
    case 'choose_area': return 'hl-area';
    default: return 'hl-target';
  }
}

/**
 * Sort the legal actions into anchors.
 * @returns {{byHex: Map<string, object[]>, byUnit: Map<number, object[]>, buttons: object[],
 *            fire: object[], all: object[]}}
 */
export function indexActions(actions, unitsById, board) {
  const byHex = new Map();
  const byUnit = new Map();
  const buttons = [];
  const fire = [];
  const push = (map, k, a) => { if (!map.has(k)) map.set(k, []); map.get(k).push(a); };
  for (const a of actions) {
    if (a.type === 'fire') { fire.push(a); buttons.push(a); continue; }
    if (a.type === 'choose_area' && typeof a.area === 'string') {
      for (const hex of board.areas.get(a.area)?.hexes ?? []) push(byHex, hex, a);
      buttons.push(a);
      continue;
    }
    const hex = actionHex(a);
    const unit = actionUnit(a);
    if (hex && board.hexes.has(hex)) push(byHex, hex, a);
    if (unit !== null && unitsById.has(unit)) push(byUnit, unit, a);
    // Something to click: the hex on the map, or the unit (on the map, or in the tray of units
    // off it). Panel buttons are for the rest, and for the ones a player expects as buttons even
    // when they name a unit (a leader's use in the odds panel).
    const clickable = (hex && board.hexes.has(hex)) || (unit !== null && unitsById.has(unit));
    if (!clickable || BUTTON_FIRST.has(a.type)) buttons.push(a);
  }
  return { byHex, byUnit, buttons, fire, all: actions };
}

/** Light every hex target, with the MP a move costs. */
export function drawTargets(layer, marks, index) {
  clear(layer);
  clear(marks);
  for (const [hex, acts] of index.byHex) {
    // Selecting a stack is shown on its counters (a ring), not by lighting the hex.
    if (acts.every((a) => a.type === 'select_stack')) continue;
    const [cx, cy] = centre(hex);
    const cls = hexClass(acts[0].type);
    layer.append(svg('polygon', { class: `hl ${cls}`, points: hexPoints(cx, cy, R * 0.96), 'data-hex': hex }));
    const mp = acts.find((a) => Number.isInteger(a.mp));
    if (mp) {
      marks.append(svg('g', { class: 'mp-tag' },
        svg('rect', { x: cx + R * 0.18, y: cy + HEX_H * 0.12, width: 13, height: 9.5, rx: 2 }),
        svg('text', { x: cx + R * 0.18 + 6.5, y: cy + HEX_H * 0.12 + 7.4 }, String(mp.mp))));
    }
  }
}

/** Six arrows around the Big Gun for `fire {direction}`; `send(action, event)` when one is
 *  clicked. An arrow fires one shot; every shot at once (`fire` with `shots`, offered beside
 *  it in the same direction) is the panel's button — one arrow per direction, never two drawn
 *  on top of each other. */
export function drawFireArrows(layer, gunHex, fireActions, send) {
  if (!gunHex || !fireActions.length) return;
  const [cx, cy] = centre(gunHex);
  const one = new Map();
  for (const a of fireActions) {
    if (!one.has(a.direction) || (one.get(a.direction).shots > 1 && !(a.shots > 1))) one.set(a.direction, a);
  }
  for (const a of one.values()) {
    const ang = DIRECTION_ANGLE[a.direction];
    if (ang === undefined) continue;
    const g = svg('g', {
      class: 'fire-arrow', transform: `translate(${cx} ${cy}) rotate(${ang})`, role: 'button',
      'data-direction': a.direction, tabindex: 0,
    },
    svg('path', { d: `M${R * 0.95},-7 L${R * 1.75},-7 L${R * 1.75},-13 L${R * 2.45},0 L${R * 1.75},13 L${R * 1.75},7 L${R * 0.95},7 Z` }),
    svg('title', {}, `Fire ${a.direction.toUpperCase()}`));
    g.addEventListener('pointerup', (e) => { e.stopPropagation(); send(a, e); });
    g.addEventListener('pointerdown', (e) => e.stopPropagation());
    g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.stopPropagation(); send(a, e); } });
    layer.append(g);
  }
}

/** Which Big Gun is firing: the view's `firing_gun`; from an older server, the gun hex named in
 *  the prompt, else the last one placed. */
export function firingGun(view) {
  const guns = view.big_guns ?? [];
  const named = (view.prompt.match(/\b\d{4}\b/g) ?? []).find((h) => guns.includes(h));
  return view.firing_gun ?? named ?? guns[guns.length - 1] ?? null;
}
