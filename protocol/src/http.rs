//! HTTP bodies (docs/protocol.md, "HTTP"): requests, answers and the error envelope. Game ids are
//! UUID strings; times are RFC 3339 strings in UTC.

use crate::side::{Phase, Side};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a game stands, for listings: `open` while a seat is free.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    Open,
    Active,
    Finished,
}

impl GameStatus {
    /// The wire (and database) name.
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Open => "open",
            GameStatus::Active => "active",
            GameStatus::Finished => "finished",
        }
    }

    /// Read a wire name.
    pub fn parse(s: &str) -> Option<GameStatus> {
        match s {
            "open" => Some(GameStatus::Open),
            "active" => Some(GameStatus::Active),
            "finished" => Some(GameStatus::Finished),
            _ => None,
        }
    }
}

/// Which seats are taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seats {
    pub allied: bool,
    pub chinese: bool,
}

impl Seats {
    /// Whether `side`'s seat is taken.
    pub fn taken(&self, side: Side) -> bool {
        match side {
            Side::Allied => self.allied,
            Side::Chinese => self.chinese,
        }
    }

    /// Mark `side`'s seat taken.
    pub fn take(&mut self, side: Side) {
        match side {
            Side::Allied => self.allied = true,
            Side::Chinese => self.chinese = true,
        }
    }

    /// The first free seat, Allied first.
    pub fn free(&self) -> Option<Side> {
        Side::BOTH.into_iter().find(|s| !self.taken(*s))
    }
}

/// `POST /api/games`. Unknown fields are refused: `"sied": "chinese"` must not silently give
/// the default side.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    /// The creator's side; Allied when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// A name for listings; a default one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Start from this position (the analysis board's JSON) instead of the setup of
    /// section 22; both players are told it is a custom start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Value>,
    /// The clock: none when absent (docs/protocol.md, "Time controls").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<crate::TimeControl>,
    /// `private` (the default: joining needs the invite code) or `public` (a listed seek).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Visibility>,
    /// For a public seek: whether guests (not signed in) may join it; true when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guests: Option<bool>,
    /// Who takes the other seat: absent, a person who follows the invitation; `{"bot": level}`,
    /// a computer player, seated at once (the game is active from the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<Opponent>,
    /// Both seats to computer players, for a game to watch (`"opponent"` for both seats): the
    /// creator takes no seat, so `side` and `opponent` must be absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponents: Option<Opponents>,
}

/// Both seats of a new game played by the computer: each side's level (`easy`, `normal`,
/// `hard` or `random`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Opponents {
    pub allied: String,
    pub chinese: String,
}

/// The other seat of a new game, when it is not left for a person.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Opponent {
    /// The computer player's level: `easy`, `normal` or `hard` (docs/bots.md), or `random`.
    pub bot: String,
}

/// The computer players seated in a game, by side (absent: a person's seat or a free one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bots {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allied: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chinese: Option<String>,
}

impl Bots {
    /// Whether no seat is a computer's.
    pub fn is_empty(&self) -> bool {
        self.allied.is_none() && self.chinese.is_none()
    }

    /// The level of the computer player in `side`'s seat, if that seat is a computer's.
    pub fn level(&self, side: Side) -> Option<&str> {
        match side {
            Side::Allied => self.allied.as_deref(),
            Side::Chinese => self.chinese.as_deref(),
        }
    }

    /// Seat a computer player of `level` in `side`'s seat.
    pub fn set(&mut self, side: Side, level: String) {
        match side {
            Side::Allied => self.allied = Some(level),
            Side::Chinese => self.chinese = Some(level),
        }
    }
}

/// The answer to `POST /api/games`. The token is shown here once and never again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreatedGame {
    pub game_id: String,
    /// The creator's side; in a game between two computers (`opponents`) the creator has no
    /// seat and this is `allied`, meaning nothing.
    pub side: Side,
    /// The creator's seat token; absent (empty here) when the creator has no seat.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub token: String,
    pub invite_url: String,
    pub spectate_url: String,
    pub seed_commitment: String,
    /// Who may join.
    #[serde(default)]
    pub visibility: Visibility,
    /// A private game's invite code (also inside `invite_url`); shown here once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite_code: Option<String>,
    /// The computer players seated, by side (absent when there are none).
    #[serde(default, skip_serializing_if = "Bots::is_empty")]
    pub bots: Bots,
}

/// `POST /api/games/{id}/join`. Unknown fields are refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinGame {
    /// The seat wanted; the free one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    /// A private game's invite code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// `POST /api/games/{id}/claim`: the seat token of a seat to be held by the signed-in account.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSeat {
    pub token: String,
}

impl std::fmt::Debug for ClaimSeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClaimSeat { <hidden> }")
    }
}

/// The answer to a claim: the game and the side the account now holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimedSeat {
    pub game_id: String,
    pub side: Side,
}

/// The answer to a join. The token is shown here once and never again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JoinedGame {
    pub game_id: String,
    pub side: Side,
    pub token: String,
}

/// One game in `GET /api/games`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    pub game_id: String,
    pub name: String,
    pub status: GameStatus,
    pub turn: u8,
    pub phase: Phase,
    pub seats: Seats,
    pub created_at: String,
    pub result: Option<Value>,
    /// The game started from a custom position (analysis board), not the setup.
    #[serde(default)]
    pub custom_start: bool,
    /// The seats taken by computer players, with their levels.
    #[serde(default, skip_serializing_if = "Bots::is_empty")]
    pub bots: Bots,
    /// `private` games are listed only to the accounts holding their seats.
    #[serde(default)]
    pub visibility: Visibility,
    /// For a public seek: whether guests may join it.
    #[serde(default)]
    pub guests: bool,
    /// The players' user names (guests have none).
    #[serde(default)]
    pub players: Players,
    /// The clocks of a timed game, as of the listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::ClockView>,
    /// For the signed-in account's own games: the side it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<Side>,
    /// For the signed-in account's own games: whether that side is to act now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub your_move: Option<bool>,
    /// For the signed-in account's own unfinished games: when the decision passed to the side
    /// to act now (RFC 3339), or when the last seat was taken if that was later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_since: Option<String>,
}

/// `GET /api/games/{id}`: the spectator's view of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameInfo<V = Value, A = Value> {
    pub game_id: String,
    pub name: String,
    pub status: GameStatus,
    pub seq: u64,
    pub seats: Seats,
    /// The seats taken by computer players, with their levels.
    #[serde(default, skip_serializing_if = "Bots::is_empty")]
    pub bots: Bots,
    pub seed_commitment: String,
    pub view: V,
    pub legal_actions: Vec<A>,
    /// The players' user names (guests have none).
    #[serde(default)]
    pub players: Players,
    /// The clocks of a timed game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::ClockView>,
    /// The side to act now; absent once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_act: Option<Side>,
    /// When the decision passed to `to_act` (RFC 3339), or when the last seat was taken if
    /// that was later; absent once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_since: Option<String>,
    /// In a game under way without a clock: from when (RFC 3339) the side not to act may claim
    /// the game as abandoned (`claim_timeout`, the server's `--abandon-days`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandon_at: Option<String>,
    /// A finished game's rematch, once a player asked for one (no invite code here: the
    /// seats get the link from `POST /api/games/{id}/rematch` or the `rematch` frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<RematchInfo>,
}

/// The rematch of a finished game, as anyone may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RematchInfo {
    /// The new game.
    pub game_id: String,
    /// The side (in the finished game) of the player who asked for it.
    pub by: Side,
}

/// `POST /api/games/{id}/rematch`: who asks — a seat token of the finished game, or nothing
/// when the signed-in account holds the seat. Unknown fields are refused.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RematchRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl std::fmt::Debug for RematchRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RematchRequest").finish_non_exhaustive()
    }
}

/// The answer to `POST /api/games/{id}/rematch`: the rematch, created by this request or
/// asked for before (by either player).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rematch {
    /// The new game.
    pub game_id: String,
    /// Whether this request created it (then `token` is the caller's new seat).
    pub created: bool,
    /// The side (in the finished game) of the player who asked for it first.
    pub by: Side,
    /// The caller's side in the new game: the side their opponent had.
    pub side: Side,
    /// The caller's seat token in the new game; only to the request that created it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// The link that takes the other seat of the new game (with its invite code): for the
    /// player who asked, to send; for the opponent, to accept.
    pub invite_url: String,
    pub invite_code: String,
}

/// `POST /api/games/{id}/explain` request: an action to check against the game as it is now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explain<A = Value> {
    pub action: A,
}

/// `POST /api/games/{id}/explain` answer: whether the side to act could take the action now
/// and, if not, the rules' refusal — the same code, message and rule an `action` frame would
/// get. Nothing changes and nothing is logged: a page asks it when a player clicks a hex that
/// is no choice, to say why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    /// The state the answer is about.
    pub seq: u64,
    /// Whose decision it is; `null` once the game is over.
    pub side: Option<Side>,
    pub legal: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// `GET /api/games/{id}/log`: everything needed to replay and audit a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLog<A = Value, E = Value> {
    pub game_id: String,
    /// Hex SHA-256 of the seed, published at creation.
    pub seed_commitment: String,
    /// The seed in hex, once the game is finished.
    #[serde(default)]
    pub seed: Option<String>,
    /// The custom position the game started from, if it did not start from the setup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Value>,
    /// How the entries' state hashes are computed: 1, SHA-256 of the state's JSON (the only
    /// version of logs published before the field existed, hence the default); 2, SHA-256 of
    /// the compact binary encoding.
    #[serde(default = "first_hash_version")]
    pub hash_version: u8,
    pub entries: Vec<LogEntry<A, E>>,
}

fn first_hash_version() -> u8 {
    1
}

/// One accepted action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry<A = Value, E = Value> {
    pub seq: u64,
    pub side: Side,
    pub action: A,
    pub events: Vec<E>,
    /// Hex SHA-256 of the state after this action.
    pub state_hash: String,
    pub at: String,
}

/// The error envelope of every refused HTTP request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// The code and message of an [`ErrorBody`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    /// The rules section or ruling that refused the request, where a rule did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The unit (its `ref` in a position) the refusal is about, where one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// `POST /api/account/signup` and `POST /api/account/login`. The password is never echoed,
/// logged or printed (not even by `Debug`).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    pub name: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("name", &self.name)
            .field("password", &"<hidden>")
            .finish()
    }
}

/// `POST /api/account/password`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangePassword {
    pub old_password: String,
    pub new_password: String,
}

impl std::fmt::Debug for ChangePassword {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChangePassword { <hidden> }")
    }
}

/// The signed-in player (`GET /api/account`, and the answer to sign-up and log-in).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountInfo {
    pub name: String,
}

/// The user names of the players holding each seat; `null` for an empty seat or a guest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Players {
    pub allied: Option<String>,
    pub chinese: Option<String>,
}

/// Who may join a new game: `private` (the default) needs the invite code; a `public` seek is
/// listed and open to anyone signed in (and to guests, if the creator allows them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    #[default]
    Private,
    Public,
}

/// Where a signed-in player is told that it is their move (`GET` and `POST
/// /api/account/notifications`). `null` or `""` turns a channel off.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotificationSettings {
    /// An e-mail address.
    #[serde(default)]
    pub email: Option<String>,
    /// An `http://` or `https://` URL that is sent a JSON POST.
    #[serde(default)]
    pub webhook: Option<String>,
    /// In answers only: whether this server can send e-mail at all (it has an SMTP relay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_available: Option<bool>,
}
