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
}

/// The answer to `POST /api/games`. The token is shown here once and never again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CreatedGame {
    pub game_id: String,
    pub side: Side,
    pub token: String,
    pub invite_url: String,
    pub spectate_url: String,
    pub seed_commitment: String,
}

/// `POST /api/games/{id}/join`. Unknown fields are refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinGame {
    /// The seat wanted; the free one when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
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
    /// The clocks of a timed game, as of the listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::ClockView>,
}

/// `GET /api/games/{id}`: the spectator's view of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameInfo<V = Value, A = Value> {
    pub game_id: String,
    pub name: String,
    pub status: GameStatus,
    pub seq: u64,
    pub seats: Seats,
    pub seed_commitment: String,
    pub view: V,
    pub legal_actions: Vec<A>,
    /// The clocks of a timed game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::ClockView>,
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
