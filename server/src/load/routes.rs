//! The benchmark routes a server mounts with `siege serve --bench-routes`, beside the load
//! generator that reads them and apart from the game path: `GET /bench/echo`, a bare WebSocket
//! echo on the same server, runtime and sockets as the games (the baseline every round trip is
//! compared with); `GET /bench/durable-echo`, the same echo after one durable write through the
//! server's own store writer (the floor of a durable round trip: the server's commit path and
//! one echo, with no game behind it); `GET /bench/fanout`, a broadcast with no game behind it
//! (the floor of a spectators' fan-out: a frame one socket sends goes back to it, then to
//! every other socket on the route through one broadcast channel, as an action's frames go to
//! its player and then to the game's spectators); and `GET /bench/stages`, the [`StageTimes`]
//! the server's probe recorded since the last call.

use super::stages::StageTimes;
use crate::server::limits;
use crate::store::writer::Writer;
use axum::Router;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::SinkExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// What the benchmark routes share.
#[derive(Clone)]
struct Bench {
    stages: Arc<StageTimes>,
    /// The server's store writer, which the durable echo writes through.
    writer: Writer,
    shutdown: CancellationToken,
    /// The server's socket tracker: shutdown waits for echo sockets too.
    sockets: TaskTracker,
    /// `GET /bench/fanout`'s broadcast: each frame with the number of the socket that sent it
    /// (which had it back already).
    fanout: broadcast::Sender<(u64, Utf8Bytes)>,
    /// The next fan-out socket's number.
    fanout_sockets: Arc<AtomicU64>,
}

/// `GET /bench/fanout`'s channel: each frame with the number of the socket that sent it.
type FanoutFeed = (
    broadcast::Sender<(u64, Utf8Bytes)>,
    broadcast::Receiver<(u64, Utf8Bytes)>,
);

/// Frames a fan-out socket may fall behind by before it skips some, as a game's broadcast
/// lets a spectator that far behind resync.
const FANOUT_BACKLOG: usize = 64;

/// The benchmark routes, reporting `stages`; the durable echo writes through `writer` (a
/// clone of the server's own); echo sockets close on `shutdown` and are tracked by `sockets`.
pub fn bench(
    stages: Arc<StageTimes>,
    writer: Writer,
    shutdown: CancellationToken,
    sockets: TaskTracker,
) -> Router {
    Router::new()
        .route("/bench/echo", get(echo_socket))
        .route("/bench/durable-echo", get(durable_echo_socket))
        .route("/bench/fanout", get(fanout_socket))
        .route("/bench/stages", get(stages_report))
        .with_state(Bench {
            stages,
            writer,
            shutdown,
            sockets,
            fanout: broadcast::channel(FANOUT_BACKLOG).0,
            fanout_sockets: Arc::default(),
        })
}

/// `GET /bench/echo`.
async fn echo_socket(State(bench): State<Bench>, upgrade: WebSocketUpgrade) -> Response {
    upgraded(bench, upgrade, false)
}

/// `GET /bench/durable-echo`: every frame is echoed only once [`Writer::probe`] has rewritten
/// the health row through the writer's own task and connection, the path every action's commit
/// takes.
///
/// The probes queue with the actions: when the writer wakes it takes every message waiting,
/// commits the actions among them as one transaction (group commit), and then rewrites the
/// health row once for all the probes among them. So concurrent durable echoes share one write,
/// as concurrent actions share one commit, and an echo that arrives while a commit is in flight
/// waits for it, as an action does; but an echo that arrives together with actions waits for
/// their commit and then for its own write, where an action waits for one commit. The probes
/// are not counted among the writer's commits (`/bench/stages`, the commit metrics); a
/// successful one is the writer's last write in `/healthz`.
async fn durable_echo_socket(State(bench): State<Bench>, upgrade: WebSocketUpgrade) -> Response {
    upgraded(bench, upgrade, true)
}

/// Upgrade to an echo socket, `durable` or not, tracked by the server's socket tracker.
fn upgraded(bench: Bench, upgrade: WebSocketUpgrade, durable: bool) -> Response {
    let sockets = bench.sockets.clone();
    let writer = durable.then_some(bench.writer);
    limited(upgrade)
        .on_upgrade(move |socket| sockets.track_future(echo(socket, bench.shutdown, writer)))
        .into_response()
}

/// A benchmark socket reads and accepts what a game's socket does.
fn limited(upgrade: WebSocketUpgrade) -> WebSocketUpgrade {
    upgrade
        .read_buffer_size(limits::READ_BUFFER)
        .max_message_size(limits::MAX_TRANSPORT_FRAME)
}

/// `GET /bench/fanout[?copies=K]`: every text frame a socket sends comes back to it at once
/// and is then broadcast to every other socket on the route — the path of an action's frames
/// (to the player who acted, then through the game's broadcast to its spectators) with no game,
/// no store and no per-reader work behind it, so that a load of N sockets on it measures what
/// the transport, the runtime and the broadcast alone cost a fan-out to N readers. Each socket
/// is sent every frame K times (1 to 4, by default 1), written together and flushed once: a
/// spectator is sent an update as two frames, its events and its patch.
async fn fanout_socket(
    State(bench): State<Bench>,
    Query(copies): Query<Copies>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let sockets = bench.sockets.clone();
    let me = bench.fanout_sockets.fetch_add(1, Ordering::Relaxed);
    let feed = bench.fanout.subscribe();
    let copies = copies.copies.unwrap_or(1).clamp(1, 4);
    limited(upgrade)
        .on_upgrade(move |socket| {
            let feeds = (bench.fanout, feed);
            sockets.track_future(fanout(socket, me, copies, feeds, bench.shutdown))
        })
        .into_response()
}

/// `GET /bench/fanout`'s query.
#[derive(serde::Deserialize)]
struct Copies {
    copies: Option<usize>,
}

/// One fan-out socket (number `me`): its frames back to it and out to the others; the
/// others' frames to it, `copies` times each. A reader that falls [`FANOUT_BACKLOG`] frames
/// behind skips what it missed.
async fn fanout(
    mut socket: WebSocket,
    me: u64,
    copies: usize,
    (out, mut feed): FanoutFeed,
    shutdown: CancellationToken,
) {
    loop {
        let (frame, own) = tokio::select! {
            () = shutdown.cancelled() => {
                close(&mut socket, close_code::AWAY, "server shutting down").await;
                return;
            }
            msg = socket.recv() => match msg {
                // Back to the sender first, as an action's frames go to its player first.
                Some(Ok(Message::Text(text))) => (text, true),
                Some(Ok(_)) => continue,
                _ => return,
            },
            got = feed.recv() => match got {
                Ok((from, _)) if from == me => continue,
                Ok((_, text)) => (text, false),
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
        };
        let sent = async {
            for _ in 0..copies {
                socket.feed(Message::Text(frame.clone())).await?;
            }
            socket.flush().await
        };
        // A client that stopped reading blocks the write: shutdown must not wait for it.
        match shutdown.run_until_cancelled(sent).await {
            Some(Ok(())) => {}
            Some(Err(_)) => return,
            None => return close(&mut socket, close_code::AWAY, "server shutting down").await,
        }
        if own {
            let _ = out.send((me, frame));
        }
    }
}

/// `GET /bench/stages`: the stage times since the last call, then afresh.
async fn stages_report(State(bench): State<Bench>) -> Response {
    axum::Json(bench.stages.take()).into_response()
}

/// Echo every frame until the client leaves or the server shuts down — with a `writer`, only
/// after one write through it; a failed write closes the socket with an error, the frame not
/// echoed.
async fn echo(mut socket: WebSocket, shutdown: CancellationToken, writer: Option<Writer>) {
    loop {
        let frame = tokio::select! {
            () = shutdown.cancelled() => {
                close(&mut socket, close_code::AWAY, "server shutting down").await;
                return;
            }
            msg = socket.recv() => match msg {
                Some(Ok(frame @ (Message::Text(_) | Message::Binary(_)))) => frame,
                Some(Ok(_)) => continue,
                _ => return,
            }
        };
        if let Some(writer) = &writer
            && let Err(e) = writer.probe().await
        {
            tracing::warn!(error = %e, "durable echo: the write failed");
            close(&mut socket, close_code::ERROR, "the durable write failed").await;
            return;
        }
        // A client that stopped reading blocks the write: shutdown must not wait for it.
        match shutdown.run_until_cancelled(socket.send(frame)).await {
            Some(Ok(())) => {}
            Some(Err(_)) => return,
            None => return close(&mut socket, close_code::AWAY, "server shutting down").await,
        }
    }
}

/// How long a close frame may wait for a client that does not read.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Send a close frame of `code` and `reason` (the client may be gone already, or not reading:
/// then it is given up after [`CLOSE_WAIT`]). A frame whose writing shutdown cut off is still
/// in the socket's buffer, and goes whole before the close.
async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    };
    let _ = tokio::time::timeout(CLOSE_WAIT, socket.send(Message::Close(Some(frame)))).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::on_db;
    use crate::store::scratch::{Kind, Scratch, on_both};
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message as Client;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

    on_both!(
        the_durable_echo_writes_before_it_echoes,
        a_failed_durable_write_closes_the_socket_unechoed,
    );

    /// Serve the benchmark routes, writing through `writer`, on a free port: their `ws://`
    /// base and the shutdown token.
    async fn serve(writer: Writer) -> (String, CancellationToken) {
        let (base, shutdown, _) = serve_tracked(writer).await;
        (base, shutdown)
    }

    /// [`serve`], with the tracker of its sockets.
    async fn serve_tracked(writer: Writer) -> (String, CancellationToken, TaskTracker) {
        let shutdown = CancellationToken::new();
        let sockets = TaskTracker::new();
        let app = bench(Arc::default(), writer, shutdown.clone(), sockets.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("ws://{addr}"), shutdown, sockets)
    }

    /// Rows in the health table, which only the writer's probe writes.
    async fn health_rows(store: &Store) -> i64 {
        let (n,): (i64,) = on_db!(store.pool(), |pool, pg| {
            sqlx::query_as("SELECT count(*) FROM health")
                .fetch_one(pool)
                .await
                .unwrap()
        });
        n
    }

    /// The next frame from the server, within a few seconds.
    async fn next(socket: &mut crate::load::wire::Socket) -> Client {
        tokio::time::timeout(std::time::Duration::from_secs(10), socket.next())
            .await
            .expect("an answer in time")
            .expect("the socket is open")
            .expect("a frame")
    }

    async fn the_durable_echo_writes_before_it_echoes(kind: Kind) {
        let dir = Scratch::new(kind, "durable-echo").await;
        let store = Store::open(&dir.url).await.unwrap();
        let (writer, task) = Writer::start(store.clone());
        let (base, shutdown) = serve(writer.clone()).await;

        // The bare echo writes nothing.
        let (mut bare, _) = tokio_tungstenite::connect_async(format!("{base}/bench/echo"))
            .await
            .unwrap();
        bare.send(Client::text("bare")).await.unwrap();
        assert_eq!(next(&mut bare).await, Client::text("bare"));
        assert_eq!(health_rows(&store).await, 0);
        assert_eq!(writer.health().last_at(), None, "no write yet");

        // The durable echo has written when its echo arrives, for text and binary frames.
        let (mut durable, _) =
            tokio_tungstenite::connect_async(format!("{base}/bench/durable-echo"))
                .await
                .unwrap();
        durable.send(Client::text("durable")).await.unwrap();
        assert_eq!(next(&mut durable).await, Client::text("durable"));
        assert_eq!(health_rows(&store).await, 1, "the health row was written");
        assert!(writer.health().last_ok());
        assert!(writer.health().last_at().is_some());
        durable.send(Client::binary(vec![1, 2, 3])).await.unwrap();
        assert_eq!(next(&mut durable).await, Client::binary(vec![1, 2, 3]));

        // Shutdown closes both as going away.
        shutdown.cancel();
        for socket in [&mut bare, &mut durable] {
            match next(socket).await {
                Client::Close(Some(f)) => assert_eq!(f.code, CloseCode::Away),
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
        writer.close().await;
        task.await.unwrap();
        store.close().await;
        dir.remove();
    }

    /// A bench socket whose client sends and never reads leaves the server's task blocked
    /// writing to it; shutdown still ends that task (the fan-out's and the echo's) instead of
    /// waiting for the client for ever.
    #[tokio::test]
    async fn shutdown_does_not_wait_for_a_client_that_stopped_reading() {
        let dir = Scratch::new(Kind::Sqlite, "stalled").await;
        let store = Store::open(&dir.url).await.unwrap();
        let (writer, task) = Writer::start(store.clone());
        let (base, shutdown, tracker) = serve_tracked(writer.clone()).await;
        let mut clients = Vec::new();
        for route in ["/bench/fanout?copies=4", "/bench/echo"] {
            let (socket, _) = tokio_tungstenite::connect_async(format!("{base}{route}"))
                .await
                .unwrap();
            let (mut tx, rx) = socket.split();
            // Far more than the loopback's buffers hold, never read back: the server's writes
            // block. The client's own writes block in turn, so they run on their own.
            clients.push(tokio::spawn(async move {
                let frame = "x".repeat(256 * 1024);
                for _ in 0..400 {
                    if tx.send(Client::text(frame.clone())).await.is_err() {
                        break;
                    }
                }
                (tx, rx)
            }));
        }
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        shutdown.cancel();
        tracker.close();
        tokio::time::timeout(std::time::Duration::from_secs(15), tracker.wait())
            .await
            .expect("every bench socket's task ended at shutdown");
        for c in clients {
            c.abort();
        }
        writer.close().await;
        task.await.unwrap();
        store.close().await;
        dir.remove();
    }

    /// `GET /bench/fanout`: a frame goes back to its sender and to every other socket, as many
    /// times as each asked (`?copies=`), in the order sent; shutdown closes them all.
    #[tokio::test]
    async fn the_fanout_route_sends_each_frame_to_every_socket_as_asked() {
        let dir = Scratch::new(Kind::Sqlite, "fanout").await;
        let store = Store::open(&dir.url).await.unwrap();
        let (writer, task) = Writer::start(store.clone());
        let (base, shutdown) = serve(writer.clone()).await;
        let mut sockets = Vec::new();
        for query in ["", "", "?copies=1", "?copies=2"] {
            let (s, _) = tokio_tungstenite::connect_async(format!("{base}/bench/fanout{query}"))
                .await
                .unwrap();
            sockets.push(s);
        }
        // Every socket is subscribed once its upgrade has answered.
        for (from, text) in [
            (0, "one"),
            (2, "two"),
            (0, "three"),
            (3, "four"),
            (1, "five"),
        ] {
            sockets[from].send(Client::text(text)).await.unwrap();
            // Each socket's next frames are this one's copies: none had an earlier frame more
            // often than it asked (its own, which it had back first, or another's).
            for (i, s) in sockets.iter_mut().enumerate() {
                for _ in 0..if i == 3 { 2 } else { 1 } {
                    assert_eq!(next(s).await, Client::text(text), "socket {i}");
                }
            }
        }
        assert_eq!(health_rows(&store).await, 0, "the fan-out writes nothing");
        shutdown.cancel();
        for s in &mut sockets {
            match next(s).await {
                Client::Close(Some(f)) => assert_eq!(f.code, CloseCode::Away),
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
        writer.close().await;
        task.await.unwrap();
        store.close().await;
        dir.remove();
    }

    async fn a_failed_durable_write_closes_the_socket_unechoed(kind: Kind) {
        let dir = Scratch::new(kind, "durable-echo").await;
        let store = Store::open(&dir.url).await.unwrap();
        let (writer, task) = Writer::start(store.clone());
        // A writer that has stopped: every write through it fails.
        writer.close().await;
        task.await.unwrap();
        let (base, _shutdown) = serve(writer.clone()).await;
        let (mut durable, _) =
            tokio_tungstenite::connect_async(format!("{base}/bench/durable-echo"))
                .await
                .unwrap();
        durable.send(Client::text("durable")).await.unwrap();
        match next(&mut durable).await {
            Client::Close(Some(f)) => assert_eq!(f.code, CloseCode::Error),
            other => panic!("expected an error close and no echo, got {other:?}"),
        }
        assert_eq!(health_rows(&store).await, 0);
        store.close().await;
        dir.remove();
    }
}
