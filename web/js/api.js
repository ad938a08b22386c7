// The HTTP half of docs/protocol.md. Tokens travel only in the WebSocket's `join`/`resume`
// frames — and in the body of a rematch request, which a seat makes with its token.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function request(method, path, body) {
  const init = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'network', `The server cannot be reached (${e.message})`);
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON: reported below */ }
  if (!res.ok) {
    const err = data?.error ?? {};
    throw new ApiError(res.status, err.code ?? `http_${res.status}`, err.message ?? (text || res.statusText));
  }
  return data;
}

let scenarioPromise = null;

const SIGNED_IN = 'siege.signedIn';

function signedInHere() {
  try { return localStorage.getItem(SIGNED_IN) === '1'; } catch { return true; }
}

function markSignedIn(yes) {
  try { if (yes) localStorage.setItem(SIGNED_IN, '1'); else localStorage.removeItem(SIGNED_IN); } catch { /* no storage: always ask */ }
}

export const api = {
  /** The map and counter mix; fetched once per page. */
  scenario() {
    scenarioPromise ??= request('GET', '/api/scenario').catch((e) => { scenarioPromise = null; throw e; });
    return scenarioPromise;
  },
  /** A new game on `side`; with `position` (the analysis board's JSON) it starts from there. */
  createGame(side, name, position, bot, visibility, timeControl, guests) {
    const body = { side };
    if (name) body.name = name;
    if (position) body.position = position;
    if (bot) body.opponent = { bot };
    if (visibility) body.visibility = visibility;
    if (timeControl) body.time_control = timeControl;
    if (guests !== undefined) body.guests = guests;
    return request('POST', '/api/games', body);
  },
  /** A game between two computers, to watch: `levels` is `{allied, chinese}`; nobody gets a seat. */
  watchBots(levels, name) {
    const body = { opponents: levels };
    if (name) body.name = name;
    return request('POST', '/api/games', body);
  },
  /** The free seat (or `side`); `code` is a private game's invite code. */
  joinGame(id, side, code) {
    const body = {};
    if (side) body.side = side;
    if (code) body.code = code;
    return request('POST', `/api/games/${encodeURIComponent(id)}/join`, body);
  },
  /** Take a seat this browser keeps (by its token) into the signed-in account: it is then
   *  listed in My games and opened by the session on any device. */
  claimSeat(id, token) {
    return request('POST', `/api/games/${encodeURIComponent(id)}/claim`, { token });
  },
  /** The signed-in account, or null. The session cookie is HttpOnly, so the page cannot see
   *  it: it asks only where this browser signed in (a hint kept in localStorage), so that a
   *  guest's every visit to the lobby is not a 401 the browser logs as an error. */
  async me() {
    if (!signedInHere()) return null;
    try { return await request('GET', '/api/account'); } catch (e) {
      if (e.status === 401) { markSignedIn(false); return null; }
      throw e;
    }
  },
  async signUp(name, password) { const r = await request('POST', '/api/account/signup', { name, password }); markSignedIn(true); return r; },
  async logIn(name, password) { const r = await request('POST', '/api/account/login', { name, password }); markSignedIn(true); return r; },
  async logOut() { markSignedIn(false); return request('POST', '/api/account/logout'); },
  /** The signed-in player's your-turn e-mail and webhook (`{email, webhook, email_available}`). */
  notifications() {
    return request('GET', '/api/account/notifications');
  },
  /** Store them; an empty value turns that channel off. */
  setNotifications(email, webhook) {
    return request('POST', '/api/account/notifications', { email: email || null, webhook: webhook || null });
  },
  changePassword(oldPassword, newPassword) {
    return request('POST', '/api/account/password', { old_password: oldPassword, new_password: newPassword });
  },
  /** A page of the listing: `query` holds any of status, mine, side, name, limit and before
   *  (the id of the last game of the page before). */
  listGames(status, query = {}) {
    const q = new URLSearchParams();
    if (status) q.set('status', status);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
    return request('GET', `/api/games?${q}`);
  },
  /** Ask for a rematch of a finished game: with the seat's `token`, or none when the signed-in
   *  account holds the seat. The answer has the new game, its invite link and, the first time,
   *  the caller's new seat token. */
  rematch(id, token) {
    return request('POST', `/api/games/${encodeURIComponent(id)}/rematch`, token ? { token } : {});
  },
  game(id) {
    return request('GET', `/api/games/${encodeURIComponent(id)}`);
  },
  log(id) {
    return request('GET', `/api/games/${encodeURIComponent(id)}/log`);
  },
  /** The view after the first `n` log entries. */
  stateAt(id, n) {
    return request('GET', `/api/games/${encodeURIComponent(id)}/state?at=${n}`);
  },
  /** Why the engine would refuse `action` in the game now (a click on a hex that is no
   *  choice): `{seq, side, legal, code, message, rule}`. Nothing changes. */
  explain(id, action) {
    return request('POST', `/api/games/${encodeURIComponent(id)}/explain`, { action });
  },
  /** Ask the engine about a position: `{position, queries}` → `{answers}`. */
  analysis(body) {
    return request('POST', '/api/analysis', body);
  },
};
