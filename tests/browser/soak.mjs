// A whole game by random clicks: two pages play against the real server, each decision a random
// legal action (ending the phase a third of the time, so the game moves on), each taken the way
// a player would — on the map, in a stack's menu, by a Big Gun arrow, or by a panel button. It
// fails if any action can only be reached through the list of all choices, if a click does not
// produce the next state, or on any console or page error. Not part of CI (it takes minutes).
//
//   node tests/browser/soak.mjs [max-actions=800] [seed=1]

import { launch, newPage, shot, check, assert, finish } from './lib.mjs';
import { SiegeServer } from './server.mjs';
import { legal, seqOf, toAct, waitSeq, take, prompt } from './drive.mjs';

const max = Number(process.argv[2] ?? 800);
let seed = Number(process.argv[3] ?? 1);
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

const server = new SiegeServer();
const base = await server.start();
const browser = await launch();
const post = async (path, body) => (await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

await check(`up to ${max} random decisions, every one taken by a click`, async () => {
  const created = await post('/api/games', { side: 'allied', name: 'soak' });
  const joined = await post(`/api/games/${created.game_id}/join`, { code: created.invite_code });
  const pages = {};
  for (const [side, token] of [['allied', created.token], ['chinese', joined.token]]) {
    pages[side] = await newPage(browser, side);
    await pages[side].goto(`${base}/#game=${created.game_id}&token=${token}`);
    await pages[side].waitForFunction(() => document.body.dataset.seq !== undefined);
  }
  const how = {};
  let taken = 0;
  for (let i = 0; i < max; i++) {
    const side = await toAct(pages.allied);
    if (!side) break; // game over
    const page = pages[side];
    const choices = await legal(page);
    if (!choices.length) { await page.waitForTimeout(100); continue; }
    const ender = choices.find((x) => ['end_phase', 'pass', 'stop'].includes(x.type));
    const action = ender && random() < 0.35 ? ender : choices[Math.floor(random() * choices.length)];
    const before = await seqOf(page);
    const via = await take(page, action);
    try {
      await waitSeq(page, before + 1, 8000);
    } catch {
      await shot(page, `soak-stuck-${i}.png`);
      throw new Error(`no new state after ${JSON.stringify(action)} taken via ${via} (${await prompt(page)})`);
    }
    assert(via !== 'choice list', `${JSON.stringify(action)} had no place on the map or in the panel`);
    const key = `${action.type} via ${via.replace(/\d{4}/, 'hex')}`;
    how[key] = (how[key] ?? 0) + 1;
    taken += 1;
  }
  console.log(`# ${taken} actions; final prompt: ${await prompt(pages.allied)}`);
  for (const [k, n] of Object.entries(how).sort()) console.log(`#   ${n} × ${k}`);
});

await browser.close();
await server.stop();
finish();
