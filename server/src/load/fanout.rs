//! The fan-out floor: sockets on `GET /bench/fanout` (served with `siege serve --bench-routes`)
//! where one of them sends a spectator-sized update every interval and every other one times
//! its arrival — measured, as a game's fan-out is, from the moment the sender had its own copy
//! back. An update is sent as `--fanout-floor-frames` frames (two by default: a spectator is
//! sent its events and its patch), together as many bytes as `--fanout-floor-bytes`, and has
//! arrived when its last frame has. The server does for these frames what it does for a game's update (one broadcast
//! channel, one send per reader) but nothing else: no rules, no store, no frames made per
//! audience. So the fan-out of this run is what the transport, the runtime and the broadcast
//! cost N readers on this machine, with the load generator's own reading on the same cores —
//! the floor under a game's fan-out to as many spectators.

use super::stats::{Errors, Samples};
use super::wire::{self, WireError};
use futures_util::SinkExt;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self, Message};

/// The last frame of a run: readers stop when it arrives.
const END: &str = r#"{"n":"end"}"#;

/// The number of the first frame, sent at the start and not timed: each reader's first frame
/// (its first read, its buffers) comes before the window, as a spectator's first state does.
const WARM_UP: u64 = 0;

/// How long a reader waits past the deadline for the end frame.
const GRACE: Duration = Duration::from_secs(30);

/// What the fan-out floor's sockets measured.
#[derive(Debug, Default)]
pub struct FanoutOutcome {
    /// Sender's own copy back → each reader's copy, one sample per reader and frame.
    pub delays: Samples,
    /// Updates the sender sent and had back (the warm-up not counted).
    pub updates: u64,
    /// Readers' receipts of a frame the sender never had back (should stay 0).
    pub unmatched: u64,
    /// Timed updates some reader never received (it fell behind and the server let it skip
    /// them, or it stopped): each is also counted as an error, as its delay is missing from
    /// the distribution.
    pub missing: u64,
    pub errors: Errors,
    /// The route answered 404: the server was not started with `--bench-routes`.
    pub unavailable: bool,
}

/// The frame numbered `n`, padded with spaces to `bytes`.
fn payload(n: u64, bytes: usize) -> String {
    let mut p = format!(r#"{{"n":{n}}}"#);
    if bytes > p.len() {
        p.insert_str(p.len() - 1, &" ".repeat(bytes - p.len()));
    }
    p
}

/// The number of a frame made by [`payload`]; `None` for the end frame or anything else.
fn number(text: &str) -> Option<u64> {
    let digits = text.strip_prefix(r#"{"n":"#)?;
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse().ok()
}

/// Connect `sockets` sockets to `api`'s fan-out route, at most `gate`'s permits at once; the
/// first is the sender. Before the measured window, like the tables.
pub async fn connect(
    api: &wire::Api,
    sockets: usize,
    frames: usize,
    gate: &Arc<Semaphore>,
) -> Result<Vec<wire::Socket>, FanoutOutcome> {
    let url = api.ws_url(&format!("/bench/fanout?copies={frames}"));
    let mut tasks = Vec::with_capacity(sockets);
    for _ in 0..sockets {
        let (url, gate) = (url.clone(), gate.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire_owned().await;
            wire::connect(&url).await
        }));
    }
    let mut connected = Vec::with_capacity(sockets);
    let mut failed = FanoutOutcome::default();
    for t in tasks {
        match t.await {
            Ok(Ok(s)) => connected.push(s),
            // The route answered 404: no bench routes. Any other refusal is an error.
            Ok(Err(WireError::Ws(tungstenite::Error::Http(r)))) if r.status() == 404 => {
                failed.unavailable = true;
            }
            Ok(Err(e)) => failed.errors.add(format!("fanout_{}", e.kind())),
            Err(_) => failed.errors.add("task_panicked"),
        }
    }
    if failed.unavailable || failed.errors.total() > 0 {
        return Err(failed);
    }
    Ok(connected)
}

/// From `start` to `deadline`: the first socket sends an update of `bytes` in `frames` frames
/// (each socket having asked the route for that many copies) every `interval`, the first of
/// them a warm-up, not timed; every other socket notes when each has arrived.
pub async fn run(
    mut sockets: Vec<wire::Socket>,
    bytes: usize,
    frames: usize,
    interval: Duration,
    start: Instant,
    deadline: Instant,
) -> FanoutOutcome {
    let mut out = FanoutOutcome::default();
    if sockets.is_empty() {
        return out;
    }
    let sender = sockets.remove(0);
    let readers: Vec<_> = sockets
        .into_iter()
        .map(|s| tokio::spawn(read(s, frames, deadline)))
        .collect();
    tokio::time::sleep_until(start).await;
    let (back, errors) = send(sender, bytes / frames, frames, interval, deadline).await;
    out.updates = back.range(WARM_UP + 1..).count() as u64;
    out.errors.merge(errors);
    let expected = out.updates * readers.len() as u64;
    for r in readers {
        match r.await {
            Ok((arrivals, errors)) => {
                out.errors.merge(errors);
                for (n, at) in arrivals {
                    match back.get(&n) {
                        // The warm-up frame, as a spectator's first state, is not timed.
                        Some(_) if n == WARM_UP => {}
                        Some(had) => out.delays.record(at.saturating_duration_since(*had)),
                        None => out.unmatched += 1,
                    }
                }
            }
            Err(_) => out.errors.add("task_panicked"),
        }
    }
    out.missing = expected.saturating_sub(out.delays.len() as u64);
    for _ in 0..out.missing {
        out.errors.add("fanout_missing");
    }
    out
}

/// The sender: a numbered frame every `interval` until `deadline`, each timed when its last
/// copy of `copies` comes back; then the end frame. Returns when each frame came back.
async fn send(
    mut socket: wire::Socket,
    bytes: usize,
    copies: usize,
    interval: Duration,
    deadline: Instant,
) -> (BTreeMap<u64, Instant>, Errors) {
    let (mut back, mut errors) = (BTreeMap::new(), Errors::default());
    let mut next = Instant::now();
    let mut last_sent = next;
    let mut n = 0u64;
    while next < deadline {
        tokio::time::sleep_until(next).await;
        let frame = payload(n, bytes);
        if let Err(e) = socket.send(Message::text(frame)).await {
            errors.add(format!("fanout_{}", WireError::from(e).kind()));
            return (back, errors);
        }
        // Its copies, the last timed; anything else is counted and does not take their place.
        let mut copy = 0;
        while copy < copies {
            match next_within(&mut socket, Instant::now() + GRACE).await {
                Ok(t) if number(t.as_str()) == Some(n) => {
                    copy += 1;
                    if copy == copies {
                        back.insert(n, Instant::now());
                    }
                }
                Ok(_) => errors.add("fanout_mismatch"),
                Err(kind) => {
                    errors.add(kind);
                    return (back, errors);
                }
            }
        }
        last_sent = next;
        n += 1;
        next += interval;
    }
    // The end frame, which makes every reader close its socket, waits for the deadline and
    // for an interval after the last update: the closing must not overlap a fan-out.
    tokio::time::sleep_until(deadline.max(last_sent + interval)).await;
    // The server broadcasts a frame after sending it back: wait for the end frame's copy
    // before closing, or the readers would never have it.
    match socket.send(Message::text(END)).await {
        Ok(()) => loop {
            match next_within(&mut socket, Instant::now() + GRACE).await {
                Ok(t) if t.as_str() == END => break,
                Ok(_) => {}
                Err(kind) => {
                    errors.add(kind);
                    break;
                }
            }
        },
        Err(e) => errors.add(format!("fanout_{}", WireError::from(e).kind())),
    }
    let _ = socket.close(None).await;
    (back, errors)
}

/// A reader: when the last of `copies` copies of each numbered frame arrived, until the end
/// frame (or the deadline and [`GRACE`] after it).
async fn read(
    mut socket: wire::Socket,
    copies: usize,
    deadline: Instant,
) -> (Vec<(u64, Instant)>, Errors) {
    let (mut arrivals, mut errors) = (Vec::new(), Errors::default());
    // The frame being received and how many of its copies have come.
    let (mut current, mut seen) = (None, 0);
    loop {
        match next_within(&mut socket, deadline + GRACE).await {
            Ok(t) => {
                let at = Instant::now();
                match number(t.as_str()) {
                    Some(n) => {
                        if current == Some(n) {
                            seen += 1;
                        } else {
                            (current, seen) = (Some(n), 1);
                        }
                        if seen == copies {
                            arrivals.push((n, at));
                        }
                    }
                    None if t.as_str() == END => break,
                    None => errors.add("fanout_mismatch"),
                }
            }
            Err(kind) => {
                errors.add(kind);
                break;
            }
        }
    }
    let _ = socket.close(None).await;
    (arrivals, errors)
}

/// The next text frame before `until`, or the kind of error that ended the wait.
async fn next_within(
    socket: &mut wire::Socket,
    until: Instant,
) -> Result<tungstenite::Utf8Bytes, String> {
    match tokio::time::timeout_at(until, wire::next_text(socket)).await {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(e)) => Err(format!("fanout_{}", e.kind())),
        Err(_) => Err("fanout_timeout".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_padded_to_its_size_and_read_back_by_its_number() {
        let p = payload(42, 800);
        assert_eq!(p.len(), 800);
        assert!(serde_json::from_str::<serde_json::Value>(&p).is_ok());
        assert_eq!(number(&p), Some(42));
        assert_eq!(number(&payload(7, 0)), Some(7));
        assert_eq!(number(END), None);
        assert_eq!(number("{\"type\":\"state\"}"), None);
    }
}
