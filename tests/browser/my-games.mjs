// My games and rematches in the browser (run by run.mjs; alone, with a server of its own:
// `node tests/browser/my-games.mjs`): a signed-in host creates a private game and a guest takes
// the other seat by the invite link; the host's lobby lists it under My games as "your move"
// (the Allies set up first) and the guest's lobby, from the seat kept in the browser, as their
// move; the host resigns, the finished game offers "Rematch" to both players, the host asks,
// the guest's open page is offered it over the socket ("Accept") and lands in the new game on
// the swapped side.

import { pathToFileURL } from 'node:url';
import { launch, newPage, shot, check, assert, finish } from './lib.mjs';
import { SiegeServer } from './server.mjs';

export async function myGamesChecks(browser, base) {
  const host = await newPage(browser, 'mine-host', { width: 1280, height: 900 });
  const guest = await newPage(browser, 'mine-guest', { width: 1280, height: 900 });
  // The lobby's account card asks `GET /api/account`, which answers a guest with 401: expected.
  for (const p of [host, guest]) p.allowed.push(/status of 401 .*\/api\/account$/);
  const name = `Host${Date.now() % 100000}`;
  let gameId;
  let invite;

  await check('my games: a signed-in host creates a private game; the guest joins by the link', async () => {
    await host.goto(`${base}/`);
    await host.waitForSelector('#account-form');
    await host.fill('#account-user', name);
    await host.fill('#account-password', 'legation1900');
    await host.click('#sign-up');
    await host.waitForSelector('#account-name');
    await host.fill('#game-name', 'Siege over days');
    await host.selectOption('#time-control', 'correspondence:86400');
    await host.click('#create-game');
    await host.waitForSelector('#invite-link');
    invite = await host.inputValue('#invite-link');
    gameId = new URL(invite).searchParams.get('game');
    await guest.goto(invite);
    await guest.waitForSelector('#take-seat');
    await guest.click('#take-seat');
    await guest.waitForFunction(() => document.body.dataset.you === 'chinese');
  });

  await check('my games: your move first, with how long it waited; the guest sees it from the kept seat', async () => {
    await host.goto(`${base}/`);
    await host.waitForSelector(`#games-mine [data-game="${gameId}"]`);
    const row = host.locator(`#games-mine [data-game="${gameId}"]`);
    assert(await row.getAttribute('data-your-move') === 'true', 'the Allies are to set up: the host\'s move');
    const text = await row.textContent();
    assert(/your move · \d+ min/.test(text), `how long it waited: ${text}`);
    assert(text.includes('You: Allied'), `the side held: ${text}`);
    // A correspondence game: whose clock runs and how long it has left.
    assert(/Allied clock: (2[0-4]|1\d) h left/.test(text), `the clock in the row: ${text}`);
    await shot(host, 'mine-01-your-move.png');
    await guest.goto(`${base}/`);
    await guest.waitForSelector(`#games-mine [data-game="${gameId}"]`);
    const grow = guest.locator(`#games-mine [data-game="${gameId}"]`);
    assert(await grow.getAttribute('data-your-move') === 'false', 'not the guest\'s move');
    const gtext = await grow.textContent();
    assert(gtext.includes('their move') && gtext.includes('kept in this browser'), `the guest's row: ${gtext}`);
    // The name filter narrows My games.
    await host.fill('#filter-name', 'no such name');
    await host.waitForSelector(`#games-mine [data-game="${gameId}"]`, { state: 'detached' });
    await host.fill('#filter-name', 'OVER DAYS');
    await host.waitForSelector(`#games-mine [data-game="${gameId}"]`);
  });

  await check('rematch: after the end the host asks, the guest is offered it and accepts on the swapped side', async () => {
    await guest.goto(`${base}/#game=${gameId}`);
    await guest.waitForFunction(() => document.body.dataset.you === 'chinese');
    await host.goto(`${base}/#game=${gameId}`);
    await host.waitForFunction(() => document.body.dataset.you === 'allied');
    // The host resigns (over the page's own seat token, as the Resign button would).
    await host.evaluate(async (id) => {
      const token = JSON.parse(localStorage.getItem('siege.seats'))[id].token;
      await new Promise((resolve, reject) => {
        const ws = new WebSocket(`${location.origin.replace('http', 'ws')}/ws/games/${id}`);
        ws.onopen = () => ws.send(JSON.stringify({ type: 'join', token }));
        ws.onmessage = (m) => {
          const f = JSON.parse(m.data);
          if (f.type === 'state' && f.view.result) { ws.close(); resolve(); } else if (f.type === 'state') ws.send(JSON.stringify({ type: 'action', seq: f.seq, action: { type: 'resign' } }));
        };
        ws.onerror = reject;
      });
    }, gameId);
    await host.waitForSelector('#rematch-ask');
    await guest.waitForSelector('#rematch-ask');
    await host.click('#rematch-ask');
    await host.waitForSelector('#rematch-go');
    await shot(host, 'mine-02-rematch-asked.png');
    await guest.waitForSelector('#rematch-accept');
    const offer = await guest.textContent('#rematch');
    assert(offer.includes('Your opponent offers a rematch'), `the offer: ${offer}`);
    await shot(guest, 'mine-03-rematch-offered.png');
    await guest.click('#rematch-accept');
    await guest.waitForFunction((id) => !location.hash.includes(id) && document.body.dataset.you === 'allied', gameId);
    await host.click('#rematch-go');
    await host.waitForFunction(() => document.body.dataset.you === 'chinese');
    await shot(guest, 'mine-04-rematch-seated.png');
  });

  for (const p of [host, guest]) await p.context().close();
}

// Alone: a server of its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = new SiegeServer();
  const base = await server.start();
  console.log(`# server ${server.bin} at ${base}`);
  const browser = await launch();
  await myGamesChecks(browser, base);
  await browser.close();
  await server.stop();
  finish();
}
