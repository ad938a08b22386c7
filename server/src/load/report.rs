//! The report of a load run: a human-readable summary (`Display`) and the same figures as one
//! JSON line (`Serialize`), so that results can be pasted into docs/benchmarks.md as measured.

use super::LoadArgs;
use super::echo::EchoOutcome;
use super::fanout::FanoutOutcome;
use super::sqlite::SqliteBaseline;
use super::stages::StagesReport;
use super::stats::{Errors, SizeSummary, Summary, round3};
use super::table::Outcome;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// The server's resident memory in KiB at the moments of the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Rss {
    /// Before the load generator did anything.
    pub before: Option<u64>,
    /// Once every table was set up and connected.
    pub loaded: Option<u64>,
    /// The highest of the once-a-second samples while playing.
    pub peak: Option<u64>,
    /// After the run.
    pub end: Option<u64>,
    /// The kernel's high-water mark for the process (`VmHWM`), after the run.
    pub high_water: Option<u64>,
}

/// CPU seconds used during the measured window (user and system, from `/proc`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CpuUse {
    pub server: Option<f64>,
    pub load_generator: Option<f64>,
    /// The server's CPU seconds by its threads: `workers` (the runtime's), `sqlite` (SQLite's
    /// connections' threads) and `other` (the rest, and threads that ended in the window).
    pub server_threads: BTreeMap<String, f64>,
}

/// Everything a run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub mode: &'static str,
    pub url: String,
    pub games: usize,
    pub spectators: usize,
    pub think_ms: u64,
    pub duration_s: f64,
    pub patches: bool,
    /// Players asked for full `state` frames rather than patches.
    pub full_states: bool,
    pub seed: u64,
    /// The machine's 1-minute load average (`/proc/loadavg`) when the run began and ended:
    /// on a shared machine, how much else was running.
    pub load_average: [Option<f64>; 2],
    /// Seconds from the first request until every table was connected.
    pub setup_s: f64,
    /// Seconds of play actually measured.
    pub elapsed_s: f64,
    pub actions: u64,
    pub actions_per_s: f64,
    /// Action sent → its new `state` received, at the player who acted.
    pub rtt_ms: Summary,
    /// The bare WebSocket echo in the same window.
    pub echo_ms: Option<Summary>,
    pub rtt_p50_over_echo_p50: Option<f64>,
    pub rtt_p99_over_echo_p99: Option<f64>,
    /// The durable echo in the same window: each frame echoed after one write through the
    /// server's store writer (`GET /bench/durable-echo`).
    pub durable_echo_ms: Option<Summary>,
    pub rtt_p50_over_durable_echo_p50: Option<f64>,
    /// The durable echo's p50 over the SQLite probe's p50 plus the bare echo's p50: what the
    /// server's commit path and one echo cost beyond a raw commit and a raw echo.
    pub durable_echo_p50_over_probe_plus_echo_p50: Option<f64>,
    /// A spectator's receipt of a state minus the acting player's receipt of it (0 if earlier).
    pub fanout_ms: Summary,
    pub fanout_unmatched: u64,
    /// `--fanout-floor-sockets`: the sender's copy back → each other socket's copy, on the
    /// server's `GET /bench/fanout` (no game behind it).
    pub fanout_floor_ms: Option<Summary>,
    /// Updates the fan-out floor's sender sent and had back (the warm-up not counted).
    pub fanout_floor_updates: u64,
    /// Readers' receipts of a frame the sender never had back (should stay 0).
    pub fanout_floor_unmatched: u64,
    /// Timed updates some reader never received (should stay 0; each is also an error).
    pub fanout_floor_missing: u64,
    pub games_started: u64,
    pub games_finished: u64,
    pub errors: u64,
    pub error_kinds: BTreeMap<String, u64>,
    pub server_pid: Option<u32>,
    pub rss_kib: Rss,
    /// (loaded − before) / games: what one live table (game, seats and connections) costs.
    pub rss_per_game_kib: Option<f64>,
    pub sqlite: Option<SqliteBaseline>,
    /// One single-row SQLite transaction on the same disk, timed during the window.
    pub sqlite_probe_ms: Option<Summary>,
    /// The server's commit p50 over the probe's p50.
    pub commit_p50_over_probe_p50: Option<f64>,
    /// The server's own account of the window (`GET /bench/stages`).
    pub server_stages: Option<StagesReport>,
    /// CPU used in the window by the server and by this load generator.
    pub cpu_s: CpuUse,
    /// Server CPU per accepted action, in milliseconds.
    pub server_cpu_ms_per_action: Option<f64>,
    /// `--touch-games`: each game's first `GET /api/games/{id}`.
    pub touch_ms: Option<Summary>,
    /// Sizes of the frames the players received while playing, by type (`state_or_patch`:
    /// whichever form each new state came in).
    pub player_frame_bytes: BTreeMap<String, SizeSummary>,
    /// The same for the spectators.
    pub spectator_frame_bytes: BTreeMap<String, SizeSummary>,
    #[serde(skip)]
    error_counts: Errors,
    /// The durable echo was asked for and the server does not serve it.
    #[serde(skip)]
    durable_echo_unavailable: bool,
}

impl Report {
    pub(super) fn new(args: &LoadArgs, pid: Option<u32>) -> Report {
        let seeding = args.seed_games.is_some() || args.touch_games.is_some();
        Report {
            mode: match (args.seed_games, args.touch_games) {
                (Some(_), _) => "seed",
                (None, Some(_)) => "touch",
                (None, None) => "play",
            },
            url: args.url.clone(),
            games: args.games,
            // Seeding plays without spectators or thinking.
            spectators: if seeding { 0 } else { args.spectators },
            think_ms: if seeding { 0 } else { args.think_ms },
            duration_s: args.duration,
            patches: args.patches,
            full_states: args.full_states,
            seed: args.seed,
            load_average: [load_average(), None],
            setup_s: 0.0,
            elapsed_s: 0.0,
            actions: 0,
            actions_per_s: 0.0,
            rtt_ms: Summary::default(),
            echo_ms: None,
            rtt_p50_over_echo_p50: None,
            rtt_p99_over_echo_p99: None,
            durable_echo_ms: None,
            rtt_p50_over_durable_echo_p50: None,
            durable_echo_p50_over_probe_plus_echo_p50: None,
            fanout_ms: Summary::default(),
            fanout_unmatched: 0,
            fanout_floor_ms: None,
            fanout_floor_updates: 0,
            fanout_floor_unmatched: 0,
            fanout_floor_missing: 0,
            games_started: 0,
            games_finished: 0,
            errors: 0,
            error_kinds: BTreeMap::new(),
            server_pid: pid,
            rss_kib: Rss::default(),
            rss_per_game_kib: None,
            sqlite: None,
            sqlite_probe_ms: None,
            commit_p50_over_probe_p50: None,
            server_stages: None,
            cpu_s: CpuUse::default(),
            server_cpu_ms_per_action: None,
            touch_ms: None,
            player_frame_bytes: BTreeMap::new(),
            spectator_frame_bytes: BTreeMap::new(),
            error_counts: Errors::default(),
            durable_echo_unavailable: false,
        }
    }

    /// Count one error of `kind`.
    pub(super) fn add_error(&mut self, kind: &str) {
        self.error_counts.add(kind);
        self.errors = self.error_counts.total();
        self.error_kinds = self.error_counts.kinds().clone();
    }

    /// Fill in what the tables (and the bare and durable echo sockets) measured.
    pub(super) fn record(
        &mut self,
        mut o: Outcome,
        echo: Option<EchoOutcome>,
        durable_echo: Option<EchoOutcome>,
    ) {
        self.actions = o.actions;
        if self.elapsed_s > 0.0 {
            self.actions_per_s = round3(o.actions as f64 / self.elapsed_s);
        }
        self.rtt_ms = o.rtt.summary();
        self.fanout_ms = o.fanout.summary();
        self.player_frame_bytes = o.player_frames.summary();
        self.spectator_frame_bytes = o.spectator_frames.summary();
        if let Some(cpu) = self.cpu_s.server
            && o.actions > 0
        {
            self.server_cpu_ms_per_action = Some(round3(cpu * 1000.0 / o.actions as f64));
        }
        self.fanout_unmatched = o.fanout_unmatched;
        self.games_started = o.games_started;
        self.games_finished = o.games_finished;
        self.error_counts.merge(o.errors);
        if let Some(mut echo) = echo {
            if echo.unavailable {
                tracing::warn!("no bare echo: start the server with --bench-routes");
            } else {
                let e = echo.rtt.summary();
                self.rtt_p50_over_echo_p50 = ratio(self.rtt_ms.p50, e.p50);
                self.rtt_p99_over_echo_p99 = ratio(self.rtt_ms.p99, e.p99);
                self.echo_ms = Some(e);
            }
            self.error_counts.merge(echo.errors);
        }
        if let Some(mut echo) = durable_echo {
            if echo.unavailable {
                tracing::warn!(
                    "no durable echo: start a server of this version or later with --bench-routes"
                );
                self.durable_echo_unavailable = true;
            } else {
                let e = echo.rtt.summary();
                self.rtt_p50_over_durable_echo_p50 = ratio(self.rtt_ms.p50, e.p50);
                self.durable_echo_ms = Some(e);
            }
            self.error_counts.merge(echo.errors);
        }
        if let (Some(before), Some(loaded)) = (self.rss_kib.before, self.rss_kib.loaded)
            && self.games > 0
        {
            let grown = loaded.saturating_sub(before) as f64;
            self.rss_per_game_kib = Some(round3(grown / self.games as f64));
        }
        self.errors = self.error_counts.total();
        self.error_kinds = self.error_counts.kinds().clone();
    }

    /// Fill in what the fan-out floor's sockets measured.
    pub(super) fn record_fanout_floor(&mut self, mut floor: FanoutOutcome) {
        if floor.unavailable {
            tracing::warn!(
                "no fan-out floor: start a server of this version or later with --bench-routes"
            );
        } else {
            self.fanout_floor_ms = Some(floor.delays.summary());
            self.fanout_floor_updates = floor.updates;
            self.fanout_floor_unmatched = floor.unmatched;
            self.fanout_floor_missing = floor.missing;
        }
        self.error_counts.merge(floor.errors);
        self.errors = self.error_counts.total();
        self.error_kinds = self.error_counts.kinds().clone();
    }

    /// Put the server's commit times beside the probe's, and the durable echo beside the probe
    /// and the bare echo together (once all are in).
    pub(super) fn compare_commits(&mut self) {
        if let (Some(stages), Some(probe)) = (&self.server_stages, &self.sqlite_probe_ms)
            && probe.p50 > 0.0
            && stages.commit_ms.count > 0
        {
            self.commit_p50_over_probe_p50 = Some(round3(stages.commit_ms.p50 / probe.p50));
        }
        if let (Some(durable), Some(probe), Some(echo)) =
            (&self.durable_echo_ms, &self.sqlite_probe_ms, &self.echo_ms)
            && durable.count > 0
            && probe.count > 0
            && echo.count > 0
        {
            self.durable_echo_p50_over_probe_plus_echo_p50 =
                ratio(durable.p50, probe.p50 + echo.p50);
        }
    }
}

/// `a / b` to three places, if `b` is positive.
fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| round3(a / b))
}

/// The 1-minute load average, where `/proc/loadavg` can be read.
pub(super) fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn kib(k: Option<u64>) -> String {
    k.map_or_else(|| "?".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "siege load ({}) against {}: {} tables, {} spectators each, think {} ms{}",
            self.mode,
            self.url,
            self.games,
            self.spectators,
            self.think_ms,
            if self.patches { ", patches" } else { "" }
        )?;
        let la = |x: Option<f64>| x.map_or_else(|| "?".into(), |x| format!("{x:.2}"));
        writeln!(
            f,
            "  set up in {:.3} s; measured {:.3} s; load average {} → {}",
            self.setup_s,
            self.elapsed_s,
            la(self.load_average[0]),
            la(self.load_average[1])
        )?;
        writeln!(
            f,
            "  actions      {} ({:.1}/s); games started {}, finished {}",
            self.actions, self.actions_per_s, self.games_started, self.games_finished
        )?;
        if let Some(t) = &self.touch_ms {
            writeln!(f, "  first touch  {t}")?;
        }
        writeln!(f, "  round trip   {}", self.rtt_ms)?;
        match &self.echo_ms {
            Some(e) => {
                writeln!(f, "  bare echo    {e}")?;
                writeln!(
                    f,
                    "  ratio        p50 {:.2}x  p99 {:.2}x the bare echo",
                    self.rtt_p50_over_echo_p50.unwrap_or(0.0),
                    self.rtt_p99_over_echo_p99.unwrap_or(0.0)
                )?;
            }
            None if self.mode == "play" => {
                writeln!(f, "  bare echo    unavailable (serve with --bench-routes)")?;
            }
            None => {}
        }
        match &self.durable_echo_ms {
            Some(e) => {
                writeln!(f, "  durable echo {e}")?;
                write!(
                    f,
                    "  ratio        p50 {:.2}x the durable echo",
                    self.rtt_p50_over_durable_echo_p50.unwrap_or(0.0)
                )?;
                if let Some(r) = self.durable_echo_p50_over_probe_plus_echo_p50 {
                    write!(f, "; durable echo p50 {r:.2}x SQLite probe + bare echo")?;
                }
                writeln!(f)?;
            }
            None if self.durable_echo_unavailable => {
                writeln!(
                    f,
                    "  durable echo unavailable (serve this version or later with --bench-routes)"
                )?;
            }
            None => {}
        }
        if self.fanout_ms.count > 0 {
            writeln!(f, "  fan-out      {}", self.fanout_ms)?;
        }
        if let Some(floor) = &self.fanout_floor_ms {
            writeln!(
                f,
                "  fan-out floor {floor}  ({} updates, {} unmatched, {} missing)",
                self.fanout_floor_updates, self.fanout_floor_unmatched, self.fanout_floor_missing
            )?;
        }
        writeln!(f, "  errors       {} {:?}", self.errors, self.error_kinds)?;
        for (who, sizes) in [
            ("player", &self.player_frame_bytes),
            ("spectator", &self.spectator_frame_bytes),
        ] {
            for (kind, s) in sizes {
                writeln!(f, "  {who:<9} {kind:<15} {s}")?;
            }
        }
        if let (Some(server), Some(load)) = (self.cpu_s.server, self.cpu_s.load_generator) {
            writeln!(
                f,
                "  CPU          server {server:.2} s, load generator {load:.2} s; server {:.3} ms an action",
                self.server_cpu_ms_per_action.unwrap_or(0.0)
            )?;
            if !self.cpu_s.server_threads.is_empty() && self.actions > 0 {
                let per_action = |kind: &str| {
                    self.cpu_s.server_threads.get(kind).copied().unwrap_or(0.0) * 1000.0
                        / self.actions as f64
                };
                writeln!(
                    f,
                    "               server threads: workers {:.3}, SQLite {:.3}, other {:.3} ms an action",
                    per_action("workers"),
                    per_action("sqlite"),
                    per_action("other")
                )?;
            }
        }
        if self.server_pid.is_some() {
            let r = &self.rss_kib;
            writeln!(
                f,
                "  server RSS   before {}  loaded {}  peak {}  end {}  high-water {}",
                kib(r.before),
                kib(r.loaded),
                kib(r.peak),
                kib(r.end),
                kib(r.high_water)
            )?;
            if let Some(per) = self.rss_per_game_kib {
                writeln!(f, "  per table    {per:.1} KiB")?;
            }
        }
        if let Some(s) = &self.server_stages {
            writeln!(f, "  server: rules    {}", s.apply_ms)?;
            writeln!(f, "          encode   {}", s.encode_ms)?;
            writeln!(f, "          frames   {}  (during the commit)", s.frame_ms)?;
            writeln!(f, "          store    {}", s.store_ms)?;
            writeln!(
                f,
                "          commits  {}  ({} commits, {:.1} actions each on average, at most {})",
                s.commit_ms, s.commits, s.mean_batch, s.max_batch
            )?;
        }
        if let Some(p) = &self.sqlite_probe_ms {
            writeln!(
                f,
                "  SQLite probe {p}  (one single-row commit, same disk, same time)"
            )?;
        }
        if let Some(s) = &self.sqlite {
            writeln!(
                f,
                "  raw SQLite   {:.0} single-row tx/s ({}); {:.0} rows/s in tx of {}",
                s.single_row_tx_per_s, s.single_row_tx_ms, s.batched_rows_per_s, s.batch
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::stats::Samples;

    /// Samples of `ms` milliseconds each.
    fn samples(ms: &[u32]) -> Samples {
        let mut s = Samples::new();
        for m in ms {
            s.record_micros(m * 1000);
        }
        s
    }

    fn echo(ms: &[u32]) -> EchoOutcome {
        EchoOutcome {
            rtt: samples(ms),
            ..EchoOutcome::default()
        }
    }

    fn played(durable: Option<EchoOutcome>, probe: Option<Summary>) -> Report {
        let args = crate::load::parse_args(&[]);
        assert_eq!(
            args.durable_echo_sockets, args.echo_sockets,
            "the same default"
        );
        let mut report = Report::new(&args, None);
        report.sqlite_probe_ms = probe;
        let outcome = Outcome {
            rtt: samples(&[6, 6, 6]),
            actions: 3,
            ..Outcome::default()
        };
        report.record(outcome, Some(echo(&[1, 1, 1])), durable);
        report.compare_commits();
        report
    }

    #[test]
    fn the_durable_echo_is_reported_beside_the_bare_echo_and_the_probe() {
        let probe = samples(&[2, 2, 2]).summary();
        let report = played(Some(echo(&[4, 4, 4])), Some(probe));
        assert_eq!(report.durable_echo_ms.map(|d| d.p50), Some(4.0));
        assert_eq!(report.rtt_p50_over_durable_echo_p50, Some(1.5));
        // 4 / (2 + 1)
        assert_eq!(
            report.durable_echo_p50_over_probe_plus_echo_p50,
            Some(1.333)
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["durable_echo_ms"]["p50"], 4.0);
        assert_eq!(json["rtt_p50_over_durable_echo_p50"], 1.5);
        assert_eq!(json["durable_echo_p50_over_probe_plus_echo_p50"], 1.333);
        let text = report.to_string();
        assert!(
            text.contains("  durable echo p50 4.000 ms"),
            "durable echo line missing from\n{text}"
        );
        assert!(
            text.contains(
                "p50 1.50x the durable echo; durable echo p50 1.33x SQLite probe + bare echo"
            ),
            "durable echo ratios missing from\n{text}"
        );

        // Without the probe there is no probe + echo to compare with.
        let report = played(Some(echo(&[4, 4, 4])), None);
        assert_eq!(report.durable_echo_p50_over_probe_plus_echo_p50, None);
        let json = serde_json::to_value(&report).unwrap();
        assert!(json["durable_echo_p50_over_probe_plus_echo_p50"].is_null());
        assert!(report.to_string().contains("p50 1.50x the durable echo\n"));
    }

    #[test]
    fn a_durable_echo_not_served_is_unavailable_and_one_not_asked_for_is_not_mentioned() {
        let unavailable = EchoOutcome {
            unavailable: true,
            ..EchoOutcome::default()
        };
        let report = played(Some(unavailable), None);
        assert_eq!(report.durable_echo_ms, None);
        assert_eq!(report.rtt_p50_over_durable_echo_p50, None);
        assert!(serde_json::to_value(&report).unwrap()["durable_echo_ms"].is_null());
        let text = report.to_string();
        assert!(text.contains("durable echo unavailable"), "{text}");
        assert_eq!(report.errors, 0);

        let text = played(None, None).to_string();
        assert!(!text.contains("durable echo"), "{text}");
        assert!(text.contains("bare echo"), "{text}");
    }
}
