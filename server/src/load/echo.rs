//! The bare-echo baseline: sockets to `GET /bench/echo` (served with `siege serve
//! --bench-routes`) that send an action-sized frame and time its echo, throughout the same
//! window as the games. The ratio of the game's round trip to this one is what compares across
//! machines and across noisy runs: both pay the same kernel, loopback, WebSocket framing and
//! scheduler costs at the same moment, and only the game pays for the rules, the store and the
//! fan-out.

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

/// What the echo sockets measured.
#[derive(Debug, Default)]
pub struct EchoOutcome {
    pub rtt: Samples,
    pub errors: Errors,
    /// The route answered 404 or the upgrade failed: the server was not started with
    /// `--bench-routes`.
    pub unavailable: bool,
}

/// Run `sockets` echo sockets from `start` to `deadline`, each sending one frame every
/// `interval` (at once after the echo when `interval` is zero).
pub async fn run(
    url: String,
    sockets: usize,
    bytes: usize,
    interval: Duration,
    start: Instant,
    deadline: Instant,
) -> EchoOutcome {
    let payload = payload(bytes);
    let mut tasks = Vec::new();
    for _ in 0..sockets {
        let (url, payload) = (url.clone(), payload.clone());
        tasks.push(tokio::spawn(async move {
            let socket = wire::connect(&url).await;
            tokio::time::sleep_until(start).await;
            match socket {
                Ok(s) => one(s, &payload, interval, deadline).await,
                // The server answered the upgrade with an HTTP response (404): no bench routes.
                Err(WireError::Ws(tungstenite::Error::Http(_))) => EchoOutcome {
                    unavailable: true,
                    ..EchoOutcome::default()
                },
                // Anything else (refused, out of file descriptors…) is an error of the run.
                Err(e) => {
                    let mut out = EchoOutcome::default();
                    out.errors.add(format!("echo_{}", e.kind()));
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
    payload: &str,
    interval: Duration,
    deadline: Instant,
) -> EchoOutcome {
    let mut out = EchoOutcome::default();
    let mut next = Instant::now();
    while next < deadline {
        tokio::time::sleep_until(next).await;
        let sent = Instant::now();
        if let Err(e) = socket.send(Message::text(payload)).await {
            out.errors
                .add(format!("echo_{}", WireError::from(e).kind()));
            break;
        }
        match tokio::time::timeout(Duration::from_secs(30), wire::next_text(&mut socket)).await {
            Ok(Ok(t)) if t.as_str() == payload => out.rtt.record(sent.elapsed()),
            Ok(Ok(_)) => out.errors.add("echo_mismatch"),
            Ok(Err(e)) => {
                out.errors.add(format!("echo_{}", e.kind()));
                break;
            }
            Err(_) => {
                out.errors.add("echo_timeout");
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
