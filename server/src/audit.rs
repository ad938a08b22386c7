//! The background audit: every stored game's log replayed from its seed — every action checked
//! against the legal list, every logged event and every state hash compared, and every stored
//! snapshot compared with the state the replay reached — so that a game loaded from a snapshot
//! (which checks only the entries after it) is still verified from its first roll, without
//! any player waiting for it.
//!
//! It never delays play: it runs on its own thread and reads through its own SQLite
//! connection, works at most a fifth of the time (after a game that took `t` to check it rests
//! at least `4t`, and never less than `--audit-pause-ms`), and writes its marks as [`Note`]s
//! that the store's writer takes only when no action is waiting.
//!
//! It runs at the normal priority, on purpose. It once ran at the operating system's idle
//! priority (Linux `SCHED_IDLE`); on a machine whose cores were all busy its threads went
//! unscheduled for over a minute (a test process could not even exit, waiting on the audit's
//! SQLite thread). A thread that may hold a lock the whole process shares (the allocator's,
//! SQLite's, the standard output's) and then gets no core makes everyone needing that lock
//! wait — a priority inversion. Pacing by the clock bounds what the audit takes without ever
//! making the server wait for it.
//!
//! Progress is kept per game (`games.audited_seq`), with a state reached stored as a snapshot:
//! the next pass over a game that has grown replays only from there. That checkpoint is the
//! last state on the way where nothing could be taken back (the undo history empty), like
//! every snapshot: a game loaded from a snapshot starts with no history, so a snapshot taken
//! while a decision could still be taken back would lose that offer on the next load (it did:
//! an undo offer was sometimes gone after a restart). A log that does not replay is logged as an
//! error, marked (`games.audit_error`) and its game held: it answers `corrupt_log`.

use crate::games::Games;
use crate::replay::Replayer;
use crate::rules::{Game, Scenario, State};
use crate::store::writer::{Note, Writer};
use crate::store::{Store, StoreError};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// The default of `--audit-pause-ms`.
pub const PAUSE_MS: u64 = 20;
/// Games fetched per query while scanning.
const PAGE: u32 = 64;
/// How long the audit rests, by default, after going through every game.
pub const REST: Duration = Duration::from_secs(30);

/// How the audit paces itself.
#[derive(Clone, Debug)]
pub struct AuditConfig {
    /// The pause after each game audited.
    pub pause: Duration,
    /// The rest after a pass through every game, before looking for new entries again.
    pub rest: Duration,
}

impl Default for AuditConfig {
    fn default() -> AuditConfig {
        AuditConfig {
            pause: Duration::from_millis(PAUSE_MS),
            rest: REST,
        }
    }
}

/// What the audit needs from the server.
pub struct Links {
    pub database: String,
    pub scenario: Arc<Scenario>,
    pub writer: Writer,
    pub games: Games,
    /// The server's runtime, where broken games are held.
    pub runtime: tokio::runtime::Handle,
    pub shutdown: CancellationToken,
}

/// Start the audit on its own thread; it stops soon after `links.shutdown` is cancelled.
pub fn start(config: AuditConfig, links: Links) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("siege-audit".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    tracing::error!(error = %e, "the audit could not start its runtime");
                    return;
                }
            };
            runtime.block_on(run(config, links));
        })
}

async fn run(config: AuditConfig, links: Links) {
    // A connection of its own: the audit's reads never wait for the server's pool.
    let store = match Store::open_reader(&links.database).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "the audit could not open the database");
            return;
        }
    };
    let mut after = 0i64;
    let mut checked_this_pass = 0u64;
    while !links.shutdown.is_cancelled() {
        let page = match store.to_audit(after, PAGE).await {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(error = %e, "the audit could not list games");
                rest(&links.shutdown, config.rest).await;
                continue;
            }
        };
        if page.is_empty() {
            if checked_this_pass > 0 {
                tracing::info!(games = checked_this_pass, "audit pass done");
            }
            after = 0;
            checked_this_pass = 0;
            rest(&links.shutdown, config.rest).await;
            continue;
        }
        for (rowid, id) in page {
            after = rowid;
            if links.shutdown.is_cancelled() {
                break;
            }
            let started = std::time::Instant::now();
            match audit_game(&store, &links, id).await {
                Ok(true) => checked_this_pass += 1,
                Ok(false) => {}
                Err(e) => tracing::warn!(game = %id, error = %e, "the audit could not read a game"),
            }
            rest(
                &links.shutdown,
                pause_after(started.elapsed(), config.pause),
            )
            .await;
        }
    }
    store.close().await;
}

/// The audit's share of one core, at most: it rests `REST_PER_WORK` times as long as it worked.
const REST_PER_WORK: u32 = 4;

/// The rest after a game whose audit took `worked`: at least `REST_PER_WORK` times that (so the
/// audit takes at most a fifth of a core, however long the logs), and at least `pause`.
fn pause_after(worked: Duration, pause: Duration) -> Duration {
    worked.saturating_mul(REST_PER_WORK).max(pause)
}

async fn rest(shutdown: &CancellationToken, pause: Duration) {
    tokio::select! {
        () = shutdown.cancelled() => {}
        () = tokio::time::sleep(pause) => {}
    }
}

/// Audit the entries of game `id` not audited yet; `Ok(true)` when some were.
async fn audit_game(store: &Store, links: &Links, id: Uuid) -> Result<bool, StoreError> {
    let Some(row) = store.game(id).await? else {
        return Ok(false);
    };
    let len = store.log_len(id).await?;
    let audited = u64::try_from(row.audited_seq).unwrap_or(0);
    if row.audit_error.is_some() || audited >= len {
        return Ok(false);
    }
    let version = row.hash_version()?;
    // Resume from the last snapshot up to audited_seq (each was compared with the replayed
    // state when the audit passed it, or is the audit's own checkpoint), else from the seed.
    let checkpoint = if audited > 0 {
        store.snapshot(id, 0, audited).await?
    } else {
        None
    };
    let resumed = checkpoint.and_then(|(seq, json, hash)| {
        let state: State = serde_json::from_str(&json).ok()?;
        let r = Replayer::resume(
            Game::from_state(links.scenario.clone(), state),
            seq,
            true,
            version,
        );
        r.check_hash(seq, &hash).ok().map(|()| r)
    });
    let mut replayer = match resumed {
        Some(r) => r,
        None => match Replayer::from_start(
            links.scenario.clone(),
            row.seed()?,
            row.position()?.as_ref(),
            true,
            version,
        ) {
            Ok(r) => r,
            Err(e) => {
                fail(links, id, audited, format!("{e}"));
                return Ok(true);
            }
        },
    };
    let from = replayer.seq();
    // The last state reached where the undo history is empty: the only kind a snapshot may be.
    let mut clean: Option<(u64, State)> = None;
    let rows = store.log(id, from, len).await?;
    let snapshots: BTreeMap<u64, String> = store.snapshots(id, from).await?.into_iter().collect();
    for row in &rows {
        let step = row
            .to_entry()
            .map_err(|e| e.to_string())
            .and_then(|entry| replayer.step(&entry).map_err(|e| e.to_string()));
        if let Err(why) = step {
            fail(links, id, audited, why);
            return Ok(true);
        }
        let seq = replayer.seq();
        if let Some(json) = snapshots.get(&seq) {
            let same =
                serde_json::from_str::<State>(json).is_ok_and(|s| &s == replayer.game().state());
            if !same {
                let why =
                    format!("the snapshot after entry {seq} is not the state the log replays to");
                fail(links, id, audited, why);
                return Ok(true);
            }
        }
        if replayer.game().undo_depth() == 0 {
            clean = Some((seq, replayer.game().state().clone()));
        }
    }
    let seq = replayer.seq();
    let checkpoint = clean.and_then(|(at, state)| Some((at, serde_json::to_string(&state).ok()?)));
    links.writer.note(Note::Audited {
        game_id: id.to_string(),
        seq,
        checkpoint,
        error: None,
    });
    tracing::debug!(game = %id, from, seq, "audited");
    Ok(true)
}

/// Mark game `id` as failing the audit and hold it.
fn fail(links: &Links, id: Uuid, audited: u64, why: String) {
    tracing::error!(game = %id, "THE AUDIT FOUND A LOG THAT DOES NOT REPLAY: {why}");
    links.writer.note(Note::Audited {
        game_id: id.to_string(),
        seq: audited,
        checkpoint: None,
        error: Some(why.clone()),
    });
    let games = links.games.clone();
    links
        .runtime
        .spawn(async move { games.hold(id, why).await });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_rests_four_times_its_work_and_never_less_than_the_pause() {
        let pause = Duration::from_millis(20);
        // A quick game: the configured pause.
        assert_eq!(pause_after(Duration::from_millis(1), pause), pause);
        // A long one: four times its work, so at most a fifth of a core.
        assert_eq!(
            pause_after(Duration::from_millis(50), pause),
            Duration::from_millis(200)
        );
    }
}
