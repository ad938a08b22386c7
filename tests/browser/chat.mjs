// The chat beside the log, by three browsers: the two seats and a spectator. The players talk in
// the table chat (the other seat's Chat tab shows an unread count until opened); a message of
// HTML and a script is shown as its text and nothing in it runs; the spectator chat is the
// spectators' own and the players do not see it; a player's mute of the spectator chat is kept
// across a reload; the Download button gives the transcript; a finished game's replay shows
// its chat. Run by run.mjs; alone (own server) `node tests/browser/chat.mjs`, about 20 s.

import { pathToFileURL } from 'node:url';
import { launch, newPage, shot, check, assert, finish } from './lib.mjs';
import { SiegeServer } from './server.mjs';

const HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b>bold?</b>';

async function post(base, path, body) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The chat messages a page shows, as text. */
async function shown(page) {
  return page.$$eval('#chat-list li .chat-text', (els) => els.map((e) => e.textContent));
}

async function waitShown(page, text) {
  await page.waitForFunction((t) => [...document.querySelectorAll('#chat-list li .chat-text')].some((e) => e.textContent === t), text, { timeout: 10_000 });
}

async function say(page, text) {
  await page.click('#tab-chat');
  await page.fill('#chat-input', text);
  await page.press('#chat-input', 'Enter');
}

export async function chatChecks(browser, base) {
  const created = await post(base, '/api/games', { side: 'allied', name: 'Chat test' });
  const id = created.game_id;
  // Private by default: the second seat is taken with the invite code, as the invite link does.
  const joined = await post(base, `/api/games/${id}/join`, { code: created.invite_code });
  const allied = await newPage(browser, 'chat-allied', { width: 1366, height: 800 });
  const chinese = await newPage(browser, 'chat-chinese', { width: 1366, height: 800 });
  const watcher = await newPage(browser, 'chat-watcher', { width: 1366, height: 800 });
  const open = async (page, hash, you) => {
    await page.goto(`${base}/#${hash}`);
    await page.waitForFunction((y) => document.body.dataset.you === y, you, { timeout: 15_000 });
  };
  await open(allied, `game=${id}&token=${created.token}`, 'allied');
  await open(chinese, `game=${id}&token=${joined.token}`, 'chinese');
  await open(watcher, `watch=${id}`, 'spectator');

  await check('chat: a player\'s message reaches the other seat, with an unread count until the Chat tab is opened', async () => {
    await say(allied, 'Good luck, and no mercy.');
    await waitShown(allied, 'Good luck, and no mercy.');
    await chinese.waitForSelector('#chat-unread:not([hidden])', { timeout: 10_000 });
    const count = await chinese.textContent('#chat-unread');
    assert(count === '1', `one unread message, the badge says ${count}`);
    assert(await chinese.isVisible('#log'), 'the log is still what the other player reads');
    await shot(chinese, '40-chat-unread.png');
    await chinese.click('#tab-chat');
    await waitShown(chinese, 'Good luck, and no mercy.');
    assert(await chinese.isHidden('#chat-unread'), 'opening the chat clears the unread count');
  });

  await check('chat: HTML and a script in a message are shown as text and nothing runs', async () => {
    await say(chinese, HOSTILE);
    await waitShown(allied, HOSTILE);
    await waitShown(chinese, HOSTILE);
    for (const p of [allied, chinese]) {
      const xss = await p.evaluate(() => window.__xss ?? null);
      assert(xss === null, `${p.name}: the message's markup ran (window.__xss = ${xss})`);
      const tags = await p.$$eval('#chat-list img, #chat-list script, #chat-list b', (els) => els.length);
      assert(tags === 0, `${p.name}: the message became ${tags} elements`);
    }
    await shot(allied, '41-chat-xss-as-text.png');
  });

  await check('chat: the spectators have their own chat, and the players do not see it during the game', async () => {
    await watcher.click('#tab-chat');
    const note = await watcher.textContent('#chat-note');
    assert(/players cannot read/.test(note), note);
    assert((await shown(watcher)).length === 0, `the spectator sees the table chat: ${await shown(watcher)}`);
    assert(await watcher.isHidden('#chat-mute'), 'a spectator has no mute');
    await say(watcher, 'The Boxers will be at the wall by turn 3.');
    await waitShown(watcher, 'The Boxers will be at the wall by turn 3.');
    await say(allied, 'still here');
    await waitShown(chinese, 'still here');
    for (const p of [allied, chinese]) {
      const texts = await shown(p);
      assert(!texts.includes('The Boxers will be at the wall by turn 3.'), `${p.name} sees the spectator chat`);
    }
    assert(!(await shown(watcher)).includes('still here'), 'the spectator sees the table chat');
    await shot(watcher, '42-chat-spectators.png');
  });

  await check('chat: a player mutes the spectator chat and the choice is kept across a reload', async () => {
    assert(await allied.isVisible('#chat-mute'), 'a player has the mute');
    await allied.check('#chat-mute');
    // The server's `chat_muted` answer: the choice is stored before the page reloads.
    await allied.waitForSelector('#chat-mute[data-stored="true"]', { state: 'attached', timeout: 10_000 });
    await allied.reload();
    await allied.waitForFunction(() => document.body.dataset.you === 'allied');
    await allied.click('#tab-chat');
    await allied.waitForFunction(() => document.getElementById('chat-mute')?.checked === true, null, { timeout: 10_000 });
    await waitShown(allied, 'still here');
    assert((await shown(allied)).length === 3, `the history after a reload: ${await shown(allied)}`);
    await shot(allied, '43-chat-after-reload.png');
  });

  await check('download: the Download button gives the game told in words', async () => {
    const href = await allied.getAttribute('#download-transcript', 'href');
    assert(href === `/api/games/${id}/transcript`, href);
    const res = await fetch(`${base}${href}`);
    const text = await res.text();
    assert(res.ok && /text\/markdown/.test(res.headers.get('content-type')), `${res.status} ${res.headers.get('content-type')}`);
    assert(text.startsWith('# Siege at Peking: Chat test') && text.includes('## Still being played'), text.slice(0, 300));
    // Beside it, the log as JSON, as the API gives it.
    const logHref = await allied.getAttribute('#download-log', 'href');
    assert(logHref === `/api/games/${id}/log` && await allied.getAttribute('#download-log', 'download') === `siege-${id}.json`, logHref);
    const log = await (await fetch(`${base}${logHref}`)).json();
    assert(Array.isArray(log.entries) && log.game_id === id, JSON.stringify(log).slice(0, 200));
  });

  await check('chat: the replay of a game still being played says its chat opens when it ends', async () => {
    const replay = await newPage(browser, 'chat-replay', { width: 1366, height: 800 });
    await replay.goto(`${base}/#replay=${id}`);
    await replay.waitForSelector('#map .hex');
    await replay.click('#tab-chat');
    await replay.waitForFunction(() => /opens to all when it ends/.test(document.getElementById('chat-note')?.textContent ?? ''), null, { timeout: 10_000 });
    assert((await shown(replay)).length === 0, 'no message of an ongoing game in its replay');
    await replay.context().close();
  });

  await check('an untimed game left waiting: the waiting player is offered to claim it, and the server has the last word', async () => {
    assert(await chinese.locator('#claim-abandoned').count() === 0, 'nothing to claim in a game that just began');
    // Told (by a rewritten answer) that the Allied decision may be claimed now: the page offers
    // the claim; the server, for which 30 days have not passed, refuses it in words.
    await chinese.route(`${base}/api/games/${id}`, async (route) => {
      const res = await route.fetch();
      const g = await res.json();
      g.abandon_at = new Date(Date.now() - 1000).toISOString();
      await route.fulfill({ response: res, json: g });
    });
    await chinese.reload();
    await chinese.waitForSelector('#claim-abandoned', { timeout: 10_000 });
    await shot(chinese, '45-claim-abandoned.png');
    await chinese.click('#claim-abandoned');
    await chinese.waitForSelector('#confirm:not([hidden])');
    await chinese.click('#confirm-yes');
    await chinese.waitForSelector('.toast >> text=abandoned', { timeout: 10_000 });
    await chinese.unroute(`${base}/api/games/${id}`);
    assert(await allied.evaluate(() => document.body.dataset.toAct) === 'allied', 'the game goes on');
  });

  await check('chat: once the game is over, its replay shows its chat to anyone', async () => {
    await allied.click('#resign');
    await allied.click('#confirm-yes');
    await allied.waitForSelector('#result:not([hidden])', { timeout: 10_000 });
    const replay = await newPage(browser, 'chat-replay-over', { width: 1366, height: 800 });
    await replay.goto(`${base}/#replay=${id}`);
    await replay.waitForSelector('#map .hex');
    await replay.click('#tab-chat');
    await waitShown(replay, 'still here');
    const texts = await shown(replay);
    assert(texts.length >= 3, `the finished game's chat in its replay: ${texts}`);
    await shot(replay, '44-replay-chat.png');
    await replay.context().close();
  });

  for (const p of [allied, chinese, watcher]) await p.context().close();
}

// Alone: a server of its own.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const t0 = Date.now();
  const server = new SiegeServer();
  const base = await server.start();
  console.log(`# server ${server.bin} at ${base}`);
  const browser = await launch();
  await chatChecks(browser, base);
  await browser.close();
  await server.stop();
  console.log(`# ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  finish();
}
