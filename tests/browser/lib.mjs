// Shared by the browser tests: Debian's chromium through playwright-core, pages that fail the
// test on any console error or page error, small assertion helpers, and screenshots.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const SHOTS = path.join(here, 'screenshots');

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launch() {
  fs.mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

/** Every console error and page error of every page, with the page's name. */
export const problems = [];
/** Things worth saying at the end that are not failures. */
export const notes = new Set();

/** A new context + page named `name` whose errors are collected. */
export async function newPage(browser, name, viewport = { width: 1366, height: 800 }, opts = {}) {
  const context = await browser.newContext({ viewport, ...opts });
  const page = await context.newPage();
  page.allowed = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = `${m.text()} ${m.location()?.url ?? ''}`;
    if (page.allowed.some((re) => re.test(text))) return;
    problems.push(`${name}: console error: ${text}`);
  });
  page.on('pageerror', (e) => problems.push(`${name}: page error: ${e.message}`));
  page.name = name;
  return page;
}

/** Run `fn` while console errors matching `re` are expected on `pages` (one or a list) — e.g.
 *  Chromium's line for a 422 the page asked for on purpose and shows, or for a reconnection
 *  refused while the test holds the server down; any other error still fails the run. */
export async function expectingConsole(pages, re, fn) {
  const list = Array.isArray(pages) ? pages : [pages];
  for (const p of list) p.allowed.push(re);
  try {
    return await fn();
  } finally {
    for (const p of list) p.allowed.splice(p.allowed.indexOf(re), 1);
  }
}

export async function shot(page, file) {
  const p = path.join(SHOTS, file);
  await page.screenshot({ path: p });
  return p;
}

let passed = 0;
let failed = 0;
let finished = false;
// Node exits quietly when nothing is left to wait for; a run that ends before finish() failed.
process.on('exit', () => {
  if (!finished) {
    console.log(`not ok - the run ended before its last check\n${passed} passed, ${failed + 1} failed`);
    process.exitCode = 1;
  }
});
/** Run one named check; a failure is reported and counted, the run goes on. */
/** Runs one named check; with `SIEGE_CHECK=text` in the environment, only the checks whose
 *  name contains that text (to run one alone while working on it). */
export async function check(name, fn) {
  if (process.env.SIEGE_CHECK && !name.includes(process.env.SIEGE_CHECK)) return;
  const t0 = Date.now();
  try {
    await fn();
    passed += 1;
    console.log(`ok - ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed += 1;
    console.log(`not ok - ${name}\n    ${String(e.stack ?? e).split('\n').slice(0, 6).join('\n    ')}`);
  }
}

export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

/** Print the summary line and set the exit code; console/page errors fail the run. */
export function finish() {
  finished = true;
  if (problems.length) {
    failed += 1;
    console.log(`not ok - no console or page errors\n    ${problems.join('\n    ')}`);
  } else {
    passed += 1;
    console.log('ok - no console or page errors');
  }
  for (const n of notes) console.log(`# note: ${n}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

/** Where the centre of `hex` is on the screen, and whether that is inside the map. */
export async function hexOnScreen(page, hex) {
  return page.evaluate((hex) => {
    const col = Number(hex.slice(0, 2)), row = Number(hex.slice(2));
    const R = 24, H = R * Math.sqrt(3), PAD = 14;
    const x = PAD + R + 1.5 * R * (col - 1);
    const y = PAD + H * (0.5 + row - 1 + (col % 2 === 0 ? 0.5 : 0));
    const svg = document.getElementById('map');
    const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
    const box = svg.getBoundingClientRect();
    const inBox = p.x > box.left + 4 && p.x < box.right - 4 && p.y > box.top + 4 && p.y < box.bottom - 4;
    return { x: p.x, y: p.y, inside: inBox && p.x > 0 && p.y > 0 && p.x < innerWidth && p.y < innerHeight };
  }, hex);
}

/** Click the centre of the hex `hex` on the map; it must be on screen. */
export async function clickHex(page, hex) {
  const pos = await hexOnScreen(page, hex);
  if (!pos.inside) throw new Error(`hex ${hex} is not on screen`);
  await page.mouse.click(pos.x, pos.y);
}
