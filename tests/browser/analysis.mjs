// The analysis board against the real server, by clicks: a position built from the counter mix
// (a British unit in a building and a leader next to Boxers), the zones of control shaded, a
// unit's reachable hexes with their MP, a line-of-sight verdict, the odds of an attack in both
// directions (the building's ×3 and its reason, a leader's use), a forced attack below 1-3 shown
// as an automatic AE (8.1.2), an invalid position refused with the server's reason, ruins, the
// share link opened in another browser, and a game started from the position that a second
// browser joins. run.mjs runs these on its server; alone:
//
//   SIEGE_BIN=... node tests/browser/analysis.mjs

import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { launch, newPage, shot, check, assert, finish, here, hexOnScreen, expectingConsole } from './lib.mjs';
import { SiegeServer } from './server.mjs';
import { legal, seqOf, waitSeq, act, pick, clickOnMap, positions } from './drive.mjs';

/** Wait until the board has its answer to the last change. */
async function settled(page) {
  await page.waitForFunction(() => ['ready', 'invalid', 'error'].includes(document.body.dataset.analysis), null, { timeout: 10_000 });
}

/** Click a hex on the analysis board and wait for the server's answer. */
async function tap(page, hex) {
  await clickOnMap(page, hex);
  await settled(page);
}

/** Arm a kind of counter from the palette (by its first counter's code) and place it. */
async function place(page, kind, hex) {
  await page.click(`#an-mix button.mix-kind[data-kind='${kind}']`);
  await tap(page, hex);
}

async function tool(page, name) {
  await page.click(`#analysis-panel .an-tool[data-tool='${name}']`);
}

/** The stacks on the board: hex → unit ids. */
async function board(page) {
  const list = await positions(page);
  return Object.fromEntries(list.map((s) => [s.hex, s.units.sort((a, b) => a - b).join(' ')]));
}

/** A building hex of the British Legation with a clear neighbour (the Boxers) that has another
 *  clear neighbour (the leader) not next to the building: read from the scenario, not assumed. */
function pickHexes(scenario) {
  const T = new Map(scenario.hexes.map((h) => [h.id, h]));
  const nb = (id) => {
    const c = Number(id.slice(0, 2)), r = Number(id.slice(2)), e = c % 2 === 0;
    return [[0, -1], [0, 1], [1, e ? 0 : -1], [1, e ? 1 : 0], [-1, e ? 0 : -1], [-1, e ? 1 : 0]]
      .map(([dc, dr]) => [c + dc, r + dr]).filter(([c, r]) => c >= 1 && r >= 1 && c <= scenario.columns && r <= scenario.rows)
      .map(([c, r]) => `${String(c).padStart(2, '0')}${String(r).padStart(2, '0')}`);
  };
  const clear = (id) => T.get(id)?.terrain === 'clear';
  for (const b of scenario.hexes.filter((h) => h.terrain === 'building' && h.area === 'british')) {
    for (const c of nb(b.id).filter(clear)) {
      const d = nb(c).find((x) => x !== b.id && clear(x) && !nb(b.id).includes(x));
      // A clear hex for a ruin, away from the units.
      const open = d && nb(d).find((x) => clear(x) && x !== c && !nb(c).includes(x));
      if (open) return { building: b.id, boxers: c, leader: d, open, nb };
    }
  }
  throw new Error('no building hex with clear hexes around it');
}

export async function analysisChecks(browser, base, t = {}) {
  const scenario = await (await fetch(`${base}/api/scenario`)).json();
  const kind = (code) => {
    const c = scenario.counters.find((x) => x.code === code);
    return [c.side, c.type, c.nationality ?? '', c.code.replace(/\d+$/, ''), c.strength].join('|');
  };
  const id = (code) => scenario.counters.find((x) => x.code === code).id;
  const hexes = pickHexes(scenario);
  const { building, boxers, leader } = hexes;
  const page = await newPage(browser, 'analysis', { width: 1440, height: 900 });
  let link;

  await check('analysis board: opened from the lobby, a position built by clicks from the counter mix', async () => {
    await page.goto(`${base}/`);
    await page.click('#open-analysis');
    await page.waitForSelector('#an-mix button.mix-kind');
    await settled(page);
    await page.selectOption('#an-turn', '3');
    await settled(page);
    await page.selectOption('#an-phase', 'chinese_combat');
    await settled(page);
    await place(page, kind('gb1'), building);
    await place(page, kind('bx01'), boxers);
    await place(page, kind('strouts'), leader);
    await page.keyboard.press('Escape');
    const b = await board(page);
    assert(b[building] === String(id('gb1')) && b[boxers] === String(id('bx01')) && b[leader] === String(id('strouts')), `the board: ${JSON.stringify(b)}`);
    // The one Strouts counter is used up: greyed out; the British have two left.
    assert(await page.locator(`#an-mix button.mix-kind[data-kind='${kind('strouts')}']`).isDisabled(), 'a used-up kind is greyed out');
    assert(await page.getAttribute(`#an-mix button.mix-kind[data-kind='${kind('gb1')}']`, 'data-left') === '2', 'two British units left');
    assert(/^#analyse=/.test(new URL(page.url()).hash), 'the position is in the address');
    assert(await page.locator('#an-error').isHidden(), 'a valid position');
  });

  await check('analysis board: zones of control shaded, none into the building (6)', async () => {
    const zoc = (side) => page.$$eval(`#map .zoc-${side}`, (ps) => ps.map((p) => p.dataset.hex));
    const chinese = await zoc('chinese');
    const around = hexes.nb(boxers).filter((x) => scenario.hexes.find((h) => h.id === x)?.terrain === 'clear');
    assert(around.every((x) => chinese.includes(x)), `Chinese ZOC ${chinese.join(' ')} covers the open hexes around ${boxers}`);
    assert(!chinese.includes(building), `no Chinese ZOC into the building ${building}`);
    assert((await zoc('allied')).length > 0, 'Allied ZOC shaded');
    assert(/Rules: .*\b6\b/.test(await page.textContent('#an-zoc')), 'the ZOC answer cites rule 6');
    await page.uncheck('#an-zoc-allied');
    assert((await zoc('allied')).length === 0, 'the Allied shading can be switched off');
    await page.check('#an-zoc-allied');
  });

  await check('analysis board: a selected unit\'s reachable hexes with their MP, and its command control', async () => {
    await tool(page, 'select');
    await tap(page, leader);
    await page.waitForSelector('#an-reach .an-reach-count');
    const n = Number(await page.textContent('#an-reach .an-reach-count'));
    const lit = await page.$$eval('#map .reach', (ps) => ps.map((p) => ({ hex: p.dataset.hex, mp: Number(p.dataset.mp) })));
    assert(n > 0 && lit.length === n, `${n} reachable hexes said, ${lit.length} lit`);
    assert(lit.every((x) => x.mp >= 1 && x.mp <= 6), `MP in range: ${JSON.stringify(lit.slice(0, 5))}`);
    assert(await page.locator('#map .mp-tag').count() === n, 'an MP tag on each');
    assert(/in command|out of command/.test(await page.textContent('#an-command')), 'command control shown');
    assert(/Rules: .*11\.2/.test(await page.textContent('#an-command')), 'command control cites 11.2');
    await shot(page, '20-analysis-reachable.png');
  });

  await check('analysis board: line of sight with the engine\'s verdict', async () => {
    await tool(page, 'los');
    await page.click('#zoom-fit');
    // From the legations over the Tartar Wall: blocked (8.5).
    await clickOnMap(page, '2533');
    await tap(page, '2538');
    await page.waitForFunction(() => document.getElementById('los-box').dataset.verdict);
    const verdict = await page.getAttribute('#los-box', 'data-verdict');
    const text = await page.textContent('#los-box');
    assert(verdict === 'blocked' && /2533 → 2538: blocked at \d{4}/.test(text), `LOS: ${verdict}: ${text}`);
    assert(await page.locator('#map .los-line.blocked').count() === 1, 'the line is drawn as blocked');
    await shot(page, '21-analysis-los.png');
    await tool(page, 'los');
    assert(await page.locator('#los-box').isHidden(), 'the LOS box closes with its tool');
  });

  await check('analysis board: the odds of an attack — a leader\'s use, the building ×3 with its reason', async () => {
    const row = (k) => page.textContent(`#an-odds tr[data-row='${k}'] td`);
    await tool(page, 'attack');
    // The Allies attack the Boxers in the open: the British unit and the leader, his 1 first as
    // strength, then as the die modifier (11.1).
    await page.click('#an-attack .an-attack-side[data-side=allied]');
    await settled(page);
    await tap(page, building);
    await tap(page, leader);
    await tap(page, boxers);
    await page.waitForSelector('#an-odds .odds-table');
    assert((await row('attack')).trim().startsWith('5'), `attack with the leader's strength: ${await row('attack')}`);
    assert(/none/.test(await row('die-modifier')), 'no modifier yet');
    assert(/×1/.test(await row('terrain')), `Boxers in the open: ${await row('terrain')}`);
    await page.selectOption(`#an-attack select.an-leader-use[data-leader='${id('strouts')}']`, 'modifier');
    await settled(page);
    await page.waitForFunction(() => /\+1/.test(document.querySelector("#an-odds tr[data-row='die-modifier'] td")?.textContent ?? ''));
    assert((await row('attack')).trim().startsWith('4'), `attack without the leader's strength: ${await row('attack')}`);
    assert(/Rules: .*8\.2/.test(await page.textContent('#an-odds')), 'odds cite 8.2');
    await shot(page, '22-analysis-odds-allied.png');
    // The Boxers attack the British unit in the building: 4 tripled (18.2).
    await page.click('#an-attack .an-attack-side[data-side=chinese]');
    await settled(page);
    await tap(page, boxers);
    await tap(page, building);
    await page.waitForSelector('#an-odds .odds-table');
    const defence = await row('defence');
    assert(/^12 = 4 × 3/.test(defence.trim()), `defence: ${defence}`);
    const terrain = await row('terrain');
    assert(/×3/.test(terrain) && /building/i.test(terrain), `terrain and why: ${terrain}`);
    assert((await row('attack')).trim().startsWith('10'), `attack: ${await row('attack')}`);
    assert((await row('odds')).trim() === '1-2', `odds: ${await row('odds')}`);
    assert(/legal/i.test(await page.textContent('#an-odds .legal')), 'legal or not, said');
    // Close in on the position, the odds in view beside it: the README's second picture.
    await page.click('#zoom-fit');
    for (let i = 0; i < 3; i++) {
      const p = await hexOnScreen(page, boxers);
      await page.mouse.move(p.x, p.y);
      await page.mouse.wheel(0, -240);
      await page.waitForTimeout(30);
    }
    await page.locator('#an-odds').scrollIntoViewIfNeeded();
    const file = await shot(page, '23-analysis-odds-chinese.png');
    if (t.readme) fs.copyFileSync(file, path.resolve(here, '../../docs/screenshot-analysis.png'));
  });

  await check('analysis board: a forced attack below 1-3 is shown as an automatic AE (8.1.2)', async () => {
    // Two British units in the building, reduced Boxers beside them in the open: the Boxers are
    // in their zone of control and must attack, at 5 against 24. A page of its own, so that the
    // position the checks below use stays as it is.
    const p = await newPage(browser, 'analysis-forced', { width: 1440, height: 900 });
    await p.goto(`${base}/`);
    await p.click('#open-analysis');
    await p.waitForSelector('#an-mix button.mix-kind');
    await settled(p);
    await p.selectOption('#an-turn', '3');
    await settled(p);
    await p.selectOption('#an-phase', 'chinese_combat');
    await settled(p);
    await p.click(`#an-mix button.mix-kind[data-kind='${kind('gb1')}']`);
    await tap(p, building);
    await tap(p, building);
    await p.check('#an-reduced');
    await place(p, kind('bx01'), boxers);
    await p.keyboard.press('Escape');
    const b = await board(p);
    assert(b[building] === `${id('gb1')} ${id('gb2')}` && b[boxers] === String(id('bx01')), `the board: ${JSON.stringify(b)}`);
    await p.click(`#analysis-panel .an-tool[data-tool='attack']`);
    await p.click('#an-attack .an-attack-side[data-side=chinese]');
    await settled(p);
    await tap(p, boxers);
    await tap(p, building);
    await p.waitForSelector('#an-odds .odds-table');
    const row = (k) => p.textContent(`#an-odds tr[data-row='${k}'] td`);
    assert(/^5\b/.test((await row('attack')).trim()) && /^24 = 8 × 3/.test((await row('defence')).trim()), `5 against 24: ${await row('attack')} / ${await row('defence')}`);
    const odds = (await row('odds')).trim();
    assert(odds === 'below 1-3 — automatic AE (8.1.2)', `the odds row: ${odds}`);
    const legal = (await p.textContent('#an-odds .legal')).trim();
    assert(/forced/i.test(legal) && legal.includes('automatic AE (8.1.2)'), `the verdict: ${legal}`);
    assert(await p.locator('#an-odds .legal.ok').count() === 1, 'legal, being forced');
    const chances = await p.$$eval('#an-odds .chance-list li', (ls) => ls.map((l) => [l.dataset.result, l.dataset.sixths]));
    assert(JSON.stringify(chances) === JSON.stringify([['AE', '6']]), `AE on every die: ${JSON.stringify(chances)}`);
    await p.locator('#an-odds').scrollIntoViewIfNeeded();
    await shot(p, '22b-analysis-forced-below-1-3.png');
    await p.context().close();
  });

  await check('analysis board: the legal actions the game would offer', async () => {
    const text = await page.textContent('#an-to-act');
    assert(/Chinese to act: \d+ choice/.test(text), `legal actions: ${text}`);
  });

  await check('analysis board: an engine hint, a computer player\'s plan drawn on the map with its rating', async () => {
    await page.click("#an-hint-plan .an-hint-side[data-side='chinese']");
    await page.selectOption('#an-hint-level', 'normal');
    await page.click('#an-suggest');
    await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.hint), null, { timeout: 30_000 });
    const items = await page.$$eval('#an-plan li', (ls) => ls.map((l) => l.textContent));
    assert(items.some((x) => x.includes(building)), `the plan attacks ${building}: ${items.join(' / ')}`);
    assert(await page.locator(`#map .plan-target[data-hex='${building}']`).count() === 1, 'the target is ringed on the map');
    assert(await page.locator('#map .plan-attack').count() >= 1, 'the attackers are joined to it');
    assert(/Chinese: \d+%/.test(await page.textContent('#an-eval')), 'the bot rates the position');
    await page.locator('#an-hint-plan').scrollIntoViewIfNeeded();
    await shot(page, '23b-analysis-hint.png');
    // Asking for the side not to act gives an empty plan and says why.
    await page.click("#an-hint-plan .an-hint-side[data-side='allied']");
    await page.click('#an-suggest');
    await page.waitForFunction(() => document.body.dataset.hint === 'ready' && document.querySelector('#an-eval'), null, { timeout: 30_000 });
    assert(await page.locator('#an-plan li').count() === 0, 'no plan for the side not to act');
    assert(await page.locator('#map .plan-path, #map .plan-target').count() === 0, 'nothing drawn');
  });

  await check('analysis board: an invalid position shows the server\'s reason, naming the unit and the rule', async () => {
    await tool(page, 'select');
    // Chromium logs the 422 of the refused position; that one is expected.
    await expectingConsole(page, /422 \(Unprocessable Entity\).*\/api\/analysis$/, async () => {
      await place(page, kind('bx01'), building);
      await page.keyboard.press('Escape');
      await page.waitForSelector('#an-error:not([hidden])');
    });
    const text = await page.textContent('#an-error');
    assert(/gb1|bx02/.test(text) && /5\.1/.test(text), `the refusal: ${text}`);
    assert(await page.locator('#map .ring.invalid').count() === 1, 'the unit at fault is ringed');
    await shot(page, '24-analysis-invalid.png');
    // Take it off again: pick it from the stack's menu.
    await tool(page, 'remove');
    await clickOnMap(page, building);
    await page.click(`#menu:not([hidden]) button[data-action*='"unit":${id('bx02')}']`);
    await settled(page);
    assert(await page.locator('#an-error').isHidden(), 'valid again');
    await tool(page, 'select');
  });

  await check('analysis board: ruins and fortifications, then the share link restores the board elsewhere', async () => {
    await tool(page, 'ruin');
    await tap(page, hexes.open);
    await tool(page, 'fort-allied');
    await tap(page, leader);
    assert(await page.locator('#map .ruin').count() === 1 && await page.locator('#map .fort.built-allied').count() === 1, 'a ruin and a fort drawn');
    await tool(page, 'select');
    link = await page.inputValue('#an-link');
    assert(link === page.url(), 'the share link is the address');
    const before = await board(page);
    const other = await newPage(browser, 'analysis-link', { width: 1280, height: 800 });
    await other.goto(link);
    await other.waitForSelector('#map .stack');
    await settled(other);
    assert(JSON.stringify(await board(other)) === JSON.stringify(before), `the same stacks: ${JSON.stringify(await board(other))}`);
    assert(await other.inputValue('#an-turn') === '3' && await other.inputValue('#an-phase') === 'chinese_combat', 'the same turn and phase');
    assert(await other.locator('#map .ruin').count() === 1 && await other.locator('#map .fort.built-allied').count() === 1, 'the same markers');
    assert(await other.inputValue('#an-link') === link, 'the same link back');
    await other.context().close();
  });

  await check('analysis board: a game started from the position; a second browser joins; both see a custom start', async () => {
    await page.check('#an-start input[value=allied]');
    await page.fill('#an-game-name', 'From the analysis board');
    await page.click('#an-start-game');
    await page.waitForFunction(() => document.body.dataset.you === 'allied');
    const gameId = new URL(page.url()).hash.match(/game=([^&]+)/)[1];
    await page.waitForSelector('#status .custom-start');
    const b = await board(page);
    assert(b[building] === String(id('gb1')) && b[leader] === String(id('strouts')), `the game starts from the position: ${JSON.stringify(b)}`);
    const other = await newPage(browser, 'analysis-opponent', { width: 1280, height: 800 });
    // The game is private: the invite link the table hands out carries its code.
    const invite = await page.evaluate((id) => JSON.parse(localStorage.getItem('siege.seats'))[id].code, gameId);
    assert(/^[0-9a-f]{32}$/.test(invite ?? ''), `the creator keeps the invite code: ${invite}`);
    await other.goto(`${base}/#join=${gameId}&code=${invite}`);
    await other.click('#take-seat');
    await other.waitForFunction(() => document.body.dataset.you === 'chinese');
    await other.waitForSelector('#status .custom-start');
    // The Chinese are to act in their combat phase: they play on as in any game.
    await other.waitForFunction(() => document.body.dataset.toAct === 'chinese');
    const l = await legal(other);
    const a = pick(l, 'end_phase') ?? l[0];
    assert(a, 'the Chinese are offered actions');
    const seq = await seqOf(other);
    await act(other, a);
    await waitSeq(page, seq + 1);
    await shot(page, '25-analysis-game-started.png');
    await other.context().close();
  });

  await check('analysis board on a phone: map above, panel below, a counter placed', async () => {
    const p = await newPage(browser, 'analysis-phone', { width: 390, height: 844 }, { isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await p.goto(link);
    await p.waitForSelector('#map .stack');
    await settled(p);
    await shot(p, '26-analysis-phone.png');
    await p.click(`#an-mix button.mix-kind[data-kind='${kind('im01')}']`);
    await p.evaluate(() => window.scrollTo(0, 0));
    const spot = (await Promise.all(['2010', '2012', '2212'].map(async (hx) => [hx, await hexOnScreen(p, hx)]))).find(([, s]) => s.inside)?.[0] ?? '2010';
    await tap(p, spot);
    assert((await board(p))[spot] === String(id('im01')), `an Imperial placed at ${spot} on the phone`);
    await p.context().close();
  });

  await page.context().close();
}

// Alone: a server of its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const t0 = Date.now();
  const server = new SiegeServer();
  const base = await server.start();
  console.log(`# server ${server.bin} at ${base}`);
  const browser = await launch();
  await analysisChecks(browser, base, { readme: Boolean(process.env.SIEGE_README_SHOT) });
  await browser.close();
  await server.stop();
  console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  finish();
}
