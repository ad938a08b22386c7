//! A finished game's rematch as stored on its row (migrations/0010_my_games.sql): the new
//! game's id, the side that asked and the new game's invite code — set once, never replaced,
//! so a second request answers the first one's game.

use super::rows::parse_side;
use super::{Store, StoreError};
use siege_protocol::Side;
use uuid::Uuid;

/// A stored rematch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRematch {
    /// The new game.
    pub game_id: String,
    /// The side (in the finished game) that asked for it.
    pub by: Side,
    /// The new game's invite code, for the seats of the finished game only.
    pub code: String,
}

impl Store {
    /// Game `id`'s rematch, if one was asked for.
    pub async fn rematch(&self, id: Uuid) -> Result<Option<StoredRematch>, StoreError> {
        let row: Option<(Option<String>, Option<String>, Option<String>)> =
            sqlx::query_as("SELECT rematch_id, rematch_by, rematch_code FROM games WHERE id = ?")
                .bind(id.to_string())
                .fetch_optional(&self.pool)
                .await?;
        match row {
            Some((Some(game_id), Some(by), Some(code))) => Ok(Some(StoredRematch {
                game_id,
                by: parse_side(&by)?,
                code,
            })),
            _ => Ok(None),
        }
    }

    /// Record `rematch` as game `id`'s rematch, unless it already has one: whether it was
    /// recorded.
    pub async fn set_rematch(&self, id: Uuid, rematch: &StoredRematch) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE games SET rematch_id = ?, rematch_by = ?, rematch_code = ? \
             WHERE id = ? AND rematch_id IS NULL",
        )
        .bind(&rematch.game_id)
        .bind(rematch.by.as_str())
        .bind(&rematch.code)
        .bind(id.to_string())
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(done == 1)
    }
}
