//! Where the server's time goes, for benchmarks: with `siege serve --bench-routes`, these stage
//! timers are the server's [`Probe`]: the game tasks report how long each accepted action spent
//! in the rules (`apply`), in serialization (`encode`: events, view, legal actions, state hash)
//! and waiting for its commit (`store`), and the writer reports each transaction (`commit`) and
//! its size. `GET /bench/stages` answers the distributions and starts afresh, so `siege load`
//! can put the server's share of a round trip beside what the client measured. Without
//! `--bench-routes` nothing is recorded; with it, every sample is kept until the next
//! `GET /bench/stages`, so a benchmark server left running unread grows without bound — it is
//! for benchmark runs, not production.

use super::stats::{Samples, Summary, round3};
use crate::probe::{ActionTiming, Probe};
use serde::{Deserialize, Serialize};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// The distributions recorded since the last [`StageTimes::take`].
#[derive(Debug, Default)]
pub struct StageTimes(Mutex<Stages>);

#[derive(Debug, Default)]
struct Stages {
    apply: Samples,
    encode: Samples,
    frame: Samples,
    store: Samples,
    commit: Samples,
    /// Actions committed, over all transactions, and the largest transaction.
    actions: u64,
    largest: u64,
}

/// What `GET /bench/stages` answers (milliseconds, batch sizes in actions).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StagesReport {
    /// Rules: checking and applying the action.
    pub apply_ms: Summary,
    /// Serializing the log entry (the action, its events) and hashing the state.
    pub encode_ms: Summary,
    /// Building the new state's frames while the commit is in flight (part of `store_ms`).
    #[serde(default)]
    pub frame_ms: Summary,
    /// From handing the entry to the writer until its commit was confirmed.
    pub store_ms: Summary,
    /// One transaction of the writer.
    pub commit_ms: Summary,
    pub commits: usize,
    /// Mean actions per transaction.
    pub mean_batch: f64,
    pub max_batch: f64,
}

impl StageTimes {
    fn with<T>(&self, f: impl FnOnce(&mut Stages) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The distributions so far; recording starts afresh.
    pub fn take(&self) -> StagesReport {
        let mut s = self.with(std::mem::take);
        let commit_ms = s.commit.summary();
        let commits = commit_ms.count;
        StagesReport {
            apply_ms: s.apply.summary(),
            encode_ms: s.encode.summary(),
            frame_ms: s.frame.summary(),
            store_ms: s.store.summary(),
            commit_ms,
            commits,
            // Exact, from the counts: a mean of 1.4 actions a transaction must not read 1.0.
            mean_batch: if commits == 0 {
                0.0
            } else {
                round3(s.actions as f64 / commits as f64)
            },
            max_batch: s.largest as f64,
        }
    }
}

impl Probe for StageTimes {
    /// One accepted action's time in the rules, in serialization, in building its frames and
    /// waiting for the store.
    fn action(&self, t: ActionTiming) {
        self.with(|s| {
            s.apply.record(t.apply);
            s.encode.record(t.encode);
            s.frame.record(t.frame);
            s.store.record(t.store);
        });
    }

    /// One transaction of `actions` actions that took `took`.
    fn commit(&self, actions: usize, took: Duration) {
        self.with(|s| {
            s.commit.record(took);
            let actions = u64::try_from(actions).unwrap_or(u64::MAX);
            s.actions = s.actions.saturating_add(actions);
            s.largest = s.largest.max(actions);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_takes_afresh() {
        let t = StageTimes::default();
        t.action(ActionTiming {
            apply: Duration::from_micros(30),
            encode: Duration::from_micros(100),
            frame: Duration::from_micros(60),
            store: Duration::from_millis(1),
        });
        t.commit(1, Duration::from_micros(900));
        t.commit(1, Duration::from_micros(500));
        t.commit(2, Duration::from_micros(700));
        let r = t.take();
        assert_eq!(r.apply_ms.p50, 0.03);
        assert_eq!(r.frame_ms.p50, 0.06);
        assert_eq!(r.store_ms.max, 1.0);
        assert_eq!(r.commits, 3);
        assert_eq!(r.mean_batch, 1.333, "4 actions in 3 transactions");
        assert_eq!(r.max_batch, 2.0);
        assert_eq!(t.take().commits, 0, "taken afresh");
    }
}
