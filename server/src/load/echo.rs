//! The echo baselines: sockets to `GET /bench/echo` (served with `siege serve
//! --bench-routes`) that send an action-sized frame and time its echo, throughout the same
//! window as the games. The ratio of the game's round trip to this one is what compares across
//! machines and across noisy runs: both pay the same kernel, loopback, WebSocket framing and
//! scheduler costs at the same moment, and only the game pays for the rules, the store and the
//! fan-out.
//!
//! The same sockets on `GET /bench/durable-echo` time the durable echo: the server echoes each
//! frame only after one write through its own store writer, so that echo is the floor of a
//! durable round trip — the server's commit path and the transport, with no game behind it.

use super::stats::{Errors, Samples};
use super::wire::{self, WireError};
use futures_util::SinkExt;
use std::time::Duration;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self, Message};

/// The frame echoed by default: the size and shape of a typical `action` frame.
const ACTION: &str = r#"{"type":"action","seq":1234,"action":{"type":"move","to":"1512","mp":3}}"#;

/// The echoed frame: an action, or padded with spaces to `bytes` (to see what a frame the
/// size of a state costs the transport alone).
fn payload(bytes: usize) -> String {
    let mut p = ACTION.to_string();
    if bytes > p.len() {
        p.insert_str(p.len() - 1, &" ".repeat(bytes - p.len()));
    }
    p
}

/// Which echo a socket times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// `GET /bench/echo`: the frame straight back.
    Bare,
    /// `GET /bench/durable-echo`: the frame back after one write through the server's store
    /// writer.
    Durable,
}

impl Route {
    /// The route's path on the server.
    pub fn path(self) -> &'static str {
        match self {
            Route::Bare => "/bench/echo",
            Route::Durable => "/bench/durable-echo",
        }
    }

    /// The prefix of this echo's error kinds in the report.
    fn errors(self) -> &'static str {
        match self {
            Route::Bare => "echo",
            Route::Durable => "durable_echo",
        }
    }
}

/// What the echo sockets measured.
#[derive(Debug, Default)]
pub struct EchoOutcome {
    pub rtt: Samples,
    pub errors: Errors,
    /// The route answered 404: the server was not started with `--bench-routes` (or is a
    /// version without this route).
    pub unavailable: bool,
}

/// Run `sockets` sockets on `route` of `api`'s server from `start` to `deadline`, each sending
/// one frame every `interval` (at once after the echo when `interval` is zero).
pub async fn run(
    api: wire::Api,
    route: Route,
    sockets: usize,
    bytes: usize,
    interval: Duration,
    start: Instant,
    deadline: Instant,
) -> EchoOutcome {
    let payload = payload(bytes);
    let url = api.ws_url(route.path());
    let mut tasks = Vec::new();
    for _ in 0..sockets {
        let (url, payload) = (url.clone(), payload.clone());
        tasks.push(tokio::spawn(async move {
            let socket = wire::connect(&url).await;
            tokio::time::sleep_until(start).await;
            match socket {
                Ok(s) => one(s, route, &payload, interval, deadline).await,
                // The route answered 404: no bench routes. Any other HTTP answer to the
                // upgrade (a cap on connections, say) is an error of the run, below.
                Err(WireError::Ws(tungstenite::Error::Http(r))) if r.status() == 404 => {
                    EchoOutcome {
                        unavailable: true,
                        ..EchoOutcome::default()
                    }
                }
                // Anything else (refused, out of file descriptors, another HTTP status…) is
                // an error of the run.
                Err(e) => {
                    let mut out = EchoOutcome::default();
                    out.errors.add(format!("{}_{}", route.errors(), e.kind()));
                    out
                }
            }
        }));
    }
    let mut out = EchoOutcome::default();
    for t in tasks {
        match t.await {
            Ok(o) => {
                out.rtt.merge(o.rtt);
                out.errors.merge(o.errors);
                out.unavailable |= o.unavailable;
            }
            Err(_) => out.errors.add("task_panicked"),
        }
    }
    out
}

async fn one(
    mut socket: wire::Socket,
    route: Route,
    payload: &str,
    interval: Duration,
    deadline: Instant,
) -> EchoOutcome {
    let mut out = EchoOutcome::default();
    let kind = |what: &str| format!("{}_{what}", route.errors());
    let mut next = Instant::now();
    while next < deadline {
        tokio::time::sleep_until(next).await;
        let sent = Instant::now();
        if let Err(e) = socket.send(Message::text(payload)).await {
            out.errors.add(kind(&WireError::from(e).kind()));
            break;
        }
        match tokio::time::timeout(Duration::from_secs(30), wire::next_text(&mut socket)).await {
            Ok(Ok(t)) if t.as_str() == payload => out.rtt.record(sent.elapsed()),
            Ok(Ok(_)) => out.errors.add(kind("mismatch")),
            Ok(Err(e)) => {
                out.errors.add(kind(&e.kind()));
                break;
            }
            Err(_) => {
                out.errors.add(kind("timeout"));
                break;
            }
        }
        next = sent + interval;
    }
    let _ = socket.close(None).await;
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn payloads_are_json_of_the_size_asked() {
        let p = super::payload(26_000);
        assert_eq!(p.len(), 26_000);
        assert!(serde_json::from_str::<serde_json::Value>(&p).is_ok());
        assert_eq!(super::payload(0), super::ACTION);
    }
}
