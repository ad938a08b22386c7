// The browser tests against the real server: two players create and join a game from the lobby
// and play it by clicking (Allied default deployment; Chinese entry, Big Gun, moves and an
// attack declared and resolved on the map), each sees the other's moves live, a third browser
// watches, the server is killed and restarted and the pages resume, and a replay steps through
// the game, which then opens on the analysis board (analysis.mjs, also run here), and My games
// with a rematch (my-games.mjs). Screenshots go
// to tests/browser/screenshots/; any console or page error fails.
//
//   cd tests/browser && npm ci && node run.mjs
//   SIEGE_BIN=path/to/siege (default: target/release/siege)  SIEGE_WEB_DIR=... (default: web/)
//   SIEGE_README_SHOT=1 also writes docs/screenshot.png and docs/screenshot-analysis.png

import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { launch, newPage, shot, check, assert, finish, here, expectingConsole, notes, problems } from './lib.mjs';
import { SiegeServer } from './server.mjs';
import { legal, seqOf, toAct, waitSeq, positions, act, distance, pick, prompt, clickOnMap } from './drive.mjs';
import { analysisChecks } from './analysis.mjs';
import { tableChecks } from './table-checks.mjs';
import { botChecks } from './bot.mjs';
import { accountChecks } from './accounts.mjs';
import { chatChecks } from './chat.mjs';
import { myGamesChecks } from './my-games.mjs';
import { notifyChecks } from './notify.mjs';
import { accountSeatChecks } from './account-seat.mjs';
import { hexOnScreen } from './lib.mjs';

const t0 = Date.now();
const server = new SiegeServer();
const base = await server.start();
console.log(`# server ${server.bin} at ${base}`);
const browser = await launch();
const allied = await newPage(browser, 'allied', { width: 1440, height: 900 });
const chinese = await newPage(browser, 'chinese', { width: 1440, height: 900 });
let watcher;
let gameId;
let combats = 0;
let entryByTest = null; // the hex the map check entered a Boxer at
let scenario = null;

/** The frames each player's page received, by type: the page asks for patches. */
const received = { allied: {}, chinese: {} };
for (const [name, page] of [['allied', allied], ['chinese', chinese]]) {
  page.on('websocket', (ws) => ws.on('framereceived', (f) => {
    const type = /^\{"type":"(\w+)"/.exec(String(f.payload))?.[1] ?? 'other';
    received[name][type] = (received[name][type] ?? 0) + 1;
  }));
}


/** Both players' pages and the watcher's agree on the seq (the other side's moves arrive live). */
async function allAt(n) {
  for (const p of [allied, chinese, watcher].filter(Boolean)) await waitSeq(p, n);
}

async function sideToAct() {
  return toAct(allied);
}

await check('lobby: create a game as the Allies and get an invitation link', async () => {
  await allied.goto(`${base}/`);
  await allied.waitForSelector('#create-form');
  await allied.fill('#game-name', 'Browser test siege');
  await allied.check('input[name=side][value=allied]');
  // A person as the opponent, private (the default: no public seek), on a live clock.
  assert(await allied.inputValue('#opponent') === '', 'a person is the default opponent');
  assert(!(await allied.isChecked('#public-seek')), 'a game is private unless asked to be a public seek');
  await allied.selectOption('#time-control', 'live:5400:120');
  await shot(allied, '01-lobby.png');
  await allied.click('#create-game');
  await allied.waitForSelector('#invite-link');
  const invite = await allied.inputValue('#invite-link');
  assert(invite.startsWith(base), `invitation ${invite}`);
  assert(!/token/i.test(invite), 'the invitation carries no token');
  await shot(allied, '02-created.png');
  const stored = await allied.evaluate(() => localStorage.getItem('siege.seats'));
  gameId = Object.keys(JSON.parse(stored))[0];
  assert(gameId, 'the seat is kept in localStorage');
  // The creator is handed the seat link too (checked below, so that this game goes on).
  allied.createdSeatLink = await allied.inputValue('#seat-link-created', { timeout: 2000 }).catch(() => null);
  allied.token = JSON.parse(stored)[gameId].token;
  await allied.click('#enter-game');
  await allied.waitForSelector('#map .hex');
  await allied.waitForFunction(() => document.body.dataset.you === 'allied');
  allied.invite = invite;
});

await check('a lost seat stops the game: the lobby hands out the seat link and the table urges its player to keep it until told it is saved', async () => {
  assert(allied.createdSeatLink?.includes(`token=${allied.token}`), `the new game's box gives the seat link: ${allied.createdSeatLink}`);
  await allied.waitForSelector('#seat-keeper:not([hidden]) #seat-link', { timeout: 5000 });
  const link = await allied.inputValue('#seat-link');
  assert(link.includes('token='), `the seat link is shown: ${link}`);
  await shot(allied, '02b-keep-your-seat.png');
  await allied.click('#seat-kept', { timeout: 5000 });
  await allied.waitForSelector('#seat-keeper', { state: 'hidden' });
  await allied.reload();
  await allied.waitForFunction(() => document.body.dataset.you === 'allied');
  assert(await allied.locator('#seat-keeper').isHidden(), 'once saved, not asked again');
  assert(await allied.locator('#topbar-actions button', { hasText: 'Seat' }).count() === 1, 'the Seat link button stays in the top bar');
  assert(await allied.locator('#topbar-actions button', { hasText: 'Invite' }).count() === 1, 'the invitation is offered while the seat is free');
  assert(await allied.locator('#clocks .clock').count() === 2, 'both clocks of the timed game are in the top bar');
  assert(await allied.locator('#clocks .clock.running').count() === 0, 'no clock runs before the second seat is taken');
});

await check('invitation: the opponent takes the Chinese seat', async () => {
  await chinese.goto(allied.invite);
  await chinese.waitForSelector('#take-seat');
  await shot(chinese, '03-invitation.png');
  await chinese.click('#take-seat');
  await chinese.waitForFunction(() => document.body.dataset.you === 'chinese');
  assert(!chinese.url().includes('token'), 'no token in the address');
  // The invited player is urged to keep the seat too; this one has saved it.
  await chinese.click('#seat-kept', { timeout: 5000 }).catch(() => {});
});

await check('the invite link leaves the top bar once the opponent has joined, without a reload', async () => {
  const invite = allied.locator('#topbar-actions button', { hasText: 'Invite' });
  await invite.waitFor({ state: 'detached', timeout: 12_000 });
  assert(await allied.locator('#topbar-actions button', { hasText: 'Seat' }).count() === 1, 'the seat link stays');
  // The second seat taken: the Allied clock runs (the Allied setup is to decide).
  for (const p of [allied, chinese]) await p.waitForSelector('#clocks .clock.side-allied.running', { timeout: 10_000 });
  assert(await allied.locator('#clocks #resign').count() === 1 && await chinese.locator('#clocks #resign').count() === 1, 'both players can resign');
  await shot(allied, '03c-invite-gone-clocks.png');
});

await check('a third browser watches live', async () => {
  watcher = await newPage(browser, 'watcher');
  await watcher.goto(`${base}/#watch=${gameId}`);
  await watcher.waitForFunction(() => document.body.dataset.you === 'spectator');
  assert((await legal(watcher)).length === 0, 'a spectator is offered nothing');
});

await check('a wrong token is refused with a banner that offers to watch', async () => {
  const p = await newPage(browser, 'wrong-token');
  await p.goto(`${base}/#game=${gameId}&token=not-a-real-token`);
  await p.waitForSelector('#banner:not([hidden]) a[href^="#watch="]', { timeout: 10_000 });
  await p.click('#banner a');
  await p.waitForFunction(() => document.body.dataset.you === 'spectator');
  await p.context().close();
});

await check('a crafted seat link neither replaces nor deletes the seat this browser keeps', async () => {
  const keptToken = () => allied.evaluate((id) => JSON.parse(localStorage.getItem('siege.seats'))[id]?.token ?? null, gameId);
  const kept = await keptToken();
  assert(kept, 'the Allied page keeps its seat');
  // The player declines the link's seat: the kept one plays on.
  allied.once('dialog', (d) => d.dismiss());
  await allied.goto(`${base}/#game=${gameId}&token=crafted-by-someone-else`);
  await allied.waitForFunction(() => document.body.dataset.you === 'allied' && document.body.dataset.conn === 'open');
  assert(!allied.url().includes('token'), 'the token left the address at once');
  assert(await keptToken() === kept, 'declining kept the seat');
  // The player tries it: the server refuses it, and the kept seat is still there, to be
  // forgotten only by the player's own click.
  allied.once('dialog', (d) => d.accept());
  await allied.goto(`${base}/#game=${gameId}&token=crafted-by-someone-else`);
  // The refusal is of the link's seat, not of the kept one: the banner offers to watch, and
  // no "Forget this seat" (that is offered only when the kept seat itself is refused).
  await allied.waitForSelector('#banner:not([hidden]) a[href^="#watch="]', { timeout: 10_000 });
  assert(await allied.locator('#banner #forget-seat').count() === 0, 'a refused link does not offer to forget the kept seat');
  await shot(allied, '03b-crafted-seat-link.png');
  assert(await keptToken() === kept, 'a refused link did not delete the kept seat');
  // Back to the kept seat (the address is already #game=ID, the token dropped from it: a
  // new navigation, not a same-address one that changes nothing).
  await allied.goto(`${base}/`);
  await allied.goto(`${base}/#game=${gameId}`);
  await allied.waitForFunction(() => document.body.dataset.you === 'allied' && document.body.dataset.conn === 'open');
});

await check('the page speaks wss:// when it is served over https', async () => {
  const { GameSocket } = await import(pathToFileURL(path.join(here, '../../web/js/socket.js')).href);
  // socket.js reads the page's `location`; here it is a stand-in for each scheme.
  const url = (protocol) => {
    globalThis.location = { protocol, host: 'siege.example' };
    return GameSocket.prototype.url.call({ gameId: 'g' });
  };
  try {
    assert(url('https:') === 'wss://siege.example/ws/games/g', url('https:'));
    assert(url('http:') === 'ws://siege.example/ws/games/g', url('http:'));
  } finally {
    delete globalThis.location;
  }
});

await check('lobby: the player finds the private game being played (Play); a stranger\'s lobby neither lists it nor offers Join, and a public seek is joined from the list', async () => {
  // The Allied player's own browser (its kept seat), in a second tab.
  const own = await allied.context().newPage();
  own.on('pageerror', (e) => problems.push(`own lobby: page error: ${e.message}`));
  own.on('console', (m) => { if (m.type() === 'error') problems.push(`own lobby: console error: ${m.text()}`); });
  await own.goto(`${base}/`);
  const row = own.locator(`#games-mine .game-row[data-game='${gameId}']`);
  await row.waitFor({ timeout: 10_000 });
  assert(await row.locator('a', { hasText: /^Play/ }).count() === 1, `the player's own private game has Play: ${await row.textContent()}`);
  assert(await row.locator('button', { hasText: 'Join' }).count() === 0, 'and no Join');
  await shot(own, '04-lobby-lists.png');
  await own.close();
  // A stranger: the private game is not offered; a public seek is, with Join.
  const seek = await (await fetch(`${base}/api/games`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ side: 'chinese', name: 'Public seek', visibility: 'public' }) })).json();
  const privateOpen = await (await fetch(`${base}/api/games`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ side: 'chinese', name: 'Private open' }) })).json();
  const p = await newPage(browser, 'lobby');
  await p.goto(`${base}/`);
  const seekRow = p.locator(`#games-open .game-row[data-game='${seek.game_id}']`);
  await seekRow.waitFor({ timeout: 10_000 });
  assert(await p.locator(`.game-row[data-game='${gameId}']`).count() === 0, 'the private game being played is not in a stranger\'s lobby');
  assert(await p.locator(`.game-row[data-game='${privateOpen.game_id}']`).count() === 0, 'an open private game is not in a stranger\'s lobby');
  const joins = await p.$$eval('.game-row', (rows) => rows.filter((r) => [...r.querySelectorAll('button')].some((b) => /^Join/.test(b.textContent))).map((r) => r.dataset.game));
  assert(joins.includes(seek.game_id), `the public seek offers Join: ${joins}`);
  assert(!joins.includes(privateOpen.game_id) && !joins.includes(gameId), `Join only on public games: ${joins}`);
  await seekRow.locator('button', { hasText: 'Join' }).click();
  await p.waitForFunction(() => document.body.dataset.you === 'allied', null, { timeout: 10_000 });
  await p.context().close();
});

await check('Allied setup by clicks: default deployment, then end of setup; the others see it live', async () => {
  await allied.waitForFunction(() => document.body.dataset.toAct === 'allied');
  await shot(allied, '05-allied-setup.png');
  // One unit placed by hand: pick it in the tray, click a hex of a lit area; the page sends
  // choose_area, then place on that hex as soon as the server offers it.
  const first = await allied.$eval('#tray-body button.tray-unit', (b) => Number(b.dataset.unit));
  let seq = await seqOf(allied);
  await allied.click(`#tray-body button.tray-unit[data-unit='${first}']`);
  await waitSeq(allied, ++seq);
  const areas = (await legal(allied)).filter((a) => a.type === 'choose_area');
  assert(areas.length > 0, `no area to choose after selecting unit ${first}: ${await prompt(allied)}`);
  // Every label is words: no internal key (open_ne, chinese_houses) on any button (asserted
  // once the setup is over, so that the game goes on either way).
  const labels = await allied.$$eval('#actions button, #menu button', (bs) => bs.map((b) => b.textContent));
  const raw = labels.filter((t) => /[a-z]_[a-z]/.test(t));
  scenario = await (await fetch(`${base}/api/scenario`)).json();
  const area = scenario.areas.find((a) => a.key === areas[0].area);
  const spot = area.hexes.find((hex) => ['clear', 'building'].includes(scenario.hexes.find((x) => x.id === hex)?.terrain)) ?? area.hexes[0];
  await clickOnMap(allied, spot);
  await waitSeq(allied, ++seq);
  await allied.waitForTimeout(300);
  let placed = (await positions(allied)).find((s) => s.units.includes(first));
  if (!placed) {
    const place = pick(await legal(allied), 'place');
    assert(place, `no place offered in ${area.name}: ${await prompt(allied)}`);
    await act(allied, place);
    placed = (await positions(allied)).find((s) => s.units.includes(first));
  }
  assert(placed, `unit ${first} was not placed`);
  await shot(allied, '05b-allied-placed-one.png');
  let deployed = false;
  for (let i = 0; i < 5 && (await sideToAct()) === 'allied'; i++) {
    const l = await legal(allied);
    const a = (!deployed && pick(l, 'deploy_default')) || pick(l, 'end_phase') || pick(l, 'pass');
    assert(a, `nothing to end the setup with: ${JSON.stringify(l).slice(0, 200)}`);
    if (a.type === 'deploy_default') deployed = true;
    await act(allied, a);
  }
  assert(deployed, 'the default deployment was offered and taken');
  await allAt(await seqOf(allied));
  const onChinese = (await positions(chinese)).filter((s) => s.side === 'allied').length;
  assert(onChinese > 10, `the Chinese page shows ${onChinese} Allied stacks`);

  const logText = await watcher.textContent('#log');
  assert(/default deployment/i.test(logText), 'the watcher\'s log has the deployment');
  // The default fills in only what was not placed, and says so: the unit placed by hand stays.
  const after = (await positions(allied)).find((s) => s.units.includes(first));
  assert(after?.hex === placed.hex, `the unit placed by hand at ${placed.hex} is now at ${after?.hex}`);
  assert(new RegExp(`placed by hand and kept where they were: [^\\n]*at ${placed.hex}`).test(logText), `the log says the hand-placed unit was kept: ${logText.slice(-400)}`);
  assert(raw.length === 0, `labels with internal names: ${raw.join(' | ')}`);
});

/** How many lit targets of this page's orders are inside the map's box on screen. */
async function litOnScreen(page) {
  return page.evaluate(() => {
    const m = document.getElementById('map').getBoundingClientRect();
    return [...document.querySelectorAll('#map .hl')].filter((p) => {
      const r = p.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      return x > m.left && x < m.right && y > m.top && y < m.bottom;
    }).length;
  });
}

await check('the map stays where the player looks; when every new choice is out of sight it pans to the nearest, not to the middle', async () => {
  await chinese.waitForFunction(() => document.body.dataset.toAct === 'chinese');
  const boxers = (await legal(chinese)).find((a) => a.type === 'select_entry' && a.kind === 'boxer');
  assert(boxers, `the Chinese entry offers Boxers: ${await prompt(chinese)}`);
  // Close up on the middle of the quarter, where no edge hex is in sight.
  await wheelZoom(chinese, '2020', 5);
  const scale = async () => Number((await chinese.getAttribute('#map', 'viewBox')).split(' ')[2]);
  const w = await scale();
  await act(chinese, boxers);
  await allAt(await seqOf(chinese));
  const lit = await litOnScreen(chinese);
  assert(lit > 0, 'after choosing Boxers an edge hex to enter at is in sight (the view went to the nearest, not the average)');
  assert(Math.abs(await scale() - w) < 1, 'the zoom was kept');
  await shot(chinese, '06-entry-nearest-edge.png');
  // Entering at a hex in sight leaves the view where it is: the next choices are there too.
  const onScreen = [];
  for (const a of (await legal(chinese)).filter((x) => x.type === 'enter')) {
    if ((await hexOnScreen(chinese, a.hex)).inside) onScreen.push(a);
  }
  assert(onScreen.length > 0, 'an entry hex on screen');
  const vb = await chinese.getAttribute('#map', 'viewBox');
  await act(chinese, onScreen[0]);
  await allAt(await seqOf(chinese));
  entryByTest = onScreen[0].hex;
  if ((await litOnScreen(chinese)) > 0) assert(await chinese.getAttribute('#map', 'viewBox') === vb, 'the view did not move while choices were in sight');
});

/** Checks made along the way of the game (the log, the odds, a refusal): a failure is kept
 *  and reported by the check that is playing, and the game goes on, so one failure does not
 *  hide the others. */
const along = [];
/** How many declared attacks had the prompt's odds compared with the table's column. */
let oddsCompared = 0;

async function soft(fn) {
  try { await fn(); } catch (e) { along.push(e.message.split('\n')[0]); }
}

/** The failures kept since the last call, as one assertion. */
function noneAlong() {
  const list = along.splice(0);
  assert(list.length === 0, list.join('\n    '));
}

/** Every page shows the newest log entry in a log box of usable height, unless its reader
 *  scrolled up on purpose. */
async function logsFollow(when, pages = [allied, chinese, watcher]) {
  for (const p of pages) {
    // What a reader sees: after the page has drawn its next frame.
    const r = await p.evaluate(async () => {
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const log = document.getElementById('log');
      const items = log.querySelectorAll('li');
      const last = items[items.length - 1];
      const lr = log.getBoundingClientRect();
      const height = Math.min(lr.bottom, innerHeight) - Math.max(lr.top, 0);
      if (!last) return { height, shown: true, text: '' };
      const r = last.getBoundingClientRect();
      return {
        height, shown: r.bottom <= Math.min(lr.bottom, innerHeight) + 2 && r.bottom > Math.max(lr.top, 0), text: last.textContent.slice(0, 80),
        how: `following ${log.dataset.following}, scrollTop ${log.scrollTop}, scrollHeight ${log.scrollHeight}, clientHeight ${log.clientHeight}, entry bottom ${Math.round(r.bottom)}, box bottom ${Math.round(lr.bottom)}`,
      };
    });
    assert(r.height >= 150, `${when}: ${p.name}'s log is ${Math.round(r.height)}px tall on screen`);
    assert(r.shown, `${when}: ${p.name}'s log does not show its newest entry (${r.text}; ${r.how})`);
  }
}

/** One decision of the game by the side to act, the way a player would make it. */
/** The scripted game's last decisions, for the message of a check whose game stalls. */
const recentDecisions = [];

async function decide(state) {
  const side = await sideToAct();
  if (!side) return false;
  const page = side === 'allied' ? allied : chinese;
  const l = await legal(page);
  if (!l.length) { await page.waitForTimeout(200); return true; }
  const p = await prompt(page);
  const has = (t) => pick(l, t);
  let a;
  if (side === 'chinese') {
    if (has('enter') && state.entered < 4) {
      // Bring them on where the Allies are near, each at a different edge hex.
      const allies = (await positions(page)).filter((s) => s.side === 'allied').map((s) => s.hex);
      a = l.filter((x) => x.type === 'enter' && !state.enteredAt.has(x.hex)).sort((x, y) => near(x.hex, allies) - near(y.hex, allies))[0] ?? has('enter');
      state.enteredAt.add(a.hex);
      state.entered += 1;
      if (state.entered === 3) state.shotEntry = true;
    } else if (has('select_entry') && state.entered < 4) {
      a = l.find((x) => x.type === 'select_entry' && x.kind === 'boxer') ?? has('select_entry');
    } else if (has('deploy_default') && /enter|entry/i.test(p)) {
      a = has('deploy_default');
    } else if (has('place_gun')) {
      // Near the Allied lines: the gun hex closest to an Allied stack.
      const allies = (await positions(page)).filter((s) => s.side === 'allied').map((s) => s.hex);
      a = l.filter((x) => x.type === 'place_gun').sort((x, y) => near(x.hex, allies) - near(y.hex, allies))[0];
    } else if (has('fire')) a = l.find((x) => x.type === 'fire' && x.direction === state.dir) ?? has('fire');
    else if (has('resolve') && state.attacking) a = has('resolve');
    else if (has('add_attacker')) a = has('add_attacker');
    // A unit in the ZOC of two enemy hexes joins only an attack on both (8.1.2): add the other.
    else if (has('add_defender') && state.attacking) a = has('add_defender');
    else if (has('attack') && (state.combats ?? 0) < 1 && !state.triedAttack) { a = has('attack'); state.attacking = true; state.triedAttack = true; }
    else if (has('cancel_attack')) a = has('cancel_attack');
    else if (has('move') && state.moving) a = bestMove(l, await positions(page));
    else if (has('stop')) a = has('stop');
    else if (has('select_unit') && /movement: select/i.test(p) && state.moved < 3) {
      // A unit on the edge nearest the Allies.
      const pos = await positions(page);
      const allies = pos.filter((s) => s.side === 'allied').map((s) => s.hex);
      const mine = pos.filter((s) => s.side === 'chinese' && !state.movedHexes.has(s.hex))
        .sort((x, y) => near(x.hex, allies) - near(y.hex, allies))[0];
      a = mine && l.find((x) => x.type === 'select_unit' && mine.units.includes(x.unit));
      if (a) { state.moving = true; state.moved += 1; state.movedHexes.add(mine.hex); }
    } else if (has('advance')) a = has('pass') ?? has('advance');
    else if (has('lose_step')) a = has('lose_step');
    else if (has('retreat')) a = has('retreat');
    // A forced attack (8.1.2) is declared here when nothing else is left; one given up is not
    // taken again while another target is open, and once declared it is carried to its roll.
    state.cancelled ??= new Set();
    if (!a) a = has('end_phase') ?? has('pass') ?? l.find((x) => x.type === 'attack' && !state.cancelled.has(x.hex)) ?? l[0];
    if (a.type === 'attack') state.attacking = true;
    if (a.type === 'cancel_attack') { state.attacking = false; state.cancelled.add(state.target); }
    if (a.type === 'move') state.moving = false;
  } else if (state.alliedSelected && has('move') && !state.alliedMoved) {
    if (!state.refusalShown) await soft(async () => {
      // A click on a hex the stack cannot reach says why, in the engine's words with the rule.
      state.refusalShown = true;
      const far = ['0101', '3901', '0140', '3940'].find((hx) => !l.some((x) => x.to === hx));
      await clickOnMap(page, far);
      await page.waitForFunction((hx) => document.querySelector('#hexinfo').textContent.startsWith(hx) && !/asking/.test(document.querySelector('#hexinfo').textContent), far, { timeout: 10_000 });
      const why = await page.textContent('#hexinfo');
      assert(/rule|\(\d/.test(why) && /reach|ZOC|canal|enemy|stack/i.test(why), `why ${far} is no order: ${why}`);
      assert(await seqOf(page) === await seqOf(watcher), 'asking why changed nothing');
      await shot(page, '09b-why-not.png');
    });
    // ...then a lit destination.
    a = l.filter((x) => x.type === 'move').sort((x, y) => y.mp - x.mp)[0];
    state.alliedMoved = true;
  } else if (state.alliedSelected && !state.alliedMoved && !has('move') && has('stop') && (state.reselected ?? 0) < 6) {
    // The stack picked has nowhere to go (ZOC, terrain): it stops, and another is tried.
    a = has('stop');
    state.alliedSelected = false;
    state.reselected = (state.reselected ?? 0) + 1;
  } else if (/reaction/i.test(p) && !state.alliedSelected && !state.alliedMoved && (has('select_stack') || has('select_unit'))) {
    // One Allied stack (or unit, as the engine may offer) steps up in the reaction phase: click it...
    state.tried ??= new Set();
    const picks = l.filter((x) => ['select_stack', 'select_unit'].includes(x.type));
    a = picks.find((x) => !state.tried.has(JSON.stringify(x))) ?? picks[0];
    state.tried.add(JSON.stringify(a));
    state.alliedSelected = true;
  } else {
    a = has('lose_step') ?? has('retreat') ?? has('place_leader') ?? (has('set_leader_use') && has('resolve'))
      ?? has('pass') ?? has('end_phase') ?? has('stop') ?? has('stop_retreat') ?? has('remove_unit') ?? l[0];
  }
  // The scripted player's own choices can go round in a circle on some dice (select, stop,
  // select …): when the last 24 decisions of this turn hold at most three different ones, it
  // ends the phase (or passes, or stops) instead, and says so — a driver's loop is not what
  // this game is checking. The last decisions are kept for the message if the turn never ends.
  state.recent ??= [];
  const sig = (x) => `${side} ${JSON.stringify({ ...x, warning: undefined })}`;
  if (state.recent.length >= 24 && new Set(state.recent.slice(-24)).size <= 3) {
    const way = [has('end_phase'), has('pass'), has('stop')].find((x) => x && !state.recent.slice(-24).includes(sig(x)));
    if (way) {
      notes.add(`the scripted player broke a circle of its own choices (${[...new Set(state.recent.slice(-24))].join('; ').slice(0, 300)})`);
      a = way;
      state.recent.length = 0;
    }
  }
  state.recent.push(sig(a));
  recentDecisions.push(`${sig(a)} — ${(p ?? '').slice(0, 80)}`);
  if (recentDecisions.length > 12) recentDecisions.shift();
  if (state.shots && a.type === 'fire') { state.shots = false; await shot(page, '07-big-gun-fire.png'); }
  if (state.shotEntry && a.type === 'enter') { state.shotEntry = false; await shot(page, '08-chinese-entry.png'); }
  const before = await seqOf(page);
  if (a.type === 'move' && !state.shotMove) {
    state.shotMove = true;
    await wheelZoom(page, a.to, 4);
    await shot(page, '09-move-targets.png');
  }
  if (a.type === 'resolve') {
    await shot(page, '10-odds-before-roll.png');
    await shot(allied, '10b-odds-seen-by-allies.png');
    await soft(() => chancesShown(page));
  }
  if (a.type === 'attack') state.target = a.hex;
  await act(page, a);
  if (a.type === 'add_attacker' && !state.readme) {
    // The attack with its odds, zoomed in with the mouse wheel over the target: the README's picture.
    state.readme = true;
    await wheelZoom(page, state.target, 2);
    const file = await shot(page, '10a-attack-declared.png');
    if (process.env.SIEGE_README_SHOT) fs.copyFileSync(file, path.resolve(here, '../../docs/screenshot.png'));
    // The tables beside it, the attack's column lit: the README's second picture.
    await page.keyboard.press('t');
    await page.waitForSelector('#charts:not([hidden]) #crt-table td.lit', { timeout: 5000 }).catch(() => along.push('the CRT drawer does not light the declared attack'));
    const tables = await shot(page, '10c-tables-lit.png');
    if (process.env.SIEGE_README_SHOT) fs.copyFileSync(tables, path.resolve(here, '../../docs/screenshot-tables.png'));
    await page.keyboard.press('t');
  }
  if (a.type === 'resolve') { combats += 1; state.attacking = false; state.combats = (state.combats ?? 0) + 1; }
  await allAt(before + 1);
  if (a.type === 'deploy_default' && side === 'chinese' && !state.defaultChecked) {
    // The Chinese default entry leaves the entry open to adjust, and says what it did.
    state.defaultChecked = true;
    await soft(async () => {
      assert(await toAct(page) === 'chinese', `after the Chinese default entry the ${await toAct(page)} side is to act`);
      assert(pick(await legal(page), 'end_phase'), `the entry can still be adjusted, then ended: ${await prompt(page)}`);
      const last = await page.evaluate(() => [...document.querySelectorAll('#log li')].map((l) => l.textContent).join(' | ').slice(-600));
      assert(/\d+ units? placed|placed/.test(last), `the log says what the default did: ${last}`);
    });
  }
  if (a.type === 'fire' && !state.shotMarked) {
    // Where the shot landed is marked on every page, its track drawn from the gun.
    state.shotMarked = true;
    await soft(async () => {
      for (const p of [allied, chinese, watcher]) {
        await p.waitForSelector('#map .shot[data-shot="1"]', { state: 'attached', timeout: 5000 });
        const title = await p.textContent('#map .shot[data-shot="1"] title');
        assert(/Big Gun shot/.test(title), `${p.name}: the shot's marker says ${title}`);
      }
    });
  }
  if (a.type === 'resolve') {
    // The last combat's box and new buttons have just appeared on every page: the log must
    // still show what happened, newest line last.
    await soft(() => logsFollow(`after combat ${combats}`));
  }
  return true;
}

/** The odds panel gives the chance of each result of the attack being declared, as its column
 *  and die modifier read on the scenario's CRT. */
async function chancesShown(page) {
  const game = await (await fetch(`${base}/api/games/${gameId}`)).json();
  const r = game.view.declaration.odds;
  const want = {};
  const c = scenario.crt.columns.indexOf(r.column);
  for (let die = 1; die <= 6; die++) {
    const read = Math.min(6, Math.max(1, die + r.modifier));
    const code = c < 0 ? scenario.crt.below : scenario.crt.die[String(read)][c];
    want[code] = (want[code] ?? 0) + 1;
  }
  for (const p of [allied, chinese, watcher]) {
    await p.waitForSelector('#chances');
    const got = Object.fromEntries(await p.$$eval('#chances li[data-result]', (ls) => ls.map((l) => [l.dataset.result, Number(l.dataset.sixths)])));
    assert(JSON.stringify(Object.entries(got).sort()) === JSON.stringify(Object.entries(want).sort()), `${p.name}: chances on ${r.column} (die ${r.modifier >= 0 ? '+' : ''}${r.modifier}) ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }
  const words = await page.textContent('#chances');
  assert(/%/.test(words), `the chances in per cent: ${words}`);
  // The prompt's odds agree with the table's column: "4 against 10 = 1-3, shifted to 1-2 by
  // artillery", never "= 1-2" alone when the table reads 1-3.
  const said = await prompt(page);
  const m = /against [^=]*= ([^,;.\s]+)(?:, shifted to ([^\s,;.]+))?/.exec(said);
  // (A prompt may be another decision of the attack, such as a defending leader's use: then
  // there are no odds in it to compare. The scripted game must compare some: see turns 2–3.)
  if (m && r.column && !r.automatic) {
    assert((m[2] ?? m[1]) === r.column, `the prompt says ${m[0]}, the odds column is ${r.column} (shift ${JSON.stringify(r.shift ?? r.shifts ?? null)})`);
    oddsCompared += 1;
  }
}

/** Zoom in over `hex` with the mouse wheel, from the whole map. */
async function wheelZoom(page, hex, notches) {
  await page.click('#zoom-fit');
  const { hexOnScreen } = await import('./lib.mjs');
  for (let i = 0; i < notches; i++) {
    const p = await hexOnScreen(page, hex);
    await page.mouse.move(p.x, p.y);
    await page.mouse.wheel(0, -240);
    await page.waitForTimeout(30);
  }
}

function near(hex, others) {
  return Math.min(...others.map((o) => distance(hex, o)));
}

/** The move that ends nearest an Allied stack (and costs the most MP, to travel far). */
function bestMove(l, pos) {
  const allies = pos.filter((s) => s.side === 'allied').map((s) => s.hex);
  return l.filter((x) => x.type === 'move').sort((x, y) => near(x.to, allies) - near(y.to, allies) || y.mp - x.mp)[0];
}

await check('turn 1 by clicks: Big Gun aimed by arrows, Chinese entry and moves on the map, an attack declared and resolved; the Allies see it live', async () => {
  const state = { dir: 'se', moved: 0, entered: 0, enteredAt: new Set(), movedHexes: new Set(), shots: true };
  let steps = 0;
  while (steps < 220) {
    steps += 1;
    const phase = await allied.evaluate(() => document.querySelector('.phase-track .now')?.textContent ?? '');
    if (combats >= 1 && !/Chinese combat/.test(phase)) break;
    if (/Allied move/.test(phase) && combats === 0) break; // no attack reachable this turn
    await decide(state);
  }
  assert(state.entered >= 3, `the Chinese entered ${state.entered} units by clicking`);
  assert(state.defaultChecked, 'the Chinese default entry was taken, and what it leaves open was checked');
  assert(state.moved >= 1, `the Chinese moved ${state.moved} units`);
  assert(state.alliedMoved, 'an Allied stack moved in the reaction phase');
  const onAllied = (await positions(allied)).filter((s) => s.side === 'chinese').length;
  assert(onAllied >= 3, `the Allied page shows ${onAllied} Chinese stacks`);
  await shot(allied, '11-after-chinese-combat-allied-view.png');
  await shot(watcher, '12-watcher.png');
  const log = await allied.textContent('#log');
  assert(/Big Gun shot/.test(log), 'the Big Gun shots are in the log');
  assert(/move/.test(log), 'the moves are in the log');
  assert(combats >= 1, 'an attack was declared and resolved by clicks');
  assert(/rolled\D{0,3}\d/.test(log), 'the log shows the dice');
  noneAlong();
});

await check('the pages follow patches: one full state per connection, then patch frames', async () => {
  for (const [name, counts] of Object.entries(received)) {
    assert((counts.patch ?? 0) >= 20, `${name} received ${JSON.stringify(counts)}`);
    assert((counts.state ?? 0) <= 4, `${name} received ${JSON.stringify(counts)}`);
  }
});

await check('LOS tool: two hexes picked, the line drawn with the engine\'s verdict', async () => {
  await allied.click('#toggle-los');
  await allied.click('#zoom-fit');
  const { clickHex } = await import('./lib.mjs');
  // Two hexes of the Legation Quarter (clear or blocked, as the engine finds them in this game's
  // position), then from the legations over the Tartar Wall, which is never clear (8.5).
  await clickHex(allied, '1618');
  await clickHex(allied, '1622');
  await allied.waitForFunction(() => document.querySelector('#los-box').dataset.verdict);
  const text = await allied.textContent('#los-box');
  assert(/1618 → 1622: (line of sight is clear|blocked at \d{4})/.test(text), `LOS box says: ${text}`);
  assert(/Rules: .*8\.5/.test(text), `the verdict cites 8.5: ${text}`);
  assert(await allied.locator('#map .los-line.clear, #map .los-line.blocked').count() === 1, 'the line is drawn with its verdict');
  await clickHex(allied, '2533');
  await clickHex(allied, '2538');
  await allied.waitForFunction(() => /2533 → 2538: (line|blocked)/.test(document.querySelector('#los-box').textContent));
  assert(await allied.getAttribute('#los-box', 'data-verdict') === 'blocked', `over the Tartar Wall: ${await allied.textContent('#los-box')}`);
  await shot(allied, '13-los.png');
  await allied.click('#toggle-los');
});

/** While the test holds the server down, Chromium logs each refused reconnection attempt of the
 *  pages (more of them the slower the machine): expected then, and only then. A handshake the
 *  killed server had accepted but not answered is reset instead (seen once on a loaded
 *  machine), which is just as expected while the test kills it. */
function serverDown(fn) {
  return expectingConsole([allied, chinese, watcher], /WebSocket connection to .* failed: .*ERR_CONNECTION_(REFUSED|RESET)/, fn);
}

await check('reconnect: the server is killed and restarted; pages show a banner, then resume from their seq', async () => {
  const before = await seqOf(allied);
  await serverDown(async () => {
    await server.restart();
    for (const p of [allied, chinese, watcher]) {
      await p.waitForFunction(() => document.body.dataset.conn === 'open', null, { timeout: 20_000 });
    }
  });
  assert(await seqOf(allied) === before, 'the same seq after resuming');
  // The game goes on after the restart: the side to act takes one more decision.
  const state = { dir: 'n', moved: 3, entered: 4, enteredAt: new Set(), movedHexes: new Set(), shots: false };
  await decide(state);
  await allAt(before + 1);
  noneAlong();
});

await check('a dropped socket shows the banner while it is down', async () => {
  await serverDown(async () => {
    await server.kill();
    await allied.waitForSelector('#banner:not([hidden])', { timeout: 10_000 });
    await shot(allied, '14-reconnect-banner.png');
    await server.restart();
    for (const p of [allied, chinese, watcher]) {
      await p.waitForFunction(() => document.body.dataset.conn === 'open', null, { timeout: 20_000 });
    }
  });
  await allied.waitForSelector('#banner', { state: 'hidden', timeout: 20_000 });
});

await check('the map pans by dragging and zooms by the wheel, without giving orders', async () => {
  const before = await seqOf(watcher);
  const vb0 = await watcher.getAttribute('#map', 'viewBox');
  await wheelZoom(watcher, '2020', 3);
  const vb1 = await watcher.getAttribute('#map', 'viewBox');
  assert(vb1 !== vb0, 'the wheel zoomed');
  const box = await watcher.locator('#map').boundingBox();
  await watcher.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await watcher.mouse.down();
  await watcher.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2 - 60, { steps: 6 });
  await watcher.mouse.up();
  const vb2 = await watcher.getAttribute('#map', 'viewBox');
  assert(vb2 !== vb1, 'the drag panned');
  assert(await seqOf(watcher) === before, 'no order given');
  await shot(watcher, '15-watcher-zoomed.png');
});

/** The turn on the track of `page`'s panel. */
async function turnOf(page) {
  return page.evaluate(() => Number(document.querySelector('.turn-track li.now')?.textContent ?? 0));
}

await check('turns 2 and 3 by clicks on both seats, the spectator following live; the logs keep their newest line in view', async () => {
  const t0 = Date.now();
  let turn = await turnOf(allied);
  let state = { dir: 'sw', moved: 0, entered: 0, enteredAt: new Set(), movedHexes: new Set(), shots: false };
  let scrolled = false;
  let steps = 0;
  while (steps < 1200) {
    const now = await turnOf(allied);
    if (now !== turn) {
      turn = now;
      state = { dir: ['n', 'se', 'sw', 'ne'][turn % 4], moved: 0, entered: 0, enteredAt: new Set(), movedHexes: new Set(), shots: false };
      await soft(() => logsFollow(`start of turn ${turn}`));
    }
    if (turn >= 4 || !(await sideToAct())) break;
    if (turn === 2 && !scrolled && steps > 5) {
      // A reader who scrolled up on purpose keeps their place while entries arrive.
      scrolled = true;
      const box = await watcher.locator('#log').boundingBox();
      await watcher.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await watcher.mouse.wheel(0, -100_000);
      await watcher.waitForFunction(() => document.getElementById('log').scrollTop === 0);
      await decide(state);
      steps += 1;
      const top = await watcher.evaluate(() => document.getElementById('log').scrollTop);
      if (top !== 0) along.push(`the watcher scrolled up; the log moved to ${top}`);
      await watcher.mouse.wheel(0, 100_000);
      await watcher.waitForTimeout(300);
      await decide(state);
      steps += 1;
      await soft(() => logsFollow('after scrolling back down', [watcher]));
      continue;
    }
    await decide(state);
    steps += 1;
  }
  const over = await allied.locator('#result').isVisible();
  assert(turn >= 4 || over, `the game reached turn ${turn} in ${steps} decisions; the last ones:\n      ${recentDecisions.join('\n      ')}`);
  assert(oddsCompared > 0, 'no declared attack had its odds in the prompt to compare with the table');
  noneAlong();
  await shot(allied, '19-turn-4-allied.png');
  await shot(watcher, '19b-turn-4-watcher.png');
  console.log(`# turns 2–3: ${steps} decisions in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
});

await check('replay: step, slider and jump over the game, states from the server', async () => {
  const p = await newPage(browser, 'replay');
  await p.goto(`${base}/#replay=${gameId}`);
  await p.waitForSelector('#replay-slider');
  const n = Number(await p.getAttribute('#replay-slider', 'max'));
  assert(n > 10, `the log has ${n} actions`);
  await p.waitForFunction((n) => document.body.dataset.replayPos === String(n), n);
  await p.click('#replay-first');
  await p.waitForFunction(() => document.body.dataset.replayPos === '0');
  assert(await p.locator('#log li.entry.current').count() === 0, 'before the first action no log entry is marked');
  await p.click('#replay-forward');
  await p.click('#replay-forward');
  await p.waitForFunction(() => document.body.dataset.replayPos === '2');
  await p.click('#replay-back');
  await p.waitForFunction(() => document.body.dataset.replayPos === '1');
  await p.locator('#replay-slider').fill(String(Math.floor(n / 2)));
  await p.waitForFunction((k) => document.body.dataset.replayPos === String(k), Math.floor(n / 2));
  const options = await p.$$eval('#replay-jump option', (os) => os.map((o) => ({ v: o.value, t: o.textContent, pos: o.dataset.pos, disabled: o.disabled })));
  const values = options.filter((o) => o.v !== '').map((o) => o.v);
  assert(new Set(values).size === values.length, 'each place in the jump list is an option of its own');
  assert(/^Setup/.test(options[1].t), `the first place: ${options[1].t}`);
  // Every phase that can be chosen shows that phase; one that was skipped says so.
  const phases = options.filter((o) => / Phase/.test(o.t) && !o.disabled);
  for (const o of phases.slice(0, 24)) {
    await p.selectOption('#replay-jump', o.v);
    await p.waitForFunction((k) => document.body.dataset.replayPos === k, o.pos);
    const where = await p.textContent('.replay-where');
    const name = o.t.replace(/^.*?(\w[\w ]* Phase).*$/, '$1');
    assert(where.includes(name), `chose "${o.t}", shown: ${where}`);
    assert((await p.$eval('#replay-jump', (s) => s.selectedOptions[0].textContent)) === o.t, `the jump list shows ${o.t}`);
  }
  // A phase begun and passed over within one action has no position of its own: marked as
  // skipped and not offered (before, it shared the next phase's place and showed that one).
  const log = await (await fetch(`${base}/api/games/${gameId}/log`)).json();
  const passed = log.entries.flatMap((e) => {
    const heads = e.events.filter((x) => x.kind === 'phase_began');
    return heads.slice(0, -1).map((x) => x.text);
  });
  const skipped = options.filter((o) => o.disabled && /skipped/.test(o.t)).map((o) => o.t);
  assert(passed.every((t) => skipped.some((o) => o.startsWith(t))), `phases passed over: ${passed.join(' | ')}; marked: ${skipped.join(' | ')}`);
  notes.add(`${passed.length} phases passed over in one action in the scripted game`);
  const combat = options.find((o) => /Chinese Combat/.test(o.t) && !o.disabled);
  assert(combat, `no Chinese combat phase to jump to: ${options.map((o) => o.t).join(' | ')}`);
  await p.selectOption('#replay-jump', combat.v);
  await p.waitForFunction((k) => document.body.dataset.replayPos === k, combat.pos);
  const later = await p.locator('#map .stack').count();
  assert(later > 0, `the Chinese combat position draws its stacks (${later} drawn)`);
  await shot(p, '16-replay.png');
  // "Analyse": the position shown goes to the analysis board, every unit on its hex.
  const shown = await positions(p);
  await p.click('#analyse-position');
  await p.waitForSelector('#analysis-panel:not([hidden]) #an-mix');
  await p.waitForFunction(() => ['ready', 'invalid', 'error'].includes(document.body.dataset.analysis));
  const analysed = await positions(p);
  const key = (list) => JSON.stringify(list.map((s) => `${s.hex}:${s.units.sort((a, b) => a - b).join(',')}`).sort());
  assert(key(analysed) === key(shown), `the analysis board shows the replay's ${shown.length} stacks, not ${analysed.length}`);
  assert(await p.locator('#an-error').isHidden(), `a game's position is valid: ${await p.textContent('#an-error')}`);
  await shot(p, '16b-replay-analysed.png');
  await p.goBack();
  await p.waitForSelector('#replay-slider');
  await p.context().close();
});

await check('replay: a custom start says so; a phase passed over in one action is marked skipped, the next one shows itself', async () => {
  // The Allied reaction of a custom position with no Allied leader: ending it passes over the
  // Sniper Phase (nothing to decide) and opens the Chinese Combat Phase, in one action.
  const position = { turn: 1, phase: 'allied_reaction', units: [
    { ref: 'a', side: 'chinese', type: 'boxer', hex: '0810' }, { ref: 'b', side: 'allied', type: 'combat', nationality: 'british', hex: '0813' }] };
  const post = async (path, body) => (await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
  const g = await post('/api/games', { side: 'allied', position });
  await post(`/api/games/${g.game_id}/join`, { code: g.invite_code });
  const player = await newPage(browser, 'custom-player');
  await player.goto(`${base}/#game=${g.game_id}&token=${g.token}`);
  await player.waitForFunction(() => document.body.dataset.toAct === 'allied');
  await act(player, pick(await legal(player), 'end_phase'));
  await player.context().close();
  const log = await (await fetch(`${base}/api/games/${g.game_id}/log`)).json();
  const heads = log.entries[0].events.filter((e) => e.kind === 'phase_began').map((e) => e.text);
  assert(heads.length === 2, `one action began two phases: ${heads}`);

  const p = await newPage(browser, 'replay-custom');
  await p.goto(`${base}/#replay=${g.game_id}`);
  await p.waitForFunction(() => document.body.dataset.replayPos === '1');
  assert(await p.locator('#log li.entry.current').count() === 1, 'the action shown is marked in the log');
  await p.click('#replay-first');
  await p.waitForFunction(() => document.body.dataset.replayPos === '0');
  assert(await p.locator('#log li.entry.current').count() === 0, 'before the first action no log entry is marked');
  const options = await p.$$eval('#replay-jump option', (os) => os.map((o) => ({ v: o.value, t: o.textContent, disabled: o.disabled })));
  assert(/^Custom start: turn 1, Allied reaction/i.test(options[1].t), `the first place of a custom start: ${options[1].t}`);
  const values = options.filter((o) => o.v !== '').map((o) => o.v);
  assert(new Set(values).size === values.length, `each place is an option of its own: ${JSON.stringify(options)}`);
  const sniper = options.find((o) => o.t.startsWith(heads[0]));
  assert(sniper?.disabled && /skipped/.test(sniper.t), `the passed-over phase: ${JSON.stringify(sniper)}`);
  const combat = options.find((o) => o.t.startsWith(heads[1]));
  await p.selectOption('#replay-jump', combat.v);
  await p.waitForFunction(() => document.body.dataset.replayPos === '1');
  const shown = await p.$eval('#replay-jump', (s) => s.selectedOptions[0].textContent);
  assert(shown === combat.t, `chose ${combat.t}, the list shows ${shown}`);
  assert(/Chinese Combat Phase/.test(await p.textContent('.replay-where')), `the board shows ${await p.textContent('.replay-where')}`);
  await shot(p, '16c-replay-skipped-phase.png');
  await p.context().close();
});

await tableChecks(browser, base);

await analysisChecks(browser, base, { readme: Boolean(process.env.SIEGE_README_SHOT) });

await botChecks(browser, base);

await accountChecks(browser, base);

await chatChecks(browser, base);
await myGamesChecks(browser, base);
await notifyChecks(browser, base);
await accountSeatChecks(browser, base);

await check('the page on a phone: map above, panel below, the game drawn', async () => {
  const p = await newPage(browser, 'phone', { width: 390, height: 844 }, { isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await p.goto(`${base}/#watch=${gameId}`);
  await p.waitForSelector('#map .stack');
  await shot(p, '17-phone.png');
  // Two fingers spreading apart zoom in (touch pointers, as a phone's browser sends them).
  const vb0 = await p.getAttribute('#map', 'viewBox');
  await p.evaluate(() => {
    const svg = document.getElementById('map');
    const box = svg.getBoundingClientRect();
    const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
    const ev = (type, id, x) => svg.dispatchEvent(new PointerEvent(type, { pointerId: id, pointerType: 'touch', clientX: x, clientY: cy, bubbles: true, isPrimary: id === 1 }));
    ev('pointerdown', 1, cx - 20); ev('pointerdown', 2, cx + 20);
    for (let d = 20; d <= 100; d += 10) { ev('pointermove', 1, cx - d); ev('pointermove', 2, cx + d); }
    ev('pointerup', 1, cx - 100); ev('pointerup', 2, cx + 100);
  });
  const vb1 = await p.getAttribute('#map', 'viewBox');
  const width = (vb) => Number(vb.split(' ')[2]);
  assert(width(vb1) < width(vb0) / 2, `pinch zoomed from ${vb0} to ${vb1}`);
  await shot(p, '18-phone-pinched.png');
  await p.context().close();
});

await browser.close();
await server.stop();
console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s`);
finish();
