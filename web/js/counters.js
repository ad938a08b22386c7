// Counters like the board's: a square chit in the side's and nation's colour with a unit
// symbol, a short name and the strength; the reduced side is paler with a stripe and its
// strength on a red bar. Stacks draw as a pile with a count badge.

import { svg } from './dom.js';
import { starPoints } from './geometry.js';
import { NATION, mix } from './palette.js';

/** Side length of a counter on the map, in map units (a hex is 41.6 flat to flat). */
export const SIZE = 34;

const NATION_CODE = {
  british: 'GB', russian: 'RU', american: 'US', german: 'DE',
  french: 'FR', japanese: 'JP', austrian: 'AT', italian: 'IT',
};

/** Background and ink of a unit's counter. */
export function colours(u) {
  if (u.side === 'chinese') {
    return u.type === 'imperial' ? { bg: '#e2b43a', ink: '#3a1f08' } : { bg: '#c4331f', ink: '#fff8e6' };
  }
  switch (u.type) {
    case 'volunteer': return { bg: '#7a5c36', ink: '#fffaf0' };
    case 'civilian': return { bg: '#ece5d2', ink: '#2b231c' };
    case 'doctor': return { bg: '#ffffff', ink: '#2b231c' };
    default: return { bg: NATION[u.nationality] ?? '#5a5a48', ink: u.nationality === 'austrian' ? '#1d1405' : '#ffffff' };
  }
}

/** The short name printed at the top of the counter. */
export function shortName(u) {
  const num = (u.name.match(/(\d+)$/) || [])[1] ?? '';
  switch (u.type) {
    case 'combat': return `${NATION_CODE[u.nationality] ?? ''} ${num}`.trim();
    case 'volunteer': return `VOL ${num}`.trim();
    case 'boxer': return `BOXERS ${num}`.trim();
    case 'imperial': return `IMP ${num}`.trim();
    case 'civilian': return `CIVIL ${num}`.trim();
    case 'doctor': return u.name.replace(/^Dr\.? /, 'Dr ');
    case 'leader': return u.name;
    case 'artillery': return u.name.replace(/^(British|Austrian|Italian|US) /, '');
    default: return u.name;
  }
}

/** The number printed at the bottom: strength, "+bonus" for artillery, (defence) for civilians. */
export function valueText(u) {
  if (u.type === 'artillery') return `+${u.bonus}`;
  if (u.type === 'civilian') return `(${u.strength})`;
  if (u.type === 'doctor') return '';
  return String(u.strength);
}

/** One line describing a unit in words, for titles and lists. */
export function describeUnit(u) {
  const parts = [u.name];
  if (u.type === 'artillery') parts.push(`artillery, odds bonus +${u.bonus}`);
  else if (u.type === 'leader') parts.push('leader, strength 1');
  else if (u.type === 'civilian') parts.push(`civilians, defence ${u.strength}`);
  else if (u.type === 'doctor') parts.push('doctor');
  else parts.push(`strength ${u.strength}${u.reduced ? ' (reduced)' : ''}`);
  if (u.out_of_command) parts.push('out of command (11.2)');
  if (u.moved) parts.push('moved');
  if (u.attacked) parts.push('has attacked');
  return parts.join(', ');
}

/** A counter centred on (x, y), `s` map units wide. */
export function counter(u, x, y, s = SIZE) {
  const { bg, ink } = colours(u);
  const fill = u.reduced ? mix(bg, '#ffffff', 0.42) : bg;
  const half = s / 2;
  const g = svg('g', {
    class: `counter side-${u.side} type-${u.type}${u.reduced ? ' reduced' : ''}`,
    'data-unit': u.id,
    transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`,
  });
  g.append(svg('rect', { x: -half, y: -half, width: s, height: s, rx: s * 0.09, fill, class: 'chit' }));
  g.append(svg('rect', {
    x: -half + 1.3, y: -half + 1.3, width: s - 2.6, height: s - 2.6, rx: s * 0.06, class: 'inner',
    stroke: u.type === 'doctor' || u.type === 'civilian' ? '#00000033' : '#ffffff66',
  }));
  if (u.reduced) {
    // The back of the counter: a pale stripe across the corner, as printed reduced sides have.
    g.append(svg('path', { d: `M${half * 0.2},${-half} L${half},${-half} L${half},${-half * 0.2} Z`, class: 'reduced-corner' }));
  }
  const name = shortName(u);
  const nameSize = Math.min(s * 0.22, (s * 1.55) / Math.max(name.length, 4));
  g.append(svg('text', { x: 0, y: -half + s * 0.24, class: 'c-name', fill: u.reduced ? '#2b231c' : ink, 'font-size': nameSize.toFixed(2) }, name));
  g.append(symbol(u, s, u.reduced ? '#2b231c' : ink));
  const value = valueText(u);
  if (value) {
    if (u.reduced) g.append(svg('rect', { x: -s * 0.26, y: half - s * 0.36, width: s * 0.52, height: s * 0.3, rx: 2, class: 'reduced-bar' }));
    g.append(svg('text', {
      x: 0, y: half - s * 0.11, class: 'c-value', 'font-size': (s * 0.33).toFixed(2),
      fill: u.reduced ? '#ffffff' : ink,
    }, value));
  }
  if (u.out_of_command) {
    // Out of command (11.2): an amber dashed frame round the chit and a corner flag, seen at
    // any zoom; the unit's panel says what it means.
    g.classList.add('out-of-command');
    g.append(svg('rect', { x: -half - 1.6, y: -half - 1.6, width: s + 3.2, height: s + 3.2, rx: s * 0.12, class: 'ooc-frame' }));
    g.append(svg('path', { d: `M${-half},${half} l${s * 0.36},0 l${-s * 0.36},${-s * 0.36} z`, class: 'ooc' }));
    g.append(svg('text', { x: -half + s * 0.1, y: half - s * 0.06, class: 'ooc-mark', 'font-size': (s * 0.2).toFixed(2) }, '!'));
  }
  g.append(svg('title', {}, describeUnit(u)));
  return g;
}

/** The unit-type symbol in the middle band (NATO-like, as on period wargame counters). */
function symbol(u, s, ink) {
  const w = s * 0.46, hgt = s * 0.26, y = -s * 0.12;
  const box = (extra = []) => svg('g', { class: 'c-symbol', stroke: ink, fill: 'none' },
    svg('rect', { x: -w / 2, y, width: w, height: hgt, 'stroke-width': 1 }), ...extra);
  const cross = [
    svg('line', { x1: -w / 2, y1: y, x2: w / 2, y2: y + hgt, 'stroke-width': 0.9 }),
    svg('line', { x1: -w / 2, y1: y + hgt, x2: w / 2, y2: y, 'stroke-width': 0.9 }),
  ];
  switch (u.type) {
    case 'combat':
    case 'imperial':
      return box(cross);
    case 'volunteer':
      return box([...cross, svg('line', { x1: 0, y1: y, x2: 0, y2: y + hgt, 'stroke-width': 0.9 })]);
    case 'boxer':
      // Irregulars: the infantry cross without a frame, under a fist-like sun.
      return svg('g', { class: 'c-symbol', stroke: ink, fill: 'none' }, ...cross,
        svg('circle', { cx: 0, cy: y + hgt / 2, r: hgt * 0.32, fill: ink, stroke: 'none' }));
    case 'artillery':
      return box([svg('circle', { cx: 0, cy: y + hgt / 2, r: hgt * 0.26, fill: ink, stroke: 'none' })]);
    case 'leader':
      return svg('polygon', { points: starPoints(0, y + hgt / 2, hgt * 0.62), fill: ink, class: 'c-symbol' });
    case 'doctor': {
      const a = hgt * 0.5, t = a * 0.38, cy = y + hgt / 2;
      return svg('g', { class: 'c-symbol', fill: '#d01c1c' },
        svg('rect', { x: -a, y: cy - t, width: 2 * a, height: 2 * t }),
        svg('rect', { x: -t, y: cy - a, width: 2 * t, height: 2 * a }));
    }
    case 'civilian': {
      const cy = y + hgt / 2;
      return svg('g', { class: 'c-symbol', fill: ink },
        svg('circle', { cx: -w * 0.18, cy: cy - hgt * 0.2, r: hgt * 0.17 }),
        svg('circle', { cx: w * 0.18, cy: cy - hgt * 0.12, r: hgt * 0.13 }),
        svg('rect', { x: -w * 0.3, y: cy, width: w * 0.24, height: hgt * 0.45, rx: 1 }),
        svg('rect', { x: w * 0.08, y: cy + hgt * 0.05, width: w * 0.2, height: hgt * 0.38, rx: 1 }));
    }
    default:
      return box();
  }
}

/** The order a stack is piled in: fighting units on top, then guns, leaders and the rest. */
const PILE = { combat: 0, volunteer: 0, boxer: 0, imperial: 0, artillery: 1, leader: 2, doctor: 3, civilian: 4 };

export function pileOrder(units) {
  return [...units].sort((a, b) => (PILE[a.type] ?? 5) - (PILE[b.type] ?? 5) || b.strength - a.strength || a.id - b.id);
}

/** A stack on the map at (x, y): the top counter over the edges of up to three below it, and a
 *  badge with the number of counters when there is more than one. */
export function stack(units, x, y) {
  const pile = pileOrder(units);
  const g = svg('g', { class: 'stack', 'data-count': pile.length });
  const shown = pile.slice(0, 4).reverse();
  const step = 2.2;
  shown.forEach((u, i) => {
    const k = shown.length - 1 - i;
    g.append(counter(u, x + k * step, y - k * step));
  });
  if (pile.length > 1) {
    const bx = x + SIZE / 2 + (shown.length - 1) * step - 1, by = y - SIZE / 2 - (shown.length - 1) * step + 1;
    g.append(svg('g', { class: 'stack-badge' },
      svg('circle', { cx: bx, cy: by, r: 6.5 }),
      svg('text', { x: bx, y: by + 0.4 }, String(pile.length))));
  }
  return g;
}
