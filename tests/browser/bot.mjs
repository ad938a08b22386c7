// Playing the computer from the lobby, by clicks: the Allied side chosen and "Computer, normal"
// as the opponent; the page goes straight to the table (no invitation), the top bar names the
// computer's seat and its level; the person deploys and ends the setup by clicking; the computer
// answers on its own — its moves arrive on the player's page and on a spectator's — and the
// lobby lists the game with the computer's seat. run.mjs runs these on its server; alone:
//
//   SIEGE_BIN=... node tests/browser/bot.mjs

import { pathToFileURL } from 'node:url';
import { launch, newPage, shot, check, assert, finish } from './lib.mjs';
import { SiegeServer } from './server.mjs';
import { legal, seqOf, toAct, waitSeq, act, pick, positions } from './drive.mjs';

export async function botChecks(browser, base) {
  const page = await newPage(browser, 'bot-player');
  let gameId = null;

  await check('play the computer: created from the lobby, straight to the table, its seat named', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('#create-form');
    await page.check("input[name='side'][value='allied']");
    await page.selectOption('#opponent', 'normal');
    await page.fill('#game-name', 'Against the computer');
    await shot(page, '30-bot-lobby.png');
    await page.click('#create-game');
    await page.waitForFunction(() => /^#game=/.test(location.hash));
    gameId = decodeURIComponent(await page.evaluate(() => location.hash.slice('#game='.length)));
    await waitSeq(page, 0);
    await page.waitForSelector('#players');
    const named = await page.textContent('#players');
    assert(/Chinese: computer, normal/.test(named), `the computer's seat named: ${named}`);
    assert(!(await page.$('#invite-button')), 'no invitation to send: the computer has the other seat');
  });

  await check('play the computer: the person sets up by clicks, the computer answers on its own', async () => {
    assert(gameId, 'a game was created');
    const watcher = await newPage(browser, 'bot-spectator');
    await watcher.goto(`${base}/#watch=${encodeURIComponent(gameId)}`);
    await waitSeq(watcher, 0);
    assert((await toAct(page)) === 'allied', `the Allied setup comes first, not ${await toAct(page)}`);
    // The Allied setup: the deployment of 20 June 1900, then the end of the phase (22).
    let mine = 0;
    for (let i = 0; i < 6 && (await toAct(page)) === 'allied'; i++) {
      const l = await legal(page);
      const a = (i === 0 ? pick(l, 'deploy_default') : pick(l, 'end_phase')) ?? l[0];
      assert(a, 'the Allied player is offered an action');
      await act(page, a);
      mine = await seqOf(page);
    }
    assert(mine > 0, 'the person acted');
    // Nobody clicks for the Chinese: the computer's moves arrive, several states later.
    await waitSeq(page, mine + 3, 60_000);
    await page.waitForFunction(() => document.body.dataset.toAct === 'allied' || document.body.dataset.toAct === '', null, { timeout: 120_000 }).catch(() => {});
    const after = await seqOf(page);
    assert(after >= mine + 3, `the computer made moves (state ${mine} → ${after})`);
    const chinese = (await positions(page)).filter((s) => s.side === 'chinese');
    assert(chinese.length > 0, 'Chinese stacks on the map after the computer\'s turn');
    await waitSeq(watcher, after, 30_000);
    await shot(page, '31-bot-answered.png');
    await shot(watcher, '32-bot-game-watched.png');
    const log = await (await fetch(`${base}/api/games/${gameId}/log`)).json();
    const sides = new Set(log.entries.map((e) => e.side));
    assert(sides.has('chinese') && sides.has('allied'), `both sides in the log: ${[...sides]}`);
    await watcher.context().close();
  });

  await check('play the computer: the lobby lists the game with the computer\'s seat', async () => {
    await page.goto(`${base}/`);
    const row = page.locator(`#games-active .game-row[data-game='${gameId}'] .game-meta`);
    await row.waitFor({ timeout: 15_000 });
    const meta = await row.textContent();
    assert(/Chinese: computer \(normal\)/.test(meta), `the listing names the computer: ${meta}`);
  });

  await check('computer against computer: started from the lobby, watched, both computers move', async () => {
    const viewer = await newPage(browser, 'bot-duel-viewer');
    await viewer.goto(`${base}/`);
    await viewer.waitForSelector('#create-form');
    await viewer.selectOption('#opponent', 'watch:easy');
    await viewer.fill('#game-name', 'Two computers');
    await viewer.click('#create-game');
    await viewer.waitForFunction(() => /^#watch=/.test(location.hash));
    const id = decodeURIComponent(await viewer.evaluate(() => location.hash.slice('#watch='.length)));
    await viewer.waitForFunction(() => document.body.dataset.you === 'spectator');
    // Nobody is seated: the computers play on their own, and the page follows.
    await waitSeq(viewer, 20, 60_000);
    const named = await viewer.textContent('#players');
    assert(/Allied: computer, easy/.test(named) && /Chinese: computer, easy/.test(named), `both seats named: ${named}`);
    assert(!(await viewer.$('#invite-button')) && !(await viewer.$('#seat-button')), 'a watcher has no invitation and no seat link');
    const log = await (await fetch(`${base}/api/games/${id}/log`)).json();
    const sides = new Set(log.entries.map((e) => e.side));
    assert(sides.has('chinese') && sides.has('allied'), `both computers acted: ${[...sides]}`);
    await shot(viewer, '33-bot-duel-watched.png');
    await viewer.context().close();
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
  await botChecks(browser, base);
  await browser.close();
  await server.stop();
  console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  finish();
}
