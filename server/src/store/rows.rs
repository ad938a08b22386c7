//! Rows as the store returns them (from SQLite or PostgreSQL), and their checked conversion
//! into the wire types. A row that breaks the schema's promises is a [`StoreError::Corrupt`],
//! never a panic.

use super::{StoreError, rfc3339};
use serde_json::Value;
use siege_protocol::{GameStatus, GameSummary, LogEntry, Phase, Players, Seats, Side, Visibility};
use sqlx::FromRow;

/// A row of `games`.
#[derive(Clone, Debug, FromRow)]
pub struct GameRow {
    pub id: String,
    pub name: String,
    pub status: String,
    pub seed: Vec<u8>,
    pub seed_commitment: String,
    pub result: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    /// The custom position (JSON) the game started from, if any.
    pub position: Option<String>,
    /// The version of the game's state hashes.
    pub hash_version: i64,
    /// Entries the background audit has replayed from the seed and found sound.
    pub audited_seq: i64,
    /// Why the background audit found the log unsound, if it did.
    pub audit_error: Option<String>,
    /// Why the game is held for the operator (an engine runaway), if it is.
    pub held: Option<String>,
}

impl GameRow {
    /// The status, checked.
    pub fn status(&self) -> Result<GameStatus, StoreError> {
        GameStatus::parse(&self.status)
            .ok_or_else(|| StoreError::Corrupt(format!("game {}: status {}", self.id, self.status)))
    }

    /// The custom position the game started from, parsed.
    pub fn position(&self) -> Result<Option<serde_json::Value>, StoreError> {
        self.position
            .as_deref()
            .map(|p| {
                serde_json::from_str(p)
                    .map_err(|e| StoreError::Corrupt(format!("game {}: position: {e}", self.id)))
            })
            .transpose()
    }

    /// The version of the game's state hashes, checked.
    pub fn hash_version(&self) -> Result<crate::rules::HashVersion, StoreError> {
        crate::rules::HashVersion::from_number(self.hash_version).ok_or_else(|| {
            StoreError::Corrupt(format!(
                "game {}: hash version {}",
                self.id, self.hash_version
            ))
        })
    }

    /// The 32-byte seed, checked.
    pub fn seed(&self) -> Result<[u8; 32], StoreError> {
        <[u8; 32]>::try_from(self.seed.as_slice())
            .map_err(|_| StoreError::Corrupt(format!("game {}: seed is not 32 bytes", self.id)))
    }
}

/// A row of `actions`.
#[derive(Clone, Debug, FromRow)]
pub struct ActionRow {
    pub seq: i64,
    pub side: String,
    pub action: String,
    pub events: String,
    pub state_hash: String,
    pub at: i64,
}

impl ActionRow {
    /// The sequence number, checked.
    pub fn seq(&self) -> Result<u64, StoreError> {
        u64::try_from(self.seq).map_err(|_| StoreError::Corrupt(format!("seq {}", self.seq)))
    }

    /// The side that acted, checked.
    pub fn side(&self) -> Result<Side, StoreError> {
        parse_side(&self.side)
    }

    /// The entry as `GET /api/games/{id}/log` shows it.
    pub fn to_entry(&self) -> Result<LogEntry, StoreError> {
        Ok(LogEntry {
            seq: self.seq()?,
            side: self.side()?,
            action: parse_json(&self.action)?,
            events: serde_json::from_str(&self.events)
                .map_err(|e| StoreError::Corrupt(format!("events of entry {}: {e}", self.seq)))?,
            state_hash: self.state_hash.clone(),
            at: rfc3339(self.at),
        })
    }
}

/// A row of the listing query.
#[derive(Clone, Debug, FromRow)]
pub struct SummaryRow {
    pub id: String,
    pub name: String,
    pub status: String,
    pub result: Option<String>,
    pub created_at: i64,
    pub turn: i64,
    pub phase: String,
    pub allied: bool,
    pub chinese: bool,
    /// The game started from a custom position.
    pub custom_start: bool,
    /// The levels of the computer players seated, if any.
    pub allied_bot: Option<String>,
    pub chinese_bot: Option<String>,
    /// It needs an invite code.
    pub private: bool,
    /// A guest may join it (public seeks).
    pub guests: bool,
    pub allied_name: Option<String>,
    pub chinese_name: Option<String>,
    /// The side to act now (`None` when finished, or unknown for a game logged before the
    /// column existed).
    pub to_act: Option<String>,
    /// The side the viewing account holds, if it holds one.
    pub you: Option<String>,
    /// When the decision passed to the side to act (or the last seat was taken, if later).
    pub waiting_since: Option<i64>,
}

impl SummaryRow {
    /// The summary as `GET /api/games` shows it.
    pub fn to_summary(&self) -> Result<GameSummary, StoreError> {
        let phase: Phase = serde_json::from_value(Value::String(self.phase.clone()))
            .map_err(|e| StoreError::Corrupt(format!("game {}: phase: {e}", self.id)))?;
        Ok(GameSummary {
            game_id: self.id.clone(),
            name: self.name.clone(),
            status: GameStatus::parse(&self.status)
                .ok_or_else(|| StoreError::Corrupt(format!("game {}: status", self.id)))?,
            turn: u8::try_from(self.turn).unwrap_or(u8::MAX),
            phase,
            seats: Seats {
                allied: self.allied,
                chinese: self.chinese,
            },
            created_at: rfc3339(self.created_at),
            result: self.result.as_deref().map(parse_json).transpose()?,
            custom_start: self.custom_start,
            bots: siege_protocol::Bots {
                allied: self.allied_bot.clone(),
                chinese: self.chinese_bot.clone(),
            },
            visibility: if self.private {
                Visibility::Private
            } else {
                Visibility::Public
            },
            guests: self.guests,
            players: Players {
                allied: self.allied_name.clone(),
                chinese: self.chinese_name.clone(),
            },
            clock: None,
            you: self.you.as_deref().map(parse_side).transpose()?,
            your_move: self
                .you
                .as_ref()
                .map(|you| self.to_act.as_ref() == Some(you)),
            waiting_since: self
                .you
                .as_ref()
                .and(self.waiting_since)
                .filter(|_| self.to_act.is_some())
                .map(rfc3339),
        })
    }
}

/// A side as stored.
pub fn parse_side(s: &str) -> Result<Side, StoreError> {
    match s {
        "allied" => Ok(Side::Allied),
        "chinese" => Ok(Side::Chinese),
        other => Err(StoreError::Corrupt(format!("side {other}"))),
    }
}

/// Stored JSON text as a value.
pub fn parse_json(s: &str) -> Result<Value, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(format!("stored JSON: {e}")))
}
