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
                let _ = done.send(Err(StoreError::Write(e.to_string())));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewGame;
    use uuid::Uuid;

    async fn store_with_games(n: usize) -> (Store, Vec<Uuid>, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("siege-writer-{}", Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(&format!("sqlite://{}", dir.join("w.db").display()))
            .await
            .unwrap();
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
        }
    }

    #[tokio::test]
    async fn appends_from_many_games_at_once_all_commit_in_order() {
        let (store, ids, dir) = store_with_games(8).await;
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
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn a_bad_entry_fails_alone_and_the_log_stays_append_only() {
        let (store, ids, dir) = store_with_games(2).await;
        let (writer, task) = Writer::start(store.clone());
        writer.append(entry(ids[0], 1)).await.unwrap();
        // A duplicate seq and a good entry in the same batch: only the duplicate fails.
        let (a, b) = tokio::join!(
            writer.append(entry(ids[0], 1)),
            writer.append(entry(ids[1], 1))
        );
        assert!(a.is_err());
        b.unwrap();
        assert_eq!(store.log_len(ids[0]).await.unwrap(), 1);
        assert_eq!(store.log_len(ids[1]).await.unwrap(), 1);
        let changed = sqlx::query("UPDATE actions SET side = 'chinese'")
            .execute(store.pool())
            .await;
        assert!(changed.is_err(), "the log refuses updates");
        let deleted = sqlx::query("DELETE FROM actions")
            .execute(store.pool())
            .await;
        assert!(deleted.is_err(), "the log refuses deletes");
        writer.close().await;
        task.await.unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn finishing_entry_marks_the_game_finished_in_the_same_commit() {
        let (store, ids, dir) = store_with_games(1).await;
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
        let _ = std::fs::remove_dir_all(dir);
    }
}
