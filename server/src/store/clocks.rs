//! The clocks of timed games (migrations/0008_clocks.sql): one row per timed game, written at
//! creation, when the second seat is taken, and with every action that moves the clock (in
//! the writer's transaction, beside the action). Games out of time are found by the indexed
//! `deadline`, never by loading games.

use super::{Store, StoreError, on_db};
use crate::games::clock::Clock;
use siege_protocol::{Side, TimeControl};
use uuid::Uuid;

/// A clock row as stored.
type Row = (String, i64, i64, Option<String>, Option<i64>);

/// A clock row with its game's id first.
type IdRow = (String, String, i64, i64, Option<String>, Option<i64>);

fn from_row((control, allied_ms, chinese_ms, running, since): Row) -> Result<Clock, StoreError> {
    let control: TimeControl = serde_json::from_str(&control)
        .map_err(|e| StoreError::Corrupt(format!("clock control {control:?}: {e}")))?;
    let running = match running.as_deref() {
        None => None,
        Some("allied") => Some(Side::Allied),
        Some("chinese") => Some(Side::Chinese),
        Some(other) => return Err(StoreError::Corrupt(format!("clock side {other:?}"))),
    };
    Ok(Clock {
        control,
        allied_ms,
        chinese_ms,
        running,
        since: since.unwrap_or(0),
    })
}

/// Write `clock` as game `id`'s clock (inserted or replaced), on one connection of a driver:
/// defined once per driver (`clocks::sqlite::save`, `clocks::pg::save`), so that the writer
/// can save a clock inside its own transaction on either database.
macro_rules! save_on {
    ($module:ident, $conn:ty) => {
        pub(crate) mod $module {
            use super::*;

            pub(crate) async fn save(
                conn: &mut $conn,
                id: &str,
                clock: &Clock,
            ) -> Result<(), StoreError> {
                let control = serde_json::to_string(&clock.control)
                    .map_err(|e| StoreError::Corrupt(format!("clock control: {e}")))?;
                sqlx::query(
                    "INSERT INTO clocks (game_id, control, allied_ms, chinese_ms, running, since, deadline) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (game_id) DO UPDATE SET control = excluded.control, \
                       allied_ms = excluded.allied_ms, chinese_ms = excluded.chinese_ms, \
                       running = excluded.running, since = excluded.since, deadline = excluded.deadline",
                )
                .bind(id)
                .bind(control)
                .bind(clock.allied_ms)
                .bind(clock.chinese_ms)
                .bind(clock.running.map(Side::as_str))
                .bind(clock.running.map(|_| clock.since))
                .bind(clock.deadline())
                .execute(&mut *conn)
                .await?;
                Ok(())
            }
        }
    };
}
save_on!(sqlite, sqlx::SqliteConnection);
save_on!(pg, sqlx::PgConnection);

impl Store {
    /// Game `id`'s clock; `None` for an untimed game.
    pub async fn clock(&self, id: Uuid) -> Result<Option<Clock>, StoreError> {
        let row: Option<Row> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT control, allied_ms, chinese_ms, running, since FROM clocks WHERE game_id = $1",
            )
            .bind(id.to_string())
            .fetch_optional(pool)
            .await?
        });
        row.map(from_row).transpose()
    }

    /// Store game `id`'s clock.
    pub async fn save_clock(&self, id: Uuid, clock: &Clock) -> Result<(), StoreError> {
        match &self.db {
            super::Db::Sqlite(pool) => {
                sqlite::save(&mut *pool.acquire().await?, &id.to_string(), clock).await
            }
            super::Db::Postgres(pool) => {
                pg::save(&mut *pool.acquire().await?, &id.to_string(), clock).await
            }
        }
    }

    /// The clocks of the games `ids` that are timed (for listings), in one query.
    pub async fn clocks_of(&self, ids: &[String]) -> Result<Vec<(String, Clock)>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let json = serde_json::to_string(ids)
            .map_err(|e| StoreError::Corrupt(format!("game ids: {e}")))?;
        // The ids go as one JSON array, unpacked by each database's own JSON function.
        let rows: Vec<IdRow> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(if pg {
                "SELECT game_id, control, allied_ms, chinese_ms, running, since FROM clocks \
                 WHERE game_id IN (SELECT jsonb_array_elements_text($1::jsonb))"
            } else {
                "SELECT game_id, control, allied_ms, chinese_ms, running, since FROM clocks \
                 WHERE game_id IN (SELECT value FROM json_each($1))"
            })
            .bind(json)
            .fetch_all(pool)
            .await?
        });
        rows.into_iter()
            .map(|(id, c, a, ch, r, s)| Ok((id, from_row((c, a, ch, r, s))?)))
            .collect()
    }

    /// Unfinished games whose running clock ran out at or before `now`, oldest deadline
    /// first: found by the deadline index, without loading any game.
    pub async fn out_of_time(&self, now: i64, limit: u32) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT c.game_id FROM clocks c JOIN games g ON g.id = c.game_id \
                 WHERE c.running IS NOT NULL AND c.deadline <= $1 AND g.status <> 'finished' \
                 ORDER BY c.deadline LIMIT $2",
            )
            .bind(now)
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?
        });
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }
}
