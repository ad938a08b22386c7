// The table's aids for a long game, each on a fresh game against the real server: the combat
// results table and terrain chart on screen, the keyboard shortcuts and their help, undo and
// the confirmation before an order with a warning (both as the engine offers them; a tap on the
// socket only watches what the page sends), the phase track at the end of a turn, out of command on
// the counter and in the unit's panel, victory hexes seen under counters, why a click is no
// order, and the phone: tap to select and tap again to confirm, tools beside the map, whose
// move next to the prompt. run.mjs runs these; alone (own server):
//
//   SIEGE_BIN=... node tests/browser/table-checks.mjs

import { pathToFileURL } from 'node:url';
import { launch, newPage, shot, check, assert, finish, hexOnScreen } from './lib.mjs';
import { SiegeServer } from './server.mjs';
import { legal, seqOf, waitSeq, act, take, pick, positions, distance } from './drive.mjs';
import { tapSocket, actionsSent } from './socket-tap.mjs';

async function post(base, path, body) {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  return r.json();
}

/** A new game with both seats taken: `{id, allied, chinese}` (the seats' tokens). */
async function freshGame(base, name, extra = {}) {
  const g = await post(base, '/api/games', { side: 'allied', name, ...extra });
  const j = await post(base, `/api/games/${g.game_id}/join`, { code: g.invite_code });
  return { id: g.game_id, allied: g.token, chinese: j.token };
}

/** A page sitting at one seat of `game` (its seat link), optionally with a tap on its socket
 *  installed first. */
async function seated(browser, base, game, side, name, { tap = false, viewport, opts } = {}) {
  const page = await newPage(browser, name, viewport, opts);
  const t = tap ? await tapSocket(page) : null;
  await page.goto(`${base}/#game=${game.id}&token=${game[side]}`);
  await page.waitForFunction(() => document.body.dataset.seq !== undefined);
  // The seat-keeping notice is checked in run.mjs; here it would only take room.
  const kept = page.locator('#seat-kept');
  if (await kept.isVisible()) await kept.click();
  return { page, tap: t };
}

export async function tableChecks(browser, base) {
  const scenario = await (await fetch(`${base}/api/scenario`)).json();

  await check('the CRT and the terrain chart on screen, as the server publishes them (T, the CRT button)', async () => {
    const game = await freshGame(base, 'tables');
    const { page } = await seated(browser, base, game, 'allied', 'tables');
    assert(scenario.crt?.columns?.length === 8, `the scenario publishes the CRT: ${JSON.stringify(scenario.crt).slice(0, 120)}`);
    await page.keyboard.press('t');
    await page.waitForSelector('#charts:not([hidden]) #crt-table');
    const cells = await page.$$eval('#crt-table tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    assert(cells.length === 6, `six die rows, not ${cells.length}`);
    for (let d = 1; d <= 6; d++) {
      assert(JSON.stringify(cells[d - 1]) === JSON.stringify(scenario.crt.die[String(d)]), `die ${d}: ${cells[d - 1]} against ${scenario.crt.die[String(d)]}`);
    }
    const key = await page.textContent('#charts .results-key');
    assert(/DL1\s*defender loses a step and retreats/.test(key), `results spelled out: ${key}`);
    const terrains = await page.$$eval('#tec-table tbody tr', (rows) => rows.map((r) => r.dataset.terrain));
    assert(terrains.length === Object.keys(scenario.terrain_chart).length, `every terrain of the chart: ${terrains}`);
    const building = await page.textContent('#tec-table tr[data-terrain=building]');
    assert(/×3/.test(building) && /18\.2/.test(building), `building: ${building}`);
    await shot(page, '30-tables.png');
    await page.click('#toggle-charts');
    await page.waitForSelector('#charts', { state: 'hidden' });
    await page.context().close();
  });

  await check('keyboard: ? lists the shortcuts, + and 0 zoom, E ends the phase, N shows the next order', async () => {
    const game = await freshGame(base, 'keys');
    const { page } = await seated(browser, base, game, 'allied', 'keys');
    await page.keyboard.press('?');
    await page.waitForSelector('#help:not([hidden]) #shortcut-list');
    const rows = await page.$$eval('#shortcut-list tr', (rs) => rs.map((r) => r.dataset.shortcut));
    for (const k of ['end', 'undo', 'next', 'zoom', 'charts', 'help']) assert(rows.includes(k), `the help lists ${k}: ${rows}`);
    await shot(page, '31-help.png');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#help', { state: 'hidden' });
    const width = async () => Number((await page.getAttribute('#map', 'viewBox')).split(' ')[2]);
    await page.keyboard.press('0');
    const w0 = await width();
    await page.keyboard.press('+');
    assert(await width() < w0, 'the + key zoomed in');
    await page.keyboard.press('0');
    // N: a unit to set up is in the tray, not on the map; after the default deployment every
    // Allied unit is on the map, and the next order is "End the phase" — the E key.
    const deploy = pick(await legal(page), 'deploy_default');
    assert(deploy, 'the default deployment is offered');
    await act(page, deploy);
    await page.keyboard.press('n');
    const first = await page.evaluate(() => document.body.dataset.focusHex);
    assert(first && await page.locator(`#map .focus-ring[data-hex='${first}']`).count() === 1, `N rings a stack with an order: ${first}`);
    assert((await hexOnScreen(page, first)).inside, 'and brings it on screen');
    await page.keyboard.press('n');
    const second = await page.evaluate(() => document.body.dataset.focusHex);
    assert(second && second !== first, `N again goes on to the next: ${first} then ${second}`);
    const seq = await seqOf(page);
    assert(pick(await legal(page), 'end_phase'), 'end of setup offered');
    await page.keyboard.press('e');
    await waitSeq(page, seq + 1);
    await page.context().close();
  });

  await check('undo: a button and Ctrl+Z when the engine offers `undo`, saying what it takes back; the position returns; nothing otherwise', async () => {
    const game = await freshGame(base, 'undo');
    const { page, tap } = await seated(browser, base, game, 'allied', 'undo', { tap: true });
    assert(await page.locator('#undo').count() === 0, 'no Undo button while the engine offers none');
    const from = tap.sent.length;
    await page.keyboard.press('Control+z');
    await page.waitForSelector('.toast');
    assert(actionsSent(tap, from).length === 0, 'Ctrl+Z sends nothing when undo is not offered');
    const placed = async () => (await positions(page)).filter((s) => s.side === 'allied').length;
    assert(await placed() === 0, 'nothing placed yet');
    await act(page, pick(await legal(page), 'deploy_default'));
    assert(await placed() > 10, 'the default deployment is on the map');
    // The engine now offers `undo`, last, and the view says what it takes back.
    await page.waitForSelector('#actions #undo');
    const title = await page.getAttribute('#undo', 'title');
    assert(/default deployment/.test(title) && /Ctrl\+Z/.test(title), `the Undo button says what it takes back: ${title}`);
    await shot(page, '32-undo.png');
    const seq = await seqOf(page);
    let n = tap.sent.length;
    await page.keyboard.press('Control+z');
    await waitSeq(page, seq + 1);
    const sent = actionsSent(tap, n);
    assert(sent.length === 1 && JSON.stringify(sent[0]) === '{"type":"undo"}', `Ctrl+Z sent ${JSON.stringify(sent)}`);
    assert(await placed() === 0, 'the deployment is taken back: nothing on the map');
    await page.waitForSelector(`li.entry.undone[data-seq="${seq}"]`, { state: 'attached' });
    assert(await page.locator('#undo').count() === 0, 'nothing more to take back');
    // Placed again, then taken back by the button.
    await act(page, pick(await legal(page), 'deploy_default'));
    await page.click('#actions #undo');
    await waitSeq(page, seq + 3);
    assert(await placed() === 0, 'the button takes it back too');
    await page.context().close();
  });

  await check('a warning from the engine asks first: Cancel sends nothing, one more click sends the order without it; undo brings the civilians back (15)', async () => {
    // A custom start: a British unit escorting civilians, its move away costing them (15).
    const position = { turn: 1, phase: 'allied_movement', units: [
      { ref: 'b', side: 'allied', type: 'combat', nationality: 'british', hex: '1511' },
      { ref: 'c', side: 'allied', type: 'civilian', hex: '1512' },
      { ref: 'x', side: 'chinese', type: 'boxer', hex: '0301' }] };
    const game = await freshGame(base, 'warning', { position });
    const { page, tap } = await seated(browser, base, game, 'allied', 'warning', { tap: true });
    // The British unit at 1511 is picked to move (a stack or, as the engine offers now, the unit).
    const british = (await positions(page)).find((s) => s.hex === '1511')?.units ?? [];
    const choose = (await legal(page)).find((a) => a.type === 'select_stack' ? a.hex === '1511' : a.type === 'select_unit' && british.includes(a.unit));
    assert(choose, `the British unit at 1511 can be picked: ${JSON.stringify(await legal(page)).slice(0, 300)}`);
    await act(page, choose);
    const moves = (await legal(page)).filter((a) => a.type === 'move');
    // The cheapest such move: MP left keep the decision (and the undo) with the mover, where
    // spending them all ends the phase and hands the decision on.
    const far = moves.filter((a) => a.warning?.rule === '15' && distance(a.to, '1512') >= 2).sort((x, y) => x.mp - y.mp)[0];
    assert(far, `a move away is warned of: ${JSON.stringify(moves.slice(0, 4))}`);
    assert(moves.some((a) => !a.warning && distance(a.to, '1512') === 1), 'a move staying beside the civilians is not');
    const seq = await seqOf(page);
    const from = tap.sent.length;
    await take(page, far);
    await page.waitForSelector('#confirm:not([hidden])');
    const text = await page.textContent('#confirm');
    assert(/Civilians/.test(text) && /lost at once/.test(text) && /15/.test(text), `the confirmation says why: ${text}`);
    await shot(page, '33-warning.png');
    await page.click('#confirm-no');
    await page.waitForSelector('#confirm', { state: 'hidden' });
    assert(actionsSent(tap, from).length === 0, 'Cancel sent nothing');
    await take(page, far);
    await page.click('#confirm-yes');
    await waitSeq(page, seq + 1);
    const sent = actionsSent(tap, from);
    assert(sent.length === 1 && JSON.stringify(sent[0]) === JSON.stringify({ type: 'move', to: far.to, mp: far.mp }), `sent without the warning: ${JSON.stringify(sent)}`);
    const civilians = async () => (await positions(page)).some((s) => s.hex === '1512');
    assert(!await civilians(), 'the civilians are lost');
    await page.waitForSelector('#actions #undo');
    await page.keyboard.press('Control+z');
    await waitSeq(page, seq + 2);
    assert(await civilians(), 'undo brings them back');
    await page.context().close();
  });

  await check('the analysis board shows the warning an action carries, as the game would ask it', async () => {
    const page = await newPage(browser, 'analysis-warning');
    // The engine's answer, with a warning on the first legal action of each side.
    await page.route('**/api/analysis', async (route) => {
      const response = await route.fetch();
      const json = await response.json();
      for (const a of json.answers ?? []) {
        if (a?.legal_actions?.length) a.legal_actions[0] = { ...a.legal_actions[0], warning: { text: 'the civilians at 1512 are left without escort', rule: '15' } };
      }
      await route.fulfill({ response, json });
    });
    const position = { turn: 1, phase: 'allied_movement', units: [
      { ref: 'b', side: 'allied', type: 'combat', nationality: 'british', hex: '1511' },
      { ref: 'c', side: 'allied', type: 'civilian', hex: '1512' }] };
    await page.goto(`${base}/#analyse=${Buffer.from(JSON.stringify(position)).toString('base64url')}`);
    await page.waitForSelector('#analysis-panel .an-actions li.has-warning', { state: 'attached' });
    const text = await page.textContent('#analysis-panel .an-actions li.has-warning');
    assert(/left without escort \(15\)/.test(text), `the warning on the board: ${text}`);
    await page.context().close();
  });

  await check('the phase track stays on screen in the End of Turn phase', async () => {
    const game = await freshGame(base, 'end of turn');
    const { page, tap } = await seated(browser, base, game, 'chinese', 'end-of-turn', { tap: true });
    // The end of a turn passes in one action unless a Chinese stack is to be lifted off: show
    // the page such a state as the server would send it.
    tap.toPage = (f) => (f.type === 'state' ? { ...f, view: { ...f.view, turn: 1, phase: 'end_of_turn', phase_title: 'End of Turn', step: 'lift_off' } } : f);
    await page.reload();
    await page.waitForSelector('.phase-track li.now');
    const now = await page.textContent('.phase-track li.now');
    assert(/End of turn/i.test(now), `the track marks ${now}`);
    assert(await page.locator('.phase-track li').count() >= 8, 'the whole sequence of play is shown');
    await page.context().close();
  });

  await check('out of command: marked on the counter, explained in the unit\'s panel (11.2)', async () => {
    const game = await freshGame(base, 'command');
    const { page, tap } = await seated(browser, base, game, 'chinese', 'command', { tap: true });
    const allied = await newPage(browser, 'command-allied');
    await allied.goto(`${base}/#game=${game.id}&token=${game.allied}`);
    await allied.waitForFunction(() => document.body.dataset.toAct === 'allied');
    await act(allied, pick(await legal(allied), 'deploy_default'));
    await allied.context().close();
    // Which unit is out of command is the engine's (view.units[].out_of_command, set at the
    // start of an Allied movement phase); here one is shown so, on the watcher's page.
    let ooc = null;
    tap.toPage = (f) => {
      if (f.type !== 'state') return f;
      const u = f.view.units.find((x) => x.side === 'allied' && x.type === 'combat' && x.status === 'on_map');
      ooc = u;
      return { ...f, view: { ...f.view, units: f.view.units.map((x) => (x === u ? { ...x, out_of_command: true } : x)) } };
    };
    await page.reload();
    await page.waitForSelector('#map .counter.out-of-command');
    assert(await page.locator(`#map .counter.out-of-command[data-unit='${ooc.id}']`).count() === 1, `unit ${ooc.id} marked`);
    await page.click('#zoom-fit');
    const { clickHex } = await import('./lib.mjs');
    await clickHex(page, ooc.hex);
    await page.waitForSelector('#menu:not([hidden]) .ooc-note');
    const note = await page.textContent('#menu .ooc-note');
    assert(/11\.2/.test(note) && /3 MP/.test(note) && /2 MP/.test(note), `the panel explains: ${note}`);
    await page.context().close();
  });

  await check('victory hexes under counters: a badge in the holder\'s colour above the stack', async () => {
    const game = await freshGame(base, 'victory');
    const { page } = await seated(browser, base, game, 'allied', 'victory');
    await act(page, pick(await legal(page), 'deploy_default'));
    const occupied = new Set((await positions(page)).map((s) => s.hex));
    const vh = scenario.victory_hexes.map((v) => v.hex).filter((h) => occupied.has(h));
    assert(vh.length > 0, 'some victory hex is occupied after the default deployment');
    await page.click('#zoom-fit');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    for (const hex of vh) {
      const badge = page.locator(`#map .victory-badge[data-hex='${hex}']`);
      assert(await badge.count() === 1, `a badge on ${hex}`);
      assert(await badge.getAttribute('data-side') === 'allied', `${hex} held by the Allies`);
    }
    // Not covered: the badge is what is drawn at its own centre.
    const hex = vh[0];
    const p = await hexOnScreen(page, hex);
    if (!p.inside) await page.click('#zoom-fit');
    const top = await page.evaluate((hex) => {
      const b = document.querySelector(`#map .victory-badge[data-hex='${hex}'] .control`).getBoundingClientRect();
      const el = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
      return el?.closest('.victory-badge')?.dataset.hex ?? el?.tagName;
    }, hex);
    assert(top === hex, `the badge at ${hex} is on top, not ${top}`);
    await shot(page, '34-victory-badges.png');
    await page.context().close();
  });

  await check('phone: a tap selects, a second tap on the same hex confirms; tools beside the map; whose move next to the prompt', async () => {
    const game = await freshGame(base, 'phone');
    const { page } = await seated(browser, base, game, 'allied', 'phone-player', { viewport: { width: 390, height: 844 }, opts: { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } });
    // The map tools never lie over the map (so never over its edge row).
    const overlap = await page.evaluate(() => {
      const m = document.getElementById('map').getBoundingClientRect();
      return [...document.querySelectorAll('.map-tools button')].filter((b) => {
        const r = b.getBoundingClientRect();
        return r.width && r.left < m.right && r.right > m.left && r.top < m.bottom && r.bottom > m.top;
      }).map((b) => b.id);
    });
    assert(overlap.length === 0, `tools over the map: ${overlap}`);
    // Whose move and the phase sit right next to the prompt.
    const gap = await page.evaluate(() => {
      const s = document.getElementById('status').getBoundingClientRect();
      const p = document.getElementById('prompt').getBoundingClientRect();
      return Math.min(Math.abs(p.top - s.bottom), Math.abs(s.top - p.bottom));
    });
    assert(gap < 20, `status and prompt are ${gap}px apart`);
    // Pick a unit in the tray, then tap a hex of a lit area: the first tap only selects.
    await page.locator('#tray-body button.tray-unit').first().tap();
    await page.waitForFunction(() => [...document.querySelectorAll('#actions .all-choices button')].some((b) => JSON.parse(b.dataset.action).type === 'choose_area'));
    const area = pick(await legal(page), 'choose_area');
    const spot = scenario.areas.find((a) => a.key === area.area)?.hexes.find((h) => scenario.hexes.find((x) => x.id === h)?.terrain === 'clear');
    assert(spot, `a clear hex in ${area.area}`);
    const seq = await seqOf(page);
    let p = await hexOnScreen(page, spot);
    if (!p.inside) { await page.click('#zoom-fit'); p = await hexOnScreen(page, spot); }
    await page.touchscreen.tap(p.x, p.y);
    await page.waitForSelector('#hexinfo.armed');
    assert(/Tap again/.test(await page.textContent('#hexinfo')), 'the page says to tap again');
    await page.waitForTimeout(400);
    assert(await seqOf(page) === seq, 'one tap gave no order');
    await shot(page, '35-phone-tap-to-confirm.png');
    await page.touchscreen.tap(p.x, p.y);
    await waitSeq(page, seq + 1);
    await shot(page, '36-phone-confirmed.png');
    await page.context().close();
  });

  await check('clocks in the top bar of both seats and a spectator, the running one counting down; Resign asks once more, then the other side wins on every page', async () => {
    const game = await freshGame(base, 'clocks', { time_control: { kind: 'live', bank_seconds: 5400, increment_seconds: 120 } });
    const { page: allied } = await seated(browser, base, game, 'allied', 'clock-allied');
    const { page: chinese } = await seated(browser, base, game, 'chinese', 'clock-chinese');
    const watcher = await newPage(browser, 'clock-watcher');
    await watcher.goto(`${base}/#watch=${game.id}`);
    await watcher.waitForFunction(() => document.body.dataset.you === 'spectator');
    for (const p of [allied, chinese, watcher]) {
      await p.waitForSelector('#clocks .clock.side-allied.running', { timeout: 10_000 });
      const text = await p.textContent('#clocks');
      assert(/Allied\s*1:(29|30):\d\d/.test(text) && /Chinese\s*1:30:00/.test(text), `${p.name}: the clocks say ${text}`);
    }
    // The Allied clock runs (the Allied setup is to decide): its count goes down on the page.
    const before = await allied.textContent('#clocks .clock.side-allied .clock-time');
    await allied.waitForFunction((t) => document.querySelector('#clocks .clock.side-allied .clock-time').textContent !== t, before, { timeout: 5000 });
    assert(await watcher.locator('#clocks #resign').count() === 0, 'a spectator has no Resign');
    assert(await allied.locator('#clocks #claim-timeout').count() === 0 && await chinese.locator('#clocks #claim-timeout').count() === 0, 'no claim while time is left');
    // The bar holds every control without overlap: the clocks, Resign and the links.
    const boxes = await chinese.$$eval('.topbar > *:not([hidden])', (els) => els.map((e) => ({ id: e.id || e.className, ...e.getBoundingClientRect().toJSON() })).filter((b) => b.width > 0));
    for (let i = 1; i < boxes.length; i++) assert(boxes[i].left >= boxes[i - 1].right - 1, `${boxes[i - 1].id} and ${boxes[i].id} overlap in the top bar`);
    await shot(chinese, '37-clocks.png');
    // Resign: asked once more; Cancel keeps the game.
    const seq = await seqOf(chinese);
    await chinese.click('#resign');
    await chinese.waitForSelector('#confirm:not([hidden])');
    assert(/Allied side wins/.test(await chinese.textContent('#confirm')), `the confirmation says what resigning does: ${await chinese.textContent('#confirm')}`);
    await shot(chinese, '38-resign-asked.png');
    await chinese.click('#confirm-no');
    await chinese.waitForTimeout(300);
    assert(await seqOf(chinese) === seq, 'Cancel sent nothing');
    await chinese.click('#resign');
    await chinese.click('#confirm-yes');
    for (const p of [allied, chinese, watcher]) {
      await p.waitForSelector('#result:not([hidden])', { timeout: 10_000 });
      const r = await p.textContent('#result');
      assert(/Allied/.test(r) && /resign/i.test(r), `${p.name}: the result says ${r}`);
      assert(await p.locator('#clocks #resign').count() === 0, `${p.name}: no Resign once the game is over`);
      assert(await p.locator('#clocks .clock.running').count() === 0, `${p.name}: no clock runs once the game is over`);
    }
    await shot(allied, '39-resigned.png');
    for (const p of [allied, chinese, watcher]) await p.context().close();
  });

  await check('the invitation leaves the top bar once the opponent has joined, and a finished game never shows it', async () => {
    // Only the creator's seat is taken: the game waits for its second player.
    const g = await post(base, '/api/games', { side: 'allied', name: 'invitation' });
    const page = await newPage(browser, 'invite-host');
    await page.goto(`${base}/#game=${g.game_id}&token=${g.token}`);
    await page.waitForFunction(() => document.body.dataset.seq !== undefined);
    const kept = page.locator('#seat-kept');
    if (await kept.isVisible()) await kept.click();
    await page.waitForSelector('#invite-button', { timeout: 10_000 });
    await shot(page, '39c-invite-while-open.png');
    // The friend takes the seat (with the invite code, as the link does): the button goes.
    const j = await post(base, `/api/games/${g.game_id}/join`, { code: g.invite_code });
    assert(j.token, `the second seat taken: ${JSON.stringify(j)}`);
    await page.waitForSelector('#invite-button', { state: 'detached', timeout: 15_000 });
    assert(await page.locator('#seat-button').count() === 1, 'the seat link stays');
    // The Allied player resigns; the finished game, opened again, offers no invitation.
    await page.click('#resign');
    await page.click('#confirm-yes');
    await page.waitForSelector('#result:not([hidden])', { timeout: 10_000 });
    await page.reload();
    await page.waitForSelector('#result:not([hidden])', { timeout: 10_000 });
    await page.waitForSelector('#seat-button', { timeout: 10_000 });
    await page.waitForTimeout(500);
    assert(await page.locator('#invite-button').count() === 0, 'no invitation on a finished game');
    await shot(page, '39d-finished-no-invite.png');
    await page.context().close();
  });

  await check('a clock run out: its opponent is offered the win on time and takes it by a click', async () => {
    const game = await freshGame(base, 'timeout', { time_control: { kind: 'live', bank_seconds: 2, increment_seconds: 0 } });
    const { page: chinese } = await seated(browser, base, game, 'chinese', 'timeout-chinese');
    // The Allied setup is to decide and the Allied bank is two seconds: it runs out.
    await chinese.waitForSelector('#clocks #claim-timeout', { timeout: 15_000 });
    assert(await chinese.locator('#clocks .clock.side-allied.out').count() === 1, 'the Allied clock is marked out of time');
    await shot(chinese, '39b-claim-on-time.png');
    await chinese.click('#claim-timeout');
    await chinese.waitForSelector('#result:not([hidden])', { timeout: 10_000 });
    const r = await chinese.textContent('#result');
    assert(/Chinese/.test(r) && /time/i.test(r), `the result says ${r}`);
    await chinese.context().close();
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = new SiegeServer();
  const base = await server.start();
  const browser = await launch();
  await tableChecks(browser, base);
  await browser.close();
  await server.stop();
  finish();
}
