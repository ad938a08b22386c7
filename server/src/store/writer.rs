//! The one writer: a task that appends accepted actions to the log. Whatever arrives while a
//! commit is in flight — from any number of games — goes into the next transaction as ONE
//! multi-row `INSERT` (group commit), so a thousand busy games cost a handful of fsyncs, not a
//! thousand. Each game task awaits its own confirmation before it lets anyone see the action:
//! durability before acknowledgement.
//!
//! If a batch fails, its entries are retried one by one so that one bad entry cannot take the
//! others' actions down with it.

use super::{Store, StoreError};
use siege_protocol::{Phase, Side};
use sqlx::{QueryBuilder, Sqlite};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// At most this many actions in one transaction (9 parameters each, far under SQLite's limit).
const MAX_BATCH: usize = 512;
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
}

enum Msg {
    Append(Entry, oneshot::Sender<Result<(), StoreError>>),
    Close(oneshot::Sender<()>),
}

/// The cheap handle game tasks append through.
#[derive(Clone, Debug)]
pub struct Writer {
    tx: mpsc::Sender<Msg>,
}

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Msg")
    }
}

impl Writer {
    /// Start the writer task on `store`.
    pub fn start(store: Store) -> (Writer, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel(QUEUE);
        let task = tokio::spawn(run(store, rx));
        (Writer { tx }, task)
    }

    /// Append `entry` and wait until it is committed.
    pub async fn append(&self, entry: Entry) -> Result<(), StoreError> {
        let (done, wait) = oneshot::channel();
        self.tx
            .send(Msg::Append(entry, done))
            .await
            .map_err(|_| StoreError::WriterGone)?;
        wait.await.map_err(|_| StoreError::WriterGone)?
    }

    /// Finish every append queued before this call, then stop the writer.
    pub async fn close(&self) {
        let (done, wait) = oneshot::channel();
        if self.tx.send(Msg::Close(done)).await.is_ok() {
            let _ = wait.await;
        }
    }
}

async fn run(store: Store, mut rx: mpsc::Receiver<Msg>) {
    let mut batch = Vec::new();
    while let Some(first) = rx.recv().await {
        let mut closing = None;
        match first {
            Msg::Append(e, done) => batch.push((e, done)),
            Msg::Close(done) => closing = Some(done),
        }
        while closing.is_none() && batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(Msg::Append(e, done)) => batch.push((e, done)),
                Ok(Msg::Close(done)) => closing = Some(done),
                Err(_) => break,
            }
        }
        if !batch.is_empty() {
            commit(&store, std::mem::take(&mut batch)).await;
        }
        if let Some(done) = closing {
            let _ = done.send(());
            return;
        }
    }
}

/// Commit a batch, answering every waiter.
async fn commit(store: &Store, batch: Vec<(Entry, oneshot::Sender<Result<(), StoreError>>)>) {
    let entries: Vec<&Entry> = batch.iter().map(|(e, _)| e).collect();
    match write(store, &entries).await {
        Ok(()) => {
            tracing::trace!(actions = batch.len(), "group commit");
            for (_, done) in batch {
                let _ = done.send(Ok(()));
            }
        }
        Err(e) if batch.len() > 1 => {
            tracing::warn!(error = %e, actions = batch.len(), "batch failed; retrying one by one");
            for (entry, done) in batch {
                let _ = done.send(write(store, &[&entry]).await);
            }
        }
        Err(e) => {
            tracing::error!(error = %e, "appending an action failed");
            for (_, done) in batch {
                let _ = done.send(Err(StoreError::Corrupt(e.to_string())));
            }
        }
    }
}

/// One transaction: a multi-row insert, and the finished games marked as such.
async fn write(store: &Store, entries: &[&Entry]) -> Result<(), StoreError> {
    let mut tx = store.pool().begin().await?;
    let mut insert: QueryBuilder<Sqlite> = QueryBuilder::new(
        "INSERT INTO actions (game_id, seq, side, action, events, state_hash, turn, phase, at) ",
    );
    insert.push_values(entries, |mut row, e| {
        row.push_bind(e.game_id.clone())
            .push_bind(i64::try_from(e.seq).unwrap_or(i64::MAX))
            .push_bind(e.side.as_str())
            .push_bind(e.action.clone())
            .push_bind(e.events.clone())
            .push_bind(e.state_hash.clone())
            .push_bind(i64::from(e.turn))
            .push_bind(e.phase.as_str())
            .push_bind(e.at);
    });
    insert.build().execute(&mut *tx).await?;
    for e in entries {
        if let Some(result) = &e.finished {
            sqlx::query(
                "UPDATE games SET status = 'finished', result = ?, updated_at = ? WHERE id = ?",
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
