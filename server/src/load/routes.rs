//! The benchmark routes a server mounts with `siege serve --bench-routes`, beside the load
//! generator that reads them and apart from the game path: `GET /bench/echo`, a bare WebSocket
//! echo on the same server, runtime and sockets as the games (the baseline every round trip is
//! compared with), and `GET /bench/stages`, the [`StageTimes`] the server's probe recorded
//! since the last call.

use super::stages::StageTimes;
use crate::server::limits;
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
    shutdown: CancellationToken,
    /// The server's socket tracker: shutdown waits for echo sockets too.
    sockets: TaskTracker,
}

/// The benchmark routes, reporting `stages`; echo sockets close on `shutdown` and are tracked
/// by `sockets`.
pub fn bench(stages: Arc<StageTimes>, shutdown: CancellationToken, sockets: TaskTracker) -> Router {
    Router::new()
        .route("/bench/echo", get(echo_socket))
        .route("/bench/stages", get(stages_report))
        .with_state(Bench {
            stages,
            shutdown,
            sockets,
        })
}

/// `GET /bench/echo`.
async fn echo_socket(State(bench): State<Bench>, upgrade: WebSocketUpgrade) -> Response {
    let sockets = bench.sockets.clone();
    upgrade
        .read_buffer_size(limits::READ_BUFFER)
        .max_message_size(limits::MAX_TRANSPORT_FRAME)
        .on_upgrade(move |socket| sockets.track_future(echo(socket, bench.shutdown)))
        .into_response()
}

/// `GET /bench/stages`: the stage times since the last call, then afresh.
async fn stages_report(State(bench): State<Bench>) -> Response {
    axum::Json(bench.stages.take()).into_response()
}

/// Echo every frame until the client leaves or the server shuts down.
async fn echo(mut socket: WebSocket, shutdown: CancellationToken) {
    loop {
        tokio::select! {
            () = shutdown.cancelled() => {
                let frame = CloseFrame {
                    code: close_code::AWAY,
                    reason: Utf8Bytes::from_static("server shutting down"),
                };
                let _ = socket.send(Message::Close(Some(frame))).await;
                return;
            }
            msg = socket.recv() => match msg {
                Some(Ok(Message::Text(t))) => {
                    if socket.send(Message::Text(t)).await.is_err() {
                        return;
                    }
                }
                Some(Ok(Message::Binary(b))) => {
                    if socket.send(Message::Binary(b)).await.is_err() {
                        return;
                    }
                }
                Some(Ok(_)) => {}
                _ => return,
            }
        }
    }
}
