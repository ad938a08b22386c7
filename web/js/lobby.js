// The lobby at `/`: create a game on a side and get the link to send the opponent (or play the
// computer, which takes the other seat at once and sends straight to the table), take a seat
// from an invitation, and the lists of open, active and finished games with Join, Play, Watch
// and Replay. The token a seat comes with is kept in this browser (seats.js) and nowhere else.

import { h, byId, clear, toast, copyText } from './dom.js';
import { api } from './api.js';
import { saveSeat, seatFor, keptSeats, inviteLink, watchLink, seatLink } from './seats.js';
import { SIDE_NAME } from './panels.js';
import { showAccount } from './account.js';

const STATUSES = ['open', 'active', 'finished'];
const REFRESH_EVERY = 8000;
/** How many of this browser's own seats the lobby looks up when the listings leave them out. */
const OWN_LOOKUPS = 20;

export class Lobby {
  constructor() {
    this.form = byId('create-form');
    this.submit = (e) => { e.preventDefault(); this.create(); };
    this.form.addEventListener('submit', this.submit);
    byId('refresh-games').onclick = () => this.refresh();
    byId('created').hidden = true;
    byId('join-card').hidden = true;
    showAccount(() => this.refresh());
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
      const visibility = bot ? undefined : byId('public-seek').checked ? 'public' : 'private';
      const g = await api.createGame(side, name || undefined, undefined, bot, visibility, timeControlOf(byId('time-control').value));
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

  async refresh() {
    const lists = await Promise.all(STATUSES.map(async (status) => {
      try { return await api.listGames(status) ?? []; } catch (e) { return e; }
    }));
    // A private game is listed only to the accounts holding its seats, so a guest's own games
    // would vanish from their lobby: the seats this browser keeps are looked up one by one and
    // added to their list, with Play (never Join).
    const listed = new Set(lists.flatMap((l) => (Array.isArray(l) ? l.map((g) => g.game_id) : [])));
    const own = await Promise.all(keptSeats().filter(([id]) => !listed.has(id)).slice(0, OWN_LOOKUPS)
      .map(([id]) => api.game(id).then(summaryOf, () => null)));
    STATUSES.forEach((status, i) => {
      const el = byId(`games-${status}`);
      if (!Array.isArray(lists[i])) {
        clear(el).append(h('p', { class: 'muted', text: `Could not load: ${lists[i].message}` }));
        return;
      }
      const mine = own.filter((g) => g?.status === status);
      const games = [...mine, ...lists[i]].sort((a, b) => String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')));
      this.renderList(el, status, games);
    });
  }

  renderList(el, status, games) {
    clear(el);
    if (!games.length) {
      el.append(h('p', { class: 'muted', text: status === 'open' ? 'No open games: create one.' : 'None yet.' }));
      return;
    }
    const ul = h('ul', { class: 'games' });
    for (const g of games.slice(0, 50)) {
      const seat = seatFor(g.game_id);
      const id = encodeURIComponent(g.game_id);
      const buttons = [];
      if (status !== 'finished' && seat) buttons.push(h('a', { class: 'button small primary', href: `#game=${id}`, text: `Play (${SIDE_NAME[seat.side] ?? 'your seat'})` }));
      // A private game is listed only to its own players: no public Join, ever.
      if (status === 'open' && !seat && g.visibility === 'public') buttons.push(h('button', { type: 'button', class: 'small primary', onclick: () => this.join(g.game_id), text: `Join as ${freeSeat(g) ?? 'player'}` }));
      if (status !== 'finished') buttons.push(h('a', { class: 'button small', href: `#watch=${id}`, text: 'Watch' }));
      buttons.push(h('a', { class: 'button small quiet', href: `#replay=${id}`, text: 'Replay' }));
      const where = status === 'open' ? 'waiting for a player' : `turn ${g.turn}, ${String(g.phase ?? '').replace(/_/g, ' ')}`;
      const result = g.result ? ` — ${g.result.text ?? (g.result.winner ? `${SIDE_NAME[g.result.winner]} won` : '')}` : '';
      ul.append(h('li', { class: 'game-row', 'data-game': g.game_id },
        h('div', { class: 'game-name' }, h('b', { text: g.name || g.game_id.slice(0, 8) }), h('span', { class: 'muted', text: ` · ${where}${result}` })),
        h('div', { class: 'game-meta muted', text: `${seatsText(g)} · ${g.visibility === 'private' ? 'private · ' : ''}${clockWords(g.clock)}${when(g.created_at)}` }),
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

/** A game as `GET /api/games/{id}` gives it, in the listing's shape. */
function summaryOf(g) {
  return {
    game_id: g.game_id, name: g.name, status: g.status, seats: g.seats, bots: g.bots, players: g.players,
    turn: g.view?.turn, phase: g.view?.phase, result: g.view?.result ?? null,
    created_at: seatFor(g.game_id)?.saved, visibility: g.visibility, own: true,
  };
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

/** The computer players of a game in words (`Chinese: computer, normal`), or null. */
export function botsText(g) {
  const names = Object.entries(g?.bots ?? {}).map(([side, level]) => `${SIDE_NAME[side]}: computer, ${level}`);
  return names.length ? names.join(' · ') : null;
}

function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}
