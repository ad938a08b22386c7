//! The chat of a game in the store: messages and the players' mute choices, in tables of their
//! own beside the action log (migrations/0009_chat.sql). Chat is written straight to the pool,
//! one statement per message, not through the action writer: a message is not an action and
//! never waits behind a game's commits.

use super::{Store, StoreError, on_db, rfc3339};
use siege_protocol::{Channel, ChatMessage, Side, You};
use uuid::Uuid;

type Row = (i64, String, String, String, i64);

fn message((id, channel, sender, text, at): Row) -> Result<ChatMessage, StoreError> {
    let corrupt = |what: &str| StoreError::Corrupt(format!("chat message {id}: {what}"));
    let from = match sender.as_str() {
        "allied" => You::Allied,
        "chinese" => You::Chinese,
        "spectator" => You::Spectator,
        _ => return Err(corrupt("unknown sender")),
    };
    Ok(ChatMessage {
        id: u64::try_from(id).map_err(|_| corrupt("negative id"))?,
        channel: Channel::parse(&channel).ok_or_else(|| corrupt("unknown channel"))?,
        from,
        text,
        at: rfc3339(at),
    })
}

impl Store {
    /// Store a message of game `id` received at `at` (Unix ms) and return it as stored.
    ///
    /// With a `fence` (a node of several), the message is stored only while the game's lease
    /// still has that fencing number, checked in the insert itself (on PostgreSQL with the lease
    /// row locked until it commits, as the writer's check of an action is): a node that lost the
    /// game cannot add a line its new holder's readers would not see live
    /// ([`StoreError::Fenced`]).
    pub async fn add_chat(
        &self,
        id: Uuid,
        from: You,
        text: &str,
        at: i64,
        fence: Option<i64>,
    ) -> Result<ChatMessage, StoreError> {
        let channel = Channel::of(from);
        let row: Option<(i64,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(if pg {
                "INSERT INTO chat (game_id, channel, sender, text, at) \
                 SELECT $1, $2, $3, $4, $5 \
                 WHERE $6::BIGINT IS NULL \
                    OR EXISTS (SELECT 1 FROM leases WHERE game_id = $1 AND fence = $6 FOR SHARE) \
                 RETURNING id"
            } else {
                "INSERT INTO chat (game_id, channel, sender, text, at) \
                 SELECT $1, $2, $3, $4, $5 \
                 WHERE $6 IS NULL \
                    OR EXISTS (SELECT 1 FROM leases WHERE game_id = $1 AND fence = $6) \
                 RETURNING id"
            })
            .bind(id.to_string())
            .bind(channel.as_str())
            .bind(from.as_str())
            .bind(text)
            .bind(at)
            .bind(fence)
            .fetch_optional(pool)
            .await?
        });
        let Some((row_id,)) = row else {
            return Err(StoreError::Fenced(id.to_string()));
        };
        message((
            row_id,
            channel.as_str().to_string(),
            from.as_str().to_string(),
            text.to_string(),
            at,
        ))
    }

    /// The last `limit` messages of game `id` in `channels`, oldest first.
    pub async fn chat(
        &self,
        id: Uuid,
        channels: &[Channel],
        limit: u32,
    ) -> Result<Vec<ChatMessage>, StoreError> {
        let table = channels.contains(&Channel::Table);
        let spectators = channels.contains(&Channel::Spectators);
        let rows: Vec<Row> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT id, channel, sender, text, at FROM ( \
                     SELECT id, channel, sender, text, at FROM chat \
                     WHERE game_id = $1 \
                       AND ((channel = 'table' AND $2) OR (channel = 'spectators' AND $3)) \
                     ORDER BY id DESC LIMIT $4 \
                 ) AS latest ORDER BY id",
            )
            .bind(id.to_string())
            .bind(table)
            .bind(spectators)
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?
        });
        rows.into_iter().map(message).collect()
    }

    /// Whether `side`'s seat of game `id` muted the spectator chat.
    pub async fn chat_muted(&self, id: Uuid, side: Side) -> Result<bool, StoreError> {
        // An `i32`: PostgreSQL types the literal 1 as `integer`, and SQLite decodes either.
        let row: Option<(i32,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT 1 FROM chat_mutes WHERE game_id = $1 AND side = $2")
                .bind(id.to_string())
                .bind(side.as_str())
                .fetch_optional(pool)
                .await?
        });
        Ok(row.is_some())
    }

    /// Keep `side`'s choice to hide (or show) the spectator chat of game `id`.
    pub async fn set_chat_muted(
        &self,
        id: Uuid,
        side: Side,
        muted: bool,
    ) -> Result<(), StoreError> {
        let sql = if muted {
            "INSERT INTO chat_mutes (game_id, side) VALUES ($1, $2) ON CONFLICT DO NOTHING"
        } else {
            "DELETE FROM chat_mutes WHERE game_id = $1 AND side = $2"
        };
        on_db!(&self.db, |pool, pg| {
            sqlx::query(sql)
                .bind(id.to_string())
                .bind(side.as_str())
                .execute(pool)
                .await?;
        });
        Ok(())
    }
}
