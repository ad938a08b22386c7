//! The accept loop: every TCP connection the server takes, and how long it may keep it.
//!
//! - A global cap on open connections (`--max-connections`, lowered to the process's file limit
//!   less [`FD_RESERVE`]: the database must always be able to open its files, and `accept` must
//!   never fail for want of a descriptor) and a cap per client address
//!   (`--max-connections-per-address`; trusted proxies are exempt). A connection over a cap is
//!   closed as soon as it is accepted, so the kernel's queue keeps moving and `/healthz` and
//!   the players' own connections still get through.
//! - A header timeout (`--header-timeout`): the headers of a request must arrive within it, and
//!   a keep-alive connection waiting for its next request is closed after it — half-sent
//!   requests cannot pile up.
//! - An idle timeout (`--idle-timeout`): a connection on which no byte moves for that long,
//!   mid-request, is closed. (A WebSocket, once upgraded, keeps its own watch: see `ws`.)
//! - An accept error (out of descriptors, say) backs off, doubling from 10 ms to 1 s, instead
//!   of spinning.
//!
//! HTTP/1.1 only, served by hyper; each request carries its peer address as axum's
//! `ConnectInfo`.

use super::client::{ClientKey, is_trusted};
use super::limits::{FD_RESERVE, Limits, MAX_HEAD};
use crate::observe::{self, Held};
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

/// The shortest and longest waits after a failed `accept`.
const BACKOFF_MIN: Duration = Duration::from_millis(10);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// The connection caps in force.
#[derive(Debug)]
pub struct Caps {
    /// Open connections allowed, all clients together.
    pub total: usize,
    /// Per client address; 0: no cap.
    pub per_address: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub trusted_proxies: Vec<ipnet::IpNet>,
}

impl Caps {
    /// The caps of `limits`, the global one lowered to fit the file limit (raised first to its
    /// hard ceiling).
    pub fn of(limits: &Limits) -> Caps {
        let files = raise_file_limit();
        let fit = files.map_or(usize::MAX, |n| {
            usize::try_from(n.saturating_sub(FD_RESERVE)).unwrap_or(usize::MAX)
        });
        let total = limits.max_connections.min(fit).max(1);
        if total < limits.max_connections {
            tracing::info!(
                files = files.unwrap_or(0),
                cap = total,
                "connections capped below --max-connections by the file limit"
            );
        }
        Caps {
            total,
            per_address: limits.max_connections_per_address,
            header_timeout: limits.header_timeout,
            idle_timeout: limits.idle_timeout,
            trusted_proxies: limits.trusted_proxies.clone(),
        }
    }
}

/// Raise the soft limit on open files to the hard limit; the soft limit in force after.
fn raise_file_limit() -> Option<u64> {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => Some(n),
        Err(e) => {
            tracing::warn!(error = %e, "could not read or raise the open-file limit");
            None
        }
    }
}

/// Connections per client address.
type PerAddress = Arc<Mutex<HashMap<ClientKey, usize>>>;

/// Serve `app` on `listener` until `shutdown`, then let every connection finish the request in
/// hand and return once all have closed (upgraded WebSockets are not waited for here).
pub async fn serve(listener: TcpListener, app: Router, caps: Caps, shutdown: CancellationToken) {
    let caps = Arc::new(caps);
    let total = Arc::new(Semaphore::new(caps.total));
    let per_address: PerAddress = Arc::default();
    let connections = TaskTracker::new();
    let mut backoff = Duration::ZERO;
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(x) => {
                backoff = Duration::ZERO;
                x
            }
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => {
                backoff = (backoff * 2).clamp(BACKOFF_MIN, BACKOFF_MAX);
                tracing::warn!(error = %e, wait_ms = backoff.as_millis(), "accept failed; backing off");
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    () = tokio::time::sleep(backoff) => continue,
                }
            }
        };
        let Some(place) = admit(&caps, &total, &per_address, peer.ip()) else {
            // Dropped at once: a refused connection holds nothing.
            continue;
        };
        if let Err(e) = stream.set_nodelay(true) {
            // Small frames go out at once: without TCP_NODELAY, Nagle's algorithm and delayed
            // ACKs add ~40 ms to every state a player waits for.
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let io = Watched::new(stream, place);
        connections.spawn(serve_connection(
            io,
            peer,
            app.clone(),
            caps.clone(),
            shutdown.clone(),
        ));
    }
    connections.close();
    connections.wait().await;
}

/// Errors of one connection (it was reset before it was accepted): nothing to back off from.
fn is_per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    )
}

/// A connection's place under the caps, given back when it closes.
#[derive(Debug)]
struct Place {
    _total: OwnedSemaphorePermit,
    address: Option<(PerAddress, ClientKey)>,
    _gauge: Held,
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some((map, key)) = self.address.take() {
            let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(n) = map.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&key);
                }
            }
        }
    }
}

/// A place for a connection from `ip`, or `None` when a cap is reached.
fn admit(
    caps: &Caps,
    total: &Arc<Semaphore>,
    per_address: &PerAddress,
    ip: IpAddr,
) -> Option<Place> {
    let Ok(permit) = total.clone().try_acquire_owned() else {
        metrics::counter!(observe::CONNECTIONS_REFUSED, "reason" => "total").increment(1);
        tracing::debug!("connection refused: the server has as many as it takes");
        return None;
    };
    let address = if caps.per_address == 0 || is_trusted(ip, &caps.trusted_proxies) {
        None
    } else {
        let key = ClientKey::of(ip);
        let mut map = per_address.lock().unwrap_or_else(PoisonError::into_inner);
        let n = map.entry(key.clone()).or_insert(0);
        if *n >= caps.per_address {
            metrics::counter!(observe::CONNECTIONS_REFUSED, "reason" => "address").increment(1);
            tracing::debug!("connection refused: this address has as many as it may");
            return None;
        }
        *n += 1;
        Some((per_address.clone(), key))
    };
    Some(Place {
        _total: permit,
        address,
        _gauge: Held::new(observe::CONNECTIONS),
    })
}

/// One connection: HTTP/1.1 with upgrades, closed when idle, drained on shutdown.
async fn serve_connection(
    io: Watched,
    peer: SocketAddr,
    app: Router,
    caps: Arc<Caps>,
    shutdown: CancellationToken,
) {
    let activity = io.activity.clone();
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        req.extensions_mut().insert(ConnectInfo(peer));
        app.clone().oneshot(req)
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(caps.header_timeout)
        .max_header_size(MAX_HEAD)
        .keep_alive(true);
    let conn = http
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(conn);
    let mut draining = false;
    loop {
        let quiet_until = activity.last() + caps.idle_timeout;
        tokio::select! {
            done = conn.as_mut() => {
                if let Err(e) = done {
                    tracing::debug!(error = %e, "connection ended");
                }
                return;
            }
            () = tokio::time::sleep_until(quiet_until) => {
                if activity.last() + caps.idle_timeout <= Instant::now() {
                    tracing::debug!("closing a connection idle for the idle timeout");
                    return;
                }
            }
            () = shutdown.cancelled(), if !draining => {
                draining = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// When bytes last moved on a connection.
#[derive(Debug)]
struct Activity {
    since: Instant,
    /// Milliseconds after `since`.
    last: AtomicU64,
}

impl Activity {
    fn touch(&self) {
        let ms = u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    fn last(&self) -> Instant {
        self.since + Duration::from_millis(self.last.load(Ordering::Relaxed))
    }
}

/// A TCP stream that notes when bytes move and holds the connection's place under the caps
/// for as long as it is open — through a WebSocket upgrade too.
#[derive(Debug)]
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    _place: Place,
}

impl Watched {
    fn new(stream: TcpStream, place: Place) -> Watched {
        Watched {
            stream,
            activity: Arc::new(Activity {
                since: Instant::now(),
                last: AtomicU64::new(0),
            }),
            _place: place,
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
