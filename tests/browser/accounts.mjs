// Accounts and private invitations in the browser (run by run.mjs; alone, with a server of its
// own: `node tests/browser/accounts.mjs`): a player signs up from the lobby's account card and
// creates a game, which is private by default — a stranger's lobby does not list it and offers
// no Join; the invite link carries its code and seats the friend; the same game without its
// code is refused with words, not silently; a crafted seat link asks before it may replace the
// seat the browser keeps, and a refused token deletes nothing; the lobby names the players.

import { pathToFileURL } from 'node:url';
import { launch, newPage, shot, check, assert, finish, expectingConsole } from './lib.mjs';
import { SiegeServer } from './server.mjs';

export async function accountChecks(browser, base) {
  const host = await newPage(browser, 'account-host', { width: 1280, height: 900 });
  const friend = await newPage(browser, 'account-friend', { width: 1280, height: 900 });
  const stranger = await newPage(browser, 'account-stranger', { width: 1280, height: 900 });
  const name = `Reid${Date.now() % 100000}`;
  let gameId;
  let invite;

  await check('account: sign up from the lobby, then create a private game with an invite code', async () => {
    await host.goto(`${base}/`);
    await host.waitForSelector('#account-form');
    await host.fill('#account-user', name);
    await host.fill('#account-password', 'legation1900');
    await host.click('#sign-up');
    await host.waitForSelector('#account-name');
    assert(await host.textContent('#account-name') === name, 'signed in under the new name');
    const cookies = await host.context().cookies();
    const session = cookies.find((c) => c.name === 'siege_session');
    assert(session?.httpOnly && session.sameSite === 'Lax', `an HttpOnly, SameSite=Lax session cookie: ${JSON.stringify(session)}`);
    assert(!(await host.evaluate(() => document.cookie)).includes('siege_session'), 'the page cannot read the session');
    await host.fill('#game-name', 'Private siege');
    await host.click('#create-game');
    await host.waitForSelector('#invite-link');
    invite = await host.inputValue('#invite-link');
    assert(/[?&]code=[0-9a-f]{32}/.test(invite), `the invite link carries the code: ${invite}`);
    gameId = new URL(invite).searchParams.get('game');
    await host.waitForSelector(`#games-open [data-game="${gameId}"]`);
    const row = await host.textContent(`#games-open [data-game="${gameId}"]`);
    assert(row.includes(`Allies: ${name}`) && row.includes('private'), `the lobby names the player: ${row}`);
    await shot(host, 'acc-01-signed-in-created.png');
  });

  await check('public seek of a signed-in player: for signed-in players unless guests are let in; a guest is told to sign in', async () => {
    assert(await host.locator('#seek-guests-opt').isHidden(), 'no guests option for a private game');
    await host.check('#public-seek');
    await host.waitForSelector('#seek-guests-opt:not([hidden])');
    assert(!(await host.isChecked('#seek-guests')), 'guests are not let in unless asked');
    await host.fill('#game-name', 'Members seek');
    // The game exists once its POST is answered. (A waitForFunction whose predicate returns a
    // promise does not wait: the promise itself is truthy — this raced the POST once in CI.)
    await Promise.all([
      host.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/games'),
      host.click('#create-game'),
    ]);
    const games = await host.evaluate(() => fetch('/api/games?status=open').then((r) => r.json()));
    const seek = games.find((g) => g.name === 'Members seek');
    assert(seek?.visibility === 'public' && seek.guests === false, `a seek for members: ${JSON.stringify(seek)}`);
    await host.uncheck('#public-seek');
    await stranger.goto(`${base}/`);
    const row = stranger.locator(`#games-open [data-game="${seek.game_id}"]`);
    await row.waitFor();
    assert(await row.locator('.members-only').count() === 1 && await row.locator('button', { hasText: 'Join' }).count() === 0,
      `a guest is told to sign in, offered no Join: ${await row.textContent()}`);
    await shot(stranger, 'acc-01b-members-seek.png');
  });

  await check('your-turn messages: the signed-in player sets an e-mail and a webhook from the account card; a bad URL is refused in words and stores nothing', async () => {
    await host.click('#notify-settings');
    await host.waitForSelector('#notify-form:not([hidden])');
    await host.fill('#notify-email', 'reid@example.org');
    await host.fill('#notify-webhook', 'https://hooks.example/siege');
    await host.click('#notify-save');
    await host.waitForSelector('#notify-form', { state: 'hidden' });
    const stored = await host.evaluate(() => fetch('/api/account/notifications').then((r) => r.json()));
    assert(stored.email === 'reid@example.org' && stored.webhook === 'https://hooks.example/siege', `stored: ${JSON.stringify(stored)}`);
    // A fresh page, so that the form can only show the address by reading it back from the
    // server (the inputs of the page before still held what was typed into them).
    await host.reload();
    await host.click('#notify-settings');
    await host.waitForSelector('#notify-form:not([hidden])');
    assert(await host.inputValue('#notify-email') === 'reid@example.org', 'the form shows what is stored');
    assert(await host.inputValue('#notify-webhook') === 'https://hooks.example/siege', 'the form shows the stored webhook');
    await host.fill('#notify-webhook', 'ftp://nowhere');
    await expectingConsole(host, /422/, async () => {
      await host.click('#notify-save');
      await host.waitForSelector('.toast.error', { timeout: 5000 });
    });
    const toastText = await host.locator('.toast.error').last().textContent();
    assert(/webhook/i.test(toastText), `the refusal names the webhook: ${toastText}`);
    const after = await host.evaluate(() => fetch('/api/account/notifications').then((r) => r.json()));
    assert(after.webhook === 'https://hooks.example/siege', `nothing stored: ${JSON.stringify(after)}`);
    await shot(host, 'acc-02-notify-settings.png');
  });

  await check('private game: not listed to a stranger, no Join; without its code the seat is refused in words', async () => {
    await stranger.goto(`${base}/`);
    await stranger.waitForSelector('#games-open');
    await stranger.click('#refresh-games');
    await stranger.waitForTimeout(300);
    assert(await stranger.locator(`[data-game="${gameId}"]`).count() === 0, 'the private game is not in a stranger\'s lobby');
    await stranger.goto(`${base}/#join=${gameId}`);
    await stranger.waitForSelector('#take-seat');
    await expectingConsole(stranger, /403/, async () => {
      await stranger.click('#take-seat');
      await stranger.waitForSelector('.toast', { hasText: 'private' });
    });
    const toastText = await stranger.textContent('.toast');
    assert(/private/.test(toastText), `the refusal says why: ${toastText}`);
    assert(await stranger.evaluate(() => localStorage.getItem('siege.seats')) === null
      || !(await stranger.evaluate((id) => JSON.parse(localStorage.getItem('siege.seats'))[id], gameId)), 'no seat kept');
    await shot(stranger, 'acc-02-refused-without-code.png');
  });

  await check('private game: open, listed to its player signed in on another browser (no seat kept there), still with no public Join', async () => {
    const elsewhere = await newPage(browser, 'account-elsewhere', { width: 1280, height: 900 });
    await elsewhere.goto(`${base}/`);
    await elsewhere.waitForSelector('#account-form');
    await elsewhere.fill('#account-user', name);
    await elsewhere.fill('#account-password', 'legation1900');
    await elsewhere.click('#log-in');
    await elsewhere.waitForSelector('#account-name');
    const row = elsewhere.locator(`#games-open .game-row[data-game="${gameId}"]`);
    await row.waitFor({ timeout: 10_000 });
    const text = await row.textContent();
    assert(/private/.test(text), `the row says private: ${text}`);
    assert(await row.locator('button', { hasText: 'Join' }).count() === 0, `no Join on a private game: ${text}`);
    await elsewhere.context().close();
  });

  await check('invite link: the friend takes the free seat with the code, and the lobby names both sides', async () => {
    await friend.goto(invite);
    await friend.waitForSelector('#take-seat');
    assert(!friend.url().includes('code=') || friend.url().includes('#join='), 'the code moved into the fragment');
    await friend.click('#take-seat');
    await friend.waitForFunction(() => document.body.dataset.you === 'chinese');
    await shot(friend, 'acc-03-friend-seated.png');
  });

  await check('a crafted seat link asks before replacing the kept seat; refusing keeps it', async () => {
    const kept = await friend.evaluate((id) => JSON.parse(localStorage.getItem('siege.seats'))[id].token, gameId);
    let asked = '';
    friend.once('dialog', (d) => { asked = d.message(); d.dismiss(); });
    await friend.goto(`${base}/#game=${gameId}&token=${'0'.repeat(64)}`);
    await friend.waitForFunction(() => document.body.dataset.you === 'chinese');
    assert(/different seat/.test(asked), `the player is asked: ${asked}`);
    const after = await friend.evaluate((id) => JSON.parse(localStorage.getItem('siege.seats'))[id].token, gameId);
    assert(after === kept, 'the kept seat is untouched');
  });

  await check('log out and back in: the account card follows', async () => {
    await host.goto(`${base}/`);
    await host.waitForSelector('#log-out');
    await host.click('#log-out');
    await host.waitForSelector('#account-form');
    await host.fill('#account-user', name);
    await host.fill('#account-password', 'legation1900');
    await host.click('#log-in');
    await host.waitForSelector('#account-name');
    await host.waitForSelector(`#games-active [data-game="${gameId}"]`);
    const row = await host.textContent(`#games-active [data-game="${gameId}"]`);
    assert(row.includes(`Allies: ${name}`) && row.includes('Chinese: guest'), `both sides shown: ${row}`);
    await shot(host, 'acc-04-lobby-signed-in.png');
  });

  for (const p of [host, friend, stranger]) await p.context().close();
}

// Alone: a server of its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = new SiegeServer();
  const base = await server.start();
  console.log(`# server ${server.bin} at ${base}`);
  const browser = await launch();
  await accountChecks(browser, base);
  await browser.close();
  await server.stop();
  finish();
}
