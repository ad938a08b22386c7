//! Where the server's time goes, for benchmarks: with `siege serve --bench-routes`, the game
//! tasks and the store writer record how long each accepted action spent in the rules
//! (`apply`), in serialization (`encode`: events, view, legal actions, state hash) and waiting
//! for its commit (`store`), and the writer records each transaction (`commit`) and its size.
//! `GET /bench/stages` answers the distributions and starts afresh, so `siege load` can put
//! the server's share of a round trip beside what the client measured. Without
//! `--bench-routes` nothing is recorded.

use super::stats::{Samples, Summary, round3};
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
    store: Samples,
    commit: Samples,
    /// Actions per transaction (recorded as if microseconds).
    batch: Samples,
}

/// What `GET /bench/stages` answers (milliseconds, batch sizes in actions).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StagesReport {
    /// Rules: checking and applying the action.
    pub apply_ms: Summary,
    /// Serializing the events, the new state's frame and legal actions, and hashing the state.
    pub encode_ms: Summary,
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

    /// One accepted action's time in the rules, in serialization and waiting for the store.
    pub fn action(&self, apply: Duration, encode: Duration, store: Duration) {
        self.with(|s| {
            s.apply.record(apply);
            s.encode.record(encode);
            s.store.record(store);
        });
    }

    /// One transaction of `actions` actions that took `took`.
    pub fn commit(&self, actions: usize, took: Duration) {
        self.with(|s| {
            s.commit.record(took);
            s.batch
                .record_micros(u32::try_from(actions).unwrap_or(u32::MAX));
        });
    }

    /// The distributions so far; recording starts afresh.
    pub fn take(&self) -> StagesReport {
        let mut s = self.with(std::mem::take);
        let batch = s.batch.summary();
        StagesReport {
            apply_ms: s.apply.summary(),
            encode_ms: s.encode.summary(),
            store_ms: s.store.summary(),
            commit_ms: s.commit.summary(),
            commits: batch.count,
            // The summary is in thousandths of the recorded unit.
            mean_batch: round3(batch.mean * 1000.0),
            max_batch: round3(batch.max * 1000.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_takes_afresh() {
        let t = StageTimes::default();
        t.action(
            Duration::from_micros(30),
            Duration::from_micros(100),
            Duration::from_millis(1),
        );
        t.commit(3, Duration::from_micros(900));
        t.commit(1, Duration::from_micros(500));
        let r = t.take();
        assert_eq!(r.apply_ms.p50, 0.03);
        assert_eq!(r.store_ms.max, 1.0);
        assert_eq!(r.commits, 2);
        assert_eq!(r.mean_batch, 2.0);
        assert_eq!(r.max_batch, 3.0);
        assert_eq!(t.take().commits, 0, "taken afresh");
    }
}
