//! What an operator can watch: `GET /metrics` in the Prometheus text format (the `metrics`
//! facade with `metrics-exporter-prometheus`), and the names of every series in one place.
//! Code anywhere in the server records through the facade; with no recorder installed (the
//! library used without a server) every record is a no-op.
//!
//! The series (docs/security.md explains what each says):
//! - `siege_games_loaded` — games with a running task;
//! - `siege_connections` — open TCP connections (WebSockets included), `siege_websockets`;
//! - `siege_connections_refused_total{reason}` — connections closed at once by a cap;
//! - `siege_actions_total` — actions committed (its rate is actions per second);
//! - `siege_commit_seconds` — the writer's transactions, as a histogram;
//! - `siege_commit_failures_total`, `siege_writer_queue_depth`;
//! - `siege_refusals_total{code}` — every refusal, HTTP or WebSocket, by its error code;
//! - `siege_resyncs_total` — connections dropped to "resync" for falling behind;
//! - `siege_heavy_queue` — expensive requests admitted and not finished.

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;

pub const GAMES_LOADED: &str = "siege_games_loaded";
pub const CONNECTIONS: &str = "siege_connections";
pub const WEBSOCKETS: &str = "siege_websockets";
pub const CONNECTIONS_REFUSED: &str = "siege_connections_refused_total";
pub const ACTIONS: &str = "siege_actions_total";
pub const COMMIT_SECONDS: &str = "siege_commit_seconds";
pub const COMMIT_FAILURES: &str = "siege_commit_failures_total";
pub const WRITER_QUEUE: &str = "siege_writer_queue_depth";
pub const REFUSALS: &str = "siege_refusals_total";
pub const RESYNCS: &str = "siege_resyncs_total";
pub const HEAVY_QUEUE: &str = "siege_heavy_queue";

/// Commit latency buckets, in seconds: a commit is an fsync, from tenths of a millisecond on
/// fast disks to seconds on a sick one.
const COMMIT_BUCKETS: [f64; 12] = [
    0.000_25, 0.000_5, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0, 5.0,
];

/// The process's Prometheus recorder, installed by the first server started (tests run several
/// servers in one process; they share it). `None` if another recorder was installed first.
pub fn recorder() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let installed = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Full(COMMIT_SECONDS.into()), &COMMIT_BUCKETS)
                .and_then(PrometheusBuilder::install_recorder);
            match installed {
                Ok(handle) => {
                    describe();
                    Some(handle)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "metrics recorder not installed: /metrics is empty");
                    None
                }
            }
        })
        .as_ref()
}

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_gauge!(GAMES_LOADED, "games with a running task");
    describe_gauge!(CONNECTIONS, "open TCP connections, WebSockets included");
    describe_gauge!(WEBSOCKETS, "open game WebSockets");
    describe_counter!(
        CONNECTIONS_REFUSED,
        "connections closed on accept by a connection cap"
    );
    describe_counter!(ACTIONS, "actions committed to the log");
    describe_histogram!(
        COMMIT_SECONDS,
        Unit::Seconds,
        "time of the writer's transactions"
    );
    describe_counter!(COMMIT_FAILURES, "writer transactions that failed");
    describe_gauge!(WRITER_QUEUE, "actions waiting for the writer");
    describe_counter!(REFUSALS, "refused requests and frames, by error code");
    describe_counter!(RESYNCS, "connections dropped to resync for falling behind");
    describe_gauge!(HEAVY_QUEUE, "expensive requests admitted and not finished");
}

/// Count a refusal (HTTP or WebSocket) by its code.
pub fn refused(code: &'static str) {
    metrics::counter!(REFUSALS, "code" => code).increment(1);
}

/// A gauge that is raised while this value lives: a connection, a socket, a game task.
#[derive(Debug)]
pub struct Held(&'static str);

impl Held {
    pub fn new(gauge: &'static str) -> Held {
        metrics::gauge!(gauge).increment(1.0);
        Held(gauge)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        metrics::gauge!(self.0).decrement(1.0);
    }
}
