// The player's seats: game id → {side, token}, kept in this browser's localStorage only. A token
// reaches the server in nothing but the WebSocket's join/resume frame; a "seat link" carries it
// in the URL fragment, which browsers never send.

const KEY = 'siege.seats';

function all() {
  try { return JSON.parse(localStorage.getItem(KEY) ?? '{}') ?? {}; } catch { return {}; }
}

/** Every kept seat, newest first: `[gameId, {side, token, saved, …}]`. */
export function keptSeats() {
  return Object.entries(all()).sort(([, a], [, b]) => String(b.saved ?? '').localeCompare(String(a.saved ?? '')));
}

export function seatFor(gameId) {
  return all()[gameId] ?? null;
}

/** Keep a seat; `code` is the invite code of a private game this player created, so the
 *  invite link can be handed out again from the table. */
export function saveSeat(gameId, side, token, code) {
  const seats = all();
  const kept = seats[gameId]?.token === token && seats[gameId]?.kept ? true : undefined;
  const invite = code ?? seats[gameId]?.code;
  seats[gameId] = { side, token, saved: new Date().toISOString(), kept, code: invite };
  localStorage.setItem(KEY, JSON.stringify(seats));
}

/** The player said the seat link is saved somewhere safe: stop urging them to save it. */
export function markSeatKept(gameId) {
  const seats = all();
  if (!seats[gameId]) return;
  seats[gameId].kept = true;
  localStorage.setItem(KEY, JSON.stringify(seats));
}

export function forgetSeat(gameId) {
  const seats = all();
  delete seats[gameId];
  localStorage.setItem(KEY, JSON.stringify(seats));
}

/** A link that seats its opener at `gameId` on another device. */
export function seatLink(gameId, token) {
  return `${location.origin}${location.pathname}#game=${encodeURIComponent(gameId)}&token=${encodeURIComponent(token)}`;
}

/** The link to send the opponent: the game and, for a private game, its invite code (kept with
 *  the creator's seat); they take the free seat. */
export function inviteLink(gameId) {
  const code = seatFor(gameId)?.code;
  const codePart = code ? `&code=${encodeURIComponent(code)}` : '';
  return `${location.origin}${location.pathname}#join=${encodeURIComponent(gameId)}${codePart}`;
}

export function watchLink(gameId) {
  return `${location.origin}${location.pathname}#watch=${encodeURIComponent(gameId)}`;
}

/** Every seat kept in this browser, newest first: `{gameId, side, token, saved, …}`. */
export function savedSeats() {
  return Object.entries(all())
    .map(([gameId, seat]) => ({ gameId, ...seat }))
    .sort((a, b) => String(b.saved ?? '').localeCompare(String(a.saved ?? '')));
}
