// Replay of any game from its log: the state after each action comes from the server
// (`GET /api/games/{id}/state?at=N`); step, play, jump to a turn or phase, or drag the slider
// over the seq. The log beside it marks the action shown; clicking an entry goes there.

import { h, byId, clear, toast } from './dom.js';
import { api } from './api.js';
import { GameLog } from './log.js';
import { phaseName } from './panels.js';
import { ChatPanel } from './chat.js';

export class Replay {
  constructor(table, gameId) {
    this.table = table;
    this.gameId = gameId;
    this.cache = new Map();
    this.pos = 0;
    this.log = new GameLog(byId('log'));
    this.chat = new ChatPanel();
    this.loadChat();
    this.keys = (e) => this.key(e);
    document.addEventListener('keydown', this.keys);
    this.start();
  }

  /** Both chats of a finished game; a game still being played keeps its chats to its readers. */
  async loadChat() {
    const closed = 'The chat of this game opens to all when it ends.';
    try {
      // Asked only of a finished game: the route refuses an ongoing one (403), which the
      // browser would log as an error for every replay of a game being played.
      const game = await api.game(this.gameId).catch(() => null);
      if (game && game.status !== 'finished') { this.chat.replay([], closed); return; }
      const res = await fetch(`/api/games/${encodeURIComponent(this.gameId)}/chat`);
      const body = await res.json();
      if (res.ok) this.chat.replay(body.messages ?? []);
      else this.chat.replay([], body?.error?.code === 'chat_private' ? closed : 'The chat could not be loaded.');
    } catch {
      this.chat.replay([], 'The chat could not be loaded.');
    }
  }

  async start() {
    try {
      const log = await api.log(this.gameId);
      this.entries = log.entries ?? [];
      this.origin = log.position ?? null; // a custom start: the position the game began from
      this.seed = log.seed ?? null;
      this.commitment = log.seed_commitment ?? null;
    } catch (e) {
      toast(`The log could not be loaded: ${e.message}`, 'error');
      return;
    }
    for (const e of this.entries) this.log.add(e.seq, e.events, e.side);
    byId('log').addEventListener('click', (ev) => {
      const li = ev.target.closest('li.entry');
      if (li) this.go(this.entries.findIndex((e) => String(e.seq) === li.dataset.seq) + 1);
    });
    this.buildControls();
    await this.go(this.entries.length);
  }

  /** Turn and phase starts from the log's events, for the jump list. A phase that begins and
   *  ends within one action (nothing to decide in it: skipped) has no position of its own — the
   *  state after that action is already in a later phase — so it is listed as skipped and
   *  cannot be chosen; every other entry goes to the first position in its phase. */
  marks() {
    const s = this.origin;
    const first = s
      ? `Custom start: turn ${s.turn ?? 1}, ${phaseName(s.phase ?? 'big_gun')} (before the first action)`
      : 'Setup (before the first action)';
    const out = [{ pos: 0, label: first }];
    this.entries.forEach((e, i) => {
      const heads = (e.events ?? []).filter((ev) => ev.kind === 'phase_began' || ev.kind === 'turn_began');
      const lastPhase = heads.map((ev) => ev.kind).lastIndexOf('phase_began');
      const over = (e.events ?? []).some((ev) => ev.kind === 'game_over');
      heads.forEach((ev, j) => {
        const skipped = ev.kind === 'phase_began' && (j < lastPhase || over);
        out.push({ pos: i + 1, label: `${ev.text}${skipped ? ' — skipped, nothing to decide' : ''}`, skipped });
      });
    });
    return out;
  }

  buildControls() {
    const el = clear(byId('replay-controls'));
    el.hidden = false;
    const n = this.entries.length;
    const btn = (id, text, title, fn) => h('button', { type: 'button', id, title, 'aria-label': title, onclick: fn, text });
    this.slider = h('input', {
      type: 'range', id: 'replay-slider', min: 0, max: n, value: n, step: 1, 'aria-label': 'Action number',
      oninput: () => { clearTimeout(this.slideTimer); this.slideTimer = setTimeout(() => this.go(Number(this.slider.value)), 60); },
    });
    this.where = h('div', { class: 'replay-where', 'aria-live': 'polite' });
    this.playBtn = btn('replay-play', 'Play', 'Play', () => this.togglePlay());
    // Each option has a value of its own (its place in the list), so two marks at the same
    // position stay two options; the position is in data-pos.
    const marks = this.marks();
    const jump = h('select', { id: 'replay-jump', 'aria-label': 'Jump to a turn or phase', onchange: () => { this.go(marks[Number(jump.value)].pos); } },
      h('option', { value: '', text: 'Jump to…', disabled: true, selected: true }),
      marks.map((m, i) => h('option', { value: i, 'data-pos': m.pos, disabled: m.skipped ? true : null, text: m.label })));
    el.append(...[
      h('div', { class: 'replay-title', text: 'Replay' }),
      h('div', { class: 'replay-buttons' },
        btn('replay-first', '|◀', 'First', () => this.go(0)),
        btn('replay-back', '◀', 'Step back', () => this.go(this.pos - 1)),
        this.playBtn,
        btn('replay-forward', '▶', 'Step forward', () => this.go(this.pos + 1)),
        btn('replay-last', '▶|', 'Last', () => this.go(n))),
      this.slider, this.where, jump,
      this.commitment ? h('div', { class: 'seed', title: 'SHA-256 of the dice seed, published at creation', text: `Dice: ${this.seed ? `seed ${this.seed.slice(0, 16)}… ` : ''}commitment ${this.commitment.slice(0, 16)}…` }) : null].filter(Boolean));
  }

  async fetch(k) {
    if (!this.cache.has(k)) {
      const p = api.stateAt(this.gameId, k).then((r) => r?.view ? r.view : r);
      this.cache.set(k, p);
      p.catch(() => this.cache.delete(k));
    }
    return this.cache.get(k);
  }

  /** Show the game after the first `k` actions. */
  async go(k) {
    const n = this.entries.length;
    k = Math.max(0, Math.min(n, k));
    this.pos = k;
    const ticket = (this.ticket = (this.ticket ?? 0) + 1);
    let view;
    try {
      view = await this.fetch(k);
    } catch (e) {
      toast(`State ${k} could not be loaded: ${e.message}`, 'error');
      this.stopPlay();
      return;
    }
    if (ticket !== this.ticket) return;
    this.table.render({ view, legal_actions: [], you: 'spectator', seq: k });
    this.table.clearArrows();
    const entry = this.entries[k - 1];
    if (entry) this.table.noteEvents(entry.events, entry.seq);
    this.slider.value = String(k);
    const who = entry ? `${entry.side === 'allied' ? 'Allied' : 'Chinese'} action #${entry.seq}` : 'before the first action';
    this.where.textContent = `${k} / ${n} — ${who} · Turn ${view.turn}, ${view.phase_title}`;
    document.body.dataset.replayPos = String(k);
    this.log.mark(entry ? entry.seq : null);
    if (k < n) this.fetch(k + 1).catch(() => {}); // the next step is usually wanted next
  }

  togglePlay() {
    if (this.playing) { this.stopPlay(); return; }
    if (this.pos >= this.entries.length) this.go(0);
    this.playing = setInterval(() => {
      if (this.pos >= this.entries.length) this.stopPlay();
      else this.go(this.pos + 1);
    }, 700);
    this.playBtn.textContent = 'Pause';
    this.playBtn.title = 'Pause';
  }

  stopPlay() {
    clearInterval(this.playing);
    this.playing = null;
    if (this.playBtn) { this.playBtn.textContent = 'Play'; this.playBtn.title = 'Play'; }
  }

  key(e) {
    if (e.target.closest?.('input, select, textarea')) return;
    if (e.key === 'ArrowRight') this.go(this.pos + 1);
    else if (e.key === 'ArrowLeft') this.go(this.pos - 1);
    else if (e.key === 'Home') this.go(0);
    else if (e.key === 'End') this.go(this.entries.length);
  }

  close() {
    this.stopPlay();
    document.removeEventListener('keydown', this.keys);
    byId('replay-controls').hidden = true;
    this.log.close();
    this.chat.close();
  }
}
