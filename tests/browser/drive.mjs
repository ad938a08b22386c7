// Playing through the page as a person would: read the choices the page offers (its list of all
// choices carries each legal action as JSON), and take one by clicking where a player would —
// the hex on the map, the unit in its stack's menu, the Big Gun's arrow, or the panel's button.

import { clickHex, assert } from './lib.mjs';

/** The legal actions this page offers now (empty when it is not this side's move). */
export async function legal(page) {
  return page.$$eval('#actions .all-choices button[data-action]', (bs) => bs.map((b) => JSON.parse(b.dataset.action)));
}

export async function seqOf(page) {
  return page.evaluate(() => Number(document.body.dataset.seq ?? -1));
}

export async function toAct(page) {
  return page.evaluate(() => document.body.dataset.toAct ?? '');
}

export async function prompt(page) {
  return page.textContent('#prompt');
}

/** Wait until the page has drawn the state numbered at least `n`. */
export async function waitSeq(page, n, timeout = 15_000) {
  await page.waitForFunction((n) => Number(document.body.dataset.seq ?? -1) >= n, n, { timeout });
}

/** Where each unit on the map is: id → hex, and hex → side. */
export async function positions(page) {
  return page.$$eval('#map .stack', (stacks) => stacks.map((s) => ({ hex: s.dataset.hex, side: s.dataset.side, units: s.dataset.units.split(' ').map(Number) })));
}

const BUTTONS = new Set(['deploy_default', 'end_phase', 'pass', 'resolve', 'cancel_attack', 'stop', 'stop_retreat', 'leave_map', 'select_entry', 'set_leader_use']);

/** Take `a` (an element of `legal(page)`) by clicking. Returns how it was taken. */
export async function take(page, a) {
  const json = JSON.stringify(a);
  const sel = (scope) => `${scope} button[data-action='${json.replace(/'/g, "\\'")}']`;
  if (a.type === 'fire') {
    const arrow = page.locator(`#map .fire-arrow[data-direction='${a.direction}']`);
    if (await arrow.count()) { await arrow.click(); return 'fire arrow'; }
  }
  const hex = typeof a.hex === 'string' ? a.hex : typeof a.to === 'string' ? a.to : null;
  const unit = Number.isInteger(a.unit) ? a.unit : Number.isInteger(a.leader) ? a.leader : null;
  if (!BUTTONS.has(a.type) && (hex || unit !== null)) {
    let at = hex;
    if (!at && unit !== null) at = (await positions(page)).find((s) => s.units.includes(unit))?.hex ?? null;
    if (at) {
      await clickOnMap(page, at);
      const item = page.locator(sel('#menu:not([hidden])'));
      if (await item.count()) { await item.first().click(); return `map ${at} + menu`; }
      return `map ${at}`;
    }
    const chit = page.locator(`#tray-body button.tray-unit[data-unit='${unit}']`);
    if (unit !== null && await chit.count()) {
      await chit.click();
      const item = page.locator(sel('#menu:not([hidden])'));
      if (await item.count()) await item.first().click();
      return 'tray';
    }
  }
  const button = page.locator(sel('#actions .buttons'));
  if (await button.count()) { await button.first().click(); return 'button'; }
  await page.locator('#actions .all-choices summary').click().catch(() => {});
  await page.locator(sel('#actions .all-choices')).first().click();
  return 'choice list';
}

/** Click a hex, zooming out to the whole map first if it is not on screen. */
export async function clickOnMap(page, hex) {
  try {
    await clickHex(page, hex);
  } catch {
    await page.click('#zoom-fit');
    await clickHex(page, hex);
  }
}

/** Take `a` and wait for the state that answers it. */
export async function act(page, a) {
  const before = await seqOf(page);
  let how = await take(page, a);
  // An order with a `warning` asks once more (confirm.js): the player confirms it, as the
  // scripted game means to give it (the warning itself is checked in table-checks.mjs).
  if (a.warning) {
    await page.waitForSelector('#confirm:not([hidden]) #confirm-yes', { timeout: 5000 });
    await page.click('#confirm-yes');
    how += ' + confirmed';
  }
  await waitSeq(page, before + 1).catch((e) => {
    throw new Error(`no new state after ${JSON.stringify(a)} taken by ${how}: ${e.message}`);
  });
  return how;
}

/** Hex distance between two CCRR hexes (even columns half a hex lower). */
export function distance(a, b) {
  const cube = (h) => {
    const col = Number(h.slice(0, 2)) - 1, row = Number(h.slice(2)) - 1;
    const x = col, z = row - (col - (col & 1)) / 2;
    return [x, -x - z, z];
  };
  const [p, q] = [cube(a), cube(b)];
  return Math.max(...p.map((v, i) => Math.abs(v - q[i])));
}

export function pick(list, type) {
  return list.find((a) => a.type === type);
}

export { assert };
