//! The raw-SQLite baseline: what the disk and SQLite can do on this machine, measured in the
//! same run as the load so the two compare. A fresh database with the server's settings (WAL,
//! `synchronous = FULL`) and a table shaped like the action log receives `n` rows through
//! sqlx on one connection, first as `n` single-row transactions one after another (one fsync each: the ceiling
//! of a server without group commit), then as multi-row transactions of [`BATCH`] rows (the
//! ceiling of group commit).
//!
//! The probe runs DURING the load instead: one single-row transaction every few milliseconds
//! in its own database on the same disk, so that the server's commit times have beside them
//! what one fsync cost at that very moment (on a shared machine it swings from a fraction of
//! a millisecond to several when other work fills the disk's journal).

use super::stats::{Samples, Summary, round3};
use serde::Serialize;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, QueryBuilder, Sqlite, SqliteConnection, SqlitePool};
use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// Rows per transaction in the batched half (the server's writer commits up to 512).
pub const BATCH: usize = 512;

/// A state hash's length of hex.
const HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";
/// An events array of about the size the server stores for a typical action.
const EVENTS: &str = r#"[{"kind":"moved","units":[99],"path":["0111","0210","0311"],"mp":2,"text":"Imperial 21 move 0111 → 0210 → 0311 (2 MP)"}]"#;

/// What the baseline measured.
#[derive(Clone, Debug, Serialize)]
pub struct SqliteBaseline {
    pub rows: usize,
    /// Single-row transactions committed per second, one after another.
    pub single_row_tx_per_s: f64,
    /// The latency of one single-row transaction.
    pub single_row_tx_ms: Summary,
    /// Rows per second committed in transactions of [`BATCH`] rows.
    pub batched_rows_per_s: f64,
    pub batch: usize,
}

/// Run the baseline with `rows` rows in a new database file in `dir` (removed afterwards).
pub async fn run(dir: &Path, rows: usize) -> Result<SqliteBaseline, sqlx::Error> {
    let file = dir.join(format!("siege-sqlite-baseline-{}.db", uuid::Uuid::new_v4()));
    let result = measure(&file, rows).await;
    remove(&file);
    result
}

/// A new database in `file` with the server's settings and a table shaped like the log.
async fn open(file: &Path) -> Result<SqlitePool, sqlx::Error> {
    let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", file.display()))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full);
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await?;
    sqlx::query(
        "CREATE TABLE actions (game_id TEXT NOT NULL, seq INTEGER NOT NULL, side TEXT NOT NULL, \
         action TEXT NOT NULL, events TEXT NOT NULL, state_hash TEXT NOT NULL, \
         turn INTEGER NOT NULL, phase TEXT NOT NULL, at INTEGER NOT NULL, \
         to_act TEXT)",
    )
    .execute(&pool)
    .await?;
    // As the log is kept (migration 0015): rows in write order, a (game_id, seq) index.
    sqlx::query("CREATE UNIQUE INDEX actions_by_game ON actions (game_id, seq)")
        .execute(&pool)
        .await?;
    Ok(pool)
}

/// One single-row transaction (row `i`): one `INSERT` in autocommit, on the connection
/// `conn` kept for the purpose — the cheapest durable write sqlx offers, and what the server's
/// writer does for a batch of one.
async fn insert_one(conn: &mut SqliteConnection, i: usize) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO actions (game_id, seq, side, action, events, state_hash, turn, phase, at) \
         VALUES ('single', ?, 'allied', '{\"type\":\"end_phase\"}', ?, ?, 1, 'big_gun', 0)",
    )
    .bind(i64::try_from(i).unwrap_or(i64::MAX))
    .bind(EVENTS)
    .bind(HASH)
    .execute(conn)
    .await?;
    Ok(())
}

/// Time one single-row transaction every `every` from `start` until `deadline`, in a new
/// database in `dir` (removed afterwards).
pub async fn probe(
    dir: &Path,
    every: Duration,
    start: tokio::time::Instant,
    deadline: tokio::time::Instant,
) -> Result<Samples, sqlx::Error> {
    let file = dir.join(format!("siege-sqlite-probe-{}.db", uuid::Uuid::new_v4()));
    let result = async {
        let pool = open(&file).await?;
        let mut conn = pool.acquire().await?;
        let mut latency = Samples::new();
        let mut next = start;
        let mut i = 0;
        while next < deadline {
            tokio::time::sleep_until(next).await;
            let t0 = Instant::now();
            insert_one(&mut conn, i).await?;
            latency.record(t0.elapsed());
            i += 1;
            next += every;
        }
        drop(conn);
        pool.close().await;
        Ok(latency)
    }
    .await;
    remove(&file);
    result
}

fn remove(file: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
}

async fn measure(file: &Path, rows: usize) -> Result<SqliteBaseline, sqlx::Error> {
    let pool = open(file).await?;
    let mut conn = pool.acquire().await?;
    let mut latency = Samples::new();
    let start = Instant::now();
    for i in 0..rows {
        let t0 = Instant::now();
        insert_one(&mut conn, i).await?;
        latency.record(t0.elapsed());
    }
    let single = start.elapsed().as_secs_f64();

    let start = Instant::now();
    let seqs: Vec<i64> = (0..i64::try_from(rows).unwrap_or(i64::MAX)).collect();
    for chunk in seqs.chunks(BATCH) {
        let mut tx = conn.begin().await?;
        let mut insert: QueryBuilder<Sqlite> = QueryBuilder::new(
            "INSERT INTO actions (game_id, seq, side, action, events, state_hash, turn, phase, at) ",
        );
        insert.push_values(chunk, |mut row, seq| {
            row.push_bind("batched")
                .push_bind(*seq)
                .push_bind("allied")
                .push_bind(r#"{"type":"end_phase"}"#)
                .push_bind(EVENTS)
                .push_bind(HASH)
                .push_bind(1i64)
                .push_bind("big_gun")
                .push_bind(0i64);
        });
        insert.build().execute(&mut *tx).await?;
        tx.commit().await?;
    }
    let batched = start.elapsed().as_secs_f64();
    drop(conn);
    pool.close().await;

    let per_s = |n: usize, secs: f64| {
        if secs > 0.0 {
            round3(n as f64 / secs)
        } else {
            0.0
        }
    };
    Ok(SqliteBaseline {
        rows,
        single_row_tx_per_s: per_s(rows, single),
        single_row_tx_ms: latency.summary(),
        batched_rows_per_s: per_s(rows, batched),
        batch: BATCH,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_baseline_writes_and_cleans_up() {
        let dir = std::env::temp_dir().join(format!("siege-sqlite-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let b = run(&dir, 20).await.unwrap();
        assert_eq!(b.rows, 20);
        assert_eq!(b.single_row_tx_ms.count, 20);
        assert!(b.single_row_tx_per_s > 0.0 && b.batched_rows_per_s > 0.0);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let now = tokio::time::Instant::now();
        let every = Duration::from_millis(5);
        let p = probe(&dir, every, now, now + Duration::from_millis(50))
            .await
            .unwrap();
        assert!(!p.is_empty());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        let _ = std::fs::remove_dir_all(dir);
    }
}
