// The page against recorded frames of every kind of step (fixtures: real `state` frames from the
// engine), served by mock-server.mjs: each draws without errors, offers every legal action (as
// a map target or a button, and always in the list of all choices), and a click on the map
// sends exactly one element of legal_actions with the state's seq.
//
//   node tests/browser/fixtures.mjs            (SIEGE_FIXTURES=/work/fixtures by default)

import fs from 'node:fs';
import path from 'node:path';
import { startMock } from './mock-server.mjs';
import { launch, newPage, shot, check, assert, finish, clickHex } from './lib.mjs';

const fixtures = process.env.SIEGE_FIXTURES ?? '/work/fixtures';
if (!fs.existsSync(path.join(fixtures, 'scenario.json'))) {
  console.log(`no fixtures at ${fixtures}: nothing to do`);
  console.log('0 passed, 0 failed');
  process.exit(0);
}
const names = fs.readdirSync(fixtures).filter((f) => /^state-.*\.json$/.test(f)).map((f) => f.slice(0, -5)).sort();
const mock = await startMock({ fixtures });
const browser = await launch();

for (const name of names) {
  const frame = JSON.parse(fs.readFileSync(path.join(fixtures, `${name}.json`), 'utf8'));
  await check(`fixture ${name}: drawn, every legal action offered, a map click sends one`, async () => {
    const page = await newPage(browser, name);
    await page.goto(`${mock.url}/#game=${name}&token=fixture-token`);
    await page.waitForFunction((p) => document.querySelector('#prompt')?.textContent.includes(p), frame.view.prompt.slice(0, 40));
    const onMap = frame.view.units.filter((u) => u.status === 'on_map').length;
    const stacks = await page.locator('#map .stack').count();
    assert(onMap === 0 || stacks > 0, 'no stacks drawn');
    // The token is gone from the address bar once stored.
    assert(!page.url().includes('fixture-token'), `token left in the URL: ${page.url()}`);
    const offered = await page.$$eval('#actions .all-choices button[data-action]', (bs) => bs.map((b) => b.dataset.action));
    const legal = frame.legal_actions.map((a) => JSON.stringify(a));
    if (frame.you === frame.view.to_act) {
      assert(offered.length === legal.length && legal.every((a) => offered.includes(a)), `offered ${offered.length} of ${legal.length} actions`);
    }
    await shot(page, `fixture-${name.replace(/^state-/, '')}.png`);
    // A map action: fit the map, click its hex, pick it from the menu if one opens.
    const target = frame.legal_actions.find((a) => typeof (a.hex ?? a.to) === 'string' && !['choose_area'].includes(a.type));
    if (target && frame.you === frame.view.to_act) {
      await page.click('#zoom-fit');
      const before = mock.received.length;
      await clickHex(page, target.hex ?? target.to);
      const menuButton = page.locator(`#menu:not([hidden]) button[data-action='${JSON.stringify(target)}']`);
      if (await menuButton.count()) await menuButton.first().click();
      await page.waitForFunction(() => document.body.classList.contains('waiting') || document.querySelector('.toast'), null, { timeout: 3000 }).catch(() => {});
      const sent = mock.received.slice(before).filter((r) => r.frame.type === 'action');
      assert(sent.length === 1, `expected one action frame, got ${sent.length}`);
      const f = sent[0].frame;
      assert(f.seq === frame.seq, `seq ${f.seq} != ${frame.seq}`);
      assert(legal.includes(JSON.stringify(f.action)), `sent ${JSON.stringify(f.action)} which is not legal`);
    }
    await page.context().close();
  });
}

await check('a finished game shows its result', async () => {
  const page = await newPage(browser, 'result');
  await page.goto(`${mock.url}/#watch=demo-result`);
  await page.waitForSelector('#result:not([hidden])');
  const text = await page.textContent('#result');
  assert(/victory/i.test(text), `result box says ${text}`);
  await shot(page, 'fixture-result.png');
  await page.context().close();
});

await check('action types the page does not know are still offered and sent unchanged', async () => {
  const page = await newPage(browser, 'unknown');
  await page.goto(`${mock.url}/#game=demo-unknown&token=t`);
  await page.waitForSelector('#map .stack');
  const terms = page.locator(`#actions .buttons button[data-action='{"type":"ask_for_terms","offer":3}']`);
  assert(await terms.count() === 1, 'a button for ask_for_terms');
  assert(/ask for terms/i.test(await terms.textContent()), `its label: ${await terms.textContent()}`);
  const before = mock.received.length;
  await terms.click();
  await page.waitForTimeout(300);
  const sent = mock.received.slice(before).map((r) => r.frame).filter((f) => f.type === 'action');
  assert(sent.length === 1 && JSON.stringify(sent[0].action) === '{"type":"ask_for_terms","offer":3}', `sent ${JSON.stringify(sent)}`);
  // The one with a hex is lit on the map and offered in that hex's menu.
  assert(await page.locator('#map .hl[data-hex="1817"]').count() === 1, 'the parley hex is lit');
  await page.context().close();
});

// The same table on a phone.
await check('fixtures on a phone-sized screen', async () => {
  const page = await newPage(browser, 'phone', { width: 390, height: 844 }, { isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await page.goto(`${mock.url}/#game=state-ChineseCombat-combat--true&token=t`);
  await page.waitForSelector('#map .stack');
  await shot(page, 'fixture-phone-combat.png');
  await page.evaluate(() => window.scrollTo(0, 700));
  await shot(page, 'fixture-phone-panel.png');
  await page.context().close();
});

await check('lobby against the mock', async () => {
  const page = await newPage(browser, 'lobby-mock');
  await page.goto(`${mock.url}/`);
  await page.waitForSelector('#games-active .game-row');
  await shot(page, 'fixture-lobby.png');
  await page.context().close();
});

await browser.close();
await mock.close();
finish();
