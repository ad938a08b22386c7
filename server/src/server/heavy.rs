//! The pool for expensive requests: replaying a game to a past state (`state?at=N`, the view of
//! a finished game) and answering the analysis board. A request of a few bytes can ask for tens
//! of milliseconds of CPU; thirty of them at once took a live game's slowest actions from ten
//! milliseconds to hundreds. So they run here, apart from the live games:
//!
//! - on a few threads of their own (`--heavy-threads`), at a lower scheduling priority (nice
//!   10), so the runtime's workers — the live games' actions — win every contest for a core and
//!   are never queued behind a replay;
//! - admitted only while fewer than threads + `--heavy-queue` are in hand; beyond that the
//!   request is refused with 503 `busy` and `Retry-After: 1`, instead of waiting. An admitted
//!   request does its work — reading the log as well as replaying it — only once one of the
//!   `--heavy-threads` places is free: at most that many do any work at a time;
//! - each within a [`Budget`] of work (`--work-budget-ms`): the job checks it as it goes and
//!   stops when it is spent, or when its requester has gone away.

use super::error::AppError;
use crate::observe::{self, Held};
use axum::http::StatusCode;
use siege_protocol::codes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

/// The scheduling priority of the pool's threads, relative to the server's (higher: lower).
const NICE: i32 = 10;

type Job = Box<dyn FnOnce() + Send>;

/// The pool: clone freely.
#[derive(Clone, Debug)]
pub struct Heavy {
    jobs: mpsc::Sender<Job>,
    /// Requests admitted (working or waiting to).
    admitted: Arc<Semaphore>,
    /// Requests working: one per thread.
    working: Arc<Semaphore>,
    budget: Duration,
}

/// An admitted request, waiting for its turn to work.
#[derive(Debug)]
pub struct Admitted {
    slot: OwnedSemaphorePermit,
    gauge: Held,
    working: Arc<Semaphore>,
}

impl Admitted {
    /// Wait until one of the pool's places to work is free.
    pub async fn start(self) -> Permit {
        // The semaphore is never closed: acquiring fails only if it were.
        let turn = self.working.acquire_owned().await.ok();
        Permit {
            _turn: turn,
            _slot: self.slot,
            _gauge: self.gauge,
        }
    }
}

/// A request's turn to work, held for the whole of its work.
#[derive(Debug)]
pub struct Permit {
    _turn: Option<OwnedSemaphorePermit>,
    _slot: OwnedSemaphorePermit,
    _gauge: Held,
}

/// How much work a job may still do.
#[derive(Debug)]
pub struct Budget {
    until: Instant,
    gone: Arc<AtomicBool>,
}

impl Budget {
    /// Whether the job should stop: its time is spent, or nobody waits for its answer.
    pub fn spent(&self) -> bool {
        self.gone.load(Ordering::Relaxed) || Instant::now() >= self.until
    }
}

/// Set when the requester stops waiting (its future was dropped).
struct Abandon(Arc<AtomicBool>);

impl Drop for Abandon {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Heavy {
    /// A pool of `threads` threads admitting `queue` more requests than it has threads, each
    /// with `budget` of work.
    pub fn start(threads: usize, queue: usize, budget: Duration) -> Heavy {
        let threads = threads.max(1);
        let (jobs, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for n in 0..threads {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("siege-heavy-{n}"))
                .spawn(move || worker(&rx));
            if let Err(e) = spawned {
                tracing::error!(error = %e, "could not start a thread for expensive requests");
            }
        }
        Heavy {
            jobs,
            admitted: Arc::new(Semaphore::new(threads + queue)),
            working: Arc::new(Semaphore::new(threads)),
            budget,
        }
    }

    /// A place for one expensive request, or 503 `busy` when the pool is full.
    pub fn admit(&self) -> Result<Admitted, AppError> {
        let slot = self.admitted.clone().try_acquire_owned().map_err(|_| {
            AppError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                codes::BUSY,
                "the server is answering as many expensive requests as it takes; try again in a second",
            )
            .retry_after(1)
        })?;
        Ok(Admitted {
            slot,
            gauge: Held::new(observe::HEAVY_QUEUE),
            working: self.working.clone(),
        })
    }

    /// Run `job` on the pool with a fresh budget and wait for its answer. The permit shows the
    /// request was admitted.
    pub async fn run<T: Send + 'static>(
        &self,
        _permit: &Permit,
        job: impl FnOnce(&Budget) -> T + Send + 'static,
    ) -> Result<T, AppError> {
        let (tx, rx) = oneshot::channel();
        let gone = Arc::new(AtomicBool::new(false));
        let _abandon = Abandon(gone.clone());
        let budget = self.budget;
        let job: Job = Box::new(move || {
            let budget = Budget {
                until: Instant::now() + budget,
                gone,
            };
            let _ = tx.send(job(&budget));
        });
        self.jobs
            .send(job)
            .map_err(|_| AppError::internal("the pool for expensive requests has stopped"))?;
        rx.await
            .map_err(|_| AppError::internal("an expensive request's job failed"))
    }

    /// The refusal of a job that spent its budget.
    pub fn over_budget(&self, what: &str) -> AppError {
        AppError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::TOO_EXPENSIVE,
            format!(
                "{what} needs more than the {} ms of work one request may take",
                self.budget.as_millis()
            ),
        )
    }
}

fn worker(rx: &Mutex<mpsc::Receiver<Job>>) {
    lower_priority();
    loop {
        let job = {
            let rx = rx.lock().unwrap_or_else(PoisonError::into_inner);
            rx.recv()
        };
        match job {
            // A panicking job must not take the thread with it: its requester sees the
            // dropped answer as an internal error.
            Ok(job) => {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
            Err(_) => return,
        }
    }
}

/// Nice this thread (on Linux, a thread's nice value is its own).
#[cfg(unix)]
fn lower_priority() {
    if let Err(e) = rustix::process::nice(NICE) {
        tracing::warn!(error = %e, "could not lower the priority of an expensive-request thread");
    }
}

#[cfg(not(unix))]
fn lower_priority() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_pool_refuses_at_once_and_a_budget_stops_a_job() {
        let heavy = Heavy::start(1, 1, Duration::from_millis(50));
        let a = heavy.admit().unwrap().start().await;
        let b = heavy.admit().unwrap();
        let refused = heavy.admit().unwrap_err();
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.code, codes::BUSY);
        assert_eq!(refused.retry_after, Some(1));
        // The second waits for the first's turn to end.
        let waiting = tokio::spawn(b.start());
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "one works at a time");
        // A job that loops until its budget is spent comes back.
        let steps = heavy
            .run(&a, |budget| {
                let mut n = 0u64;
                while !budget.spent() {
                    n += 1;
                    std::thread::sleep(Duration::from_millis(1));
                }
                n
            })
            .await
            .unwrap();
        assert!(steps > 0);
        drop(a);
        let b = waiting.await.unwrap();
        drop(b);
        assert!(heavy.admit().is_ok(), "places are given back");
    }
}
