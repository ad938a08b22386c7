// Live play and spectating over the WebSocket: states go to the table, events to the log and the
// move arrows, refusals to a toast, and a dropped socket to a banner while it resumes from its
// seq. The log route fills in what happened before this page was opened.

import { byId, h, toast, clear, copyText } from './dom.js';
import { api } from './api.js';
import { GameSocket } from './socket.js';
import { GameLog } from './log.js';
import { saveSeat, forgetSeat, seatFor } from './seats.js';
import { SIDE_NAME } from './panels.js';
import { ChatPanel } from './chat.js';
import { GameClock } from './clock.js';
import { TurnAlert } from './notify.js';

export class LiveGame {
  /** `seat`: {side, token} to play, {side, token: null, account: true} to play the seat the
   *  signed-in account holds (no token in this browser), or null to watch. */
  constructor(table, gameId, seat) {
    this.table = table;
    this.gameId = gameId;
    this.seat = seat;
    this.log = new GameLog(byId('log'));
    this.chat = new ChatPanel({
      send: (text) => this.socket?.say(text),
      mute: (muted) => this.socket?.muteSpectators(muted),
    });
    this.lastLogged = 0;
    this.title = document.title;
    // The tab's title, icon, sound and notification when it becomes this player's move.
    this.alert = new TurnAlert(() => byId('game-title').textContent.trim());
    table.act = seat ? (a) => { this.alert.acted(); return this.socket.act(this.table.state.seq, a); } : null;
    this.clock = new GameClock(byId('clocks'), table.act);
    table.explain = seat ? (a) => this.explain(a) : null;
    this.start();
  }

  async start() {
    await this.fillLog();
    this.socket = new GameSocket(this.gameId, this.seat?.token ?? null, {
      state: (f) => this.onState(f),
      events: (f) => this.onEvents(f),
      error: (f) => this.onError(f),
      status: (s, detail) => this.onStatus(s, detail),
      chat: (f) => this.onChat(f),
      clock: (f) => this.clock.update(f.clock),
      rematch: (f) => this.onRematch(f),
      seatRefused: (f) => this.onSeatRefused(f),
    }, { account: Boolean(this.seat?.account) });
  }

  /** Everything logged so far; safe to call again, each seq is added once. */
  async fillLog() {
    try {
      const log = await api.log(this.gameId);
      for (const e of log.entries ?? []) {
        this.log.add(e.seq, e.events, e.side);
        this.lastLogged = Math.max(this.lastLogged, e.seq);
      }
      this.log.scrollDown();
    } catch (e) {
      toast(`The log could not be loaded: ${e.message}`, 'error');
    }
  }

  onState(f) {
    this.table.render(f);
    document.body.dataset.seq = f.seq;
    document.body.dataset.you = f.you;
    document.body.dataset.toAct = f.view.to_act ?? '';
    this.chat.setYou(f.you);
    const decider = this.clock.toAct;
    this.clock.state(f);
    // Whether the opponent's decision can be claimed as abandoned: asked whenever the decision
    // changes hands in a game with no clock (none has come; a timed game's follows its first
    // state at once). The server checks again when the claim comes.
    if (this.seat && !f.view.result && !this.clock.clock && decider !== this.clock.toAct) {
      api.game(this.gameId).then((g) => this.clock.abandonAt(g.abandon_at), () => {});
    }
    if (this.seat?.account && f.you !== 'spectator') this.seat.side = f.you;
    if (this.seat?.token && f.you !== 'spectator' && (this.seat.unsaved || this.seat.side !== f.you)) {
      this.seat.side = f.you;
      this.seat.unsaved = false;
      saveSeat(this.gameId, f.you, this.seat.token);
    }
    const badge = byId('you-badge');
    badge.hidden = false;
    badge.textContent = f.you === 'spectator' ? 'Watching' : `You: ${SIDE_NAME[f.you]}`;
    badge.className = `you-badge side-${f.you}`;
    this.alert.update(f);
    // Actions taken between the log fetch and the join, or skipped while this page was too far
    // behind (the server then sends the current state alone): fetch them so the log has no hole.
    if (f.seq > this.lastLogged) this.fillLog();
    this.showRematch(f);
  }

  /** A finished game, to a player: "Rematch", or the rematch asked for (by either player). */
  showRematch(f = this.table.state) {
    const box = byId('rematch');
    if (!f || !f.view.result || !this.seat || f.you === 'spectator') { box.hidden = true; return; }
    box.hidden = false;
    const r = this.rematch;
    if (!r) {
      clear(box).append(h('button', { type: 'button', id: 'rematch-ask', class: 'primary', text: 'Rematch',
        title: 'A new private game with the sides swapped and the same time control', onclick: () => this.askRematch() }));
      return;
    }
    const id = encodeURIComponent(r.game_id);
    const link = new URL(r.invite_url, location.href).href;
    if (r.by === f.you) {
      const mine = seatFor(r.game_id);
      clear(box).append(
        h('p', { text: 'You asked for a rematch. Your opponent is offered it here; you may also send them this link:' }),
        h('div', { class: 'link-row' },
          h('input', { readonly: true, value: link, 'aria-label': 'Rematch invitation link', onfocus: (e) => e.target.select() }),
          h('button', { type: 'button', class: 'small', onclick: () => copyText(link), text: 'Copy' })),
        mine ? h('a', { class: 'button primary', id: 'rematch-go', href: `#game=${id}`, text: 'Go to the new game' }) : null);
    } else if (seatFor(r.game_id)) {
      clear(box).append(h('a', { class: 'button primary', id: 'rematch-go', href: `#game=${id}`, text: 'Go to the rematch' }));
    } else {
      clear(box).append(
        h('p', { text: 'Your opponent offers a rematch (the sides swapped).' }),
        h('button', { type: 'button', id: 'rematch-accept', class: 'primary', text: 'Accept', onclick: () => this.acceptRematch() }));
    }
  }

  /** The `rematch` frame, or the answer to a rematch request: `{game_id, by, invite_url}`. */
  onRematch(f) {
    this.rematch = { game_id: f.game_id, by: f.by, invite_url: f.invite_url };
    this.showRematch();
  }

  async askRematch() {
    try {
      const r = await api.rematch(this.gameId, this.seat?.token);
      if (r.token) saveSeat(r.game_id, r.side, r.token, r.invite_code);
      this.onRematch(r);
    } catch (e) {
      toast(`No rematch: ${e.message}`, 'error');
    }
  }

  /** Take the seat the rematch's invite link offers, and go to the new game. */
  async acceptRematch() {
    const url = new URL(this.rematch.invite_url, location.href);
    try {
      const r = await api.joinGame(this.rematch.game_id, url.searchParams.get('join') ?? undefined, url.searchParams.get('code') ?? undefined);
      saveSeat(r.game_id ?? this.rematch.game_id, r.side, r.token);
      location.hash = `game=${encodeURIComponent(this.rematch.game_id)}`;
    } catch (e) {
      toast(`The rematch could not be joined: ${e.message}`, 'error');
    }
  }

  /** The server did not seat the account (it holds no seat here after all, or the session
   *  ended): this page watches instead. */
  onSeatRefused(f) {
    this.seat = null;
    this.table.act = null;
    this.table.explain = null;
    toast(`Your account's seat could not be opened (${f.message}): watching.`, 'info');
  }

  onChat(f) {
    if (f.type === 'chat') this.chat.add(f);
    else if (f.type === 'chat_history') this.chat.history(f);
    else if (f.type === 'chat_muted') this.chat.muted(f);
  }

  onEvents(f) {
    // Whose action it was comes with the frame; an older server's frames lack it, and then the
    // side to act in the state before is the best guess.
    const side = f.side ?? this.table.state?.view.to_act ?? null;
    this.log.add(f.seq, f.events, side);
    this.lastLogged = Math.max(this.lastLogged, f.seq);
    this.table.noteEvents(f.events, f.seq);
  }

  /** Why the engine would refuse `action` now (`POST /api/games/{id}/explain`), or null where
   *  the server cannot say (an older server: asked once, then not again). */
  async explain(action) {
    if (this.noExplain) return null;
    try {
      return await api.explain(this.gameId, action);
    } catch (e) {
      if (e.status === 404 || e.status === 405) this.noExplain = true;
      return null;
    }
  }

  onError(f) {
    if (f.code === 'stale') {
      toast('The game moved on before your order arrived; here is the new situation.', 'info');
      return;
    }
    toast(`${f.message}${f.rule ? ` (rule ${f.rule})` : ''}`, 'error');
    document.body.classList.remove('waiting');
    if (this.table.state) this.table.render(this.table.state);
  }

  onStatus(s, detail) {
    const banner = byId('banner');
    const conn = byId('conn');
    document.body.dataset.conn = s;
    conn.className = `conn ${s}`;
    conn.textContent = { connecting: 'connecting…', open: 'live', lost: 'offline', reconnecting: 'reconnecting…', closed: 'closed' }[s] ?? s;
    if (s === 'open') {
      banner.hidden = true;
    } else if (s === 'lost' || s === 'reconnecting') {
      banner.hidden = false;
      const seq = this.socket?.seq;
      banner.textContent = seq === null || seq === undefined
        ? 'The server cannot be reached — trying again…'
        : `Connection lost — reconnecting and resuming from move #${seq}…`;
    } else if (s === 'closed') {
      // A kept seat the server refuses is forgotten only when the player says so: a stored
      // token is never deleted behind their back.
      const forget = this.seat && !this.seat.unsaved && this.socket?.fatal?.code === 'bad_token'
        ? [' ', h('button', { type: 'button', class: 'small quiet', id: 'forget-seat', text: 'Forget this seat',
          onclick: () => { forgetSeat(this.gameId); location.hash = `watch=${encodeURIComponent(this.gameId)}`; } })]
        : [];
      banner.hidden = false;
      banner.replaceChildren(`The server refused this connection: ${detail ?? ''} `,
        h('a', { href: `#watch=${encodeURIComponent(this.gameId)}`, text: 'Watch instead' }), ...forget);
    }
  }

  close() {
    byId('rematch').hidden = true;
    this.socket?.close();
    this.log.close();
    this.chat.close();
    this.clock.close();
    this.alert.close();
    document.title = this.title;
  }
}
