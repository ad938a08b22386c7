//! A finished game's rematch as stored on its row (migrations/0010_my_games.sql): the new
//! game's id and the side that asked — set once, never replaced, so a second request answers
//! the first one's game. The new game's invite code is not stored here: only its hash, as the
//! new game's `invite_hash` (migrations/0012_rematch_code_hashed.sql); the server keeps the
//! plaintext in memory ([`crate::server::rematch::Rematches`]).

use super::rows::parse_side;
use super::{Store, StoreError, on_db};
use siege_protocol::Side;
use uuid::Uuid;

/// A stored rematch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRematch {
    /// The new game.
    pub game_id: String,
    /// The side (in the finished game) that asked for it.
    pub by: Side,
}

impl Store {
    /// Game `id`'s rematch, if one was asked for.
    pub async fn rematch(&self, id: Uuid) -> Result<Option<StoredRematch>, StoreError> {
        let row: Option<(Option<String>, Option<String>)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT rematch_id, rematch_by FROM games WHERE id = $1")
                .bind(id.to_string())
                .fetch_optional(pool)
                .await?
        });
        match row {
            Some((Some(game_id), Some(by))) => Ok(Some(StoredRematch {
                game_id,
                by: parse_side(&by)?,
            })),
            _ => Ok(None),
        }
    }

    /// Record `rematch` as game `id`'s rematch, unless it already has one: whether it was
    /// recorded.
    pub async fn set_rematch(&self, id: Uuid, rematch: &StoredRematch) -> Result<bool, StoreError> {
        let done = on_db!(&self.db, |pool, pg| {
            sqlx::query(
                "UPDATE games SET rematch_id = $1, rematch_by = $2 WHERE id = $3 AND rematch_id IS NULL",
            )
            .bind(&rematch.game_id)
            .bind(rematch.by.as_str())
            .bind(id.to_string())
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(done == 1)
    }

    /// Replace the invite-code hash of private game `id` (a rematch's code issued afresh).
    pub async fn set_invite_hash(&self, id: Uuid, hash: &str) -> Result<(), StoreError> {
        on_db!(&self.db, |pool, pg| {
            sqlx::query(
                "UPDATE games SET invite_hash = $1 WHERE id = $2 AND invite_hash IS NOT NULL",
            )
            .bind(hash)
            .bind(id.to_string())
            .execute(pool)
            .await?;
        });
        Ok(())
    }
}
