//! One WebSocket connection to a game (docs/protocol.md, "WebSocket"). The first frame says who is
//! there (join, spectate or resume); after that the connection forwards the game's updates —
//! pre-serialized, shared bytes — and passes the client's actions to the game task. Every
//! refusal is an `error` frame and changes nothing; only a bad first frame, a flood or
//! shutdown closes the socket (shutdown with 1001 "going away").

use super::AppState;
use super::error::WireError;
use super::limits::{FIRST_FRAME_WITHIN, MAX_FRAME, MAX_REFUSED_IN_A_ROW, RateLimiter};
use crate::games::{
    Attached, Claim, GameError, GameHandle, Snapshot, Update, events_frame, tokens,
};
use crate::rules::Action;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use futures_util::SinkExt;
use serde_json::Value;
use siege_protocol::{ClientFrame, You, action_from_frame, codes};
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

/// Why a connection loop stopped.
enum Stop {
    /// The client left, or the socket failed.
    Gone,
    /// Close with this code and reason.
    Close(u16, &'static str),
}

/// Serve one socket of game `id` until it closes.
pub async fn serve(mut socket: WebSocket, id: Uuid, app: AppState, conn: u64) {
    let first = tokio::select! {
        () = app.shutdown.cancelled() => {
            close(&mut socket, close_code::AWAY, "server shutting down").await;
            return;
        }
        first = tokio::time::timeout(FIRST_FRAME_WITHIN, socket.recv()) => match first {
            Ok(first) => first,
            Err(_) => {
                let e = WireError::new(codes::NOT_JOINED, "no join, spectate or resume frame came");
                return refuse_and_close(&mut socket, e).await;
            }
        },
    };
    let text = match first {
        Some(Ok(Message::Text(t))) if t.len() > MAX_FRAME => {
            let e = WireError::new(
                codes::FRAME_TOO_LARGE,
                format!("a frame has at most {MAX_FRAME} bytes"),
            );
            return refuse_and_close(&mut socket, e).await;
        }
        Some(Ok(Message::Text(t))) => t,
        Some(Ok(Message::Binary(_))) => {
            refuse_and_close(
                &mut socket,
                WireError::new(codes::BAD_JSON, "frames are JSON text"),
            )
            .await;
            return;
        }
        _ => return,
    };
    let (claim, resume_after, patches) = match first_frame(&text) {
        Ok(x) => x,
        Err(e) => return refuse_and_close(&mut socket, e).await,
    };
    let (handle, _place, attached) = match app.games.attach(id, claim).await {
        Ok(x) => x,
        Err(e) => return refuse_and_close(&mut socket, WireError::from(&e)).await,
    };
    tracing::debug!(game = %id, conn, you = attached.you.as_str(), "attached");
    let mut connection = Connection {
        you: attached.you,
        handle,
        last_seq: attached.state.seq,
        limiter: RateLimiter::per_second(app.frame_rate),
        refused_in_a_row: 0,
        patches,
    };
    let Attached { state, updates, .. } = attached;
    if let Some(after) = resume_after
        && connection
            .send_missed(&mut socket, &app, after, &state)
            .await
            .is_err()
    {
        return;
    }
    if send(&mut socket, state.frame(connection.you))
        .await
        .is_err()
    {
        return;
    }
    match connection.run(&mut socket, &app, updates).await {
        Stop::Gone => {}
        Stop::Close(code, reason) => close(&mut socket, code, reason).await,
    }
    tracing::debug!(game = %id, conn, "detached");
}

/// Read the first frame: who is there, for a resume the seq the client has, and whether it
/// wants patches.
fn first_frame(text: &str) -> Result<(Claim, Option<u64>, bool), WireError> {
    let seat = |token: &str| Claim::Seat(tokens::token_hash(token));
    match parse(text)? {
        ClientFrame::Join { token, patches } => Ok((seat(&token), None, patches)),
        ClientFrame::Spectate { patches } => Ok((Claim::Spectator, None, patches)),
        ClientFrame::Resume {
            token,
            seq,
            patches,
        } => Ok((
            token.as_deref().map_or(Claim::Spectator, seat),
            Some(seq),
            patches,
        )),
        ClientFrame::Action { .. } | ClientFrame::Ping => Err(WireError::new(
            codes::NOT_JOINED,
            "the first frame must be join, spectate or resume",
        )),
    }
}

/// Parse a client frame (the rules of [`ClientFrame::parse`]).
fn parse(text: &str) -> Result<ClientFrame<Value>, WireError> {
    ClientFrame::parse(text).map_err(|e| WireError::new(e.code, e.message))
}

/// An attached connection.
struct Connection {
    you: You,
    handle: GameHandle,
    /// The seq of the last state sent: older updates are never sent after newer ones.
    last_seq: u64,
    limiter: RateLimiter,
    refused_in_a_row: u32,
    /// Whether the client asked for patch frames after its first full state.
    patches: bool,
}

impl Connection {
    async fn run(
        &mut self,
        socket: &mut WebSocket,
        app: &AppState,
        mut updates: tokio::sync::broadcast::Receiver<Arc<Update>>,
    ) -> Stop {
        loop {
            let step = tokio::select! {
                () = app.shutdown.cancelled() => return Stop::Close(close_code::AWAY, "server shutting down"),
                msg = socket.recv() => match msg {
                    Some(Ok(Message::Text(text))) => self.on_text(socket, &text).await,
                    Some(Ok(Message::Binary(_))) => {
                        self.refuse(socket, WireError::new(codes::BAD_JSON, "frames are JSON text")).await
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => Ok(()),
                    Some(Ok(Message::Close(_))) | None => return Stop::Gone,
                    Some(Err(e)) => return on_transport_error(socket, &e).await,
                },
                update = updates.recv() => match update {
                    Ok(update) => self.forward(socket, &update).await,
                    Err(RecvError::Lagged(missed)) => {
                        tracing::debug!(missed, "connection lagged; sending the current state");
                        match self.handle.info().await {
                            Ok(info) => self.send_state(socket, &info.state).await,
                            Err(_) => return Stop::Close(close_code::AWAY, "game stopped"),
                        }
                    }
                    Err(RecvError::Closed) => return Stop::Close(close_code::AWAY, "game stopped"),
                },
            };
            match step {
                Ok(()) => {}
                Err(stop) => return stop,
            }
        }
    }

    /// A client frame after the first.
    async fn on_text(&mut self, socket: &mut WebSocket, text: &str) -> Result<(), Stop> {
        if !self.limiter.allow() {
            let msg = self.limiter.describe();
            return self
                .refuse(socket, WireError::new(codes::RATE_LIMITED, msg))
                .await;
        }
        if text.len() > MAX_FRAME {
            let msg = format!(
                "a frame has at most {MAX_FRAME} bytes; this one has {}",
                text.len()
            );
            return self
                .refuse(socket, WireError::new(codes::FRAME_TOO_LARGE, msg))
                .await;
        }
        let frame = match parse(text) {
            Ok(f) => f,
            Err(e) => return self.refuse(socket, e).await,
        };
        match frame {
            ClientFrame::Ping => {
                self.refused_in_a_row = 0;
                send(socket, Utf8Bytes::from_static(r#"{"type":"pong"}"#)).await
            }
            ClientFrame::Join { .. }
            | ClientFrame::Spectate { .. }
            | ClientFrame::Resume { .. } => {
                let e = WireError::new(
                    codes::ALREADY_JOINED,
                    "this socket is already attached to the game",
                );
                self.refuse(socket, e).await
            }
            ClientFrame::Action { seq, action } => self.on_action(socket, seq, action).await,
        }
    }

    async fn on_action(
        &mut self,
        socket: &mut WebSocket,
        seq: u64,
        action: Value,
    ) -> Result<(), Stop> {
        let Some(side) = self.you.side() else {
            let e = WireError::new(codes::SPECTATOR, "spectators watch; they cannot act");
            return self.refuse(socket, e).await;
        };
        let action: Action = match action_from_frame(&action) {
            Ok(a) => a,
            Err(e) => {
                let msg = format!(
                    "not an action of this game ({e}); send one of legal_actions unchanged"
                );
                return self
                    .refuse(socket, WireError::new("not_a_legal_choice", msg))
                    .await;
            }
        };
        match self.handle.act(side, seq, action).await {
            Ok(()) => {
                self.refused_in_a_row = 0;
                Ok(())
            }
            Err(e) => {
                let fresh = match &e {
                    GameError::Stale { current, .. } => Some(current.clone()),
                    _ => None,
                };
                self.refuse(socket, WireError::from(&e)).await?;
                match fresh {
                    Some(state) => self.send_state(socket, &state).await,
                    None => Ok(()),
                }
            }
        }
    }

    /// Send an error frame; close a socket that keeps being refused.
    async fn refuse(&mut self, socket: &mut WebSocket, e: WireError) -> Result<(), Stop> {
        self.refused_in_a_row += 1;
        if self.refused_in_a_row > MAX_REFUSED_IN_A_ROW {
            return Err(Stop::Close(close_code::POLICY, "too many refused frames"));
        }
        send(socket, Utf8Bytes::from(e.frame())).await
    }

    /// An accepted action: its events, then its state — unless this socket is already past it.
    /// Both frames leave in one write: the events frame is only queued, and the state's send
    /// flushes the two together (with ten thousand spectators, half the system calls).
    async fn forward(&mut self, socket: &mut WebSocket, update: &Update) -> Result<(), Stop> {
        if update.seq <= self.last_seq {
            return Ok(());
        }
        socket
            .feed(Message::Text(update.events.clone()))
            .await
            .map_err(|_| Stop::Gone)?;
        if self.patches
            && update.prev.seq == self.last_seq
            && let Some(patch) = update.patch(self.you)
        {
            self.last_seq = update.seq;
            return send(socket, patch).await;
        }
        self.last_seq = update.seq;
        send(socket, update.state_frame(self.you)).await
    }

    async fn send_state(&mut self, socket: &mut WebSocket, state: &Snapshot) -> Result<(), Stop> {
        if state.seq < self.last_seq {
            return Ok(());
        }
        self.last_seq = state.seq;
        send(socket, state.frame(self.you)).await
    }

    /// For a resume: the events of every action after `after`, from the log, up to the state
    /// the connection was attached at.
    async fn send_missed(
        &mut self,
        socket: &mut WebSocket,
        app: &AppState,
        after: u64,
        state: &Snapshot,
    ) -> Result<(), Stop> {
        if after >= state.seq {
            return Ok(());
        }
        let rows = match app
            .games
            .store()
            .log(self.handle.id, after, state.seq)
            .await
        {
            Ok(rows) => rows,
            Err(e) => {
                tracing::error!(error = %e, "reading the log for a resume");
                return Ok(());
            }
        };
        for row in rows {
            let seq = u64::try_from(row.seq).unwrap_or(0);
            send(socket, events_frame(seq, &row.side, &row.events)).await?;
        }
        Ok(())
    }
}

/// The transport refused a frame (above [`super::limits::MAX_TRANSPORT_FRAME`]) or failed.
async fn on_transport_error(socket: &mut WebSocket, e: &axum::Error) -> Stop {
    let text = e.to_string();
    if text.contains("Space limit exceeded") || text.contains("too long") || text.contains("size") {
        let wire = WireError::new(
            codes::FRAME_TOO_LARGE,
            "the frame is larger than the server reads at all",
        );
        let _ = send(socket, Utf8Bytes::from(wire.frame())).await;
        return Stop::Close(close_code::SIZE, "frame too large");
    }
    Stop::Gone
}

async fn send(socket: &mut WebSocket, text: Utf8Bytes) -> Result<(), Stop> {
    socket
        .send(Message::Text(text))
        .await
        .map_err(|_| Stop::Gone)
}

async fn refuse_and_close(socket: &mut WebSocket, e: WireError) {
    if send(socket, Utf8Bytes::from(e.frame())).await.is_ok() {
        close(socket, close_code::POLICY, "refused").await;
    }
}

async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    };
    let _ = socket.send(Message::Close(Some(frame))).await;
}
