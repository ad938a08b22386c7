//! The limits that keep one client from filling, starving or stalling the server, with their
//! defaults (docs/security.md lists each with its flag, and how it is tested).
//!
//! Per socket: how large a frame may be and how fast a client may send — a frame over a limit
//! is refused with its own error code, and the socket stays open unless the client keeps
//! flooding long after being told. Per server: [`Limits`], set by `siege serve`'s flags.

use ipnet::IpNet;
use std::time::Duration;
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

/// How far a connection may fall behind the game before it is dropped to "resync": while the
/// frames waiting for its socket exceed this many bytes, further updates are not queued, and
/// once the socket takes frames again it is sent one fresh state (a stalled reader holds a
/// bounded amount of memory, not the game's history).
pub const MAX_BEHIND_BYTES: usize = 32 * 1024;
/// How much a socket's WebSocket layer buffers before writing to the kernel. Small, because a
/// stalled reader holds this much; an action's events and state frames still leave in one
/// write when the state frame is larger (it always is).
pub const WRITE_BUFFER: usize = 16 * 1024;
/// The most bytes a request's head (request line and headers) may take (431 beyond): hyper
/// buffers the head while it arrives, and a slow client must not make it hold hundreds of
/// kilobytes.
pub const MAX_HEAD: usize = 32 * 1024;
/// How long a WebSocket's closing frame may take to leave: a stalled reader must not hold up
/// shutdown.
pub const CLOSE_WITHIN: Duration = Duration::from_secs(2);
/// File descriptors kept free below the process's limit when the connection cap is derived
/// from it: the database and its WAL (per pooled connection), the listener, the runtime, the
/// lock file and the log.
pub const FD_RESERVE: u64 = 96;
/// Past states (`state?at=N`, finished games' views) kept ready to send.
pub const PAST_STATES: usize = 64;
/// Days a decision may wait in a game without a clock before the other side may claim it.
pub const ABANDON_DAYS: u64 = 30;

/// The server-wide limits: creation and joining rates, open games per creator, expiry of
/// games nobody joined, connection caps and timeouts, and the pool for expensive requests.
/// A rate or cap of 0 turns that limit off (benchmarks, trusted deployments).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Games one client may create per minute (bursts of as many).
    pub create_per_minute: u32,
    /// Seats one client may take per minute (bursts of as many).
    pub join_per_minute: u32,
    /// Accounts one client may create per minute (bursts of as many).
    pub signup_per_minute: u32,
    /// Log-in attempts (and password changes) one client may make per minute.
    pub login_per_minute: u32,
    /// A session unused for this long is signed out.
    pub session_idle: Duration,
    /// Games one creator may have open (waiting for an opponent) at once.
    pub max_open_games: u32,
    /// A game nobody joined, untouched for this long, is deleted; `None`: never.
    pub expire_unjoined: Option<Duration>,
    /// In a game without a clock, a decision left waiting this long may be claimed against
    /// (the game abandoned); `None`: never.
    pub abandon_after: Option<Duration>,
    /// Proxies whose `X-Forwarded-For` names the client; every other peer is the client.
    pub trusted_proxies: Vec<IpNet>,
    /// Open connections, all clients together (further capped by the file limit).
    pub max_connections: usize,
    /// Open connections from one client address (IPv6: one /64); trusted proxies are exempt.
    pub max_connections_per_address: usize,
    /// A request's headers must arrive within this; it also ends idle keep-alive connections.
    pub header_timeout: Duration,
    /// A connection on which nothing moves for this long is closed; a quiet WebSocket is
    /// pinged before.
    pub idle_timeout: Duration,
    /// Threads (at low priority) for expensive requests: past states and analysis.
    pub heavy_threads: usize,
    /// Expensive requests waiting for a thread before more are refused with `busy`.
    pub heavy_queue: usize,
    /// The most work one expensive request may take.
    pub work_budget: Duration,
    /// The largest analysis answer, in bytes.
    pub max_answer: usize,
    /// Chat messages: the longest, and how many one sender may send a minute.
    pub chat: crate::games::chat::ChatLimits,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            create_per_minute: 10,
            join_per_minute: 30,
            signup_per_minute: 5,
            login_per_minute: 10,
            session_idle: Duration::from_secs(30 * 24 * 3600),
            max_open_games: 20,
            expire_unjoined: Some(Duration::from_secs(14 * 24 * 3600)),
            abandon_after: Some(Duration::from_secs(ABANDON_DAYS * 24 * 3600)),
            trusted_proxies: Vec::new(),
            max_connections: 20_000,
            max_connections_per_address: 256,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            heavy_threads: default_heavy_threads(),
            heavy_queue: 16,
            work_budget: Duration::from_secs(2),
            max_answer: 512 * 1024,
            chat: crate::games::chat::ChatLimits::default(),
        }
    }
}

impl Limits {
    /// No rate, count or connection cap: for benchmarks and tests that create games by the
    /// hundred from one address. Timeouts and the expensive-request pool stay.
    pub fn unlimited() -> Limits {
        Limits {
            create_per_minute: 0,
            join_per_minute: 0,
            signup_per_minute: 0,
            login_per_minute: 0,
            max_open_games: 0,
            max_connections_per_address: 0,
            ..Limits::default()
        }
    }
}

/// Half the cores, at least one: the other half stays free for the live games.
pub fn default_heavy_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

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
