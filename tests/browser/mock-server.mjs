// A stand-in for the siege server built from the recorded fixtures (real `state` and `events`
// frames and the real `GET /api/scenario`), for looking at the page in every kind of step
// without playing a game to reach it. Game id = the fixture's name, e.g. `#game=state-BigGun-
// big_gun_fire--false`. Every action frame it receives is kept, for the tests to check.
//
//   node tests/browser/mock-server.mjs [--port N] [--fixtures DIR]

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

const here = path.dirname(fileURLToPath(import.meta.url));
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json' };

export function startMock({ port = 0, webDir = path.join(here, '../../web'), fixtures = process.env.SIEGE_FIXTURES ?? '/work/fixtures' } = {}) {
  const readFile = (name) => JSON.parse(fs.readFileSync(path.join(fixtures, `${name}.json`), 'utf8'));
  // Two made-up games on top of the recorded ones: a finished game with its result, and a
  // state offering action types the page has never heard of (it must still offer them).
  const read = (name) => {
    if (name === 'demo-result') {
      const f = readFile('state-AlliedCombat-combat--false');
      const over = readFile('events-game_over').events[0];
      return { ...f, legal_actions: [], view: { ...f.view, to_act: null, prompt: `Game over. ${over.text}`, result: { winner: over.winner, reason: over.reason, text: over.text } } };
    }
    if (name === 'demo-unknown') {
      const f = readFile('state-AlliedCombat-combat--false');
      return { ...f, legal_actions: [...f.legal_actions, { type: 'parley', hex: '1817' }, { type: 'ask_for_terms', offer: 3 }] };
    }
    return readFile(name);
  };
  const received = [];
  const eventsFrames = fs.readdirSync(fixtures).filter((f) => f.startsWith('events-')).sort().map((f) => read(f.slice(0, -5)));
  const json = (res, code, body) => { res.writeHead(code, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let m;
    if (url.pathname === '/api/scenario') return json(res, 200, read('scenario'));
    if (url.pathname === '/api/games' && req.method === 'GET') {
      const status = url.searchParams.get('status');
      const names = fs.readdirSync(fixtures).filter((f) => f.startsWith('state-')).map((f) => f.slice(0, -5));
      const games = status === 'finished' ? [] : names.slice(0, status === 'open' ? 1 : 4).map((n) => {
        const v = read(n).view;
        return { game_id: n, name: n.replace('state-', ''), status, turn: v.turn, phase: v.phase, seats: { allied: true, chinese: status !== 'open' }, created_at: '2024-06-20T10:00:00Z', result: null };
      });
      return json(res, 200, games);
    }
    if ((m = url.pathname.match(/^\/api\/games\/([^/]+)\/log$/))) {
      return json(res, 200, { game_id: m[1], seed_commitment: 'ab'.repeat(32), seed: null, entries: eventsFrames.map((f, i) => ({ seq: i + 1, side: i % 2 ? 'allied' : 'chinese', action: { type: 'pass' }, events: f.events, at: '2024-06-20T10:00:00Z' })) });
    }
    if ((m = url.pathname.match(/^\/api\/games\/([^/]+)\/state$/))) {
      try { return json(res, 200, read(m[1]).view); } catch { return json(res, 404, { error: { code: 'not_found', message: 'no such game' } }); }
    }
    if ((m = url.pathname.match(/^\/api\/games\/([^/]+)$/))) {
      try {
        const f = read(m[1]);
        return json(res, 200, { game_id: m[1], name: m[1].replace('state-', ''), status: 'active', seq: f.seq, seats: { allied: true, chinese: true }, view: f.view, legal_actions: [] });
      } catch { return json(res, 404, { error: { code: 'not_found', message: 'no such game' } }); }
    }
    if (url.pathname === '/api/analysis') return json(res, 404, { error: { code: 'not_found', message: 'no analysis here' } });
    if (url.pathname === '/__received') return json(res, 200, received);
    // Static files of the page.
    const file = path.join(webDir, url.pathname === '/' ? 'index.html' : path.normalize(url.pathname));
    if (!file.startsWith(webDir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404); return res.end('not found'); }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const m = req.url.match(/^\/ws\/games\/([^/?]+)/);
    if (!m) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const name = decodeURIComponent(m[1]);
      ws.on('message', (data) => {
        const f = JSON.parse(String(data));
        received.push({ game: name, frame: f });
        if (f.type === 'join' || f.type === 'spectate' || f.type === 'resume') {
          let state;
          try { state = read(name); } catch { ws.send(JSON.stringify({ type: 'error', code: 'not_found', message: 'no such game' })); return ws.close(); }
          if (f.type === 'spectate' || (f.type === 'resume' && !f.token)) state = { ...state, you: 'spectator', legal_actions: [] };
          ws.send(JSON.stringify(state));
        } else if (f.type === 'action') {
          ws.send(JSON.stringify({ type: 'error', code: 'mock', message: `mock server: received ${f.action.type}` }));
        } else if (f.type === 'ping') ws.send('{"type":"pong"}');
      });
    });
  });

  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => {
    const url = `http://127.0.0.1:${server.address().port}`;
    resolve({ url, received, close: () => new Promise((r) => { wss.close(); server.closeAllConnections?.(); server.close(r); }) });
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--port');
  const j = process.argv.indexOf('--fixtures');
  const m = await startMock({ port: i > 0 ? Number(process.argv[i + 1]) : 8099, fixtures: j > 0 ? process.argv[j + 1] : undefined });
  console.log(`mock listening on ${m.url}`);
}
