// The page's router. Everything lives behind the URL fragment, so the server serves one page and
// nothing in a fragment (a seat's token above all) ever reaches it:
//   (empty)          the lobby
//   #join=ID         an invitation: take the free seat
//   #game=ID         play your seat (its token is in this browser, or the signed-in account holds
//                    it: then the socket joins without a token), or watch if you have none
//   #game=ID&token=T a seat link from another device: dropped from the URL at once; its token is
//                    kept only once the server seats it, and replaces a kept seat only if the
//                    player says so
//   #watch=ID        spectate live
//   #replay=ID       replay from the log
//   #analyse[=POS]   the analysis board, POS a position as base64url JSON (position.js)
// The server's invite and spectate URLs (`/?game=ID&join=SIDE[&code=C]`, `/?game=ID&watch`) are
// read too; a private game's invite code moves into the fragment (`#join=ID&code=C`) at once.

import { byId, h, toast, copyText } from './dom.js';
import { api } from './api.js';
import { Table } from './table.js';
import { LiveGame } from './live.js';
import { Replay } from './replay.js';
import { Lobby, showInvitation, playersText } from './lobby.js';
import { seatFor, seatLink, inviteLink, markSeatKept } from './seats.js';
import { AnalysisBoard } from './analysis.js';
import { positionOf, decodePosition, encodePosition } from './position.js';

let current = null; // the screen's controllers, closed on navigation
let navigation = 0; // bumped on each route, so a slow load for an old route is dropped
let offeredSeat = null; // a seat link's {gameId, token}, tried but not kept until seated
/** How often a game waiting for its second player is asked whether they came (the invitation
 *  leaves the top bar once they have). */
const INVITE_POLL_MS = 4000;

/** The server's own links use a query (`/?game=ID&join=chinese`, `/?game=ID&watch`): turn them
 *  into this page's fragments, so only one form is ever handled below. */
function fromQuery() {
  const q = new URLSearchParams(location.search);
  const id = q.get('game');
  if (!id) return;
  const code = q.get('code');
  const frag = q.has('join') ? `join=${encodeURIComponent(id)}${code ? `&code=${encodeURIComponent(code)}` : ''}` : q.has('watch') ? `watch=${encodeURIComponent(id)}`
    : q.has('replay') ? `replay=${encodeURIComponent(id)}` : `game=${encodeURIComponent(id)}`;
  history.replaceState(null, '', `${location.pathname}#${frag}`);
}

function route() {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token');
  const gameId = params.get('game');
  if (token && gameId) {
    history.replaceState(null, '', `#game=${encodeURIComponent(gameId)}`);
    offeredSeat = seatOffered(gameId, token);
  }
  navigation += 1;
  for (const c of current ?? []) c.close?.();
  current = [];
  byId('banner').hidden = true;
  byId('game-title').textContent = '';
  byId('you-badge').hidden = true;
  byId('conn').textContent = '';
  byId('topbar-actions').replaceChildren();
  byId('seat-keeper').hidden = true;
  document.body.className = '';
  delete document.body.dataset.seq;

  if (params.has('analyse')) return openAnalysis(params.get('analyse'));
  if (gameId) return openTable('play', gameId);
  if (params.get('watch')) return openTable('watch', params.get('watch'));
  if (params.get('replay')) return openTable('replay', params.get('replay'));
  showLobby(params.get('join'), params.get('code'));
}

/** A seat link's token, to try on this visit. A crafted link must not cost a player the seat this
 *  browser keeps: a different token is tried only if the player says so, and kept only once the
 *  server seats it (live.js). */
function seatOffered(gameId, token) {
  const kept = seatFor(gameId);
  if (kept?.token === token) return null;
  if (kept && !confirm('This link carries a different seat for this game than the one this browser keeps. '
    + 'Try the link\'s seat? Yours is replaced only if the server seats you with it.')) return null;
  return { gameId, side: null, token, unsaved: true };
}

function showLobby(joinId, code) {
  byId('table').hidden = true;
  byId('lobby').hidden = false;
  document.body.classList.add('in-lobby');
  const lobby = new Lobby();
  current.push(lobby);
  if (joinId) {
    if (seatFor(joinId)) { location.hash = `game=${encodeURIComponent(joinId)}`; return; }
    showInvitation(joinId, lobby, code);
  }
}

/** The map and the game's panel, or the analysis board's panel in its place. */
function showTable(mode) {
  byId('lobby').hidden = true;
  byId('table').hidden = false;
  byId('panel').hidden = mode === 'analyse';
  byId('analysis-panel').hidden = mode !== 'analyse';
  document.body.classList.add('at-table', `mode-${mode}`);
}

async function openAnalysis(encoded) {
  showTable('analyse');
  byId('game-title').textContent = 'Analysis board';
  const nav = navigation;
  let position = null;
  if (encoded) {
    try { position = decodePosition(encoded); } catch (e) { toast(`This position cannot be read: ${e.message}`, 'error'); }
  }
  const scenario = await loadScenario();
  if (!scenario || nav !== navigation) return;
  const board = new AnalysisBoard(scenario, position);
  current.push(board);
  byId('topbar-actions').append(h('button', {
    type: 'button', id: 'share-analysis', class: 'small', title: 'Copy a link that opens this position',
    onclick: () => copyText(board.link()), text: 'Share link',
  }));
}

/** The map and counter mix (`GET /api/scenario`), or null after telling the user it failed. */
async function loadScenario() {
  try {
    return await api.scenario();
  } catch (e) {
    toast(`The map could not be loaded: ${e.message}`, 'error');
    return null;
  }
}

async function openTable(mode, gameId) {
  showTable(mode);
  const nav = navigation;
  const scenario = await loadScenario();
  if (!scenario || nav !== navigation) return;
  const table = new Table(scenario);
  current.push(table);
  const offered = offeredSeat?.gameId === gameId ? offeredSeat : null;
  offeredSeat = null;
  let seat = mode === 'play' ? (offered ?? seatFor(gameId)) : null;
  if (mode === 'play' && !seat) {
    seat = await accountSeat(gameId);
    if (nav !== navigation) return;
  }
  if (mode === 'play' && !seat) toast('You have no seat in this game in this browser: watching.', 'info');
  const ctl = mode === 'replay' ? new Replay(table, gameId) : new LiveGame(table, gameId, seat);
  current.push(ctl);
  topbarButtons(mode, gameId, seat, null);
  // The whole game in words, turn by turn (Markdown), for finished and ongoing games.
  const download = byId('download-transcript');
  download.href = `/api/games/${encodeURIComponent(gameId)}/transcript`;
  download.download = `siege-${gameId}.md`;
  download.hidden = false;
  // The log as the API gives it (JSON), as before the transcript existed.
  const log = byId('download-log');
  log.href = `/api/games/${encodeURIComponent(gameId)}/log`;
  log.download = `siege-${gameId}.json`;
  log.hidden = false;
  if (mode === 'play' && seat?.token) seatKeeper(gameId, seat);
  // While the game waits for its second player, ask now and then whether they came: the
  // invitation leaves the top bar as soon as they have (or the game is over).
  const waiting = { timer: null, close() { clearInterval(this.timer); } };
  current.push(waiting);
  const refresh = () => api.game(gameId).then((g) => {
    if (nav !== navigation) return null;
    byId('game-title').textContent = g.name ?? '';
    topbarButtons(mode, gameId, seat, g);
    if (g.status !== 'open') waiting.close();
    return g;
  });
  refresh().then((g) => {
    if (!g || !seat || mode !== 'play' || g.status !== 'open') return;
    toast('Your opponent has not joined yet: send them the invite link (top right).');
    waiting.timer = setInterval(() => refresh().catch(() => {}), INVITE_POLL_MS);
  }).catch(() => {});
}

/** The seat the signed-in account holds in `gameId` when this browser keeps no token for it:
 *  `{side, token: null, account: true}` when `GET /api/games/{id}` names the account on exactly
 *  one seat (the socket then joins without a token, the session cookie proving who it is), else
 *  null. The seat stays the account's: nothing is kept in this browser. */
async function accountSeat(gameId) {
  try {
    const me = await api.me();
    if (!me) return null;
    const g = await api.game(gameId);
    const sides = ['allied', 'chinese'].filter((s) => g.players?.[s] === me.name);
    return sides.length === 1 ? { side: sides[0], token: null, account: true } : null;
  } catch {
    return null;
  }
}

/** Until the player says the seat link is saved, the panel urges them to keep it: the seat
 *  lives in this browser only, and a lost seat stops the game for both players. */
function seatKeeper(gameId, seat) {
  const el = byId('seat-keeper');
  if (seat.kept) { el.hidden = true; return; }
  const link = seatLink(gameId, seat.token);
  el.replaceChildren(
    h('h3', { text: 'Keep your seat' }),
    h('p', { text: 'Your seat is kept in this browser only: if it is lost (history cleared, another device), nobody can play your side and the game stops for both of you. Save this private link — bookmark it or send it to yourself. It opens your seat anywhere; whoever has it plays your side.' }),
    h('div', { class: 'link-row' },
      h('input', { id: 'seat-link', readonly: true, value: link, 'aria-label': 'Your seat link', onfocus: (e) => e.target.select() }),
      h('button', { type: 'button', class: 'small', onclick: () => copyText(link), text: 'Copy' })),
    h('div', { class: 'button-row' },
      h('button', { type: 'button', id: 'seat-kept', class: 'small primary', text: 'I have saved it', onclick: () => { markSeatKept(gameId); el.hidden = true; } }),
      h('span', { class: 'hint', text: 'The “Seat link” button (top right) copies it again.' })));
  el.hidden = false;
}

/** Links for this table; the invitation only while the game waits for its second player. */
function topbarButtons(mode, gameId, seat, game) {
  const bar = byId('topbar-actions');
  bar.replaceChildren();
  // Who plays each side: an account by its name, a computer with its level (docs/bots.md).
  const players = playersText(game);
  if (players) bar.append(h('span', { id: 'players', class: 'players', title: 'Who plays each side', text: players }));
  // An account's seat opened without a token here has neither an invite code nor a seat link
  // to hand out: those stay in the browser that kept them.
  if (seat?.token && mode === 'play' && game?.status === 'open') {
    bar.append(h('button', { type: 'button', id: 'invite-button', class: 'small', title: 'Send this to your opponent', onclick: () => copyText(inviteLink(gameId)) }, 'Invite', h('span', { class: 'long', text: ' link' })));
  }
  if (seat?.token) {
    bar.append(h('button', { type: 'button', id: 'seat-button', class: 'small quiet', title: 'Opens your seat on another device. Keep it private: whoever has it plays your side.', onclick: () => copyText(seatLink(gameId, seat.token)) }, 'Seat', h('span', { class: 'long', text: ' link' })));
  }
  // The position on the board now, opened on the analysis board (Back returns to the game).
  bar.append(h('button', {
    type: 'button', id: 'analyse-position', class: 'small quiet', title: 'Open this position on the analysis board',
    onclick: () => {
      const view = current.find((c) => c instanceof Table)?.state?.view;
      location.hash = view ? `analyse=${encodePosition(positionOf(view))}` : 'analyse';
    },
    text: 'Analyse',
  }));
  if (mode !== 'replay') bar.append(h('a', { class: 'button small quiet', href: `#replay=${encodeURIComponent(gameId)}`, text: 'Replay' }));
  else bar.append(h('a', { class: 'button small quiet', href: `#watch=${encodeURIComponent(gameId)}`, text: 'Live' }));
}

window.addEventListener('hashchange', route);
fromQuery();
route();
