// An account's seat opened in a browser that keeps no token for it (run by run.mjs; alone, with a
// server of its own: `node tests/browser/account-seat.mjs`, `SIEGE_BIN=target/debug/siege` will
// do): a player signs up and creates a game, a guest takes the other seat; then in a fresh
// browser context (no localStorage at all) the player logs in, opens the game from My games and
// is seated by the session alone — "You: Allied", the setup's choices offered and one taken —
// with nothing kept in that browser and no seat link offered. A stranger signed in elsewhere who
// opens the same game watches; told (by a rewritten answer) that it holds a seat, its page asks
// the server for it without a token, is refused (not_your_seat) and watches instead. The table
// names the players; the guest, signing up later, claims its seat for the new account.

import { pathToFileURL } from 'node:url';
import { launch, newPage, shot, check, assert, finish } from './lib.mjs';
import { SiegeServer } from './server.mjs';
import { legal, pick, act, seqOf } from './drive.mjs';
import { tapSocket } from './socket-tap.mjs';

async function signUp(page, base, name) {
  await page.goto(`${base}/`);
  await page.waitForSelector('#account-form');
  await page.fill('#account-user', name);
  await page.fill('#account-password', 'legation1900');
  await page.click('#sign-up');
  await page.waitForSelector('#account-name');
}

export async function accountSeatChecks(browser, base) {
  const host = await newPage(browser, 'seat-host', { width: 1280, height: 900 });
  const guest = await newPage(browser, 'seat-guest', { width: 1280, height: 900 });
  const name = `Reid${Date.now() % 100000}`;
  // The lobby's account card asks `GET /api/account`, which answers a guest with 401: expected.
  for (const p of [host, guest]) p.allowed.push(/status of 401 .*\/api\/account$/);
  let gameId;

  await check('account seat: a signed-in player creates a private game; a guest takes the other seat', async () => {
    await signUp(host, base, name);
    await host.fill('#game-name', 'Seat by account');
    await host.click('#create-game');
    await host.waitForSelector('#invite-link');
    const invite = await host.inputValue('#invite-link');
    gameId = new URL(invite).searchParams.get('game');
    await guest.goto(invite);
    await guest.waitForSelector('#take-seat');
    await guest.click('#take-seat');
    await guest.waitForFunction(() => document.body.dataset.you === 'chinese');
    // The table names who plays each side: the account by its name, the guest as a guest.
    await guest.waitForFunction((n) => document.querySelector('#players')?.textContent.includes(`Allied: ${n}`), name);
    const players = await guest.textContent('#players');
    assert(players === `Allied: ${name} · Chinese: guest`, `the top bar names the players: ${players}`);
  });

  const elsewhere = await newPage(browser, 'seat-elsewhere', { width: 1280, height: 900 });
  elsewhere.allowed.push(/status of 401 .*\/api\/account$/);
  await check('account seat: another browser, no storage, logged in: seated by the session from My games', async () => {
    await elsewhere.goto(`${base}/`);
    assert(await elsewhere.evaluate(() => localStorage.getItem('siege.seats')) === null, 'a fresh context keeps no seat');
    await elsewhere.waitForSelector('#account-form');
    await elsewhere.fill('#account-user', name);
    await elsewhere.fill('#account-password', 'legation1900');
    await elsewhere.click('#log-in');
    await elsewhere.waitForSelector('#account-name');
    const play = elsewhere.locator(`#games-mine [data-game="${gameId}"] a.button`);
    await play.waitFor();
    assert(await play.textContent() === 'Play', `My games offers: ${await play.textContent()}`);
    assert((await play.getAttribute('href')) === `#game=${gameId}`, `it opens the table: ${await play.getAttribute('href')}`);
    await play.click();
    await elsewhere.waitForFunction(() => document.body.dataset.you === 'allied', null, { timeout: 15_000 });
    assert(await elsewhere.textContent('#you-badge') === 'You: Allied', `the badge: ${await elsewhere.textContent('#you-badge')}`);
    // The seat is the account's: no token was kept here, and no seat link is offered.
    assert(await elsewhere.evaluate(() => localStorage.getItem('siege.seats')) === null, 'no token kept in this browser');
    assert(await elsewhere.locator('#seat-button').count() === 0, 'no seat link without a token');
    assert(await elsewhere.locator('#seat-keeper:not([hidden])').count() === 0, 'no "keep your seat" urging');
    await elsewhere.waitForFunction(() => document.querySelectorAll('#actions .all-choices button[data-action]').length > 0);
    await shot(elsewhere, 'account-seat-01-seated.png');
    // It can act: the default deployment, taken by a click; the guest's page sees it.
    const deploy = pick(await legal(elsewhere), 'deploy_default');
    assert(deploy, `the setup offers the default deployment: ${JSON.stringify(await legal(elsewhere)).slice(0, 200)}`);
    const before = await seqOf(elsewhere);
    await act(elsewhere, deploy);
    await guest.waitForFunction((n) => Number(document.body.dataset.seq ?? -1) > n, before);
    await shot(elsewhere, 'account-seat-02-deployed.png');
    // Opened again (a reload: the socket joins anew, by the session): still seated.
    await elsewhere.reload();
    await elsewhere.waitForFunction(() => document.body.dataset.you === 'allied', null, { timeout: 15_000 });
  });

  const stranger = await newPage(browser, 'seat-stranger', { width: 1280, height: 900 });
  stranger.allowed.push(/status of 401 .*\/api\/account$/);
  await check('account seat: a signed-in stranger opening the game is not seated and watches', async () => {
    const other = `Other${Date.now() % 100000}`;
    await signUp(stranger, base, other);
    await stranger.goto(`${base}/#game=${gameId}`);
    await stranger.waitForFunction(() => document.body.dataset.you === 'spectator', null, { timeout: 15_000 });
    assert(await legal(stranger).then((l) => l.length) === 0, 'a spectator is offered nothing');
    // Told (wrongly) that its account holds the Allied seat, the page asks the server without a
    // token; the server refuses (not_your_seat) and the page watches instead, quietly.
    await stranger.goto(`${base}/`);
    const tap = await tapSocket(stranger);
    await stranger.route(`${base}/api/games/${gameId}`, async (route) => {
      const res = await route.fetch();
      const g = await res.json();
      g.players = { ...(g.players ?? {}), allied: other };
      await route.fulfill({ response: res, json: g });
    });
    await stranger.goto(`${base}/#game=${gameId}`);
    await stranger.waitForFunction(() => document.body.dataset.you === 'spectator', null, { timeout: 15_000 });
    const hellos = tap.sent.filter((f) => ['join', 'spectate', 'resume'].includes(f.type)).map((f) => JSON.stringify({ ...f, patches: undefined }));
    assert(hellos[0] === '{"type":"join"}' && hellos.includes('{"type":"spectate"}'), `the page asked for the seat, then watched: ${hellos}`);
    await stranger.waitForSelector('.toast >> text=could not be opened');
    assert(await legal(stranger).then((l) => l.length) === 0, 'still offered nothing');
    await shot(stranger, 'account-seat-03-refused-watching.png');
    await stranger.unroute(`${base}/api/games/${gameId}`);
  });

  await check('account seat: a guest who signs up later claims the seat kept in this browser for the account', async () => {
    const later = `Conger${Date.now() % 100000}`;
    await signUp(guest, base, later);
    const row = guest.locator(`#games-mine [data-game="${gameId}"]`);
    await row.waitFor();
    assert((await row.textContent()).includes('kept in this browser'), `listed as kept here: ${await row.textContent()}`);
    await shot(guest, 'account-seat-04-claim-offered.png');
    await row.locator(`[data-claim="${gameId}"]`).click();
    await guest.waitForSelector('.toast >> text=now held by your account');
    await guest.waitForFunction((id) => {
      const r = document.querySelector(`#games-mine [data-game="${id}"]`);
      return r && !r.textContent.includes('kept in this browser') && !r.querySelector('[data-claim]');
    }, gameId);
    const mine = await guest.evaluate(() => fetch('/api/games?mine=true').then((r) => r.json()));
    const listed = mine.find((g) => g.game_id === gameId);
    assert(listed?.you === 'chinese', `the account holds the Chinese seat: ${JSON.stringify(listed)}`);
    await shot(guest, 'account-seat-05-claimed.png');
    // The table names the new account for the Chinese seat.
    await guest.goto(`${base}/#game=${gameId}`);
    await guest.waitForFunction((n) => document.querySelector('#players')?.textContent.includes(`Chinese: ${n}`), later);
  });

  for (const p of [host, guest, elsewhere, stranger]) await p.context().close();
}

// Alone: a server of its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = new SiegeServer();
  const base = await server.start();
  console.log(`# server ${server.bin} at ${base}`);
  const browser = await launch();
  await accountSeatChecks(browser, base);
  await browser.close();
  await server.stop();
  finish();
}
