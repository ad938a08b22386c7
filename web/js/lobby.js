// The lobby at `/`: create a game on a side and get the link to send the opponent (or play the
// computer, which takes the other seat at once and sends straight to the table), take a seat
// from an invitation, "My games" (the signed-in account's games and the seats kept in this
// browser, your move first with how long it has waited), and the lists of open, active and
// finished games with Join, Play, Watch and Replay — filtered by status, side and name, a page
// at a time (More). The token a seat comes with is kept in this browser (seats.js) and nowhere
// else.

import { h, byId, clear, toast, copyText } from './dom.js';
import { api } from './api.js';
import { saveSeat, seatFor, savedSeats, inviteLink, watchLink, seatLink } from './seats.js';
import { SIDE_NAME } from './panels.js';
import { showAccount } from './account.js';

const STATUSES = ['open', 'active', 'finished'];
const REFRESH_EVERY = 8000;
/** Games a list shows at first, and how many more each "More" adds. */
const PAGE = 20;
/** Browser-kept seats looked up one by one (`GET /api/games/{id}`) for My games. */
const MAX_KEPT = 20;
/** Games where it is your move, listed whatever their age (the server's own limit is 1000). */
const MAX_YOUR_MOVE = 200;

export class Lobby {
  constructor() {
    this.form = byId('create-form');
    this.submit = (e) => { e.preventDefault(); this.create(); };
    this.form.addEventListener('submit', this.submit);
    byId('refresh-games').onclick = () => this.refresh();
    // How many pages each list shows: a refresh asks for all of them at once.
    this.pages = { mine: 1, open: 1, active: 1, finished: 1 };
    // Finished games of kept seats, looked up once: they no longer change.
    this.finishedKept = new Map();
    const refilter = () => { this.pages = { mine: 1, open: 1, active: 1, finished: 1 }; this.refresh(); };
    byId('filter-status').onchange = refilter;
    byId('filter-side').onchange = refilter;
    let typing = null;
    byId('filter-name').oninput = () => { clearTimeout(typing); typing = setTimeout(refilter, 300); };
    byId('created').hidden = true;
    byId('join-card').hidden = true;
    // Whether an account is signed in: My games asks for the account's games only then (a
    // guest's seats come from this browser).
    this.signedIn = false;
    // A signed-in player's public seek is for signed-in players unless guests are let in; a
    // guest's seek is open to guests anyway (docs/protocol.md), so the choice is shown only
    // to a signed-in player making a public seek.
    const guestsOption = () => { byId('seek-guests-opt').hidden = !(this.signedIn && byId('public-seek').checked); };
    byId('public-seek').addEventListener('change', guestsOption);
    this.accountKnown = showAccount((account) => { this.signedIn = Boolean(account); guestsOption(); this.refresh(); })
      .then((me) => { this.signedIn = Boolean(me); guestsOption(); }, () => {});
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_EVERY);
  }

  async create() {
    const side = new FormData(this.form).get('side') ?? 'allied';
    const name = byId('game-name').value.trim();
    const bot = byId('opponent').value || undefined;
    const button = byId('create-game');
    button.disabled = true;
    try {
      // "Computer against computer": both seats to the computer at that level; the page watches.
      if (bot?.startsWith('watch:')) {
        const level = bot.slice('watch:'.length);
        const g = await api.watchBots({ allied: level, chinese: level }, name || undefined);
        location.hash = `watch=${encodeURIComponent(g.game_id)}`;
        return;
      }
      const visibility = bot ? undefined : byId('public-seek').checked ? 'public' : 'private';
      const guests = visibility === 'public' && this.signedIn ? byId('seek-guests').checked : undefined;
      const g = await api.createGame(side, name || undefined, undefined, bot, visibility, timeControlOf(byId('time-control').value), guests);
      saveSeat(g.game_id, g.side, g.token, g.invite_code);
      if (bot) {
        location.hash = `game=${encodeURIComponent(g.game_id)}`;
        return;
      }
      this.showCreated(g);
      this.refresh();
    } catch (e) {
      toast(`The game could not be created: ${e.message}`, 'error');
    } finally {
      button.disabled = false;
    }
  }

  showCreated(g) {
    // The server's invitation when it gives one (a path on this site), else the page's own.
    const link = g.invite_url ? new URL(g.invite_url, location.href).href : inviteLink(g.game_id);
    const other = g.side === 'allied' ? 'Chinese' : 'Allied';
    const box = clear(byId('created'));
    box.hidden = false;
    box.append(
      h('p', {}, 'Game created. You play the ', h('b', { text: SIDE_NAME[g.side] }), ` side. Send this link to your opponent; it gives them the ${other} seat:`),
      h('div', { class: 'link-row' },
        h('input', { id: 'invite-link', readonly: true, value: link, 'aria-label': 'Invitation link', onfocus: (e) => e.target.select() }),
        h('button', { type: 'button', class: 'small', onclick: () => copyText(link), text: 'Copy' })),
      h('div', { class: 'seat-row' },
        h('p', {}, h('b', { text: 'Keep your own seat: ' }), 'it is saved in this browser only. This private link opens it anywhere — bookmark it or send it to yourself, and share it with nobody:'),
        h('div', { class: 'link-row' },
          h('input', { id: 'seat-link-created', readonly: true, value: seatLink(g.game_id, g.token), 'aria-label': 'Your seat link', onfocus: (e) => e.target.select() }),
          h('button', { type: 'button', class: 'small', onclick: () => copyText(seatLink(g.game_id, g.token)), text: 'Copy' }))),
      h('p', { class: 'hint', text: 'Spectators can use the watch link.' }),
      h('div', { class: 'button-row' },
        h('a', { class: 'button primary', id: 'enter-game', href: `#game=${encodeURIComponent(g.game_id)}`, text: 'Go to the table' }),
        h('button', { type: 'button', class: 'small quiet', onclick: () => copyText(watchLink(g.game_id)), text: 'Copy watch link' })));
  }

  /** The filters as chosen: `{status, side, name}` (empty strings for "any"). */
  filters() {
    return {
      status: byId('filter-status').value,
      side: byId('filter-side').value,
      name: byId('filter-name').value.trim(),
    };
  }

  async refresh() {
    const f = this.filters();
    await Promise.all([this.refreshMine(f), ...STATUSES.map(async (status) => {
      const el = byId(`games-${status}`);
      const section = el.closest('section');
      // A status filter keeps only its own list.
      if (section) section.hidden = Boolean(f.status) && f.status !== status;
      if (f.status && f.status !== status) return;
      try {
        const games = await api.listGames(status, { name: f.name, limit: this.pages[status] * PAGE });
        this.renderList(el, status, games ?? []);
        this.moreButton(el, status, games ?? [], { status, name: f.name });
      } catch (e) {
        clear(el).append(h('p', { class: 'muted', text: `Could not load: ${e.message}` }));
      }
    })]);
  }

  /** "More" under a full list: the next page, after the list's last game (the `before` cursor). */
  moreButton(el, key, games, query) {
    if (games.length < this.pages[key] * PAGE) return;
    const last = games[games.length - 1]?.game_id;
    el.append(h('button', {
      type: 'button', class: 'small quiet more', 'data-more': key, text: 'More',
      onclick: async (e) => {
        e.target.disabled = true;
        try {
          const { status, ...rest } = query;
          const next = await api.listGames(status, { ...rest, before: last, limit: PAGE });
          this.pages[key] += 1;
          if (key === 'mine') await this.refreshMine(this.filters());
          else {
            const all = games.concat(next ?? []);
            this.renderList(el, key, all);
            this.moreButton(el, key, all, query);
          }
        } catch (err) {
          toast(`Could not load more: ${err.message}`, 'error');
          e.target.disabled = false;
        }
      },
    }));
  }

  /** My games: the signed-in account's (from the listing, with `you`, `your_move` and
   *  `waiting_since`) and the seats kept in this browser (each from `GET /api/games/{id}`), your
   *  move first — longest waiting at the top — then the rest, newest first. */
  async refreshMine(f) {
    const el = byId('games-mine');
    let listed = [];
    let page = [];
    await this.accountKnown;
    const signedIn = this.signedIn;
    if (signedIn) {
      try {
        // Every game where it is your move, however old, then the newest page of the rest.
        const query = { mine: true, side: f.side, name: f.name };
        const [yours, newest] = await Promise.all([
          api.listGames(f.status, { ...query, your_move: true, limit: MAX_YOUR_MOVE }),
          api.listGames(f.status, { ...query, limit: this.pages.mine * PAGE }),
        ]);
        page = newest ?? [];
        const first = new Set((yours ?? []).map((g) => g.game_id));
        listed = (yours ?? []).concat(page.filter((g) => !first.has(g.game_id)));
      } catch (e) {
        // Signed out elsewhere meanwhile: the seats kept here are still listed.
        if (e.status !== 401) {
          clear(el).append(h('p', { class: 'muted', text: `Could not load: ${e.message}` }));
          return;
        }
      }
    }
    const known = new Set(listed.map((g) => g.game_id));
    const kept = await Promise.all(savedSeats().filter((s) => !known.has(s.gameId)).slice(0, MAX_KEPT)
      .map((seat) => this.keptGame(seat)));
    const name = f.name.toLowerCase();
    const mine = listed.concat(kept.filter((g) => g
      && (!f.status || g.status === f.status)
      && (!f.side || g.you === f.side)
      && (!name || String(g.name ?? '').toLowerCase().includes(name))));
    const waiting = (g) => Date.parse(g.waiting_since ?? '') || Infinity;
    const yours = mine.filter((g) => g.your_move).sort((a, b) => waiting(a) - waiting(b));
    const rest = mine.filter((g) => !g.your_move);
    clear(el);
    if (!mine.length) {
      el.append(h('p', { class: 'muted', text: signedIn || savedSeats().length ? 'No games here.' : 'Sign in, or create or join a game: your games are listed here.' }));
      return;
    }
    const ul = h('ul', { class: 'games mine' });
    for (const g of yours.concat(rest)) ul.append(this.myRow(g));
    el.append(ul);
    if (signedIn) this.moreButton(el, 'mine', page, { status: f.status, mine: true, side: f.side, name: f.name });
  }

  /** A seat kept in this browser as a listing row (null when its game cannot be read). */
  async keptGame(seat) {
    if (this.finishedKept.has(seat.gameId)) return this.finishedKept.get(seat.gameId);
    try {
      const g = await api.game(seat.gameId);
      const toAct = g.to_act ?? g.view?.to_act ?? null;
      const row = {
        game_id: g.game_id, name: g.name, status: g.status, seats: g.seats, players: g.players, bots: g.bots,
        turn: g.view?.turn, phase: g.view?.phase, result: g.view?.result ?? null, clock: g.clock,
        // Nobody acts before both seats are taken (R7): an open game is nobody's move yet.
        you: seat.side, your_move: g.status === 'active' && toAct === seat.side,
        waiting_since: g.waiting_since, kept: true,
      };
      if (g.status === 'finished') this.finishedKept.set(seat.gameId, row);
      return row;
    } catch {
      return null;
    }
  }

  myRow(g) {
    const id = encodeURIComponent(g.game_id);
    // A seat kept in this browser, or one the signed-in account holds (listed with `you`): the
    // table opens it either way (without a token, the account's seat joins by the session).
    const seat = seatFor(g.game_id) ?? (g.you && !g.kept ? { side: g.you } : null);
    const finished = g.status === 'finished';
    const buttons = [];
    if (!finished) buttons.push(h('a', { class: `button small${g.your_move ? ' primary' : ''}`, href: seat ? `#game=${id}` : `#watch=${id}`, text: seat ? 'Play' : 'Open' }));
    else buttons.push(h('a', { class: 'button small', href: seat ? `#game=${id}` : `#replay=${id}`, text: 'Open' }));
    // A seat taken as a guest in this browser, while signed in now: take it into the account.
    if (g.kept && this.signedIn && seat?.token) {
      buttons.push(h('button', {
        type: 'button', class: 'small quiet claim', 'data-claim': g.game_id,
        title: 'Hold this seat with your account: listed in My games and opened on any device where you sign in',
        onclick: (e) => this.claim(e.target, g.game_id, seat.token), text: 'Claim for my account',
      }));
    }
    const state = finished ? (g.result?.text ?? 'finished')
      : g.status === 'open' ? 'waiting for a player' : `turn ${g.turn ?? '?'}, ${String(g.phase ?? '').replace(/_/g, ' ')}`;
    const move = g.your_move ? h('span', { class: 'your-move', text: `your move${g.waiting_since ? ` · ${waited(g.waiting_since)}` : ''}` })
      : !finished && g.status !== 'open' ? h('span', { class: 'muted', text: 'their move' }) : null;
    return h('li', { class: `game-row${g.your_move ? ' is-your-move' : ''}`, 'data-game': g.game_id, 'data-your-move': g.your_move ? 'true' : 'false' },
      h('div', { class: 'game-name' }, move, move ? ' ' : null, h('b', { text: g.name || g.game_id.slice(0, 8) }), h('span', { class: 'muted', text: ` · ${state}` })),
      h('div', { class: 'game-meta muted', text: `You: ${SIDE_NAME[g.you] ?? '?'} · ${finished ? '' : clockLeft(g.clock)}${seatsText(g)}${g.kept ? ' · kept in this browser' : ''}` }),
      h('div', { class: 'button-row' }, buttons));
  }

  /** Claim a browser-kept seat for the signed-in account; the list shows it as the account's. */
  async claim(button, gameId, token) {
    button.disabled = true;
    try {
      const r = await api.claimSeat(gameId, token);
      toast(`Your ${SIDE_NAME[r.side] ?? ''} seat is now held by your account.`);
      await this.refreshMine(this.filters());
    } catch (e) {
      button.disabled = false;
      toast(`The seat could not be claimed: ${e.message}`, 'error');
    }
  }

  renderList(el, status, games) {
    clear(el);
    if (!games.length) {
      el.append(h('p', { class: 'muted', text: status === 'open' ? 'No open games: create one.' : 'None yet.' }));
      return;
    }
    const ul = h('ul', { class: 'games' });
    for (const g of games) {
      const seat = seatFor(g.game_id);
      const id = encodeURIComponent(g.game_id);
      const buttons = [];
      if (status !== 'finished' && seat) buttons.push(h('a', { class: 'button small primary', href: `#game=${id}`, text: `Play (${SIDE_NAME[seat.side] ?? 'your seat'})` }));
      // A private game is listed only to its own players: no public Join, ever.
      if (status === 'open' && !seat && g.visibility === 'public') {
        // A seek for signed-in players only: a guest is told so, not refused after a click.
        if (g.guests === false && !this.signedIn) buttons.push(h('span', { class: 'muted members-only', text: 'Sign in to join' }));
        else buttons.push(h('button', { type: 'button', class: 'small primary', onclick: () => this.join(g.game_id), text: `Join as ${freeSeat(g) ?? 'player'}` }));
      }
      if (status !== 'finished') buttons.push(h('a', { class: 'button small', href: `#watch=${id}`, text: 'Watch' }));
      buttons.push(h('a', { class: 'button small quiet', href: `#replay=${id}`, text: 'Replay' }));
      const where = status === 'open' ? 'waiting for a player' : `turn ${g.turn}, ${String(g.phase ?? '').replace(/_/g, ' ')}`;
      const result = g.result ? ` — ${g.result.text ?? (g.result.winner ? `${SIDE_NAME[g.result.winner]} won` : '')}` : '';
      ul.append(h('li', { class: 'game-row', 'data-game': g.game_id },
        h('div', { class: 'game-name' }, h('b', { text: g.name || g.game_id.slice(0, 8) }), h('span', { class: 'muted', text: ` · ${where}${result}` })),
        h('div', { class: 'game-meta muted', text: `${seatsText(g)} · ${g.visibility === 'private' ? 'private · ' : ''}${clockWords(g.clock)}${status === 'active' ? clockLeft(g.clock) : ''}${when(g.created_at)}` }),
        h('div', { class: 'button-row' }, buttons)));
    }
    el.append(ul);
  }

  /** Take the free seat of a game (with a private game's invite code) and go to the table. */
  async join(gameId, code) {
    try {
      const r = await api.joinGame(gameId, undefined, code);
      saveSeat(r.game_id ?? gameId, r.side, r.token);
      location.hash = `game=${encodeURIComponent(gameId)}`;
    } catch (e) {
      const why = e.status === 409 ? 'Both seats are taken: you can watch instead.'
        : e.code === 'invite_required' ? 'This game is private: only its invite link (with its code) lets you in.'
          : e.code === 'sign_in_required' ? 'This seek is for signed-in players: sign in first.' : `Could not join: ${e.message}`;
      toast(why, 'error');
      this.refresh();
    }
  }

  close() {
    clearInterval(this.timer);
    this.form.removeEventListener('submit', this.submit);
  }
}

/** The invitation page (`#join=ID`): what the game is, and a button to take the free seat. */
export async function showInvitation(gameId, lobby, code) {
  const card = clear(byId('join-card'));
  card.hidden = false;
  card.append(h('h2', { text: 'Invitation' }), h('p', { class: 'muted', text: 'Loading the game…' }));
  let g = null;
  try { g = await api.game(gameId); } catch (e) {
    clear(card).append(h('h2', { text: 'Invitation' }), h('p', { text: `This game cannot be found (${e.message}).` }));
    return;
  }
  const free = freeSeat(g);
  clear(card).append(h('h2', { text: 'You are invited' }),
    h('p', {}, 'Game ', h('b', { text: g.name ?? gameId.slice(0, 8) }), free ? `: the ${free} seat is free.` : ': both seats are taken.'),
    h('div', { class: 'button-row' },
      free ? h('button', { type: 'button', class: 'primary', id: 'take-seat', onclick: () => lobby.join(gameId, code), text: `Take the ${free} seat` }) : null,
      h('a', { class: 'button', href: `#watch=${encodeURIComponent(gameId)}`, text: 'Watch' })));
}

/** A timed game's clock now, in words for a row: whose clock runs and how long it has left,
 *  or who ran out of time (then the other side may claim the win at the table). */
export function clockLeft(clock) {
  if (!clock) return '';
  if (clock.out_of_time) return `${SIDE_NAME[clock.out_of_time]} out of time · `;
  if (!clock.running) return '';
  const left = clock[`${clock.running}_ms`];
  if (!Number.isFinite(left)) return '';
  return `${SIDE_NAME[clock.running]} clock: ${spanWords(left)} left · `;
}

/** A listed game's time control in a few words (and a separator), or nothing. */
function clockWords(clock) {
  const c = clock?.control;
  if (c?.kind === 'live') return `clock ${Math.round(c.bank_seconds / 60)} min + ${Math.round((c.increment_seconds ?? 0) / 60)} a turn · `;
  if (c?.kind === 'correspondence') return `${Math.round(c.window_seconds / 3600)} h a decision · `;
  return '';
}

/** The lobby's Clock choice (`live:BANK:INCREMENT`, `correspondence:WINDOW`, in seconds) as a
 *  `time_control`, or undefined for no clock. */
function timeControlOf(value) {
  const [kind, a, b] = String(value ?? '').split(':');
  if (kind === 'live') return { kind, bank_seconds: Number(a), increment_seconds: Number(b ?? 0) };
  if (kind === 'correspondence') return { kind, window_seconds: Number(a) };
  return undefined;
}

function freeSeat(g) {
  const s = g.seats;
  if (!s) return null;
  if (!s.allied) return 'Allied';
  if (!s.chinese) return 'Chinese';
  return null;
}

function seatsText(g) {
  const s = g.seats ?? {};
  const p = g.players ?? {};
  const seat = (side) => (g.bots?.[side] ? `computer (${g.bots[side]})` : p[side] ?? (s[side] ? 'guest' : 'free'));
  return `Allies: ${seat('allied')}, Chinese: ${seat('chinese')}`;
}

/** Who holds each seat of `g` (a game from `GET /api/games/{id}`), for the table's top bar:
 *  an account's name, a computer with its level, a guest, or a free seat. */
export function playersText(g) {
  if (!g) return null;
  return ['allied', 'chinese'].map((side) => {
    const level = g.bots?.[side];
    const who = level ? `computer, ${level}` : (g.players?.[side] ?? (g.seats?.[side] ? 'guest' : 'free seat'));
    return `${SIDE_NAME[side]}: ${who}`;
  }).join(' · ');
}

/** How long since `iso`, shortly: `12 min`, `3 h`, `2 d`. */
export function waited(iso, now = Date.now()) {
  return spanWords(now - Date.parse(iso));
}

/** A span of `ms` milliseconds, shortly: `12 min`, `3 h`, `2 d` (empty when not a number). */
function spanWords(ms) {
  if (!Number.isFinite(ms)) return '';
  const min = Math.floor(Math.max(0, ms) / 60000);
  if (min < 60) return `${Math.max(1, min)} min`;
  const hours = Math.floor(min / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}
