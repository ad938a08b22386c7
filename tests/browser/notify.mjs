// Your-turn alerts in the browser (run by run.mjs; alone, with a server of its own:
// `node tests/browser/notify.mjs`): the Allied player's page turns on sound and "Notify me"
// (notifications granted to the context; `Notification` captured by an init script), the tab is
// made to look unfocused, and the Chinese opponent (a plain WebSocket client) plays until the
// decision passes to the Allies. Then, and only then: the title reads "● Your move — NAME",
// the icon is the drawn variant, one notification is shown and one tone played; none while the
// Allied player takes their own steps. Coming back to the tab restores title and icon.

import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { launch, newPage, shot, check, assert, finish } from './lib.mjs';
import { SiegeServer } from './server.mjs';
import { legal, act, toAct, waitSeq } from './drive.mjs';

const PREFER = ['end_phase', 'deploy_default', 'pass', 'resolve', 'stop', 'stop_retreat'];

/** The action a test player takes: a step that moves the game on, else the first offered. */
function pickStep(list) {
  for (const t of PREFER) {
    const a = list.find((x) => x.type === t);
    if (a) return a;
  }
  return list.find((x) => x.type !== 'undo') ?? list[0];
}

/** The opponent: a WebSocket seat that keeps the latest state and acts when told to. */
async function opponent(base, gameId, token) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/games/${gameId}`);
  const me = { state: null, waiters: [] };
  ws.on('message', (data) => {
    const f = JSON.parse(String(data));
    if (f.type !== 'state') return;
    me.state = f;
    for (const w of me.waiters.splice(0)) w();
  });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  ws.send(JSON.stringify({ type: 'join', token }));
  me.next = (seq) => new Promise((resolve) => {
    const done = () => (me.state && me.state.seq >= seq ? resolve(me.state) : me.waiters.push(done));
    done();
  });
  me.act = async () => {
    const s = me.state;
    const a = pickStep(s.legal_actions);
    ws.send(JSON.stringify({ type: 'action', seq: s.seq, action: a }));
    return me.next(s.seq + 1);
  };
  me.close = () => ws.close();
  await me.next(0);
  return me;
}

async function post(base, path, body) {
  const r = await fetch(`${base}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify(body),
  });
  const json = await r.json();
  if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

export async function notifyChecks(browser, base) {
  const created = await post(base, '/api/games', { side: 'allied', name: 'Alert siege' });
  const gameId = created.game_id;
  const joined = await post(base, `/api/games/${gameId}/join`, created.invite_code ? { code: created.invite_code } : {});
  const page = await newPage(browser, 'notify-allied', { width: 1280, height: 860 });
  await page.context().grantPermissions(['notifications'], { origin: base });
  // Every notification the page shows is kept where the test can read it; the permission is
  // the browser's (granted to this context above).
  await page.addInitScript(() => {
    const Real = window.Notification;
    window.__shown = [];
    window.Notification = class {
      constructor(title, options = {}) { window.__shown.push({ title, body: options.body ?? '', icon: options.icon ?? '' }); }
      static get permission() { return Real ? Real.permission : 'default'; }
      static requestPermission() { window.__asked = (window.__asked ?? 0) + 1; return Real.requestPermission(); }
      close() {}
    };
  });
  const chinese = await opponent(base, gameId, joined.token);
  let baseIcon;

  await check('alerts: the player turns on sound and "Notify me" (permission asked on the click)', async () => {
    await page.goto(`${base}/#game=${gameId}&token=${created.token}`);
    await page.waitForFunction(() => document.body.dataset.you === 'allied' && document.body.dataset.conn === 'open');
    await page.waitForSelector('#alerts:not([hidden]) #toggle-notify');
    assert(await page.evaluate(() => window.__asked ?? 0) === 0, 'no permission asked before the click');
    await page.click('#toggle-sound');
    await page.click('#toggle-notify');
    await page.waitForSelector('#toggle-notify[aria-pressed="true"]');
    assert(await page.getAttribute('#toggle-sound', 'aria-pressed') === 'true', 'sound is on');
    const kept = await page.evaluate(() => [localStorage.getItem('siege.sound'), localStorage.getItem('siege.notify')]);
    assert(kept[0] === 'on' && kept[1] === 'on', `remembered: ${kept}`);
    baseIcon = await page.getAttribute('link[rel="icon"]', 'href');
    // The tab is behind another window from now on.
    await page.evaluate(() => { document.hasFocus = () => false; });
    await shot(page, 'notify-01-toggles.png');
  });

  await check('alerts: nothing while the player takes their own steps; title, icon and one notification when the opponent hands over the move', async () => {
    const beeps = () => page.evaluate(() => Number(document.body.dataset.beeps ?? 0));
    const shown = () => page.evaluate(() => window.__shown.length);
    let handedOver = false;
    let alliedSteps = 0;
    let chineseSteps = 0;
    let notesBefore = 0;
    let beepsBefore = 0;
    for (let i = 0; i < 80 && !handedOver; i++) {
      const side = await toAct(page);
      if (side === 'allied') {
        const list = await legal(page);
        assert(list.length, 'the Allied page offers a choice');
        notesBefore = await shown();
        beepsBefore = await beeps();
        const chosen = pickStep(list);
        await act(page, chosen);
        alliedSteps += 1;
        assert(await shown() === notesBefore, 'no notification for the player\'s own step');
        assert(await beeps() === beepsBefore, 'no tone for the player\'s own step');
        assert(!(await page.title()).startsWith('●'), `no alert after the player's own step: ${await page.title()}`);
      } else if (side === 'chinese') {
        const s = await chinese.act();
        chineseSteps += 1;
        await waitSeq(page, s.seq);
        if (s.view.to_act === 'allied') handedOver = alliedSteps > 0;
        else assert(!(await page.title()).startsWith('●'), 'no alert while the opponent is still deciding');
      } else {
        throw new Error(`nobody to act (${side})`);
      }
    }
    assert(handedOver, `the Chinese handed the move to the Allies after an Allied step (${alliedSteps} Allied, ${chineseSteps} Chinese steps)`);
    await page.waitForFunction(() => document.title.startsWith('● Your move'));
    const title = await page.title();
    assert(title === '● Your move — Alert siege', `the title: ${title}`);
    const icon = await page.getAttribute('link[rel="icon"]', 'href');
    assert(icon !== baseIcon && decodeURIComponent(icon).includes('<circle'), `the icon is the drawn variant: ${icon.slice(0, 80)}`);
    const notes = await page.evaluate(() => window.__shown);
    assert(notes.length === notesBefore + 1, `one notification for the hand-over: ${JSON.stringify(notes)}`);
    const note = notes[notes.length - 1];
    assert(/Your move/.test(note.title) && note.body.includes('Alert siege'), `its text: ${JSON.stringify(note)}`);
    assert(await beeps() === beepsBefore + 1, 'one tone played');
    await shot(page, 'notify-02-your-move.png');
  });

  await check('alerts: coming back to the tab restores the title and the icon', async () => {
    await page.evaluate(() => { document.hasFocus = () => true; window.dispatchEvent(new Event('focus')); });
    await page.waitForFunction(() => !document.title.startsWith('●'));
    assert(await page.getAttribute('link[rel="icon"]', 'href') === baseIcon, 'the icon is back');
  });

  chinese.close();
  await page.context().close();
}

// Alone: a server of its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = new SiegeServer();
  const base = await server.start();
  console.log(`# server ${server.bin} at ${base}`);
  const browser = await launch();
  await notifyChecks(browser, base);
  await browser.close();
  await server.stop();
  finish();
}
