//! Expiry of games nobody joined: a game still open (one seat taken) that nobody has touched
//! for the expiry age is deleted with its seat and log, and its id recorded in
//! `expired_games`. Candidates are found by one query over the games table — never by loading
//! games — a batch at a time; each game is deleted in one transaction of its own, which checks
//! again that it is still open and untouched.

use super::{Store, StoreError, on_db};
use uuid::Uuid;

/// Candidates read per query.
const BATCH: i64 = 500;

impl Store {
    /// Open games created before `cutoff` (Unix milliseconds) with no action since: the
    /// candidates for expiry, oldest first, at most `limit`.
    pub async fn unjoined_since(&self, cutoff: i64, limit: i64) -> Result<Vec<Uuid>, StoreError> {
        let rows: Vec<(String,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT g.id FROM games g \
                 WHERE g.status = 'open' AND g.created_at < $1 \
                   AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.game_id = g.id AND a.at >= $1) \
                 ORDER BY g.created_at LIMIT $2",
            )
            .bind(cutoff)
            .bind(limit)
            .fetch_all(pool)
            .await?
        });
        rows.into_iter()
            .map(|(id,)| {
                Uuid::parse_str(&id).map_err(|e| StoreError::Corrupt(format!("game id {id}: {e}")))
            })
            .collect()
    }

    /// Delete game `id` with its seats and log if it is still open and untouched since
    /// `cutoff`, recording it as expired at `now`. Whether it was deleted.
    pub async fn expire(&self, id: Uuid, cutoff: i64, now: i64) -> Result<bool, StoreError> {
        let id = id.to_string();
        on_db!(&self.db, |pool, pg| {
            let mut tx = pool.begin().await?;
            let recorded = sqlx::query(
                "INSERT INTO expired_games (id, created_at, expired_at) \
                 SELECT g.id, g.created_at, $3 FROM games g \
                 WHERE g.id = $1 AND g.status = 'open' AND g.created_at < $2 \
                   AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.game_id = g.id AND a.at >= $2)",
            )
            .bind(&id)
            .bind(cutoff)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if recorded == 0 {
                return Ok(false);
            }
            for delete in [
                "DELETE FROM actions WHERE game_id = $1",
                "DELETE FROM seats WHERE game_id = $1",
                "DELETE FROM clocks WHERE game_id = $1",
                "DELETE FROM games WHERE id = $1",
                // A rematch nobody joined goes like any game; the finished game it was asked
                // for forgets it, so that a rematch may be asked for again.
                "UPDATE games SET rematch_id = NULL, rematch_by = NULL WHERE rematch_id = $1",
            ] {
                sqlx::query(delete).bind(&id).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(true)
    }

    /// How many candidates to read at a time.
    pub fn expiry_batch() -> i64 {
        BATCH
    }
}
