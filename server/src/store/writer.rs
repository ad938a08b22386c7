//! The one writer: a task that appends accepted actions to the log. Whatever arrives while a
//! commit is in flight — from any number of games — goes into the next transaction (group
//! commit) as multi-row `INSERT`s of up to [`CHUNK`] rows, so a thousand busy games cost a
//! handful of fsyncs, not a thousand. Each game task awaits its own confirmation before it lets
//! anyone see the action: durability before acknowledgement.
//!
//! If a batch fails, its entries are retried one by one so that one bad entry cannot take the
//! others' actions down with it.
//!
//! Besides actions the writer takes [`Note`]s — snapshots found while replaying a game, the
//! background audit's marks — which nobody waits for: they are written after the actions, when
//! no action is waiting, so they never hold one up.
//!
//! The writer reports its own [`Health`]: whether its last commit succeeded and how many
//! actions wait for it (`/healthz`). After a failure (a full disk, say), a health check asks it
//! for a [`Writer::probe`] — a one-row write through the same connection — so that health comes
//! back as soon as writing does, not only with the next action.
//!
//! The writer keeps one connection for itself, and a batch that is one `INSERT` (one chunk, no
//! game finished) is committed by that statement alone, in SQLite's autocommit: sqlx runs every
//! statement on the connection's own thread, so `acquire` (with its ping), `BEGIN`, `INSERT`
//! and `COMMIT` were four round trips between threads where one does — and on a busy machine
//! each round trip waits for a CPU.
//!
//! On PostgreSQL the writer does the same, through the same code (defined once per driver by
//! `on_driver!`): one transaction per batch, and a one-statement batch in autocommit — a
//! single statement is its own transaction there too, flushed before it returns.

use super::{Db, Store, StoreError};
use crate::probe::Probes;
use siege_protocol::{Phase, Side};
use sqlx::pool::PoolConnection;
use sqlx::{Postgres, Sqlite};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// At most this many actions in one transaction (10 parameters each, far under SQLite's and
/// PostgreSQL's limits).
pub const MAX_BATCH: usize = 512;
/// Requests waiting for the writer; a full queue makes game tasks wait (back-pressure).
const QUEUE: usize = 4096;

/// One accepted action, serialized, ready to append.
#[derive(Clone, Debug)]
pub struct Entry {
    pub game_id: String,
    pub seq: u64,
    pub side: Side,
    /// The action's JSON.
    pub action: String,
    /// The events' JSON array.
    pub events: String,
    /// Hex SHA-256 of the state after the action.
    pub state_hash: String,
    /// Turn and phase after the action, for listings.
    pub turn: u8,
    pub phase: Phase,
    pub at: i64,
    /// The result's JSON when this action ended the game: the game row is marked finished in
    /// the same transaction.
    pub finished: Option<String>,
    /// The rules state's JSON after this action, when a snapshot is due: written in the same
    /// transaction.
    pub snapshot: Option<String>,
    /// A timed game's clock when this action moved it: written in the same transaction.
    pub clock: Option<crate::games::clock::Clock>,
    /// The side to act after the action (`None` once the game is over): a column of the
    /// action's own row, so the listing's "your move" costs no extra write.
    pub to_act: Option<Side>,
    /// The fencing number of the game's lease this node holds (several nodes on one
    /// database): the append commits only if the lease still has it ([`super::leases`]).
    /// `None` for a single server, which takes no leases.
    pub fence: Option<i64>,
}

/// A write nobody waits for.
#[derive(Clone, Debug)]
pub enum Note {
    /// Snapshots of a game's state, `(seq, state JSON)`, found while replaying its log.
    Snapshots {
        game_id: String,
        snapshots: Vec<(u64, String)>,
    },
    /// The background audit replayed entries `1..=seq` from the seed: sound, with a checkpoint
    /// (a state it reached, after the entry numbered with it), or not, and why.
    Audited {
        game_id: String,
        seq: u64,
        checkpoint: Option<(u64, String)>,
        error: Option<String>,
    },
}

enum Msg {
    Append(Entry, oneshot::Sender<Result<(), StoreError>>),
    Note(Note),
    /// Write the health row, to learn whether writing works again.
    Probe(oneshot::Sender<Result<(), StoreError>>),
    Close(oneshot::Sender<()>),
}

/// Notes held while actions keep coming, before they are written anyway.
const MAX_NOTES: usize = 256;

/// The cheap handle game tasks append through.
#[derive(Clone, Debug)]
pub struct Writer {
    tx: mpsc::Sender<Msg>,
    health: Arc<Health>,
}

/// Whether the writer can store actions, as its last write found.
#[derive(Debug)]
pub struct Health {
    /// The last transaction (an append or a probe) committed.
    last_ok: AtomicBool,
    /// When the last transaction ended, in Unix milliseconds (0: none yet).
    last_at: AtomicI64,
}

impl Health {
    fn record(&self, ok: bool) {
        self.last_ok.store(ok, Ordering::Relaxed);
        self.last_at.store(super::now_ms(), Ordering::Relaxed);
    }

    /// Whether the last write succeeded (true before any write).
    pub fn last_ok(&self) -> bool {
        self.last_ok.load(Ordering::Relaxed)
    }

    /// When the last write ended, in Unix milliseconds, if there was one.
    pub fn last_at(&self) -> Option<i64> {
        Some(self.last_at.load(Ordering::Relaxed)).filter(|t| *t > 0)
    }
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Msg")
    }
}

impl Writer {
    /// Start the writer task on `store`, committing up to [`MAX_BATCH`] actions at once.
    pub fn start(store: Store) -> (Writer, JoinHandle<()>) {
        Writer::start_with(store, MAX_BATCH, Probes::off())
    }

    /// Start the writer task committing at most `max_batch` actions per transaction. A batch of
    /// 1 turns group commit off (one transaction, one fsync per action): kept so that the
    /// gain of group commit can be measured (`SIEGE_COMMIT_BATCH=1`, docs/benchmarks.md).
    /// Each transaction's time and size is reported to `probe`.
    pub fn start_with(store: Store, max_batch: usize, probe: Probes) -> (Writer, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel(QUEUE);
        let health = Arc::new(Health {
            last_ok: AtomicBool::new(true),
            last_at: AtomicI64::new(0),
        });
        let task = tokio::spawn(run(
            store,
            rx,
            max_batch.clamp(1, MAX_BATCH),
            probe,
            health.clone(),
        ));
        (Writer { tx, health }, task)
    }

    /// The writer's health.
    pub fn health(&self) -> &Health {
        &self.health
    }

    /// Actions waiting for the writer.
    pub fn queue_depth(&self) -> usize {
        self.tx.max_capacity() - self.tx.capacity()
    }

    /// Write the health row through the writer's own connection: whether writing works now.
    pub async fn probe(&self) -> Result<(), StoreError> {
        let (done, wait) = oneshot::channel();
        self.tx
            .send(Msg::Probe(done))
            .await
            .map_err(|_| StoreError::WriterGone)?;
        wait.await.map_err(|_| StoreError::WriterGone)?
    }

    /// Append `entry` and wait until it is committed.
    pub async fn append(&self, entry: Entry) -> Result<(), StoreError> {
        self.submit(entry).await?.committed().await
    }

    /// Hand `entry` to the writer without waiting for its commit: the caller may do other
    /// work while the disk syncs (a game task builds the action's frames then), and must
    /// still [`Pending::committed`] before it lets anyone see the action.
    pub async fn submit(&self, entry: Entry) -> Result<Pending, StoreError> {
        let (done, wait) = oneshot::channel();
        self.tx
            .send(Msg::Append(entry, done))
            .await
            .map_err(|_| StoreError::WriterGone)?;
        Ok(Pending(wait))
    }

    /// Queue `note` to be written when no action waits. Never waits itself: with the queue
    /// full, the note is dropped (snapshots are a cache, and the audit comes back).
    pub fn note(&self, note: Note) {
        if self.tx.try_send(Msg::Note(note)).is_err() {
            tracing::debug!("writer queue full: a note was dropped");
        }
    }

    /// Finish every append queued before this call, then stop the writer.
    pub async fn close(&self) {
        let (done, wait) = oneshot::channel();
        if self.tx.send(Msg::Close(done)).await.is_ok() {
            let _ = wait.await;
        }
    }
}

/// An entry handed to the writer whose commit is not yet confirmed.
#[must_use = "an action is durable only once its commit is confirmed"]
#[derive(Debug)]
pub struct Pending(oneshot::Receiver<Result<(), StoreError>>);

impl Pending {
    /// Wait until the entry is committed (or its commit failed).
    pub async fn committed(self) -> Result<(), StoreError> {
        self.0.await.map_err(|_| StoreError::WriterGone)?
    }
}

/// The writer's own connection, taken from the pool when first needed and after a failure.
struct Link {
    store: Store,
    conn: Option<Conn>,
}

/// A connection of one of the two drivers.
enum Conn {
    Sqlite(PoolConnection<Sqlite>),
    Postgres(PoolConnection<Postgres>),
}

impl Link {
    async fn conn(&mut self) -> Result<&mut Conn, StoreError> {
        let conn = match self.conn.take() {
            Some(c) => c,
            None => match self.store.pool() {
                Db::Sqlite(pool) => Conn::Sqlite(pool.acquire().await?),
                Db::Postgres(pool) => Conn::Postgres(pool.acquire().await?),
            },
        };
        Ok(self.conn.insert(conn))
    }

    /// The health probe: one row rewritten in autocommit (a write that needs the disk as an
    /// action does).
    async fn probe(&mut self) -> Result<(), StoreError> {
        let result = match self.conn().await? {
            Conn::Sqlite(c) => sqlite::probe(c).await,
            Conn::Postgres(c) => pg::probe(c).await,
        };
        if result.is_err() {
            self.conn = None;
        }
        result
    }

    /// One transaction of `entries`; a failure gives the connection back to the pool (which
    /// checks it before lending it again).
    async fn write(&mut self, entries: &[&Entry]) -> Result<(), StoreError> {
        let result = match self.conn().await? {
            Conn::Sqlite(c) => sqlite::write(c, entries).await,
            Conn::Postgres(c) => pg::write(c, entries).await,
        };
        if result.is_err() {
            self.conn = None;
        }
        result
    }

    /// One transaction of notes.
    async fn write_notes(&mut self, notes: &[Note]) -> Result<(), StoreError> {
        let result = match self.conn().await? {
            Conn::Sqlite(c) => sqlite::write_notes(c, notes).await,
            Conn::Postgres(c) => pg::write_notes(c, notes).await,
        };
        if result.is_err() {
            self.conn = None;
        }
        result
    }
}

async fn run(
    store: Store,
    mut rx: mpsc::Receiver<Msg>,
    max_batch: usize,
    probe: Probes,
    health: Arc<Health>,
) {
    let mut link = Link { store, conn: None };
    let mut batch = Vec::new();
    let mut notes = Vec::new();
    while let Some(first) = rx.recv().await {
        let mut closing = None;
        let mut probes = Vec::new();
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Msg::Append(e, done) => batch.push((e, done)),
                Msg::Note(n) => notes.push(n),
                Msg::Probe(done) => probes.push(done),
                Msg::Close(done) => closing = Some(done),
            }
            if closing.is_none() && batch.len() < max_batch {
                next = rx.try_recv().ok();
            }
        }
        if !batch.is_empty() {
            let (n, started) = (batch.len(), Instant::now());
            let ok = commit(&mut link, std::mem::take(&mut batch)).await;
            let took = started.elapsed();
            health.record(ok);
            metrics::histogram!(crate::observe::COMMIT_SECONDS).record(took.as_secs_f64());
            probe.commit(n, took);
        }
        if !probes.is_empty() {
            let probed = link.probe().await;
            health.record(probed.is_ok());
            for done in probes {
                let _ = done.send(match &probed {
                    Ok(()) => Ok(()),
                    Err(e) => Err(StoreError::Write(e.to_string())),
                });
            }
        }
        if !notes.is_empty() && (rx.is_empty() || closing.is_some() || notes.len() >= MAX_NOTES) {
            let written = std::mem::take(&mut notes);
            if let Err(e) = link.write_notes(&written).await {
                tracing::warn!(error = %e, notes = written.len(), "writing notes failed");
            }
        }
        if let Some(done) = closing {
            let _ = done.send(());
            return;
        }
    }
}

/// Commit a batch, answering every waiter; whether the last write succeeded.
async fn commit(
    link: &mut Link,
    batch: Vec<(Entry, oneshot::Sender<Result<(), StoreError>>)>,
) -> bool {
    use crate::observe::{ACTIONS, COMMIT_FAILURES};
    let entries: Vec<&Entry> = batch.iter().map(|(e, _)| e).collect();
    match link.write(&entries).await {
        Ok(()) => {
            tracing::trace!(actions = batch.len(), "group commit");
            metrics::counter!(ACTIONS).increment(batch.len() as u64);
            for (_, done) in batch {
                let _ = done.send(Ok(()));
            }
            true
        }
        Err(e) if batch.len() > 1 => {
            tracing::warn!(error = %e, actions = batch.len(), "batch failed; retrying one by one");
            metrics::counter!(COMMIT_FAILURES).increment(1);
            let mut last_ok = false;
            for (entry, done) in batch {
                let written = link.write(&[&entry]).await;
                last_ok = written.is_ok();
                if last_ok {
                    metrics::counter!(ACTIONS).increment(1);
                } else {
                    metrics::counter!(COMMIT_FAILURES).increment(1);
                }
                let _ = done.send(written);
            }
            last_ok
        }
        Err(e) => {
            tracing::error!(error = %e, "appending an action failed");
            metrics::counter!(COMMIT_FAILURES).increment(1);
            // One waiter at most (a larger batch is retried above): it learns the error
            // itself, so that a fenced-off game can tell that it must stop.
            if let Some((_, done)) = batch.into_iter().next() {
                let _ = done.send(Err(match e {
                    StoreError::Fenced(game) => StoreError::Fenced(game),
                    other => StoreError::Write(other.to_string()),
                }));
            }
            false
        }
    }
}

/// The most rows one `INSERT` of the log carries.
///
/// A batch goes in as chunks of this many rows and one of the rest, so the writer's connection
/// prepares at most this many distinct inserts, which its statement cache (100 statements)
/// keeps beside the writer's few other statements; and a batch of up to this many rows that
/// carries nothing else (no snapshot, result, clock or fence) — under load at think 0 a batch
/// is 15–25 — is one statement, which in autocommit is one round trip to SQLite's thread.
/// Power-of-two chunks (ten statements) took up to five inserts and a `BEGIN` and `COMMIT`
/// around them: five round trips for a batch of 21.
const CHUNK: usize = 32;

/// The rows of the next chunk of a batch of which `n` are left: all of them up to [`CHUNK`];
/// 1 for 0.
fn chunk_len(n: usize) -> usize {
    n.clamp(1, CHUNK)
}

/// Snapshots already written are left as they are: the same seq always has the same state.
const INSERT_SNAPSHOT: &str =
    "INSERT INTO snapshots (game_id, seq, state) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";

/// The writer's statements on one driver's connection, defined once per driver
/// (`writer::sqlite`, `writer::pg`): the same SQL, the same number of statements per batch.
/// `$pg` picks the spelling where the dialects differ.
macro_rules! on_driver {
    ($module:ident, $db:ty, $conn:ty, $pg:literal) => {
        mod $module {
            use super::*;
            use sqlx::{Connection, QueryBuilder};

            /// The health row, rewritten in autocommit.
            pub(super) async fn probe(conn: &mut $conn) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO health (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = excluded.at",
                )
                .bind(super::super::now_ms())
                .execute(&mut *conn)
                .await?;
                Ok(())
            }

            async fn insert_snapshot(
                conn: &mut $conn,
                game_id: &str,
                seq: u64,
                state: &str,
            ) -> Result<(), StoreError> {
                sqlx::query(INSERT_SNAPSHOT)
                    .bind(game_id)
                    .bind(i64::try_from(seq).unwrap_or(i64::MAX))
                    .bind(state)
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            }

            pub(super) async fn write_notes(
                conn: &mut $conn,
                notes: &[Note],
            ) -> Result<(), StoreError> {
                let mut tx = conn.begin().await?;
                for note in notes {
                    match note {
                        Note::Snapshots { game_id, snapshots } => {
                            for (seq, state) in snapshots {
                                insert_snapshot(&mut tx, game_id, *seq, state).await?;
                            }
                        }
                        Note::Audited {
                            game_id,
                            seq,
                            checkpoint,
                            error,
                        } => {
                            if let Some((at, state)) = checkpoint {
                                insert_snapshot(&mut tx, game_id, *at, state).await?;
                            }
                            let seq = i64::try_from(*seq).unwrap_or(i64::MAX);
                            sqlx::query(if $pg {
                                "UPDATE games SET audited_seq = greatest(audited_seq, $1), \
                                   audit_error = coalesce(audit_error, $2) WHERE id = $3"
                            } else {
                                "UPDATE games SET audited_seq = max(audited_seq, $1), \
                                   audit_error = coalesce(audit_error, $2) WHERE id = $3"
                            })
                            .bind(seq)
                            .bind(error)
                            .bind(game_id)
                            .execute(&mut *tx)
                            .await?;
                        }
                    }
                }
                tx.commit().await?;
                Ok(())
            }

            /// One transaction: multi-row inserts, and the finished games marked as such.
            ///
            /// A batch of `n` rows goes in as chunks of [`CHUNK`] rows and one of the rest
            /// (n = 50: 32 + 18), so the writer only ever runs [`CHUNK`] distinct inserts and
            /// each is prepared once and taken from the connection's statement cache. One
            /// statement per batch size up to [`MAX_BATCH`] would ask the database to compile a
            /// new statement of up to 5,120 parameters for most large batches, which the cache
            /// (100 statements) keeps losing.
            pub(super) async fn write(
                conn: &mut $conn,
                entries: &[&Entry],
            ) -> Result<(), StoreError> {
                let plain = entries.iter().all(|e| {
                    e.finished.is_none()
                        && e.snapshot.is_none()
                        && e.clock.is_none()
                        && e.fence.is_none()
                });
                if entries.len() == chunk_len(entries.len()) && plain {
                    // One statement is one transaction: committed (and synced) when it returns.
                    return insert(conn, entries).await;
                }
                let mut tx = conn.begin_with(crate::store::db::begin_write($pg)).await?;
                check_fences(&mut tx, entries).await?;
                let mut rest = entries;
                while !rest.is_empty() {
                    let (chunk, tail) = rest.split_at(chunk_len(rest.len()));
                    insert(&mut tx, chunk).await?;
                    rest = tail;
                }
                for e in entries {
                    if let Some(state) = &e.snapshot {
                        insert_snapshot(&mut tx, &e.game_id, e.seq, state).await?;
                    }
                    if let Some(clock) = &e.clock {
                        crate::store::clocks::$module::save(&mut tx, &e.game_id, clock).await?;
                    }
                    if let Some(result) = &e.finished {
                        sqlx::query(
                            // The creator's address was kept only to cap games under way (a
                            // game with a computer seated keeps it until now): it goes with the
                            // game's end.
                            "UPDATE games SET status = 'finished', result = $1, updated_at = $2, creator = NULL WHERE id = $3",
                        )
                        .bind(result)
                        .bind(e.at)
                        .bind(&e.game_id)
                        .execute(&mut *tx)
                        .await?;
                    }
                }
                tx.commit().await?;
                Ok(())
            }

            /// Refuse the batch unless every fenced entry's game still has its fencing number
            /// in `leases`. On PostgreSQL the rows read are locked until the commit, so a
            /// node taking a lease waits for this batch and then reads the log with it in;
            /// on SQLite the transaction's upgrade to a write fails if another connection
            /// wrote in between.
            async fn check_fences(tx: &mut $conn, entries: &[&Entry]) -> Result<(), StoreError> {
                let mut wanted: Vec<(&str, i64)> = entries
                    .iter()
                    .filter_map(|e| e.fence.map(|f| (e.game_id.as_str(), f)))
                    .collect();
                if wanted.is_empty() {
                    return Ok(());
                }
                wanted.sort_unstable();
                wanted.dedup();
                let mut query: QueryBuilder<$db> =
                    QueryBuilder::new("SELECT game_id, fence FROM leases WHERE game_id IN (");
                let mut ids = query.separated(", ");
                for (game, _) in &wanted {
                    ids.push_bind(*game);
                }
                // In the games' order, as the renewal locks them: two transactions that lock
                // the same rows in one order cannot deadlock.
                query.push(if $pg {
                    ") ORDER BY game_id FOR SHARE"
                } else {
                    ")"
                });
                let held: Vec<(String, i64)> = query.build_query_as().fetch_all(&mut *tx).await?;
                for (game, fence) in wanted {
                    if !held.iter().any(|(g, f)| g == game && *f == fence) {
                        return Err(StoreError::Fenced(game.to_string()));
                    }
                }
                Ok(())
            }

            /// One multi-row `INSERT` of `chunk`.
            async fn insert(tx: &mut $conn, chunk: &[&Entry]) -> Result<(), StoreError> {
                let mut insert: QueryBuilder<$db> = QueryBuilder::new(
                    "INSERT INTO actions (game_id, seq, side, action, events, state_hash, turn, phase, at, to_act) ",
                );
                insert.push_values(chunk, |mut row, e| {
                    row.push_bind(e.game_id.as_str())
                        .push_bind(i64::try_from(e.seq).unwrap_or(i64::MAX))
                        .push_bind(e.side.as_str())
                        .push_bind(e.action.as_str())
                        .push_bind(e.events.as_str())
                        .push_bind(e.state_hash.as_str())
                        .push_bind(i64::from(e.turn))
                        .push_bind(e.phase.as_str())
                        .push_bind(e.at)
                        .push_bind(e.to_act.map(Side::as_str));
                });
                insert.build().execute(&mut *tx).await?;
                Ok(())
            }
        }
    };
}
on_driver!(sqlite, Sqlite, sqlx::SqliteConnection, false);
on_driver!(pg, Postgres, sqlx::PgConnection, true);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::HashVersion;
    use crate::store::scratch::{Kind, Scratch, on_both};
    use crate::store::{NewGame, on_db};
    use std::sync::Arc;
    use uuid::Uuid;

    on_both!(
        appends_from_many_games_at_once_all_commit,
        without_group_commit_every_append_still_commits,
        a_batch_of_several_chunks_is_one_transaction_all_or_nothing,
        a_bad_entry_fails_alone_and_the_log_stays_append_only,
        a_fenced_entry_fails_alone_in_its_batch,
        a_lease_taken_while_a_fenced_write_waits_refuses_it_as_fenced,
        finishing_entry_marks_the_game_finished_in_the_same_commit,
        the_health_probe_writes,
    );

    async fn store_with_games(kind: Kind, n: usize) -> (Store, Vec<Uuid>, Scratch) {
        let dir = Scratch::new(kind, "writer").await;
        let store = Store::open(&dir.url).await.unwrap();
        let mut ids = Vec::new();
        for _ in 0..n {
            let id = Uuid::new_v4();
            store
                .create_game(&NewGame {
                    id,
                    name: "g".into(),
                    seed: [1; 32],
                    seed_commitment: "c".into(),
                    side: Side::Allied,
                    token_hash: "h".into(),
                    position: None,
                    hash_version: HashVersion::LATEST,
                    bot: None,
                    own_bot: None,
                    creator: None,
                    max_open: None,
                    access: crate::store::Access {
                        invite_hash: None,
                        guests: true,
                    },
                    account: None,
                    first_to_act: None,
                })
                .await
                .unwrap();
            ids.push(id);
        }
        (store, ids, dir)
    }

    fn entry(game: Uuid, seq: u64) -> Entry {
        Entry {
            game_id: game.to_string(),
            seq,
            side: Side::Allied,
            action: r#"{"type":"end_phase"}"#.into(),
            events: "[]".into(),
            state_hash: format!("{seq:064}"),
            turn: 1,
            phase: Phase::BigGun,
            at: 0,
            finished: None,
            clock: None,
            snapshot: None,
            to_act: Some(Side::Chinese),
            fence: None,
        }
    }

    async fn appends_from_many_games_at_once_all_commit(kind: Kind) {
        let (store, ids, dir) = store_with_games(kind, 8).await;
        let (writer, task) = Writer::start(store.clone());
        let mut waits = Vec::new();
        for seq in 1..=5 {
            for id in &ids {
                let w = writer.clone();
                let e = entry(*id, seq);
                waits.push(tokio::spawn(async move { w.append(e).await }));
            }
            for w in waits.drain(..) {
                w.await.unwrap().unwrap();
            }
        }
        for id in &ids {
            assert_eq!(store.log_len(*id).await.unwrap(), 5);
        }
        writer.close().await;
        task.await.unwrap();
        dir.remove();
    }

    #[test]
    fn a_batch_is_one_chunk_up_to_its_limit_and_chunks_add_up() {
        assert_eq!(chunk_len(0), 1);
        assert_eq!(chunk_len(1), 1);
        assert_eq!(chunk_len(21), 21);
        assert_eq!(chunk_len(CHUNK), CHUNK);
        assert_eq!(chunk_len(50), 32);
        assert_eq!(chunk_len(5000), 32);
        let sizes = |mut n: usize| {
            let mut sizes = Vec::new();
            while n > 0 {
                let c = chunk_len(n);
                sizes.push(c);
                n -= c;
            }
            sizes
        };
        assert_eq!(sizes(50), [32, 18]);
        assert_eq!(sizes(MAX_BATCH), [32; 16]);
        // All the batches together use inserts of CHUNK distinct sizes.
        let distinct: std::collections::BTreeSet<usize> = (1..=MAX_BATCH).flat_map(sizes).collect();
        assert_eq!(distinct.len(), CHUNK);
    }

    async fn without_group_commit_every_append_still_commits(kind: Kind) {
        let (store, ids, dir) = store_with_games(kind, 4).await;
        let (writer, task) = Writer::start_with(store.clone(), 1, Probes::off());
        let mut waits = Vec::new();
        for id in &ids {
            for seq in 1..=3 {
                let w = writer.clone();
                let e = entry(*id, seq);
                // Appends of one game are awaited in order; the games run at once.
                waits.push((*id, seq, w, e));
            }
        }
        let mut games = Vec::new();
        for id in &ids {
            let mine: Vec<_> = waits.iter().filter(|(g, ..)| g == id).cloned().collect();
            games.push(tokio::spawn(async move {
                for (_, _, w, e) in mine {
                    w.append(e).await.unwrap();
                }
            }));
        }
        for g in games {
            g.await.unwrap();
        }
        for id in &ids {
            assert_eq!(store.log_len(*id).await.unwrap(), 3);
        }
        writer.close().await;
        task.await.unwrap();
        dir.remove();
    }

    async fn a_batch_of_several_chunks_is_one_transaction_all_or_nothing(kind: Kind) {
        let (store, ids, dir) = store_with_games(kind, 2).await;
        let mut conn = Link {
            store: store.clone(),
            conn: None,
        };
        // 50 entries: INSERTs of 32 and 18 rows in one transaction; the last one ends game 1.
        let mut entries: Vec<Entry> = (1..=49).map(|seq| entry(ids[0], seq)).collect();
        let mut last = entry(ids[1], 1);
        last.finished = Some(r#"{"winner":"allied","reason":"held_out","text":"t"}"#.into());
        entries.push(last);
        let refs: Vec<&Entry> = entries.iter().collect();
        conn.write(&refs).await.unwrap();
        assert_eq!(store.log_len(ids[0]).await.unwrap(), 49);
        assert_eq!(store.log_len(ids[1]).await.unwrap(), 1);
        assert_eq!(
            store.game(ids[1]).await.unwrap().unwrap().status,
            "finished"
        );
        // One duplicate among 50 (in the last chunk): none of the 50 is written.
        let mut bad: Vec<Entry> = (50..=98).map(|seq| entry(ids[0], seq)).collect();
        bad.push(entry(ids[0], 1));
        let refs: Vec<&Entry> = bad.iter().collect();
        assert!(conn.write(&refs).await.is_err());
        assert_eq!(store.log_len(ids[0]).await.unwrap(), 49);
        drop(conn);
        dir.remove();
    }

    /// The size of every transaction, as the writer reports it.
    #[derive(Default)]
    struct Batches(std::sync::Mutex<Vec<usize>>);

    impl crate::probe::Probe for Batches {
        fn action(&self, _: crate::probe::ActionTiming) {}
        fn commit(&self, actions: usize, _: std::time::Duration) {
            self.0.lock().unwrap().push(actions);
        }
    }

    /// Several nodes: an entry whose game's lease has passed to a higher fencing number fails
    /// its whole batch's transaction, and in the one-by-one retry it alone is refused as
    /// fenced while the other game's entry commits.
    async fn a_fenced_entry_fails_alone_in_its_batch(kind: Kind) {
        use crate::store::Lease;
        let (store, ids, dir) = store_with_games(kind, 2).await;
        let mut fences = Vec::new();
        for id in &ids {
            let Lease::Held(fence) = store.take_lease(*id, "n1", "a", 0, i64::MAX).await.unwrap()
            else {
                panic!("a free lease is taken")
            };
            fences.push(fence);
        }
        // Taken again: the first game's fence moves on, and its old one is stale.
        let Lease::Held(now) = store
            .take_lease(ids[0], "n1", "a", 0, i64::MAX)
            .await
            .unwrap()
        else {
            panic!("the holder takes its lease again")
        };
        assert!(now > fences[0]);
        let stale = Entry {
            fence: Some(fences[0]),
            ..entry(ids[0], 1)
        };
        let good = Entry {
            fence: Some(fences[1]),
            ..entry(ids[1], 1)
        };
        let mut link = Link {
            store: store.clone(),
            conn: None,
        };
        let refused = link.write(&[&stale, &good]).await.unwrap_err();
        assert!(matches!(refused, StoreError::Fenced(_)), "{refused}");
        assert_eq!(store.log_len(ids[1]).await.unwrap(), 0, "all or nothing");
        let batches = Arc::new(Batches::default());
        let (writer, task) =
            Writer::start_with(store.clone(), MAX_BATCH, Probes::new(batches.clone()));
        let (a, b) = tokio::join!(writer.append(stale), writer.append(good));
        assert!(matches!(a, Err(StoreError::Fenced(_))), "{a:?}");
        b.unwrap();
        assert_eq!(*batches.0.lock().unwrap(), [2], "the two were one batch");
        assert_eq!(store.log_len(ids[0]).await.unwrap(), 0);
        assert_eq!(store.log_len(ids[1]).await.unwrap(), 1);
        writer.close().await;
        task.await.unwrap();
        store.close().await;
        drop(dir);
    }

    /// Several nodes: another node takes the lease while this node's fenced write is on its
    /// way. The write either goes in before the lease changes hands or is refused as fenced —
    /// never a storage error, after which the node would keep a task it no longer owns (on
    /// SQLite a deferred transaction that read the old lease could not upgrade to a write once
    /// the other node had committed: "database is locked").
    async fn a_lease_taken_while_a_fenced_write_waits_refuses_it_as_fenced(kind: Kind) {
        use crate::store::Lease;
        let (store, ids, dir) = store_with_games(kind, 1).await;
        let id = ids[0];
        let Lease::Held(fence) = store.take_lease(id, "a", "a", 0, i64::MAX).await.unwrap() else {
            panic!("a free lease is taken")
        };
        let stale = Entry {
            fence: Some(fence),
            ..entry(id, 1)
        };
        let written = crate::store::tests::while_the_lease_moves(&store, id, {
            let store = store.clone();
            async move {
                let mut link = Link { store, conn: None };
                link.write(&[&stale]).await
            }
        })
        .await;
        assert!(
            matches!(written, Err(StoreError::Fenced(ref g)) if *g == id.to_string()),
            "{written:?}"
        );
        assert_eq!(store.log_len(id).await.unwrap(), 0);
        store.close().await;
        drop(dir);
    }

    async fn a_bad_entry_fails_alone_and_the_log_stays_append_only(kind: Kind) {
        let (store, ids, dir) = store_with_games(kind, 2).await;
        let batches = Arc::new(Batches::default());
        let (writer, task) =
            Writer::start_with(store.clone(), MAX_BATCH, Probes::new(batches.clone()));
        writer.append(entry(ids[0], 1)).await.unwrap();
        // A duplicate seq and a good entry in the same batch (both are queued before the
        // writer task runs on this single-threaded runtime): only the duplicate fails.
        let (a, b) = tokio::join!(
            writer.append(entry(ids[0], 1)),
            writer.append(entry(ids[1], 1))
        );
        assert!(a.is_err());
        b.unwrap();
        assert_eq!(*batches.0.lock().unwrap(), [1, 2], "the two were one batch");
        assert_eq!(store.log_len(ids[0]).await.unwrap(), 1);
        assert_eq!(store.log_len(ids[1]).await.unwrap(), 1);
        let changed = on_db!(store.pool(), |pool, pg| {
            sqlx::query("UPDATE actions SET side = 'chinese'")
                .execute(pool)
                .await
                .map(|_| ())
        });
        assert!(changed.is_err(), "the log refuses updates");
        let deleted = on_db!(store.pool(), |pool, pg| {
            sqlx::query("DELETE FROM actions")
                .execute(pool)
                .await
                .map(|_| ())
        });
        assert!(deleted.is_err(), "the log refuses deletes");
        writer.close().await;
        task.await.unwrap();
        dir.remove();
    }

    /// SQLite keeps the log in the order it is written (migration 0015): the entries of one
    /// commit, from several games, lie side by side in the table (consecutive rowids), where a
    /// table clustered by game put each on its game's own page — a page written to the WAL and
    /// checkpointed for every game in the commit (docs/benchmarks.md).
    #[tokio::test]
    async fn sqlite_keeps_the_log_in_the_order_it_is_written() {
        let (store, ids, dir) = store_with_games(Kind::Sqlite, 3).await;
        let mut conn = Link {
            store: store.clone(),
            conn: None,
        };
        // Games in the order 2, 0, 1, then 1, 2, 0: not their keys' order.
        let order: [(usize, u64); 6] = [(2, 1), (0, 1), (1, 1), (1, 2), (2, 2), (0, 2)];
        for pair in order.chunks(3) {
            let entries: Vec<Entry> = pair.iter().map(|&(g, seq)| entry(ids[g], seq)).collect();
            let refs: Vec<&Entry> = entries.iter().collect();
            conn.write(&refs).await.unwrap();
        }
        drop(conn);
        let crate::store::Db::Sqlite(pool) = store.pool() else {
            unreachable!("a SQLite store")
        };
        let rows: Vec<(i64, String, i64)> =
            sqlx::query_as("SELECT rowid, game_id, seq FROM actions ORDER BY rowid")
                .fetch_all(pool)
                .await
                .unwrap();
        let written: Vec<(String, i64)> = order
            .iter()
            .map(|&(g, seq)| (ids[g].to_string(), seq as i64))
            .collect();
        let stored: Vec<(String, i64)> = rows.iter().map(|(_, g, s)| (g.clone(), *s)).collect();
        assert_eq!(
            stored, written,
            "the table holds the entries as they were written"
        );
        assert!(
            rows.windows(2).all(|w| w[1].0 == w[0].0 + 1),
            "side by side: {rows:?}"
        );
        // The index finds a game's entries.
        assert_eq!(store.log_len(ids[1]).await.unwrap(), 2);
        dir.remove();
    }

    async fn finishing_entry_marks_the_game_finished_in_the_same_commit(kind: Kind) {
        let (store, ids, dir) = store_with_games(kind, 1).await;
        let (writer, task) = Writer::start(store.clone());
        let mut last = entry(ids[0], 1);
        last.finished = Some(r#"{"winner":"allied","reason":"held_out","text":"t"}"#.into());
        writer.append(last).await.unwrap();
        let row = store.game(ids[0]).await.unwrap().unwrap();
        assert_eq!(row.status, "finished");
        assert!(row.result.unwrap().contains("held_out"));
        assert!(store.unfinished().await.unwrap().is_empty());
        writer.close().await;
        task.await.unwrap();
        dir.remove();
    }

    async fn the_health_probe_writes(kind: Kind) {
        let (store, _, dir) = store_with_games(kind, 0).await;
        let (writer, task) = Writer::start(store.clone());
        writer.probe().await.unwrap();
        writer.probe().await.unwrap();
        let (n,): (i64,) = on_db!(store.pool(), |pool, pg| {
            sqlx::query_as("SELECT count(*) FROM health")
                .fetch_one(pool)
                .await
                .unwrap()
        });
        assert_eq!(n, 1, "one health row, rewritten");
        writer.close().await;
        task.await.unwrap();
        dir.remove();
    }
}
