//! Statistics of a load run: latency samples with nearest-rank percentiles, and error counts by
//! kind. Every task of the load generator records into its own [`Samples`] and [`Errors`] and
//! they are merged at the end, so recording never contends for a lock while the clock runs.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// Latencies in microseconds, kept exactly: a run of a few million samples costs a few
/// megabytes, and exact samples make the percentiles checkable by hand.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    micros: Vec<u32>,
    sorted: bool,
}

impl Samples {
    pub fn new() -> Samples {
        Samples::default()
    }

    /// Record one latency (saturating at about 71 minutes).
    pub fn record(&mut self, d: Duration) {
        self.micros
            .push(u32::try_from(d.as_micros()).unwrap_or(u32::MAX));
        self.sorted = false;
    }

    /// Record one latency given in microseconds.
    pub fn record_micros(&mut self, us: u32) {
        self.micros.push(us);
        self.sorted = false;
    }

    /// Add every sample of `other`.
    pub fn merge(&mut self, other: Samples) {
        if self.micros.is_empty() {
            *self = other;
            return;
        }
        self.micros.extend(other.micros);
        self.sorted = false;
    }

    pub fn len(&self) -> usize {
        self.micros.len()
    }

    pub fn is_empty(&self) -> bool {
        self.micros.is_empty()
    }

    fn sort(&mut self) {
        if !self.sorted {
            self.micros.sort_unstable();
            self.sorted = true;
        }
    }

    /// The `p`-th percentile (0 < p ≤ 100) by the nearest-rank method: the smallest sample
    /// that at least `p` per cent of the samples do not exceed. `None` without samples.
    pub fn percentile(&mut self, p: f64) -> Option<u32> {
        if self.micros.is_empty() {
            return None;
        }
        self.sort();
        let n = self.micros.len();
        // Nearest rank: ceil(p/100 · n), 1-based, clamped to [1, n].
        let rank = ((p / 100.0) * n as f64).ceil() as usize;
        let index = rank.clamp(1, n) - 1;
        self.micros.get(index).copied()
    }

    /// Count, mean, p50, p90, p99 and max, in milliseconds.
    pub fn summary(&mut self) -> Summary {
        let ms = |us: Option<u32>| us.map_or(0.0, |u| round3(f64::from(u) / 1000.0));
        let count = self.micros.len();
        let mean = if count == 0 {
            0.0
        } else {
            let total: u64 = self.micros.iter().map(|u| u64::from(*u)).sum();
            round3(total as f64 / count as f64 / 1000.0)
        };
        Summary {
            count,
            mean,
            p50: ms(self.percentile(50.0)),
            p90: ms(self.percentile(90.0)),
            p99: ms(self.percentile(99.0)),
            max: ms(self.percentile(100.0)),
        }
    }
}

/// A latency distribution in milliseconds, as printed and as written in the JSON line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub count: usize,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "p50 {:.3} ms  p90 {:.3} ms  p99 {:.3} ms  max {:.3} ms  (n = {})",
            self.p50, self.p90, self.p99, self.max, self.count
        )
    }
}

/// Sizes of the frames one audience received, in bytes, by frame type.
#[derive(Clone, Debug, Default)]
pub struct FrameSizes(BTreeMap<&'static str, Vec<u32>>);

impl FrameSizes {
    /// One frame of type `kind` (`state`, `patch`, `events`, …) of `bytes` bytes.
    pub fn record(&mut self, kind: &str, bytes: usize) {
        let kind = match kind {
            "state" => "state",
            "patch" => "patch",
            "events" => "events",
            "error" => "error",
            _ => "other",
        };
        let n = u32::try_from(bytes).unwrap_or(u32::MAX);
        self.0.entry(kind).or_default().push(n);
        // What a client gets for each new state, whichever form it takes.
        if kind == "state" || kind == "patch" {
            self.0.entry("state_or_patch").or_default().push(n);
        }
    }

    pub fn merge(&mut self, other: FrameSizes) {
        for (k, v) in other.0 {
            self.0.entry(k).or_default().extend(v);
        }
    }

    /// The distribution of each type's sizes.
    pub fn summary(&mut self) -> BTreeMap<String, SizeSummary> {
        self.0
            .iter_mut()
            .map(|(k, v)| (k.to_string(), SizeSummary::of(v)))
            .collect()
    }
}

/// A distribution of frame sizes in bytes (nearest-rank percentiles).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SizeSummary {
    pub count: usize,
    pub mean: f64,
    pub p50: u32,
    pub p90: u32,
    pub max: u32,
}

impl SizeSummary {
    fn of(sizes: &mut [u32]) -> SizeSummary {
        if sizes.is_empty() {
            return SizeSummary::default();
        }
        sizes.sort_unstable();
        let n = sizes.len();
        let at = |p: f64| sizes[(((p / 100.0) * n as f64).ceil() as usize).clamp(1, n) - 1];
        let total: u64 = sizes.iter().map(|b| u64::from(*b)).sum();
        SizeSummary {
            count: n,
            mean: round3(total as f64 / n as f64),
            p50: at(50.0),
            p90: at(90.0),
            max: at(100.0),
        }
    }
}

impl std::fmt::Display for SizeSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "p50 {} B  p90 {} B  max {} B  mean {:.0} B  (n = {})",
            self.p50, self.p90, self.max, self.mean, self.count
        )
    }
}

/// Errors by kind (`http_409`, `connect`, `ws_stale`, `timeout`, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Errors(BTreeMap<String, u64>);

impl Errors {
    pub fn add(&mut self, kind: impl Into<String>) {
        *self.0.entry(kind.into()).or_insert(0) += 1;
    }

    pub fn merge(&mut self, other: Errors) {
        for (k, n) in other.0 {
            *self.0.entry(k).or_insert(0) += n;
        }
    }

    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    pub fn kinds(&self) -> &BTreeMap<String, u64> {
        &self.0
    }
}

/// `x` rounded to three decimals, so the JSON line stays readable.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[u32]) -> Samples {
        let mut s = Samples::new();
        for v in values {
            s.record_micros(*v);
        }
        s
    }

    #[test]
    fn nearest_rank_percentiles_of_one_to_a_hundred() {
        let values: Vec<u32> = (1..=100).rev().collect();
        let mut s = of(&values);
        assert_eq!(s.percentile(50.0), Some(50));
        assert_eq!(s.percentile(90.0), Some(90));
        assert_eq!(s.percentile(99.0), Some(99));
        assert_eq!(s.percentile(100.0), Some(100));
        assert_eq!(s.percentile(0.5), Some(1));
    }

    #[test]
    fn percentiles_of_few_samples_are_samples() {
        let mut s = of(&[30, 10, 20, 40]);
        assert_eq!(s.percentile(50.0), Some(20));
        assert_eq!(s.percentile(75.0), Some(30));
        assert_eq!(s.percentile(76.0), Some(40));
        assert_eq!(s.percentile(99.0), Some(40));
        let mut one = of(&[7]);
        assert_eq!(one.percentile(1.0), Some(7));
        assert_eq!(one.percentile(100.0), Some(7));
    }

    #[test]
    fn no_samples_no_percentile_and_a_zero_summary() {
        let mut s = Samples::new();
        assert_eq!(s.percentile(50.0), None);
        assert_eq!(s.summary(), Summary::default());
    }

    #[test]
    fn summary_in_milliseconds_with_the_mean() {
        let mut s = of(&[1000, 2000, 3000, 4000, 100_000]);
        let sum = s.summary();
        assert_eq!(sum.count, 5);
        assert_eq!(sum.p50, 3.0);
        assert_eq!(sum.p90, 100.0);
        assert_eq!(sum.max, 100.0);
        assert_eq!(sum.mean, 22.0);
    }

    #[test]
    fn merging_keeps_every_sample_and_resorts() {
        let mut a = of(&[5, 1]);
        assert_eq!(a.percentile(100.0), Some(5));
        a.merge(of(&[9, 3]));
        assert_eq!(a.len(), 4);
        assert_eq!(a.percentile(100.0), Some(9));
        assert_eq!(a.percentile(50.0), Some(3));
        let mut empty = Samples::new();
        empty.merge(of(&[2]));
        assert_eq!(empty.percentile(50.0), Some(2));
    }

    #[test]
    fn durations_record_in_microseconds_and_saturate() {
        let mut s = Samples::new();
        s.record(Duration::from_millis(3));
        s.record(Duration::from_secs(u64::MAX / 4));
        assert_eq!(s.percentile(50.0), Some(3000));
        assert_eq!(s.percentile(100.0), Some(u32::MAX));
    }

    #[test]
    fn frame_sizes_by_type_with_states_and_patches_together() {
        let mut f = FrameSizes::default();
        for (kind, n) in [
            ("state", 26_000),
            ("patch", 300),
            ("patch", 500),
            ("events", 90),
        ] {
            f.record(kind, n);
        }
        let s = f.summary();
        assert_eq!(s["patch"].p50, 300);
        assert_eq!(s["patch"].max, 500);
        assert_eq!(s["state_or_patch"].count, 3);
        assert_eq!(s["state_or_patch"].p50, 500);
        assert_eq!(s["events"].mean, 90.0);
    }

    #[test]
    fn errors_count_by_kind_and_merge() {
        let mut a = Errors::default();
        a.add("ws_stale");
        a.add("ws_stale");
        let mut b = Errors::default();
        b.add("connect");
        b.add("ws_stale");
        a.merge(b);
        assert_eq!(a.total(), 4);
        assert_eq!(a.kinds().get("ws_stale"), Some(&3));
        assert_eq!(a.kinds().get("connect"), Some(&1));
    }
}
