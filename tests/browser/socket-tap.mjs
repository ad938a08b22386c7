// A tap on a page's game socket: every frame still goes to the real server and back, but a test
// may rewrite what the page receives (to show it a field the engine does not send yet, or a
// phase that passes too fast to catch) and sees — and may hold back — what the page sends.
// Playwright's routeWebSocket does the plumbing; install the tap before the page opens a game.

/**
 * @param {import('playwright-core').Page} page
 * @returns {Promise<{sent: object[], toPage: (f: object) => object|null, toServer: (f: object) => object|null}>}
 *   `sent`: every frame the page sent; `toPage` / `toServer`: replace them to rewrite frames
 *   (return null to drop one).
 */
export async function tapSocket(page) {
  const tap = { sent: [], toPage: (f) => f, toServer: (f) => f };
  await page.routeWebSocket(/\/ws\/games\//, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      let f;
      try { f = JSON.parse(String(m)); } catch { server.send(m); return; }
      tap.sent.push(f);
      const out = tap.toServer(f);
      if (out) server.send(JSON.stringify(out));
    });
    server.onMessage((m) => {
      let f;
      try { f = JSON.parse(String(m)); } catch { ws.send(m); return; }
      const out = tap.toPage(f);
      if (out) ws.send(JSON.stringify(out));
    });
    ws.onClose((code, reason) => server.close({ code, reason }));
    server.onClose((code, reason) => ws.close({ code, reason }));
  });
  return tap;
}

/** The action frames the page sent since `from` (an index into `tap.sent`). */
export function actionsSent(tap, from = 0) {
  return tap.sent.slice(from).filter((f) => f.type === 'action').map((f) => f.action);
}
