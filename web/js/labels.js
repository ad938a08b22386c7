// Every legal action in words, for buttons and menus. The page knows no rules: an action type it
// has never heard of still gets a label, made from its JSON, so no game can dead-end here.

import { DIRECTION_NAME } from './geometry.js';

const KIND = { boxer: 'Boxers', imperial: 'Imperials' };

/** A label for `a`, naming units through `unitName(id)` and areas through `areaName(key)`. */
export function actionLabel(a, unitName = String, areaName = String) {
  const u = (id) => unitName(id);
  switch (a.type) {
    case 'deploy_default': return 'Take the default deployment';
    case 'select_unit': return `Select ${u(a.unit)}`;
    case 'choose_area': return `Set up in ${areaName(a.area)}`;
    case 'place': return `Place at ${a.hex}`;
    case 'select_entry': return `Bring on ${KIND[a.kind] ?? words(a.kind)}`;
    case 'enter': {
      const n = Array.isArray(a.units) ? a.units.length : a.count;
      return n > 1 ? `Enter ${n} units at ${a.hex}` : `Enter at ${a.hex}`;
    }
    case 'select_stack': return `Select the whole stack at ${a.hex}`;
    case 'unselect_unit': return `Leave ${u(a.unit)} behind`;
    case 'move': return `Move to ${a.to} (${a.mp} MP)`;
    case 'stop': return 'Stop this stack';
    case 'attempt_recovery': return `Recovery roll for ${u(a.unit)}`;
    case 'place_gun': return `Place the Big Gun at ${a.hex}`;
    case 'fire': return `Fire ${DIRECTION_NAME[a.direction] ?? a.direction}${a.shots > 1 ? ` (all ${a.shots} shots)` : ''}`;
    case 'detonate': return `Explode a mine at ${a.hex}`;
    case 'restore': return `Restore ${u(a.unit)}`;
    case 'remove_unit': return `Remove ${u(a.unit)} (attrition)`;
    case 'snipe': return `Snipe at ${u(a.leader)}`;
    case 'fortify': return `Fortify ${a.hex}`;
    case 'attempt_withdrawal': return `Withdrawal roll for ${u(a.leader)}`;
    case 'charge': return `Bayonet charge into ${a.hex} (${a.mp} MP)`;
    case 'attack': return `Attack ${a.hex}`;
    case 'add_defender': return `Also attack ${a.hex}`;
    case 'add_attacker': return `Add ${u(a.unit)} to the attack`;
    case 'add_attackers': return Array.isArray(a.units) ? `Add every adjacent unit (${a.units.map(u).join(', ')})` : 'Add every adjacent unit';
    case 'remove_attacker': return `Take ${u(a.unit)} out of the attack`;
    case 'add_artillery': return `Add ${u(a.unit)}'s fire`;
    case 'remove_artillery': return `Take ${u(a.unit)} out of the attack`;
    case 'set_leader_use': return `${u(a.leader)}: ${a.use === 'modifier' ? 'die roll −1' : a.use === 'strength' ? 'strength 1' : words(a.use)}`;
    case 'resolve': return 'Roll the die';
    case 'cancel_attack': return 'Cancel the attack';
    case 'lose_step': return `${u(a.unit)} loses a step`;
    case 'retreat': return `Retreat to ${a.to}`;
    case 'stop_retreat': return 'Stop the retreat here';
    case 'leave_map': return 'Retreat off the map';
    case 'advance': return `Advance ${u(a.unit)} to ${a.to}`;
    case 'place_leader': return `Move ${u(a.leader)} to ${a.hex}`;
    case 'eliminate': return `Eliminate ${u(a.unit)}`;
    case 'lift': return `Lift the stack at ${a.hex} off the map`;
    case 'pass': return 'Pass';
    case 'end_phase': return 'End the phase';
    case 'undo': return 'Undo';
    default: return generic(a);
  }
}

/** "some_action {x: 1}" → "Some action: x 1". */
export function generic(a) {
  const rest = Object.entries(a).filter(([k]) => k !== 'type')
    .map(([k, v]) => `${words(k)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  const head = words(String(a.type ?? 'action'));
  return rest.length ? `${head[0].toUpperCase()}${head.slice(1)}: ${rest.join(', ')}` : `${head[0].toUpperCase()}${head.slice(1)}`;
}

function words(s) {
  return String(s).replace(/_/g, ' ');
}

/** Action types that are better as a button than a click on the map. */
export const BUTTON_FIRST = new Set([
  'deploy_default', 'end_phase', 'pass', 'resolve', 'cancel_attack', 'stop', 'stop_retreat',
  'leave_map', 'select_entry', 'set_leader_use', 'fire', 'undo', 'add_attackers',
]);
