//! Per-socket limits: how large a frame may be and how fast a client may send. A frame over a
//! limit is refused with its own error code; the socket stays open unless the client keeps
//! flooding long after being told.

use tokio::time::Instant;

/// The largest client frame read, in bytes (docs/protocol.md: 64 KiB).
pub const MAX_FRAME: usize = 64 * 1024;
/// The transport refuses frames above this outright (the socket then closes with 1009);
/// between [`MAX_FRAME`] and this, the frame is refused with `frame_too_large` and the
/// socket is kept.
pub const MAX_TRANSPORT_FRAME: usize = 1024 * 1024;
/// How much a socket reads from the kernel at a time. The WebSocket library zero-fills this
/// much of its read buffer on EVERY poll of a socket — and a connection's socket is polled
/// again each time the game broadcasts — so its 128 KiB default cost a 128 KiB memset per
/// connection per action (10 % of the server's CPU with two players, gigabytes a second with
/// thousands of spectators) and 128 KiB of memory per connection. Client frames are small;
/// a larger one is read in several calls.
pub const READ_BUFFER: usize = 4 * 1024;
/// Frames a socket may send per second, sustained, unless configured otherwise
/// (`siege serve --frame-rate`); bursts of twice as many pass.
pub const RATE_PER_SECOND: u32 = 50;
/// A socket that has not said who it is by then is closed: an unattached socket holds no
/// connection place, so it must not linger.
pub const FIRST_FRAME_WITHIN: std::time::Duration = std::time::Duration::from_secs(30);
/// Refused frames in a row after which a flooding socket is closed.
pub const MAX_REFUSED_IN_A_ROW: u32 = 1000;
/// Connections per game, players and spectators together; room for a 10,000-spectator
/// benchmark.
pub const MAX_CONNECTIONS_PER_GAME: usize = 20_000;

/// A token bucket: `burst` frames at once, refilled at `rate` per second.
#[derive(Debug)]
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl RateLimiter {
    /// `rate` frames a second, in bursts of up to twice that.
    pub fn per_second(rate: u32) -> RateLimiter {
        RateLimiter::new(rate, rate.saturating_mul(2).max(1))
    }

    pub fn new(rate: u32, burst: u32) -> RateLimiter {
        RateLimiter {
            rate: f64::from(rate),
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last: Instant::now(),
        }
    }

    /// Whether one more frame may pass now.
    pub fn allow(&mut self) -> bool {
        self.allow_at(Instant::now())
    }

    /// The limit in words, for the refusal: "at most R frames a second (bursts of B)".
    pub fn describe(&self) -> String {
        format!(
            "at most {} frames a second (bursts of {})",
            self.rate, self.burst
        )
    }

    fn allow_at(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let mut r = RateLimiter::new(50, 100);
        let t0 = Instant::now();
        assert!((0..100).all(|_| r.allow_at(t0)));
        assert!(!r.allow_at(t0));
        let t1 = t0 + Duration::from_millis(100);
        assert!((0..5).all(|_| r.allow_at(t1)));
        assert!(!r.allow_at(t1));
        assert_eq!(
            RateLimiter::per_second(50).describe(),
            "at most 50 frames a second (bursts of 100)"
        );
    }
}
