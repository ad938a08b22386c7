//! Which database the store runs on — SQLite (a file, the default) or PostgreSQL (a server,
//! named by a `postgres://` URL) — and how each is opened: its pool, its settings for durable
//! commits and its own migrations. Everything above this module sees one [`Db`] and runs each
//! statement on it through [`on_db!`].

use super::StoreError;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{PgPool, SqlitePool};
use std::str::FromStr;
use std::time::Duration;

/// How long a connection waits for SQLite's write lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Pool size: SQLite has one writer; the rest serve reads (logs, listings, replays). The same
/// for PostgreSQL, whose connections cost the server a process each.
const MAX_CONNECTIONS: u32 = 8;

/// Migrations whose comments were reworded after databases recorded them, each with the SHA-384
/// sqlx recorded for its earlier text. sqlx refuses to start on a database whose applied
/// migration no longer matches its file; a change to a comment alone is accepted by recording
/// the new checksum, but only where the old one is exactly the earlier text's, so any other
/// difference is still refused.
pub(super) const REWORDED: [(i64, &str); 1] = [(
    1,
    "753563920caab24d35a40007b7dd5fe71b0fb423a95bf9634526a3b75148df8c921dc57dcd4928e3c0c2011499eb2c6d",
)];

/// Record the current checksum of each [`REWORDED`] migration in a database that applied its
/// earlier text, before sqlx checks the applied migrations.
async fn accept_reworded_comments(
    pool: &SqlitePool,
    migrator: &sqlx::migrate::Migrator,
) -> Result<(), StoreError> {
    let applied: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_optional(pool)
    .await?;
    if applied.is_none() {
        return Ok(());
    }
    for (version, before) in REWORDED {
        let Some(now) = migrator.iter().find(|m| m.version == version) else {
            continue;
        };
        let before = hex::decode(before).expect("a checksum written in hex");
        sqlx::query("UPDATE _sqlx_migrations SET checksum = ? WHERE version = ? AND checksum = ?")
            .bind(now.checksum.as_ref())
            .bind(version)
            .bind(before)
            .execute(pool)
            .await?;
    }
    Ok(())
}

/// How to begin a transaction that reads before it writes (a fence checked, then rows
/// inserted). SQLite's default `BEGIN` is deferred: it takes the write lock only at the first
/// write, and if another connection committed after this one's first read, that upgrade fails
/// at once with "database is locked" — the busy timeout does not apply — so a node that had just
/// lost a lease saw a storage error instead of being told it was fenced off, and kept its task.
/// `BEGIN IMMEDIATE` takes the write lock first (waiting up to the busy timeout), so what the
/// transaction reads is still true when it writes. PostgreSQL locks the rows it reads instead
/// (`FOR SHARE`).
pub(crate) const fn begin_write(pg: bool) -> &'static str {
    if pg { "BEGIN" } else { "BEGIN IMMEDIATE" }
}

/// A pool on one of the two databases.
#[derive(Clone, Debug)]
pub enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Run `$body` with `$pool` bound to the store's pool and `$pg` to whether it is PostgreSQL.
/// The body is expanded once per driver, so one bind chain serves both and is type-checked
/// against each (a Rust type one driver cannot bind fails to compile, not at run time).
macro_rules! on_db {
    ($db:expr, |$pool:ident, $pg:ident| $body:expr) => {
        match $db {
            $crate::store::Db::Sqlite($pool) => {
                #[allow(unused_variables)]
                let $pg = false;
                $body
            }
            $crate::store::Db::Postgres($pool) => {
                #[allow(unused_variables)]
                let $pg = true;
                $body
            }
        }
    };
}
pub(crate) use on_db;

/// Whether `url` names a PostgreSQL database (anything else is a SQLite URL or path).
pub fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

impl Db {
    /// Connect to `url` with at most `max` connections; for SQLite, create the file if
    /// `create`. Does not migrate.
    pub(super) async fn connect(url: &str, create: bool, max: u32) -> Result<Db, StoreError> {
        if is_postgres(url) {
            // Durability: PostgreSQL's defaults (`fsync`, `synchronous_commit = on`) make a
            // commit return only once its WAL is flushed; that is what the writer needs before
            // it acknowledges an action, so nothing is relaxed here.
            let options = PgConnectOptions::from_str(url)?;
            let pool = PgPoolOptions::new()
                .max_connections(max)
                .connect_with(options)
                .await?;
            Ok(Db::Postgres(pool))
        } else {
            let pool = SqlitePoolOptions::new()
                .max_connections(max)
                .connect_with(sqlite_options(url, create)?)
                .await?;
            Ok(Db::Sqlite(pool))
        }
    }

    /// Connect with the server's pool size and apply the migrations of this database.
    pub(super) async fn open(url: &str, create: bool) -> Result<Db, StoreError> {
        let db = Db::connect(url, create, MAX_CONNECTIONS).await?;
        db.migrate().await?;
        Ok(db)
    }

    /// Apply the migrations: `migrations/` for SQLite, `migrations/postgres/` for PostgreSQL,
    /// kept in step (each schema change comes as a pair).
    pub async fn migrate(&self) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(pool) => {
                let migrator = sqlx::migrate!("../migrations");
                accept_reworded_comments(pool, &migrator).await?;
                migrator.run(pool).await?
            }
            Db::Postgres(pool) => sqlx::migrate!("../migrations/postgres").run(pool).await?,
        }
        Ok(())
    }

    /// Close the pool (for SQLite, checkpointing the WAL).
    pub async fn close(&self) {
        match self {
            Db::Sqlite(pool) => pool.close().await,
            Db::Postgres(pool) => pool.close().await,
        }
    }
}

/// SQLite in WAL mode with `synchronous = FULL`: every commit is on disk before its actions
/// are acknowledged, so neither a killed process nor a power cut loses an acknowledged action.
/// Group commit in the writer keeps the fsyncs few.
///
/// `temp_store = memory`: a batch of the writer's that takes several statements keeps its
/// statement journal in memory instead of spilling it to a temporary file created and deleted
/// each time (about 13 a second under load, docs/benchmarks.md). Two settings that cut the
/// writer's CPU further were measured and left out because they lengthened the tail of a
/// round trip: a larger page cache (`cache_size`) and a checkpoint every 10,000 pages instead
/// of SQLite's 1,000 (each checkpoint then held the writer, and every commit, for up to
/// seconds).
fn sqlite_options(url: &str, create: bool) -> Result<SqliteConnectOptions, StoreError> {
    Ok(SqliteConnectOptions::from_str(url)?
        .create_if_missing(create)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT)
        .pragma("temp_store", "memory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The migrations of the two databases are kept in step: PostgreSQL's first migration
    /// stands for SQLite's 0001 to 0013, and every later schema change is a pair of files of
    /// the same name, one in each directory.
    #[test]
    fn every_migration_after_the_first_postgres_schema_comes_in_pairs() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
        let names = |dir: &std::path::Path| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap())
                .filter(|e| e.file_type().unwrap().is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".sql"))
                .collect();
            names.sort();
            names
        };
        let sqlite = names(&root);
        let postgres = names(&root.join("postgres"));
        assert_eq!(
            postgres.first().map(String::as_str),
            Some("0001_schema.sql")
        );
        let covered = "0013_bot_games_by_creator.sql";
        assert!(sqlite.iter().any(|n| n == covered), "{sqlite:?}");
        let sqlite_later: Vec<&String> = sqlite.iter().filter(|n| n.as_str() > covered).collect();
        let postgres_later: Vec<&String> = postgres.iter().skip(1).collect();
        assert_eq!(
            sqlite_later, postgres_later,
            "a schema change needs a migration in migrations/ and one of the same name in \
             migrations/postgres/"
        );
    }

    async fn sqlite(url: &str) -> SqlitePool {
        match Db::open(url, true).await.unwrap() {
            Db::Sqlite(pool) => pool,
            Db::Postgres(_) => unreachable!("a SQLite URL"),
        }
    }

    async fn set_checksum(url: &str, version: i64, checksum: &[u8]) {
        let pool = sqlite(url).await;
        sqlx::query("UPDATE _sqlx_migrations SET checksum = ? WHERE version = ?")
            .bind(checksum)
            .bind(version)
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }

    /// A database that applied the first migration's earlier wording opens, and is brought up
    /// to the current checksum; one whose recorded text differs otherwise is still refused.
    #[tokio::test]
    async fn a_reworded_comment_is_accepted_and_any_other_change_refused() {
        let dir = std::env::temp_dir().join(format!("siege-store-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}", dir.join("m.db").display());
        let earlier = hex::decode(REWORDED[0].1).unwrap();
        set_checksum(&url, 1, &earlier).await;
        let pool = sqlite(&url).await;
        let now: Vec<u8> =
            sqlx::query_scalar("SELECT checksum FROM _sqlx_migrations WHERE version = 1")
                .fetch_one(&pool)
                .await
                .unwrap();
        let migrator = sqlx::migrate!("../migrations");
        assert_eq!(now, migrator.iter().next().unwrap().checksum.as_ref());
        pool.close().await;

        set_checksum(&url, 1, &[7u8; 48]).await;
        let Err(err) = Db::open(&url, true).await else {
            panic!("another text is refused");
        };
        assert!(err.to_string().contains("modified"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
