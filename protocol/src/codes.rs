//! The stable error codes of the wire, in one place so the server, the rules engine, the docs
//! and the tests agree. The rules engine's refusals carry the codes of the second group,
//! passed through unchanged in `error` frames with the rule that refused.

/// A frame or body that is not JSON, or JSON of the wrong shape.
pub const BAD_JSON: &str = "bad_json";
/// A frame whose `type` is missing or not one this server knows.
pub const UNKNOWN_TYPE: &str = "unknown_type";
/// The first frame of a socket was not `join`, `spectate` or `resume`.
pub const NOT_JOINED: &str = "not_joined";
/// A second `join`, `spectate` or `resume` on a socket that is already attached.
pub const ALREADY_JOINED: &str = "already_joined";
/// No seat of this game holds that token.
pub const BAD_TOKEN: &str = "bad_token";
/// A spectator tried to act.
pub const SPECTATOR: &str = "spectator";
/// The action answered an older state than the current one.
pub const STALE: &str = "stale";
/// Too many frames per second on one socket, or (HTTP 429) too many games created or joined
/// by one client; `Retry-After` says when to try again.
pub const RATE_LIMITED: &str = "rate_limited";
/// A frame or body above the size limit.
pub const FRAME_TOO_LARGE: &str = "frame_too_large";
/// An HTTP body above the size limit.
pub const BODY_TOO_LARGE: &str = "body_too_large";
/// The game already has as many connections as the server allows.
pub const TOO_MANY_CONNECTIONS: &str = "too_many_connections";
/// No such game, or no such entry of its log.
pub const NOT_FOUND: &str = "not_found";
/// The seat asked for is taken, or no seat is free.
pub const SEAT_TAKEN: &str = "seat_taken";
/// A query or body field with a value the server does not accept.
pub const BAD_REQUEST: &str = "bad_request";
/// A custom position refused by the rules (analysis board, custom start); the message names
/// the unit and the rule.
pub const INVALID_POSITION: &str = "invalid_position";
/// The server is shutting down.
pub const SHUTTING_DOWN: &str = "shutting_down";
/// The game is run by another server node (several nodes on one database) or is passing to
/// one: connect again, and the load balancer or the node reached passes you on.
pub const MOVED: &str = "moved";
/// Something went wrong inside the server; the message says no more than the client needs.
pub const INTERNAL: &str = "internal";
/// A stored log does not replay to its stored state hashes, or the engine failed to settle an
/// action of the game (`runaway`): the game is held for the operator, not "fixed".
pub const CORRUPT_LOG: &str = "corrupt_log";
/// An action before both seats are taken: a game begins when both players are seated (R7).
pub const WAITING_FOR_OPPONENT: &str = "waiting_for_opponent";
/// The client has as many open (never joined) games as one creator may have.
pub const TOO_MANY_OPEN_GAMES: &str = "too_many_open_games";
/// The pool for expensive requests (past states, analysis) is full; try again shortly.
pub const BUSY: &str = "busy";
/// A request whose answer would take more work, or be larger, than one request may have.
pub const TOO_EXPENSIVE: &str = "too_expensive";
/// `/healthz`: the store does not answer.
pub const STORE_UNREACHABLE: &str = "store_unreachable";
/// `/healthz`: the last write failed (a full disk, say): actions cannot be stored now.
pub const STORE_UNWRITABLE: &str = "store_unwritable";
/// A POST from another site's page (a cross-origin form or fetch): refused.
pub const CROSS_ORIGIN: &str = "cross_origin";
/// A POST body that is not declared as `application/json`.
pub const UNSUPPORTED_MEDIA_TYPE: &str = "unsupported_media_type";
/// A chat message above the length limit (`--chat-max-chars`).
pub const CHAT_TOO_LONG: &str = "chat_too_long";
/// A chat message with nothing but white space.
pub const CHAT_EMPTY: &str = "chat_empty";
/// `GET /api/games/{id}/chat` of a game still being played: the chats open when it ends.
pub const CHAT_PRIVATE: &str = "chat_private";
/// A route that exists, asked with a method it does not answer.
pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
/// A route for signed-in players, asked without a valid session (401).
pub const NOT_SIGNED_IN: &str = "not_signed_in";
/// A wrong user name or password (401); which of the two is not said.
pub const BAD_CREDENTIALS: &str = "bad_credentials";
/// Sign-up with a user name another account has (409).
pub const NAME_TAKEN: &str = "name_taken";
/// Joining a private game without its invite code, or with a wrong one (403).
pub const INVITE_REQUIRED: &str = "invite_required";
/// Joining a public seek whose creator does not take guests, without signing in (403).
pub const SIGN_IN_REQUIRED: &str = "sign_in_required";
/// Claiming or opening a seat the account does not hold, or with a token of no seat (403).
pub const NOT_YOUR_SEAT: &str = "not_your_seat";
/// A rematch asked for a game that is not finished (409).
pub const NOT_FINISHED: &str = "not_finished";
/// A webhook URL naming (or resolving to) a loopback, private, link-local or otherwise
/// non-public address, without `--webhook-allow-private` (400).
pub const WEBHOOK_NOT_PUBLIC: &str = "webhook_not_public";

// --- Refusals by the rules engine ------------------------------------------------------------

/// The game has ended; nothing more can be done (21).
pub const GAME_OVER: &str = "game_over";
/// A claim on time in a game without a clock.
pub const NO_CLOCK: &str = "no_clock";
/// A claim on time while the clock of the side to act still has time.
pub const TIME_LEFT: &str = "time_left";
/// A time control outside the limits.
pub const BAD_TIME_CONTROL: &str = "bad_time_control";
/// The other side, or nobody, is to decide now.
pub const NOT_YOUR_TURN: &str = "not_your_turn";
/// No action of this kind is legal in the current step.
pub const NOT_LEGAL_NOW: &str = "not_legal_now";
/// An action of a legal kind, but not one of the listed choices.
pub const NOT_A_LEGAL_CHOICE: &str = "not_a_legal_choice";
/// A move refused by a zone of control (6).
pub const ZOC: &str = "zoc";
/// A move or placement over the stacking limit (7).
pub const STACKING: &str = "stacking";
/// A move into prohibited terrain (5.1, R3).
pub const TERRAIN: &str = "terrain";
/// A move into a hex held by the enemy (5.1).
pub const ENEMY_HEX: &str = "enemy_hex";
/// A move beyond the movement points left (5).
pub const MOVEMENT_POINTS: &str = "movement_points";
/// A move whose stated cost is not the cheapest legal path's (5).
pub const WRONG_COST: &str = "wrong_cost";
/// Settling the consequences of an action did not end: an engine bug, never a player's fault.
/// The action is not stored and the game is held for inspection.
pub const RUNAWAY: &str = "runaway";
/// An analysis query names a unit the position does not have.
pub const UNKNOWN_UNIT: &str = "unknown_unit";
/// An analysis query asks where a unit may move, and the unit is not on the map.
pub const OFF_MAP: &str = "off_map";
/// An analysis odds query names no attacker.
pub const NO_ATTACKERS: &str = "no_attackers";
/// An analysis odds query names no defender on the map.
pub const NO_DEFENDERS: &str = "no_defenders";
/// An analysis `suggest` query names no bot level.
pub const UNKNOWN_LEVEL: &str = "unknown_level";
