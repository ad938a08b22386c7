//! The store: games, seats and the append-only action log in SQLite (WAL mode, the default) or
//! PostgreSQL (`--database postgres://…`), migrated at start-up. Reads go straight to the pool;
//! accepted actions go through the single [`writer::Writer`] task, which commits the actions of
//! many games together.
//!
//! Only `query`/`query_as` are used (not the checked macros), so a fresh clone builds without a
//! database or an offline cache.
//!
//! Both databases run the same code: every method is written once, with `$N` placeholders
//! (which sqlx's SQLite driver binds by number, as PostgreSQL does), and [`on_db!`] expands its
//! body once per driver, so each bind chain is type-checked against both. Where the dialects
//! differ (`json_extract`, scalar `max`, `rowid`, case-insensitive names) a statement comes in
//! two spellings, chosen by the `pg` flag the macro binds. sqlx's `Any` driver was not used: it
//! passes SQL through untranslated all the same, and it converts every value on the way.

mod access;
mod chat;
pub(crate) mod clocks;
mod db;
mod expiry;
mod leases;
mod rematch;
mod rows;
pub mod scratch;
#[cfg(test)]
mod tests;
mod time;
pub mod writer;

pub use access::Access;
pub(crate) use db::on_db;
pub use db::{Db, is_postgres};
pub use leases::Lease;
pub use rematch::StoredRematch;
pub use rows::{ActionRow, GameRow, SummaryRow};
pub use time::{now_ms, rfc3339};

use crate::rules::HashVersion;
use siege_protocol::{GameLog, GameStatus, Seats, Side};
use uuid::Uuid;

/// SQL for the side to act now in game `g` (with `a` its last action row, if any): the last
/// action's `to_act`, or before any action the game's `first_to_act` (the setup's Allies for a
/// game created before that column). NULL unless the game is under way: nobody acts in an open
/// game until both seats are taken (R7), nor in a finished one.
macro_rules! to_act_sql {
    () => {
        "CASE WHEN g.status <> 'active' THEN NULL \
           WHEN a.seq IS NULL THEN coalesce(g.first_to_act, \
             CASE WHEN g.position IS NULL THEN 'allied' END) \
           ELSE a.to_act END"
    };
}

/// SQL for when the decision passed to `t.to_act` in game `t.id`: the time of the first action
/// after the last one that left another side (or nobody known) to act — or, if later, when the
/// last seat was taken (a player cannot wait before the game has both). A scan back from the
/// end of the game's log through the trailing actions of one decider, by the primary key.
///
/// `$max` is the dialect's scalar maximum and `$is_not` its null-safe inequality.
macro_rules! waiting_since_sql {
    ($max:literal, $is_not:literal) => {
        concat!(
            "CASE WHEN t.to_act IS NULL THEN NULL ELSE ",
            $max,
            "( \
           coalesce((SELECT min(a2.at) FROM actions a2 WHERE a2.game_id = t.id AND a2.seq > \
             (SELECT a3.seq FROM actions a3 WHERE a3.game_id = t.id AND a3.to_act ",
            $is_not,
            " t.to_act \
                ORDER BY a3.seq DESC LIMIT 1)), 0), \
           coalesce((SELECT max(s.taken_at) FROM seats s WHERE s.game_id = t.id), t.created_at)) END"
        )
    };
}

/// [`waiting_since_sql`] in SQLite's spelling.
macro_rules! waiting_since_sqlite {
    () => {
        waiting_since_sql!("max", "IS NOT")
    };
}

/// [`waiting_since_sql`] in PostgreSQL's spelling.
macro_rules! waiting_since_pg {
    () => {
        waiting_since_sql!("greatest", "IS DISTINCT FROM")
    };
}

/// The listing query, with the dialect's spellings of the `waiting_since` expression, the
/// start's turn and phase (from a custom position's JSON) and the name search.
macro_rules! list_sql {
    ($waiting_since:expr, $turn:literal, $phase:literal, $name:literal) => {
        concat!(
            "SELECT t.*, \
               coalesce((SELECT s.side FROM seats s WHERE s.game_id = t.id AND s.account_id = $3 \
                  AND s.side = t.to_act), \
                 (SELECT min(s.side) FROM seats s WHERE s.game_id = t.id AND s.account_id = $3)) AS you, \
               ", $waiting_since, " AS waiting_since \
             FROM (SELECT g.id, g.name, g.status, g.result, g.created_at, \
               ", $turn, " AS turn, \
               ", $phase, " AS phase, \
               g.position IS NOT NULL AS custom_start, \
               EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.side = 'allied') AS allied, \
               EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.side = 'chinese') AS chinese, \
               (SELECT s.bot FROM seats s WHERE s.game_id = g.id AND s.side = 'allied') AS allied_bot, \
               (SELECT s.bot FROM seats s WHERE s.game_id = g.id AND s.side = 'chinese') AS chinese_bot, \
               g.invite_hash IS NOT NULL AS private, g.guests, \
               (SELECT a.name FROM seats s JOIN accounts a ON a.id = s.account_id \
                  WHERE s.game_id = g.id AND s.side = 'allied') AS allied_name, \
               (SELECT a.name FROM seats s JOIN accounts a ON a.id = s.account_id \
                  WHERE s.game_id = g.id AND s.side = 'chinese') AS chinese_name, \
               ", to_act_sql!(), " AS to_act \
             FROM games g \
             LEFT JOIN actions a ON a.game_id = g.id \
               AND a.seq = (SELECT max(seq) FROM actions WHERE game_id = g.id) \
             WHERE ($1 IS NULL OR g.status = $1) \
               AND (g.invite_hash IS NULL OR EXISTS (SELECT 1 FROM seats s \
                      WHERE s.game_id = g.id AND s.account_id = $3)) \
               AND (NOT $4 OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id \
                      AND s.account_id = $3 AND ($5 IS NULL OR s.side = $5))) \
               AND (NOT $9 OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id \
                      AND s.account_id = $3 AND s.side = ", to_act_sql!(), ")) \
               AND ($6 IS NULL OR ", $name, ") \
               AND ($7 IS NULL OR g.created_at < $8 OR (g.created_at = $8 AND g.id > $7)) \
             ORDER BY g.created_at DESC, g.id \
             LIMIT $2) t \
             ORDER BY t.created_at DESC, t.id",
        )
    };
}

/// The side to act in one game and since when, with the dialect's `waiting_since`.
macro_rules! waiting_sql {
    ($waiting_since:expr) => {
        concat!(
            "SELECT t.to_act, ",
            $waiting_since,
            " FROM (SELECT g.id, g.created_at, ",
            to_act_sql!(),
            " AS to_act FROM games g \
             LEFT JOIN actions a ON a.game_id = g.id \
               AND a.seq = (SELECT max(seq) FROM actions WHERE game_id = g.id) \
             WHERE g.id = $1) t"
        )
    };
}

/// A store failure. The message is for logs; clients get a generic `internal` error.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A row that cannot be what the schema promises (bad side, bad JSON, bad seed).
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// A write the writer could not commit.
    #[error("write failed: {0}")]
    Write(String),
    /// An append for a game whose lease this node no longer holds: another node took it
    /// (this one was paused or cut off for longer than a lease), and only it may write the
    /// game's log now.
    #[error("game {0} is run by another node now: this node may not write its log")]
    Fenced(String),
    /// The writer task is gone (the server is shutting down).
    #[error("the store writer has stopped")]
    WriterGone,
}

/// A new game as created by `POST /api/games`: the game row and its creator's seat.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub id: Uuid,
    pub name: String,
    pub seed: [u8; 32],
    pub seed_commitment: String,
    pub side: Side,
    pub token_hash: String,
    /// The custom position (JSON) the game starts from, if not the setup of section 22.
    pub position: Option<String>,
    /// The version its state hashes are computed with.
    pub hash_version: HashVersion,
    /// A computer player in the other seat: its side, level and token hash.
    pub bot: Option<(Side, String, String)>,
    /// A computer player in the creator's seat too (a game between two computers, to watch):
    /// its level. The seat then belongs to no account.
    pub own_bot: Option<String>,
    /// Who created it (the rate limiter's key), kept while the game is open.
    pub creator: Option<String>,
    /// The most games its creator may have open, this one included; `None`: no cap.
    pub max_open: Option<u32>,
    /// Who may join it.
    pub access: Access,
    /// The creator's account, when signed in: it holds the creator's seat.
    pub account: Option<i64>,
    /// The side to act before the first action, for "your move" in listings.
    pub first_to_act: Option<Side>,
}

/// The shared handle on the database.
#[derive(Clone, Debug)]
pub struct Store {
    db: Db,
}

impl Store {
    /// Open the database at `url` and apply its migrations: a `postgres://` URL is
    /// PostgreSQL, anything else SQLite (the file is created if missing, and runs in WAL mode
    /// with `synchronous = FULL`). Either way a commit is durable when it returns, so an
    /// acknowledged action survives a killed process or a power cut; group commit in the
    /// writer keeps the flushes few.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        Ok(Store {
            db: Db::open(url, true).await?,
        })
    }

    /// Open an existing database only (audits: a mistyped path must not create an empty one).
    pub async fn open_existing(url: &str) -> Result<Store, StoreError> {
        Ok(Store {
            db: Db::open(url, false).await?,
        })
    }

    /// A second, small handle on a database the server has already opened and migrated: one
    /// connection, no migration (the background audit reads through it).
    pub async fn open_reader(url: &str) -> Result<Store, StoreError> {
        Ok(Store {
            db: Db::connect(url, false, 1).await?,
        })
    }

    /// The pool, for the writer, the accounts and the notifier.
    pub(crate) fn pool(&self) -> &Db {
        &self.db
    }

    /// Whether the database answers (`/healthz`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        on_db!(&self.db, |pool, pg| {
            sqlx::query("SELECT 1").execute(pool).await?;
        });
        Ok(())
    }

    /// Close the pool (for SQLite, checkpointing the WAL).
    pub async fn close(&self) {
        self.db.close().await;
    }

    /// Insert a new game and its creator's seat in one transaction. Returns `false`, changing
    /// nothing, when the creator already has `max_open` games that are open or under way with a
    /// computer seated (a game against the computer is active at once and never expires, and a
    /// game between two computers plays itself on the bot workers: without counting them, the
    /// cap could be walked round). Each count reads a partial index on `creator` (migrations
    /// 0004 and 0013). The count and the insert are one statement, so two requests at once
    /// cannot both slip under the cap.
    pub async fn create_game(&self, game: &NewGame) -> Result<bool, StoreError> {
        let now = now_ms();
        let id = game.id.to_string();
        on_db!(&self.db, |pool, pg| {
            let mut tx = pool.begin().await?;
            let inserted = sqlx::query(
                "INSERT INTO games (id, name, status, seed, seed_commitment, result, created_at, updated_at, position, hash_version, creator, invite_hash, guests, first_to_act) \
                 SELECT $1, $2, $12, $3, $4, NULL, $5, $5, $6, $7, $8, $10, $11, $13 \
                 WHERE $9 IS NULL OR $8 IS NULL \
                    OR (SELECT count(*) FROM games WHERE creator = $8 AND status = 'open') \
                     + (SELECT count(*) FROM games c WHERE c.creator = $8 AND c.status = 'active' \
                          AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = c.id AND s.bot IS NOT NULL)) \
                     < $9",
            )
            .bind(&id)
            .bind(&game.name)
            .bind(game.seed.as_slice())
            .bind(&game.seed_commitment)
            .bind(now)
            .bind(&game.position)
            .bind(i64::from(game.hash_version.number()))
            .bind(&game.creator)
            .bind(game.max_open.map(i64::from))
            .bind(&game.access.invite_hash)
            .bind(game.access.guests)
            // A game with a computer in the other seat is active from the start.
            .bind(if game.bot.is_some() { "active" } else { "open" })
            .bind(game.first_to_act.map(Side::as_str))
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if inserted == 0 {
                return Ok(false);
            }
            sqlx::query(
                "INSERT INTO seats (game_id, side, token_hash, taken_at, account_id, bot) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&id)
            .bind(game.side.as_str())
            .bind(&game.token_hash)
            .bind(now)
            .bind(game.account.filter(|_| game.own_bot.is_none()))
            .bind(&game.own_bot)
            .execute(&mut *tx)
            .await?;
            if let Some((side, level, hash)) = &game.bot {
                sqlx::query(
                    "INSERT INTO seats (game_id, side, token_hash, taken_at, bot) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&id)
                .bind(side.as_str())
                .bind(hash)
                .bind(now)
                .bind(level)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
        });
        Ok(true)
    }

    /// Give `side`'s seat to the holder of `token_hash`. Returns `false` when the seat was
    /// already taken (nothing changed). The game becomes `active` once both seats are taken,
    /// unless it is already finished.
    ///
    /// With a `fence` (a node of several), the seat is given only while the game's lease still
    /// has that fencing number, checked in the same transaction as the insert and, on
    /// PostgreSQL, locked until its commit as the writer's check of an action is: a node that
    /// lost the game cannot seat a player the new holder would never hear of
    /// ([`StoreError::Fenced`]).
    pub async fn take_seat(
        &self,
        id: Uuid,
        side: Side,
        token_hash: &str,
        fence: Option<i64>,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let id = id.to_string();
        on_db!(&self.db, |pool, pg| {
            let mut tx = pool.begin_with(db::begin_write(pg)).await?;
            if let Some(fence) = fence {
                let held: Option<i64> = sqlx::query_scalar(if pg {
                    "SELECT fence FROM leases WHERE game_id = $1 FOR SHARE"
                } else {
                    "SELECT fence FROM leases WHERE game_id = $1"
                })
                .bind(&id)
                .fetch_optional(&mut *tx)
                .await?;
                if held != Some(fence) {
                    return Err(StoreError::Fenced(id));
                }
            }
            let inserted = sqlx::query(
                "INSERT INTO seats (game_id, side, token_hash, taken_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (game_id, side) DO NOTHING",
            )
            .bind(&id)
            .bind(side.as_str())
            .bind(token_hash)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if inserted == 0 {
                return Ok(false);
            }
            sqlx::query(
                "UPDATE games SET updated_at = $1, status = CASE \
                   WHEN status = 'finished' THEN 'finished' \
                   WHEN (SELECT count(*) FROM seats WHERE game_id = $2) >= 2 THEN 'active' \
                   ELSE 'open' END, \
                 creator = CASE WHEN (SELECT count(*) FROM seats WHERE game_id = $2) >= 2 THEN NULL \
                   ELSE creator END \
                 WHERE id = $2",
            )
            .bind(now)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
        });
        Ok(true)
    }

    /// Hold game `id` for the operator, saying why (an engine runaway): it refuses every action
    /// from now on and is not loaded again while the mark stays.
    pub async fn hold(&self, id: Uuid, why: &str) -> Result<(), StoreError> {
        on_db!(&self.db, |pool, pg| {
            sqlx::query("UPDATE games SET held = $1, updated_at = $2 WHERE id = $3")
                .bind(why)
                .bind(now_ms())
                .bind(id.to_string())
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// The game row, if there is one.
    pub async fn game(&self, id: Uuid) -> Result<Option<GameRow>, StoreError> {
        Ok(on_db!(&self.db, |pool, pg| {
            sqlx::query_as::<_, GameRow>(
                "SELECT id, name, status, seed, seed_commitment, result, created_at, updated_at, position, \
                    hash_version, audited_seq, audit_error, held \
                 FROM games WHERE id = $1",
            )
            .bind(id.to_string())
            .fetch_optional(pool)
            .await?
        }))
    }

    /// The seats of a game: side and token hash.
    pub async fn seats(&self, id: Uuid) -> Result<Vec<(Side, String)>, StoreError> {
        let rows: Vec<(String, String)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT side, token_hash FROM seats WHERE game_id = $1 ORDER BY side")
                .bind(id.to_string())
                .fetch_all(pool)
                .await?
        });
        rows.into_iter()
            .map(|(side, hash)| Ok((rows::parse_side(&side)?, hash)))
            .collect()
    }

    /// The computer players seated in a game: side and level.
    pub async fn bots(&self, id: Uuid) -> Result<Vec<(Side, String)>, StoreError> {
        let rows: Vec<(String, String)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT side, bot FROM seats WHERE game_id = $1 AND bot IS NOT NULL ORDER BY side",
            )
            .bind(id.to_string())
            .fetch_all(pool)
            .await?
        });
        rows.into_iter()
            .map(|(side, bot)| Ok((rows::parse_side(&side)?, bot)))
            .collect()
    }

    /// The unfinished games with a computer player seated, oldest first: found by a query at
    /// start-up, so that a computer whose decision it is resumes without anyone touching the
    /// game.
    pub async fn unfinished_with_bots(&self) -> Result<Vec<Uuid>, StoreError> {
        let rows: Vec<(String,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT g.id FROM games g WHERE g.status != 'finished' AND g.audit_error IS NULL \
                   AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.bot IS NOT NULL) \
                 ORDER BY g.created_at",
            )
            .fetch_all(pool)
            .await?
        });
        parse_ids(rows)
    }

    /// Unfinished games whose decision is a computer's and whose lease nobody holds after
    /// `now` (oldest first; not a game held for the operator or failing its audit, which is
    /// not loaded again until cleared): on a cluster, the computer games no node runs — their
    /// node died, or they were created on a node that does not keep new games — which a node
    /// adopts so that they play on with nobody watching
    /// ([`crate::games::Games::adopt_bot_games`]).
    pub async fn unheld_bot_decisions(&self, now: i64) -> Result<Vec<Uuid>, StoreError> {
        let rows: Vec<(String,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(concat!(
                "SELECT t.id FROM (SELECT g.id, g.created_at, ",
                to_act_sql!(),
                " AS to_act FROM games g \
                   LEFT JOIN actions a ON a.game_id = g.id \
                     AND a.seq = (SELECT max(seq) FROM actions WHERE game_id = g.id) \
                   WHERE g.status = 'active' AND g.audit_error IS NULL AND g.held IS NULL \
                     AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.bot IS NOT NULL) \
                     AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.game_id = g.id \
                       AND l.expires_at > $1)) t \
                 WHERE EXISTS (SELECT 1 FROM seats s WHERE s.game_id = t.id \
                   AND s.side = t.to_act AND s.bot IS NOT NULL) \
                 ORDER BY t.created_at"
            ))
            .bind(now)
            .fetch_all(pool)
            .await?
        });
        parse_ids(rows)
    }

    /// The log entries `after < seq <= upto` of a game, in order.
    pub async fn log(&self, id: Uuid, after: u64, upto: u64) -> Result<Vec<ActionRow>, StoreError> {
        Ok(on_db!(&self.db, |pool, pg| {
            sqlx::query_as::<_, ActionRow>(
                "SELECT seq, side, action, events, state_hash, at FROM actions \
                 WHERE game_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq",
            )
            .bind(id.to_string())
            .bind(clamp(after))
            .bind(clamp(upto))
            .fetch_all(pool)
            .await?
        }))
    }

    /// The published log of a game: its entries, its commitment and — when the game is
    /// finished or `reveal_seed` is set (an operator with the database) — its seed.
    pub async fn game_log(
        &self,
        id: Uuid,
        reveal_seed: bool,
    ) -> Result<Option<GameLog>, StoreError> {
        let Some(row) = self.game(id).await? else {
            return Ok(None);
        };
        let finished = row.status()? == GameStatus::Finished;
        let entries = self
            .log(id, 0, u64::MAX)
            .await?
            .iter()
            .map(ActionRow::to_entry)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(GameLog {
            game_id: row.id.clone(),
            seed_commitment: row.seed_commitment.clone(),
            seed: (finished || reveal_seed).then(|| hex::encode(&row.seed)),
            position: row.position()?,
            hash_version: row.hash_version()?.number(),
            entries,
        }))
    }

    /// The number of entries in a game's log.
    pub async fn log_len(&self, id: Uuid) -> Result<u64, StoreError> {
        let (n,): (i64,) = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT coalesce(max(seq), 0) FROM actions WHERE game_id = $1")
                .bind(id.to_string())
                .fetch_one(pool)
                .await?
        });
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// The most recent games, newest first, narrowed by `filter`. Private games are left out
    /// unless `viewer` (an account) holds one of their seats; for the viewer's own games each
    /// row says which side the viewer holds, whose move it is and since when — all from the
    /// `to_act` column of the last action row and the seats, without loading any game.
    pub async fn list(
        &self,
        filter: &ListFilter,
        viewer: Option<i64>,
    ) -> Result<Vec<SummaryRow>, StoreError> {
        Ok(on_db!(&self.db, |pool, pg| {
            sqlx::query_as::<_, SummaryRow>(if pg {
                list_sql!(
                    waiting_since_pg!(),
                    "coalesce(a.turn, (g.position::jsonb ->> 'turn')::bigint, 0)",
                    "coalesce(a.phase, g.position::jsonb ->> 'phase', 'allied_setup')",
                    "strpos(lower(g.name), lower($6)) > 0"
                )
            } else {
                list_sql!(
                    waiting_since_sqlite!(),
                    "coalesce(a.turn, json_extract(g.position, '$.turn'), 0)",
                    "coalesce(a.phase, json_extract(g.position, '$.phase'), 'allied_setup')",
                    "instr(lower(g.name), lower($6)) > 0"
                )
            })
            .bind(filter.status.map(GameStatus::as_str))
            .bind(i64::from(filter.limit))
            .bind(viewer)
            .bind(filter.mine)
            .bind(filter.side.map(Side::as_str))
            .bind(filter.name.as_deref())
            .bind(filter.before.as_ref().map(|(id, _)| id.to_string()))
            .bind(filter.before.as_ref().map(|(_, at)| *at))
            .bind(filter.your_move)
            .fetch_all(pool)
            .await?
        }))
    }

    /// The side to act in game `id` and since when (Unix ms), by the same query as the
    /// listing's: `None` when the game is over or unknown.
    pub async fn waiting(&self, id: Uuid) -> Result<Option<(Side, i64)>, StoreError> {
        let row: Option<(Option<String>, Option<i64>)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(if pg {
                waiting_sql!(waiting_since_pg!())
            } else {
                waiting_sql!(waiting_since_sqlite!())
            })
            .bind(id.to_string())
            .fetch_optional(pool)
            .await?
        });
        match row {
            Some((Some(side), Some(since))) => Ok(Some((rows::parse_side(&side)?, since))),
            _ => Ok(None),
        }
    }

    /// When game `id` was created (Unix ms), if there is such a game: a listing cursor.
    pub async fn created_at(&self, id: Uuid) -> Result<Option<i64>, StoreError> {
        let row: Option<(i64,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT created_at FROM games WHERE id = $1")
                .bind(id.to_string())
                .fetch_optional(pool)
                .await?
        });
        Ok(row.map(|(at,)| at))
    }

    /// The latest snapshot of a game after entry `after` and at or before entry `upto`, with
    /// the state hash the log stores for its entry: `(seq, state JSON, state hash)`.
    pub async fn snapshot(
        &self,
        id: Uuid,
        after: u64,
        upto: u64,
    ) -> Result<Option<(u64, String, String)>, StoreError> {
        let row: Option<(i64, String, String)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT s.seq, s.state, a.state_hash FROM snapshots s \
                 JOIN actions a ON a.game_id = s.game_id AND a.seq = s.seq \
                 WHERE s.game_id = $1 AND s.seq > $2 AND s.seq <= $3 ORDER BY s.seq DESC LIMIT 1",
            )
            .bind(id.to_string())
            .bind(clamp(after))
            .bind(clamp(upto))
            .fetch_optional(pool)
            .await?
        });
        Ok(row.map(|(seq, state, hash)| (u64::try_from(seq).unwrap_or(0), state, hash)))
    }

    /// Every snapshot of a game after entry `after`, in order: `(seq, state JSON)`.
    pub async fn snapshots(&self, id: Uuid, after: u64) -> Result<Vec<(u64, String)>, StoreError> {
        let rows: Vec<(i64, String)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT seq, state FROM snapshots WHERE game_id = $1 AND seq > $2 ORDER BY seq",
            )
            .bind(id.to_string())
            .bind(clamp(after))
            .fetch_all(pool)
            .await?
        });
        Ok(rows
            .into_iter()
            .map(|(seq, state)| (u64::try_from(seq).unwrap_or(0), state))
            .collect())
    }

    /// Games whose logs have entries the background audit has not checked, after `after` (a
    /// rowid) in rowid order: `(rowid, id)`. PostgreSQL has no implicit rowid: its `games`
    /// table has an identity column of that name for this cursor.
    pub async fn to_audit(&self, after: i64, limit: u32) -> Result<Vec<(i64, Uuid)>, StoreError> {
        let rows: Vec<(i64, String)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT g.rowid, g.id FROM games g \
                 WHERE g.rowid > $1 AND g.audit_error IS NULL \
                   AND g.audited_seq < (SELECT coalesce(max(a.seq), 0) FROM actions a WHERE a.game_id = g.id) \
                 ORDER BY g.rowid LIMIT $2",
            )
            .bind(after)
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?
        });
        rows.into_iter()
            .map(|(rowid, id)| {
                Uuid::parse_str(&id)
                    .map(|u| (rowid, u))
                    .map_err(|e| StoreError::Corrupt(format!("game id {id}: {e}")))
            })
            .collect()
    }

    /// The ids of every game not yet finished, oldest first: found by a query, never by
    /// loading games (the server loads a game only when it is touched).
    pub async fn unfinished(&self) -> Result<Vec<Uuid>, StoreError> {
        let rows: Vec<(String,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT id FROM games WHERE status != 'finished' ORDER BY created_at")
                .fetch_all(pool)
                .await?
        });
        parse_ids(rows)
    }
}

/// Game ids as stored, checked.
fn parse_ids(rows: Vec<(String,)>) -> Result<Vec<Uuid>, StoreError> {
    rows.into_iter()
        .map(|(id,)| {
            Uuid::parse_str(&id).map_err(|e| StoreError::Corrupt(format!("game id {id}: {e}")))
        })
        .collect()
}

/// What `GET /api/games` asks for: every part optional but `limit`.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    /// Only games of this status.
    pub status: Option<GameStatus>,
    /// At most this many games.
    pub limit: u32,
    /// Only the viewer's own games (the viewer must be signed in).
    pub mine: bool,
    /// With `mine`: only the games where the viewer holds this side.
    pub side: Option<Side>,
    /// With `mine`: only the games where the viewer's side is to act now.
    pub your_move: bool,
    /// Only games whose name contains this (case-insensitive, ASCII letters).
    pub name: Option<String>,
    /// Only games listed after this one (its id and creation time): the cursor of the next page.
    pub before: Option<(Uuid, i64)>,
}

/// Which seats of a list of seat rows are taken.
pub fn seats_of(rows: &[(Side, String)]) -> Seats {
    let mut seats = Seats::default();
    for (side, _) in rows {
        seats.take(*side);
    }
    seats
}

/// A sequence number as the databases' signed 64-bit integer.
fn clamp(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
