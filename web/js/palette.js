// Colours shared by the map and the counters. The terrain and legation colours are those of the
// server's map_svg.rs, so the page and the printed map read the same.

export const PAPER = '#f3eedf';
export const INK = '#2b231c';

export const TERRAIN = {
  clear: '#f1e8cc',
  outside: '#cfc4a4',
  wall: '#4a3a2e',
  tartar_wall: '#565862',
  canal: '#8db6d3',
  bridge: '#b88a52',
  stone_bridge: '#9c9c9c',
};

/** Each legation's colour (buildings on the map, that nation's counters). */
const AREA = {
  british: '#b03a35', russian: '#2f6e4c', american: '#34569e', dutch: '#e0852c',
  german: '#607d8b', club: '#9c7cc0', japanese: '#c83c70', french: '#2a86a8',
  austrian: '#c09820', italian: '#6ca63c', spanish: '#d8b028', hotel: '#9a6242',
  customs: '#4f9a8a', fu: '#8e3e7e', hanlin: '#8a7850', carriage_park: '#7a7c4e',
  mongol_market: '#968470', chinese_houses: '#968470', imperial_city: '#a83a2a',
};

/** The colour of an area's buildings; unknown keys (a modded map) get a stable colour. */
export function areaColour(key) {
  if (AREA[key]) return AREA[key];
  let h = 17;
  for (const ch of key) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  const c = (s) => (60 + ((h >>> s) % 140)).toString(16).padStart(2, '0');
  return `#${c(0)}${c(8)}${c(16)}`;
}

/** `a` moved a fraction `t` of the way towards `b` (both #rrggbb). */
export function mix(a, b, t) {
  const p = (s) => [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16));
  const [x, y] = [p(a), p(b)];
  return '#' + x.map((v, i) => Math.round(v + (y[i] - v) * t).toString(16).padStart(2, '0')).join('');
}

/** Side colours: the control discs on victory hexes, badges, the log. */
export const SIDE = { allied: '#24467a', chinese: '#b3261e' };

/** Counter colours of each nation's troops: the legation colours, darkened to carry white text. */
export const NATION = {
  british: '#a8322d', russian: '#2a6344', american: '#2f4f93', german: '#4f6570',
  french: '#24799a', japanese: '#b8325f', austrian: '#b08a16', italian: '#558a2c',
};
