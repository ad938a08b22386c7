//! The chat of the games (docs/protocol.md, "Chat"): where a message is checked (length, rate),
//! stored, and handed to the connections of its game. Chat lives beside the game tasks, not in
//! them: a message changes no state and is never part of the action log, so it neither waits
//! behind a game's actions nor keeps a game loaded.
//!
//! Each game with a connection has a broadcast channel of messages here; a connection decides
//! per message whether its reader is shown it ([`Channel::shown_to`]): during a game, players
//! read the table chat and spectators the spectator chat; once it ends, both are open.
//!
//! The rate is per sender (a seat, or a spectator's address, in one game), a GCRA from
//! `governor` like the server's other rates: however many sockets a sender opens, its messages
//! share one allowance. The socket's own frame rate applies on top.

use crate::store::{Store, StoreError, now_ms};
use axum::extract::ws::Utf8Bytes;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use siege_protocol::{Channel, ChatMessage, ServerFrame, You, codes};
use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::broadcast;
use uuid::Uuid;

/// The default of `--chat-max-chars`: the longest message, in characters.
pub const MAX_CHARS: usize = 500;
/// The default of `--chat-rate`: messages one sender may send per minute.
pub const PER_MINUTE: u32 = 20;
/// Messages a sender may send at once before the rate applies (at most the rate itself).
pub const BURST: u32 = 5;
/// The most messages of history sent to a connection when it attaches.
pub const HISTORY: u32 = 200;
/// The most messages `GET /api/games/{id}/chat` returns (the newest).
pub const REPLAY_MESSAGES: u32 = 10_000;
/// Messages waiting per game for connections that have not taken them yet.
const BACKLOG: usize = 64;

/// The chat's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChatLimits {
    /// The longest message, in characters (Unicode scalar values).
    pub max_chars: usize,
    /// Messages one sender may send per minute; 0: no limit.
    pub per_minute: u32,
}

impl Default for ChatLimits {
    fn default() -> ChatLimits {
        ChatLimits {
            max_chars: MAX_CHARS,
            per_minute: PER_MINUTE,
        }
    }
}

/// A message on its way to the connections, with its `chat` frame serialized once.
#[derive(Debug)]
pub struct Delivered {
    pub message: ChatMessage,
    pub frame: Utf8Bytes,
}

/// Why a message was refused: the wire code and the words.
#[derive(Debug)]
pub struct Refused {
    pub code: &'static str,
    pub message: String,
}

impl Refused {
    fn new(code: &'static str, message: impl Into<String>) -> Refused {
        Refused {
            code,
            message: message.into(),
        }
    }
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Refused {
        if let StoreError::Fenced(_) = e {
            return Refused::new(
                codes::MOVED,
                "this game moved to another server node; connect again and send it there",
            );
        }
        tracing::error!(error = %e, "storing a chat message");
        Refused::new(
            codes::INTERNAL,
            "the message could not be stored; try again",
        )
    }
}

/// The chat hub: clone the `Arc` freely.
pub struct ChatHub {
    store: Store,
    limits: ChatLimits,
    rate: Option<DefaultKeyedRateLimiter<String>>,
    games: Mutex<HashMap<Uuid, broadcast::Sender<Arc<Delivered>>>>,
}

impl std::fmt::Debug for ChatHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatHub")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl ChatHub {
    pub fn new(store: Store, limits: ChatLimits) -> ChatHub {
        let rate = NonZeroU32::new(limits.per_minute).map(|n| {
            let burst = NonZeroU32::new(BURST.min(n.get())).unwrap_or(NonZeroU32::MIN);
            DefaultKeyedRateLimiter::keyed(Quota::per_minute(n).allow_burst(burst))
        });
        ChatHub {
            store,
            limits,
            rate,
            games: Mutex::new(HashMap::new()),
        }
    }

    /// The store the chat is kept in.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The limits in force.
    pub fn limits(&self) -> ChatLimits {
        self.limits
    }

    /// The messages of game `id` from now on. Subscribe before reading the history, and skip
    /// live messages the history already had (their ids are not above its last).
    pub fn subscribe(&self, id: Uuid) -> broadcast::Receiver<Arc<Delivered>> {
        let mut games = self.lock();
        games
            .entry(id)
            .or_insert_with(|| broadcast::channel(BACKLOG).0)
            .subscribe()
    }

    /// The history `you` are shown of game `id`, oldest first (the last [`HISTORY`]).
    pub async fn history(
        &self,
        id: Uuid,
        you: You,
        finished: bool,
        muted: bool,
    ) -> Result<Vec<ChatMessage>, StoreError> {
        let channels: Vec<Channel> = [Channel::Table, Channel::Spectators]
            .into_iter()
            .filter(|c| c.shown_to(you, finished, muted))
            .collect();
        self.store.chat(id, &channels, HISTORY).await
    }

    /// Check, store and deliver a message `from` a reader of game `id`; `sender` names who
    /// sends it for the rate (a seat, or a spectator's address). `fence` is the lease the game
    /// runs under on this node ([`GameHandle::fence`](super::GameHandle::fence)): a node that
    /// lost the game refuses the message with `moved`.
    pub async fn post(
        &self,
        id: Uuid,
        from: You,
        sender: &str,
        text: &str,
        fence: Option<i64>,
    ) -> Result<ChatMessage, Refused> {
        if text.trim().is_empty() {
            return Err(Refused::new(
                codes::CHAT_EMPTY,
                "a chat message needs some text",
            ));
        }
        let chars = text.chars().count();
        if chars > self.limits.max_chars {
            return Err(Refused::new(
                codes::CHAT_TOO_LONG,
                format!(
                    "a chat message has at most {} characters; this one has {chars}",
                    self.limits.max_chars
                ),
            ));
        }
        if let Some(rate) = &self.rate {
            let key = format!("{id}/{sender}");
            if let Err(not_until) = rate.check_key(&key) {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                return Err(Refused::new(
                    codes::RATE_LIMITED,
                    format!(
                        "at most {} chat messages a minute (bursts of {}); try again in {secs} s",
                        self.limits.per_minute,
                        BURST.min(self.limits.per_minute)
                    ),
                ));
            }
        }
        let message = self.store.add_chat(id, from, text, now_ms(), fence).await?;
        let frame = ServerFrame::<(), (), ()>::Chat {
            message: message.clone(),
        };
        let frame = serde_json::to_string(&frame)
            .map_err(|e| Refused::new(codes::INTERNAL, e.to_string()))?;
        let delivered = Arc::new(Delivered {
            message: message.clone(),
            frame: Utf8Bytes::from(frame),
        });
        let mut games = self.lock();
        if let Some(tx) = games.get(&id) {
            // Nobody listening is not an error: the message is stored for their return.
            if tx.send(delivered).is_err() {
                games.remove(&id);
            }
        }
        Ok(message)
    }

    /// Forget the games nobody listens to and the senders whose allowance is whole again.
    pub fn prune(&self) {
        self.lock().retain(|_, tx| tx.receiver_count() > 0);
        if let Some(rate) = &self.rate {
            rate.retain_recent();
            rate.shrink_to_fit();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, broadcast::Sender<Arc<Delivered>>>> {
        self.games.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
