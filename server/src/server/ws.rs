//! One WebSocket connection to a game (docs/protocol.md, "WebSocket"). The first frame says who is
//! there (join, spectate or resume); after that the connection forwards the game's updates —
//! pre-serialized, shared bytes — and passes the client's actions to the game task. Every
//! refusal is an `error` frame and changes nothing; only a bad first frame, a flood, silence or
//! shutdown closes the socket (shutdown with 1001 "going away").
//!
//! What a connection sends waits in its own small [`Outbox`], and the connection keeps taking
//! the game's updates while its socket is slow. When what waits passes
//! [`MAX_BEHIND_BYTES`], the reader is dropped to "resync": the waiting frames are let go, the
//! updates after them are not queued, and once the socket takes frames again it is sent one
//! fresh state. A reader that stops reading therefore holds a bounded few tens of kilobytes —
//! never the game's recent history, which is what it used to pin.
//!
//! A connection on which the client has said nothing for a third of the idle timeout is pinged
//! (every WebSocket client answers pings by itself); one silent for the whole idle timeout is
//! closed.

use super::AppState;
use super::error::WireError;
use super::limits::{
    CLOSE_WITHIN, FIRST_FRAME_WITHIN, MAX_BEHIND_BYTES, MAX_FRAME, MAX_REFUSED_IN_A_ROW,
    RateLimiter,
};
use crate::games::chat::{ChatHub, Delivered};
use crate::games::{
    Attached, Claim, GameError, GameHandle, Snapshot, Update, events_frame, tokens,
};
use crate::observe::{self, Held};
use crate::rules::Action;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, close_code};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use siege_protocol::{ClientFrame, ServerFrame, You, action_from_frame, codes};
use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll, Waker, ready};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;
use uuid::Uuid;

/// Log entries read at a time for a resume.
const RESUME_CHUNK: u64 = 200;

/// Why a connection loop stopped.
enum Stop {
    /// The client left, or the socket failed.
    Gone,
    /// Close with this code and reason.
    Close(u16, &'static str),
}

/// Serve one socket of game `id` until it closes.
/// `account` is the account signed in on the socket's session, if any: a `join` without a token
/// takes the seat it holds. `client` is the client's address as the limiters key it: a
/// spectator's chat rate is counted per address.
pub async fn serve(
    mut socket: WebSocket,
    id: Uuid,
    app: AppState,
    conn: u64,
    account: Option<i64>,
    client: String,
) {
    let _open = Held::new(observe::WEBSOCKETS);
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
        Some(Err(e)) => {
            if let Stop::Close(code, reason) = on_transport_error(&mut socket, &e).await {
                close(&mut socket, code, reason).await;
            }
            return;
        }
        _ => return,
    };
    let (claim, resume_after, patches) = match first_frame(&text) {
        Ok(x) => x,
        Err(e) => return refuse_and_close(&mut socket, e).await,
    };
    let claim = match claim {
        Some(claim) => claim,
        None => match account_seat(&app, id, account).await {
            Ok(claim) => claim,
            Err(e) => return refuse_and_close(&mut socket, e).await,
        },
    };
    let (handle, _place, attached) = match app.games.attach(id, claim).await {
        Ok(x) => x,
        Err(e) => return refuse_and_close(&mut socket, WireError::from(&e)).await,
    };
    tracing::debug!(game = %id, conn, you = attached.you.as_str(), "attached");
    let Attached {
        you,
        // Held for as long as this connection lives: the seat's player is at the table.
        presence: _presence,
        state,
        updates,
        clock,
        notices,
    } = attached;
    // Chat: subscribed before its history is read, so no message falls between the two.
    let chat_updates = app.chat.subscribe(id);
    // Rematch offers likewise: subscribed before the stored one is read.
    let offers = app.rematches.subscribe();
    let rematch = match you.side() {
        Some(_) => app.games.store().rematch(id).await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "reading the rematch");
            None
        }),
        None => None,
    };
    let muted = match you.side() {
        Some(side) => app
            .games
            .store()
            .chat_muted(id, side)
            .await
            .unwrap_or(false),
        None => false,
    };
    let finished = state.to_act.is_none();
    let history = match app.chat.history(id, you, finished, muted).await {
        Ok(history) => history,
        Err(e) => {
            tracing::error!(error = %e, "reading the chat history");
            Vec::new()
        }
    };
    let mut connection = Connection {
        you,
        handle,
        limiter: RateLimiter::per_second(app.frame_rate),
        refused_in_a_row: 0,
        patches,
        out: Outbox::new(state.clone()),
        chat: ChatSeat {
            hub: app.chat.clone(),
            sender: match you.side() {
                Some(side) => side.as_str().to_string(),
                None => format!("spectator/{client}"),
            },
            muted,
            seen: history.last().map_or(0, |m| m.id),
        },
    };
    // A resume's missed events are written straight to the socket, within the idle timeout: a
    // client that resumes and then stops reading is let go, not waited for. The state then
    // goes through the outbox like everything after it.
    if let Some(after) = resume_after {
        let caught_up = tokio::time::timeout(
            app.limits.idle_timeout,
            send_missed(&mut socket, &app, connection.handle.id, after, &state),
        )
        .await;
        if !matches!(caught_up, Ok(Ok(()))) {
            return;
        }
    }
    connection.out.reply(Message::Text(state.frame(you)));
    if let Some(clock) = clock {
        connection.out.reply(Message::Text(clock));
    }
    drop(state);
    if let Some(rematch) = &rematch {
        match app.rematches.code(app.games.store(), rematch).await {
            Ok(code) => connection
                .out
                .reply(Message::Text(super::rematch::frame(rematch, &code))),
            Err(e) => tracing::error!(error = %e, "the rematch's invite code"),
        }
    }
    // A client that knows nothing of chat is sent nothing of it until there is some to show.
    if !history.is_empty() || muted {
        connection.out.reply(chat_frame(&ServerFrame::ChatHistory {
            messages: history,
            muted,
        }));
    }
    let (mut sink, stream) = socket.split();
    match connection
        .run(
            &mut sink,
            stream,
            &app,
            Feeds {
                updates,
                notices,
                chat: chat_updates,
                offers,
            },
        )
        .await
    {
        Stop::Gone => {}
        Stop::Close(code, reason) => {
            let frame = CloseFrame {
                code,
                reason: Utf8Bytes::from_static(reason),
            };
            let _ =
                tokio::time::timeout(CLOSE_WITHIN, sink.send(Message::Close(Some(frame)))).await;
        }
    }
    tracing::debug!(game = %id, conn, "detached");
}

/// The seat `account` holds in game `id`, as a claim; refused when nobody is signed in or the
/// account holds no seat (or both: then a token must say which).
async fn account_seat(app: &AppState, id: Uuid, account: Option<i64>) -> Result<Claim, WireError> {
    let Some(account) = account else {
        return Err(WireError::new(
            codes::NOT_SIGNED_IN,
            "a join without a token takes the seat of the signed-in account: sign in first",
        ));
    };
    let seats = app
        .games
        .store()
        .seats_of_account(id, account)
        .await
        .map_err(|e| WireError::from(&crate::games::GameError::from(e)))?;
    match seats.as_slice() {
        [(_, hash)] => Ok(Claim::Seat(hash.clone())),
        [] => Err(WireError::new(
            codes::NOT_YOUR_SEAT,
            "this account holds no seat of this game",
        )),
        _ => Err(WireError::new(
            codes::NOT_YOUR_SEAT,
            "this account holds both seats of this game: join with a seat's token",
        )),
    }
}

/// Read the first frame: who is there (`None`: the signed-in account's seat), for a resume the
/// seq the client has, and whether it wants patches.
fn first_frame(text: &str) -> Result<(Option<Claim>, Option<u64>, bool), WireError> {
    let seat = |token: &str| Claim::Seat(tokens::token_hash(token));
    match parse(text)? {
        ClientFrame::Join { token, patches } => Ok((token.as_deref().map(seat), None, patches)),
        ClientFrame::Spectate { patches } => Ok((Some(Claim::Spectator), None, patches)),
        ClientFrame::Resume {
            token,
            seq,
            patches,
        } => Ok((
            Some(token.as_deref().map_or(Claim::Spectator, seat)),
            Some(seq),
            patches,
        )),
        ClientFrame::Action { .. }
        | ClientFrame::Ping {}
        | ClientFrame::Chat { .. }
        | ClientFrame::ChatMute { .. } => Err(WireError::new(
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
    limiter: RateLimiter,
    refused_in_a_row: u32,
    /// Whether the client asked for patch frames after its first full state.
    patches: bool,
    out: Outbox,
    chat: ChatSeat,
}

/// What a connection knows of its game's chat.
struct ChatSeat {
    hub: Arc<ChatHub>,
    /// Who sends this connection's messages, for the chat rate: the seat, or the spectator's
    /// address.
    sender: String,
    /// A player's choice to hide the spectator chat.
    muted: bool,
    /// The id of the last message sent to this connection (a live message at or below it was
    /// already in the history).
    seen: u64,
}

/// A chat frame, serialized.
fn chat_frame(frame: &ServerFrame<(), (), ()>) -> Message {
    Message::Text(Utf8Bytes::from(
        serde_json::to_string(frame).unwrap_or_default(),
    ))
}

/// What a connection forwards besides its client's frames: the game's updates and notices, its
/// chat, and rematch offers.
struct Feeds {
    updates: tokio::sync::broadcast::Receiver<Arc<Update>>,
    notices: tokio::sync::broadcast::Receiver<Utf8Bytes>,
    chat: tokio::sync::broadcast::Receiver<Arc<Delivered>>,
    offers: tokio::sync::broadcast::Receiver<Arc<super::rematch::Offer>>,
}

impl Connection {
    async fn run(
        &mut self,
        sink: &mut SplitSink<WebSocket, Message>,
        mut stream: SplitStream<WebSocket>,
        app: &AppState,
        feeds: Feeds,
    ) -> Stop {
        let Feeds {
            mut updates,
            mut notices,
            mut chat,
            mut offers,
        } = feeds;
        let idle = app.limits.idle_timeout;
        let ping_after = idle / 3;
        let mut last_heard = Instant::now();
        let mut last_ping = last_heard;
        loop {
            let next_ping = last_heard.max(last_ping) + ping_after;
            let you = self.you;
            // What the last step queued (an action's answer, an update) goes out now, before
            // the select below polls this connection's idle feeds and arms its ping timer: a
            // socket that takes the frames at once is written a step sooner. One that cannot
            // is left to the select's `drive`, which polls it again with a real waker.
            if self.out.has_work()
                && let Poll::Ready(Err(stop)) =
                    self.out
                        .poll_drive(&mut Context::from_waker(Waker::noop()), sink, you)
            {
                return stop;
            }
            let step = tokio::select! {
                () = app.shutdown.cancelled() => return Stop::Close(close_code::AWAY, "server shutting down"),
                msg = stream.next() => {
                    last_heard = Instant::now();
                    match msg {
                        Some(Ok(Message::Text(text))) => self.on_text(&text).await,
                        Some(Ok(Message::Binary(_))) => {
                            self.refuse(WireError::new(codes::BAD_JSON, "frames are JSON text"))
                        }
                        Some(Ok(Message::Ping(_) | Message::Pong(_))) => Ok(()),
                        Some(Ok(Message::Close(_))) | None => return Stop::Gone,
                        Some(Err(e)) => return transport_error(sink, &e).await,
                    }
                }
                update = updates.recv() => match update {
                    Ok(update) => {
                        self.on_update(&update);
                        Ok(())
                    }
                    Err(RecvError::Lagged(missed)) => {
                        tracing::debug!(missed, "connection lagged the broadcast; resyncing");
                        match self.handle.info().await {
                            Ok(info) => {
                                self.out.note_latest(&info.state);
                                self.out.drop_to_resync();
                                Ok(())
                            }
                            Err(_) => return Stop::Close(close_code::AWAY, "game stopped"),
                        }
                    }
                    Err(RecvError::Closed) => return Stop::Close(close_code::AWAY, "game stopped"),
                },
                notice = notices.recv() => match notice {
                    Ok(frame) => {
                        self.out.reply(Message::Text(frame));
                        Ok(())
                    }
                    // A missed notice is superseded by the next one.
                    Err(RecvError::Lagged(_)) => Ok(()),
                    Err(RecvError::Closed) => return Stop::Close(close_code::AWAY, "game stopped"),
                },
                said = chat.recv() => match said {
                    Ok(said) => {
                        self.on_chat(&said);
                        Ok(())
                    }
                    // A reader this far behind on chat misses what it skipped until it
                    // reconnects (the history then has it); the game goes on.
                    Err(RecvError::Lagged(_)) => Ok(()),
                    Err(RecvError::Closed) => {
                        chat = self.chat.hub.subscribe(self.handle.id);
                        Ok(())
                    }
                },
                offer = offers.recv() => match offer {
                    // A rematch of this game, for its seats only (the frame holds the invite).
                    Ok(offer) => {
                        if offer.finished == self.handle.id && self.you.side().is_some() {
                            self.out.reply(Message::Text(offer.frame.clone()));
                        }
                        Ok(())
                    }
                    // A missed offer is given again when the seat next joins.
                    Err(RecvError::Lagged(_)) => Ok(()),
                    Err(RecvError::Closed) => {
                        offers = app.rematches.subscribe();
                        Ok(())
                    }
                },
                sent = self.out.drive(sink, you), if self.out.has_work() => sent,
                () = tokio::time::sleep_until(next_ping) => {
                    let now = Instant::now();
                    if now.duration_since(last_heard) >= idle {
                        return Stop::Close(close_code::AWAY, "idle");
                    }
                    if now >= next_ping {
                        last_ping = now;
                        self.out.reply(Message::Ping(Default::default()));
                    }
                    Ok(())
                }
            };
            if let Err(stop) = step {
                return stop;
            }
        }
    }

    /// A client frame after the first.
    async fn on_text(&mut self, text: &str) -> Result<(), Stop> {
        if !self.limiter.allow() {
            let msg = self.limiter.describe();
            return self.refuse(WireError::new(codes::RATE_LIMITED, msg));
        }
        if text.len() > MAX_FRAME {
            let msg = format!(
                "a frame has at most {MAX_FRAME} bytes; this one has {}",
                text.len()
            );
            return self.refuse(WireError::new(codes::FRAME_TOO_LARGE, msg));
        }
        let frame = match parse(text) {
            Ok(f) => f,
            Err(e) => return self.refuse(e),
        };
        match frame {
            // A ping is answered but does not count as a frame that was accepted: a socket
            // refused a thousand times in a row is closed however many pings it mixes in.
            ClientFrame::Ping {} => {
                self.out
                    .reply(Message::Text(Utf8Bytes::from_static(r#"{"type":"pong"}"#)));
                Ok(())
            }
            ClientFrame::Join { .. }
            | ClientFrame::Spectate { .. }
            | ClientFrame::Resume { .. } => {
                let e = WireError::new(
                    codes::ALREADY_JOINED,
                    "this socket is already attached to the game",
                );
                self.refuse(e)
            }
            ClientFrame::Action { seq, action } => self.on_action(seq, action).await,
            ClientFrame::Chat { text } => self.on_say(&text).await,
            ClientFrame::ChatMute { muted } => self.on_mute(muted).await,
        }
    }

    /// A chat message from this connection's reader.
    async fn on_say(&mut self, text: &str) -> Result<(), Stop> {
        let id = self.handle.id;
        match self
            .chat
            .hub
            .post(id, self.you, &self.chat.sender, text, self.handle.fence())
            .await
        {
            Ok(_) => {
                self.refused_in_a_row = 0;
                Ok(())
            }
            Err(refused) => self.refuse(WireError::new(refused.code, refused.message)),
        }
    }

    /// A player hides or shows the spectator chat; kept for the seat.
    async fn on_mute(&mut self, muted: bool) -> Result<(), Stop> {
        let Some(side) = self.you.side() else {
            let e = WireError::new(
                codes::SPECTATOR,
                "only a player can mute the spectator chat",
            );
            return self.refuse(e);
        };
        // The same choice again is answered without a write: a client repeating it costs the
        // store nothing. (A mute does not count as an accepted action for the refusal count.)
        if muted == self.chat.muted {
            self.out
                .reply(chat_frame(&ServerFrame::ChatMuted { muted }));
            return Ok(());
        }
        let stored = self
            .handle_store()
            .set_chat_muted(self.handle.id, side, muted)
            .await;
        match stored {
            Ok(()) => {
                self.chat.muted = muted;
                self.out
                    .reply(chat_frame(&ServerFrame::ChatMuted { muted }));
                Ok(())
            }
            Err(e) => {
                tracing::error!(error = %e, "storing a chat mute");
                self.refuse(WireError::new(
                    codes::INTERNAL,
                    "the choice could not be stored; try again",
                ))
            }
        }
    }

    fn handle_store(&self) -> &crate::store::Store {
        self.chat.hub.store()
    }

    /// A chat message said in this game: queued if this connection's reader is shown it.
    fn on_chat(&mut self, said: &Delivered) {
        if said.message.id <= self.chat.seen {
            return;
        }
        let finished = self.out.latest.to_act.is_none();
        if said
            .message
            .channel
            .shown_to(self.you, finished, self.chat.muted)
        {
            self.chat.seen = said.message.id;
            self.out.reply(Message::Text(said.frame.clone()));
        }
    }

    async fn on_action(&mut self, seq: u64, action: Value) -> Result<(), Stop> {
        let Some(side) = self.you.side() else {
            let e = WireError::new(codes::SPECTATOR, "spectators watch; they cannot act");
            return self.refuse(e);
        };
        // An element of legal_actions may come back with its warning: advice, not the action.
        let action = crate::rules::warnings::without_warning(action);
        let action: Action = match action_from_frame(&action) {
            Ok(a) => a,
            Err(e) => {
                let msg = format!(
                    "not an action of this game ({e}); send one of legal_actions unchanged"
                );
                return self.refuse(WireError::new("not_a_legal_choice", msg));
            }
        };
        match self.handle.act(side, seq, action).await {
            Ok(update) => {
                self.refused_in_a_row = 0;
                // Sent now, before the game broadcasts it (the broadcast copy is then skipped)
                // — but only to a connection that had the state before it: one still behind
                // gets it in order from the broadcast, after the updates it has not sent yet.
                if update.prev.seq == self.out.last_seq {
                    self.on_update(&update);
                }
                Ok(())
            }
            Err(e) => {
                self.refuse(WireError::from(&e))?;
                // The current state follows a stale refusal once per new state: a client that
                // keeps sending old actions gets an error frame each time, not a whole state.
                if let GameError::Stale { current, .. } = &e {
                    self.out.offer_state(current, self.you);
                }
                Ok(())
            }
        }
    }

    /// Queue an error frame; close a socket that keeps being refused.
    fn refuse(&mut self, e: WireError) -> Result<(), Stop> {
        observe::refused(e.code);
        self.refused_in_a_row += 1;
        if self.refused_in_a_row > MAX_REFUSED_IN_A_ROW {
            return Err(Stop::Close(close_code::POLICY, "too many refused frames"));
        }
        self.out.reply(Message::Text(Utf8Bytes::from(e.frame())));
        Ok(())
    }

    /// An accepted action: its events, then its state (or patch) — unless this socket is
    /// already past it, or behind and waiting to resync.
    fn on_update(&mut self, update: &Update) {
        let out = &mut self.out;
        if update.seq <= out.last_seq {
            return;
        }
        out.note_latest(&update.state);
        if out.resync {
            return;
        }
        let state = match (self.patches && update.prev.seq == out.last_seq)
            .then(|| update.patch(self.you))
            .flatten()
        {
            Some(patch) => patch,
            None => update.state_frame(self.you),
        };
        if out.push_update(update.events.clone(), state) {
            out.last_seq = update.seq;
        }
    }
}

/// The frames waiting for one socket, and what the connection knows of the game's latest
/// state for when it must resync.
struct Outbox {
    queue: VecDeque<Message>,
    /// Bytes of the text frames in `queue`.
    bytes: usize,
    /// Frames were handed to the socket and not yet flushed.
    unflushed: bool,
    /// Behind: send `latest` when the socket takes frames again; queue no updates until then.
    resync: bool,
    /// The newest state this connection has heard of (shared with the game: costs nothing).
    latest: Arc<Snapshot>,
    /// The seq of the last state (or patch) queued: older updates are never queued after it.
    last_seq: u64,
}

impl Outbox {
    fn new(state: Arc<Snapshot>) -> Outbox {
        Outbox {
            queue: VecDeque::new(),
            bytes: 0,
            unflushed: false,
            resync: false,
            last_seq: state.seq,
            latest: state,
        }
    }

    fn has_work(&self) -> bool {
        self.unflushed || self.resync || !self.queue.is_empty()
    }

    fn note_latest(&mut self, state: &Arc<Snapshot>) {
        if state.seq >= self.latest.seq {
            self.latest = state.clone();
        }
    }

    /// Too far behind: let the waiting frames go; one fresh state follows when the socket
    /// takes frames again.
    fn drop_to_resync(&mut self) {
        if !self.resync {
            metrics::counter!(observe::RESYNCS).increment(1);
        }
        self.queue.clear();
        self.bytes = 0;
        self.resync = true;
    }

    /// Queue an update's two frames; `false` (and a resync) when they would put the socket
    /// more than [`MAX_BEHIND_BYTES`] behind. An empty queue always takes them.
    fn push_update(&mut self, events: Utf8Bytes, state: Utf8Bytes) -> bool {
        let size = events.len() + state.len();
        if !self.queue.is_empty() && self.bytes + size > MAX_BEHIND_BYTES {
            self.drop_to_resync();
            return false;
        }
        self.bytes += size;
        self.queue.push_back(Message::Text(events));
        self.queue.push_back(Message::Text(state));
        true
    }

    /// Queue a reply (a pong, an error, a ping); past the bound, what waited is let go first.
    fn reply(&mut self, message: Message) {
        let size = frame_len(&message);
        if !self.queue.is_empty() && self.bytes + size > MAX_BEHIND_BYTES {
            self.drop_to_resync();
        }
        self.bytes += size;
        self.queue.push_back(message);
    }

    /// After a stale refusal: queue `current` unless this connection was already sent it (or
    /// is about to resync to it).
    fn offer_state(&mut self, current: &Arc<Snapshot>, you: You) {
        self.note_latest(current);
        if self.resync || current.seq <= self.last_seq {
            return;
        }
        self.last_seq = current.seq;
        self.reply(Message::Text(current.frame(you)));
    }

    /// Hand waiting frames to the socket and flush them. Cancel-safe: a frame leaves the queue
    /// only in the same step that gives it to the socket.
    async fn drive(
        &mut self,
        sink: &mut SplitSink<WebSocket, Message>,
        you: You,
    ) -> Result<(), Stop> {
        std::future::poll_fn(|cx| self.poll_drive(cx, sink, you)).await
    }

    fn poll_drive(
        &mut self,
        cx: &mut Context<'_>,
        sink: &mut SplitSink<WebSocket, Message>,
        you: You,
    ) -> Poll<Result<(), Stop>> {
        while !self.queue.is_empty() || self.resync {
            ready!(sink.poll_ready_unpin(cx)).map_err(|_| Stop::Gone)?;
            let message = match self.queue.pop_front() {
                Some(m) => {
                    self.bytes = self.bytes.saturating_sub(frame_len(&m));
                    m
                }
                None => {
                    self.resync = false;
                    self.last_seq = self.latest.seq;
                    Message::Text(self.latest.frame(you))
                }
            };
            sink.start_send_unpin(message).map_err(|_| Stop::Gone)?;
            self.unflushed = true;
        }
        ready!(sink.poll_flush_unpin(cx)).map_err(|_| Stop::Gone)?;
        self.unflushed = false;
        Poll::Ready(Ok(()))
    }
}

fn frame_len(message: &Message) -> usize {
    match message {
        Message::Text(t) => t.len(),
        Message::Binary(b) | Message::Ping(b) | Message::Pong(b) => b.len(),
        Message::Close(_) => 0,
    }
}

/// For a resume: the events of every action after `after`, from the log, up to the state the
/// connection was attached at — read a chunk at a time.
async fn send_missed(
    socket: &mut WebSocket,
    app: &AppState,
    id: Uuid,
    mut after: u64,
    state: &Snapshot,
) -> Result<(), Stop> {
    while after < state.seq {
        let upto = (after + RESUME_CHUNK).min(state.seq);
        let rows = match app.games.store().log(id, after, upto).await {
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
        after = upto;
    }
    Ok(())
}

/// The transport refused a frame (above [`super::limits::MAX_TRANSPORT_FRAME`]) or failed.
async fn on_transport_error(socket: &mut WebSocket, e: &axum::Error) -> Stop {
    if is_too_large(e) {
        let wire = WireError::new(
            codes::FRAME_TOO_LARGE,
            "the frame is larger than the server reads at all",
        );
        observe::refused(wire.code);
        let _ = send(socket, Utf8Bytes::from(wire.frame())).await;
        return Stop::Close(close_code::SIZE, "frame too large");
    }
    Stop::Gone
}

/// As [`on_transport_error`], on a socket already split.
async fn transport_error(sink: &mut SplitSink<WebSocket, Message>, e: &axum::Error) -> Stop {
    if is_too_large(e) {
        let wire = WireError::new(
            codes::FRAME_TOO_LARGE,
            "the frame is larger than the server reads at all",
        );
        observe::refused(wire.code);
        let _ = sink
            .send(Message::Text(Utf8Bytes::from(wire.frame())))
            .await;
        return Stop::Close(close_code::SIZE, "frame too large");
    }
    Stop::Gone
}

/// Whether the transport refused a frame for its size.
fn is_too_large(e: &axum::Error) -> bool {
    let text = e.to_string();
    text.contains("Space limit exceeded") || text.contains("too long") || text.contains("size")
}

async fn send(socket: &mut WebSocket, text: Utf8Bytes) -> Result<(), Stop> {
    socket
        .send(Message::Text(text))
        .await
        .map_err(|_| Stop::Gone)
}

async fn refuse_and_close(socket: &mut WebSocket, e: WireError) {
    observe::refused(e.code);
    if send(socket, Utf8Bytes::from(e.frame())).await.is_ok() {
        close(socket, close_code::POLICY, "refused").await;
    }
}

async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    };
    let _ = tokio::time::timeout(CLOSE_WITHIN, socket.send(Message::Close(Some(frame)))).await;
}
