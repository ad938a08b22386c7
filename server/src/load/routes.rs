//! The benchmark routes a server mounts with `siege serve --bench-routes`, beside the load
//! generator that reads them and apart from the game path: `GET /bench/echo`, a bare WebSocket
//! echo on the same server, runtime and sockets as the games (the baseline every round trip is
//! compared with); `GET /bench/durable-echo`, the same echo after one durable write through the
//! server's own store writer (the floor of a durable round trip: the server's commit path and
//! one echo, with no game behind it); and `GET /bench/stages`, the [`StageTimes`] the server's
//! probe recorded since the last call.

use super::stages::StageTimes;
use crate::server::limits;
use crate::store::writer::Writer;
use axum::Router;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade, close_code};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::sync::Arc;
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
}

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
        .route("/bench/stages", get(stages_report))
        .with_state(Bench {
            stages,
            writer,
            shutdown,
            sockets,
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
    upgrade
        .read_buffer_size(limits::READ_BUFFER)
        .max_message_size(limits::MAX_TRANSPORT_FRAME)
        .on_upgrade(move |socket| sockets.track_future(echo(socket, bench.shutdown, writer)))
        .into_response()
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
        if socket.send(frame).await.is_err() {
            return;
        }
    }
}

/// Send a close frame of `code` and `reason` (the client may be gone already).
async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    };
    let _ = socket.send(Message::Close(Some(frame))).await;
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
        let shutdown = CancellationToken::new();
        let app = bench(Arc::default(), writer, shutdown.clone(), TaskTracker::new());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("ws://{addr}"), shutdown)
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
