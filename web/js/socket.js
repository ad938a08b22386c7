// The WebSocket half of docs/protocol.md: one socket per game screen. The first frame says who is
// there (join with the seat's token; a token-less join for the seat the signed-in account holds,
// which the session cookie proves; or spectate); after a drop it reconnects by itself and
// sends `resume` with the last seq it saw, so the server sends only what was missed (an
// account's seat has no token to resume with: it joins again, for a full state). It asks
// for patches: after a full `state`, each new state comes as the RFC 6902 operations that turn
// the last state message into it (a few hundred bytes rather than the whole view), applied
// here, so the rest of the page always sees whole state messages.

const PING_EVERY = 25_000;
const BACKOFF = [500, 1000, 2000, 4000, 8000];

export class GameSocket {
  /**
   * @param {string} gameId
   * @param {string|null} token  the seat's token, or null to watch
   * @param {object} on  handlers: state(frame), events(frame), error(frame), status(s, detail),
   *   seatRefused(frame) when the account's seat is refused (the socket then watches)
   * @param {object} [opts]  `account: true` (with no token): the seat the signed-in account holds
   */
  constructor(gameId, token, on, opts = {}) {
    this.gameId = gameId;
    this.token = token;
    this.account = !token && Boolean(opts.account);
    this.on = on;
    this.seq = null; // the last seq seen, for resume
    this.tries = 0;
    this.closed = false;
    this.everOpened = false;
    this.open();
  }

  url() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${location.host}/ws/games/${encodeURIComponent(this.gameId)}`;
  }

  open() {
    this.on.status(this.everOpened ? 'reconnecting' : 'connecting');
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      this.tries = 0;
      this.everOpened = true;
      this.gotState = false;
      let hello;
      if (this.account) {
        hello = { type: 'join' };
      } else if (this.seq !== null) {
        hello = { type: 'resume', seq: this.seq };
        if (this.token) hello.token = this.token;
      } else if (this.token) {
        hello = { type: 'join', token: this.token };
      } else {
        hello = { type: 'spectate' };
      }
      hello.patches = true;
      this.last = null;
      ws.send(JSON.stringify(hello));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.raw({ type: 'ping' }), PING_EVERY);
    };
    ws.onmessage = (m) => this.message(m.data);
    ws.onclose = (e) => this.dropped(e);
    // onerror is always followed by onclose, which handles it.
    ws.onerror = () => {};
  }

  message(data) {
    let f;
    try { f = JSON.parse(data); } catch { return; }
    // The last state message is kept private (the page gets copies): a patch applies to
    // exactly what the server sent. A patch without one (it cannot happen: a full state always
    // comes first) or one that does not apply reconnects, for a full state.
    if (f.type === 'patch') {
      if (!this.last) { this.drop(); return; }
      try { applyPatch(this.last, f.ops); } catch { this.last = null; this.drop(); return; }
      f = structuredClone(this.last);
    } else if (f.type === 'state') {
      this.last = structuredClone(f);
    }
    if (f.type === 'state') {
      this.seq = f.seq;
      if (!this.gotState) { this.gotState = true; this.on.status('open'); }
      this.on.state(f);
    } else if (f.type === 'events') {
      this.on.events(f);
    } else if (f.type === 'error') {
      // The account holds no seat here (or both, or the session ended): watch instead, at once
      // and without alarming anyone — the server closes this socket after the refusal.
      if (!this.gotState && this.account && ['not_your_seat', 'not_signed_in'].includes(f.code)) {
        this.account = false;
        this.retryNow = true;
        this.on.seatRefused?.(f);
        return;
      }
      // Refused before any state: the seat or game is not ours to have; do not hammer.
      if (!this.gotState && ['bad_token', 'not_found', 'corrupt_log'].includes(f.code)) {
        this.fatal = f;
      }
      this.on.error(f);
    } else if (f.type === 'chat' || f.type === 'chat_history' || f.type === 'chat_muted') {
      this.on.chat?.(f);
    } else if (f.type === 'clock') {
      this.on.clock?.(f);
    } else if (f.type === 'rematch') {
      this.on.rematch?.(f);
    }
    // pong and frames this page does not know are ignored.
  }

  dropped(e) {
    clearInterval(this.pinger);
    if (this.closed) return;
    if (this.fatal) { this.on.status('closed', this.fatal.message); return; }
    if (this.retryNow) { this.retryNow = false; this.open(); return; }
    const wait = BACKOFF[Math.min(this.tries, BACKOFF.length - 1)];
    this.tries += 1;
    this.on.status('lost', `${e.code || ''}`);
    this.timer = setTimeout(() => this.open(), wait);
  }

  raw(frame) {
    if (this.ws?.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  /** Send `action`, an element of the latest legal_actions, answering the state numbered `seq`. */
  act(seq, action) {
    return this.raw({ type: 'action', seq, action });
  }

  /** Say `text` in this connection's chat. */
  say(text) {
    return this.raw({ type: 'chat', text });
  }

  /** Hide (or show again) the spectator chat for this seat. */
  muteSpectators(muted) {
    return this.raw({ type: 'chat_mute', muted });
  }

  /** Drop the socket on purpose (tests use it to check resume); it reconnects by itself. */
  drop() {
    this.ws?.close();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    this.ws?.close();
  }
}

/** Apply RFC 6902 `add`, `remove` and `replace` operations to `doc`, in order (as the server
 * writes them: paths are RFC 6901 JSON Pointers). Throws on an operation that does not apply. */
export function applyPatch(doc, ops) {
  for (const op of ops) {
    if (typeof op.path !== 'string' || !op.path.startsWith('/')) throw new Error(`bad path ${op.path}`);
    const tokens = op.path.split('/').slice(1).map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop();
    let parent = doc;
    for (const t of tokens) {
      parent = parent[Array.isArray(parent) ? Number(t) : t];
      if (parent === undefined || parent === null) throw new Error(`no ${op.path}`);
    }
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (!Number.isInteger(i) || i < 0 || i > parent.length) throw new Error(`bad index ${op.path}`);
      if (op.op === 'add') parent.splice(i, 0, op.value);
      else if (op.op === 'remove' && i < parent.length) parent.splice(i, 1);
      else if (op.op === 'replace' && i < parent.length) parent[i] = op.value;
      else throw new Error(`cannot ${op.op} ${op.path}`);
    } else if (op.op === 'add' || op.op === 'replace') {
      parent[last] = op.value;
    } else if (op.op === 'remove') {
      delete parent[last];
    } else {
      throw new Error(`unknown op ${op.op}`);
    }
  }
  return doc;
}
