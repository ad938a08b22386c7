//! Your-turn notifications for signed-in players (docs/protocol.md, "Notifications"): an
//! e-mail (SMTP through `lettre`) and/or a webhook (a JSON POST through `reqwest`) when the
//! decision passes to a seat held by an account that asked for them.
//!
//! Everything here runs off the game path. A game task that has durably appended an action
//! which hands the decision to the other side calls [`Notifier::your_turn`], which only tries
//! to put a small event in a bounded channel: a full channel drops the event with a log line
//! and a metric, and never makes the game wait. One background task takes the events, looks up
//! the seat's account and its settings, and claims the seat's `notified_seq` marker in the
//! database (a conditional update), so that a waiting period is notified at most once — across
//! restarts too. The deliveries then run as their own tasks, at most [`NotifyConfig::parallel`]
//! attempts at once, each attempt with a timeout. A failed attempt (a webhook's non-2xx answer
//! or refused connection, an SMTP error) is tried again later — after 5 s, 30 s, 3 min, 18 min,
//! then hourly, by default — while the waiting period lasts: before each retry the game's log
//! is read, and once anything was logged after the action that began the period (the player
//! acted, or the game ended) the delivery is dropped. A delivery stops at its first success, so
//! a period gets at most one message per channel; a retry still waiting when the server stops
//! is dropped, and the marker keeps a restart from sending that period again.
//!
//! Secrets never reach a log: not the SMTP URL (it may hold a password), not the addresses,
//! not the webhook URL (its query may hold a token).
//!
//! A webhook is a request the server makes to a place a user chose, so unless the operator
//! allows it (`--webhook-allow-private`) it may only reach public addresses: a URL naming a
//! loopback, private, link-local or reserved address (or `localhost`) is refused when it is set,
//! and at delivery time every address its host resolves to is checked again by the client's
//! own resolver ([`PublicOnly`]), since a name may resolve elsewhere later.

use crate::store::Store;
use crate::store::{Db, on_db};
use siege_protocol::Side;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Events waiting for the notifier before more are dropped.
pub const QUEUE: usize = 256;
/// Tries of one delivery after the first fails.
pub const RETRIES: u32 = 6;
/// Seconds one delivery attempt (an SMTP exchange, a webhook POST) may take.
pub const TIMEOUT_SECS: u64 = 10;
/// Milliseconds before the first retry; each later retry waits [`BACKOFF_FACTOR`] times as long,
/// up to [`BACKOFF_MAX_SECS`].
pub const BACKOFF_MS: u64 = 5000;
/// How many times longer each retry waits than the one before.
pub const BACKOFF_FACTOR: u32 = 6;
/// The longest wait before a retry, in seconds.
pub const BACKOFF_MAX_SECS: u64 = 3600;
/// Deliveries in flight at once.
pub const PARALLEL: usize = 8;
/// The longest e-mail address accepted (RFC 5321's path limit).
pub const MAX_EMAIL: usize = 254;
/// The longest webhook URL accepted.
pub const MAX_WEBHOOK: usize = 2048;

/// Events dropped because the notifier's channel was full.
pub const DROPPED: &str = "siege_notifications_dropped_total";
/// Messages delivered, by channel (`email`, `webhook`).
pub const SENT: &str = "siege_notifications_sent_total";
/// Messages given up after every retry, by channel.
pub const FAILED: &str = "siege_notifications_failed_total";

/// How notifications are sent. Its `Debug` hides the SMTP URL (it may hold a password).
#[derive(Clone)]
pub struct NotifyConfig {
    /// The SMTP relay, e.g. `smtp://127.0.0.1:2525` (plain), `smtp://host:587?tls=required`
    /// (STARTTLS), `smtps://user:pass@host` (TLS); none: no e-mail is sent.
    pub smtp_url: Option<String>,
    /// The `From:` of the e-mails.
    pub smtp_from: String,
    /// Where the page is reached, e.g. `https://siege.example`: links are `{public_url}/#game=ID`
    /// (relative when empty).
    pub public_url: String,
    /// Events waiting before more are dropped.
    pub queue: usize,
    /// Retries of a failed delivery.
    pub retries: u32,
    /// How long one attempt may take.
    pub timeout: Duration,
    /// The wait before the first retry (multiplied by `backoff_factor` for each next one, up to
    /// `backoff_max`).
    pub backoff: Duration,
    /// How many times longer each retry waits than the one before (at least 1).
    pub backoff_factor: u32,
    /// The longest wait before a retry.
    pub backoff_max: Duration,
    /// Deliveries in flight at once.
    pub parallel: usize,
    /// Whether webhooks may reach loopback, private, link-local and reserved addresses (off:
    /// refused when set, and checked again when delivered).
    pub allow_private: bool,
    /// Whether a player who has the game open when the decision passes to them is sent a
    /// message too (off: only a player away from the table is).
    pub when_connected: bool,
}

impl std::fmt::Debug for NotifyConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotifyConfig")
            .field("smtp_url", &self.smtp_url.as_ref().map(|_| "(set)"))
            .field("smtp_from", &self.smtp_from)
            .field("public_url", &self.public_url)
            .field("queue", &self.queue)
            .field("retries", &self.retries)
            .field("timeout", &self.timeout)
            .field("backoff", &self.backoff)
            .field("backoff_factor", &self.backoff_factor)
            .field("backoff_max", &self.backoff_max)
            .field("parallel", &self.parallel)
            .field("allow_private", &self.allow_private)
            .field("when_connected", &self.when_connected)
            .finish()
    }
}

impl Default for NotifyConfig {
    fn default() -> NotifyConfig {
        NotifyConfig {
            smtp_url: None,
            smtp_from: "Siege at Peking <siege@localhost>".into(),
            public_url: String::new(),
            queue: QUEUE,
            retries: RETRIES,
            timeout: Duration::from_secs(TIMEOUT_SECS),
            backoff: Duration::from_millis(BACKOFF_MS),
            backoff_factor: BACKOFF_FACTOR,
            backoff_max: Duration::from_secs(BACKOFF_MAX_SECS),
            parallel: PARALLEL,
            allow_private: false,
            when_connected: false,
        }
    }
}

/// Why the notifier could not start, or settings were refused.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    /// A setting outside the rules; the message names which and why.
    #[error("{0}")]
    Invalid(String),
    #[error("the SMTP URL is not usable: {0}")]
    Smtp(String),
    #[error("the --smtp-from address is not usable: {0}")]
    From(String),
    #[error("the webhook client could not be built: {0}")]
    Client(String),
    /// A webhook URL that names (or resolves to) an address that is not public.
    #[error("{0}")]
    NotPublic(String),
}

/// One seat's decision: the action `seq` handed `side` of `game` the move.
#[derive(Clone, Copy, Debug)]
pub struct YourTurn {
    pub game: Uuid,
    pub side: Side,
    pub seq: u64,
}

/// The game tasks' end of the notifier: cheap to clone; a disabled one does nothing.
#[derive(Clone, Debug, Default)]
pub struct Notifier {
    tx: Option<mpsc::Sender<YourTurn>>,
    /// Whether a player connected to the game is told too (`--notify-when-connected`).
    when_connected: bool,
}

impl Notifier {
    /// A notifier that sends nothing (tests of the game path, the library without a server).
    pub fn off() -> Notifier {
        Notifier::default()
    }

    /// Start the background notifier on `store`, until `shutdown`.
    pub fn start(
        config: &NotifyConfig,
        store: &Store,
        shutdown: CancellationToken,
    ) -> Result<Notifier, NotifyError> {
        let mail = match &config.smtp_url {
            Some(url) if !url.trim().is_empty() => Some(Mail::new(url, config)?),
            _ => None,
        };
        let mut http = reqwest::Client::builder()
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none());
        if !config.allow_private {
            // Every name is resolved by a resolver that refuses non-public addresses; and no
            // proxy from the environment, which would make the proxy's address the one checked.
            http = http.dns_resolver(Arc::new(PublicOnly)).no_proxy();
        }
        let http = http
            .build()
            .map_err(|e| NotifyError::Client(e.to_string()))?;
        let (tx, rx) = mpsc::channel(config.queue.max(1));
        let worker = Worker {
            pool: store.pool().clone(),
            mail: mail.map(Arc::new),
            http,
            config: config.clone(),
            permits: Arc::new(Semaphore::new(config.parallel.max(1))),
            shutdown: shutdown.clone(),
        };
        tracing::info!(
            email = worker.mail.is_some(),
            queue = config.queue,
            "your-turn notifier started"
        );
        tokio::spawn(worker.run(rx, shutdown));
        Ok(Notifier {
            tx: Some(tx),
            when_connected: config.when_connected,
        })
    }

    /// Tell the notifier that `turn.side` is to act after `turn.seq`; `connected`: the player
    /// of that side has the game open, and so is not sent anything (unless the server is told
    /// to): the page itself says whose move it is, and a live game would otherwise send an
    /// e-mail for nearly every decision. Never waits: with the channel full the event is
    /// dropped, logged and counted.
    pub fn your_turn(&self, turn: YourTurn, connected: bool) {
        let Some(tx) = &self.tx else {
            return;
        };
        if connected && !self.when_connected {
            tracing::debug!(game = %turn.game, side = turn.side.as_str(), seq = turn.seq,
                "no your-turn message: the player is at the table");
            return;
        }
        match tx.try_send(turn) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                metrics::counter!(DROPPED).increment(1);
                tracing::warn!(game = %turn.game, side = turn.side.as_str(), seq = turn.seq,
                    "notification dropped: the notifier's queue is full");
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }
}

/// An e-mail address, checked by `lettre`'s parser; `None` for an empty one.
pub fn check_email(email: Option<&str>) -> Result<Option<String>, NotifyError> {
    let Some(email) = email.map(str::trim).filter(|e| !e.is_empty()) else {
        return Ok(None);
    };
    if email.len() > MAX_EMAIL {
        return Err(NotifyError::Invalid(format!(
            "an e-mail address has at most {MAX_EMAIL} characters"
        )));
    }
    email
        .parse::<lettre::Address>()
        .map_err(|e| NotifyError::Invalid(format!("the e-mail address is not valid: {e}")))?;
    Ok(Some(email.to_string()))
}

/// A webhook URL: `http://` or `https://` with a host, no user name or password, and — unless
/// `allow_private` — a host that is not a loopback, private, link-local or reserved address
/// (nor `localhost`); `None` for an empty one. A host name is not resolved here: see
/// [`check_webhook_resolves`] and, at delivery time, [`PublicOnly`].
pub fn check_webhook(
    url: Option<&str>,
    allow_private: bool,
) -> Result<Option<String>, NotifyError> {
    let Some(url) = url.map(str::trim).filter(|u| !u.is_empty()) else {
        return Ok(None);
    };
    if url.len() > MAX_WEBHOOK {
        return Err(NotifyError::Invalid(format!(
            "a webhook URL has at most {MAX_WEBHOOK} characters"
        )));
    }
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| NotifyError::Invalid(format!("the webhook URL is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(NotifyError::Invalid(format!(
            "the webhook URL must start with http:// or https://, not {}://",
            parsed.scheme()
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(NotifyError::Invalid("the webhook URL has no host".into()));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(NotifyError::Invalid(
            "the webhook URL must not carry a user name or password".into(),
        ));
    }
    if !allow_private {
        check_public_host(&parsed)?;
    }
    Ok(Some(url.to_string()))
}

/// Refuse a URL whose host is an address that is not public, or a `localhost` name.
fn check_public_host(url: &reqwest::Url) -> Result<(), NotifyError> {
    let refuse = |what: String| {
        NotifyError::NotPublic(format!(
            "the webhook URL names {what}: a webhook may only reach public addresses \
             (the server's operator may allow others with --webhook-allow-private)"
        ))
    };
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        return Err(NotifyError::Invalid("the webhook URL has no host".into()));
    };
    // The URL parser writes an address in its usual form (`0x7f.1` as `127.0.0.1`, IPv6 in
    // brackets), so what parses as an address here is one.
    if let Ok(ip) = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
    {
        return match private_reason(ip) {
            Some(why) => Err(refuse(format!("{why} ({ip})"))),
            None => Ok(()),
        };
    }
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        Err(refuse(format!("a loopback name ({name})")))
    } else {
        Ok(())
    }
}

/// Seconds a webhook's host name may take to resolve when the URL is set.
const RESOLVE_WHEN_SET_SECS: u64 = 2;

/// When a webhook URL is set: resolve its host name and refuse it if any address it resolves to
/// is not public. A name that does not resolve now (or not within a moment) is accepted — the
/// delivery checks again whatever it resolves to then.
pub async fn check_webhook_resolves(url: &str, allow_private: bool) -> Result<(), NotifyError> {
    if allow_private {
        return Ok(());
    }
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return Ok(());
    };
    let Some(name) = parsed.host_str().filter(|h| !h.starts_with('[')) else {
        return Ok(());
    };
    if name.parse::<IpAddr>().is_ok() {
        return Ok(()); // an address: checked by check_webhook
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    let lookup = tokio::net::lookup_host((name, port));
    let Ok(Ok(addrs)) =
        tokio::time::timeout(Duration::from_secs(RESOLVE_WHEN_SET_SECS), lookup).await
    else {
        return Ok(());
    };
    for addr in addrs {
        if let Some(why) = private_reason(addr.ip()) {
            return Err(NotifyError::NotPublic(format!(
                "the webhook URL's host {name} resolves to {why} ({}): a webhook may only reach \
                 public addresses (the server's operator may allow others with \
                 --webhook-allow-private)",
                addr.ip()
            )));
        }
    }
    Ok(())
}

/// Why `ip` is not an address a webhook may reach (loopback, private, link-local, reserved…),
/// or `None` for a public one. An IPv6 address carrying an IPv4 one (mapped, compatible,
/// NAT64, 6to4) is judged by the IPv4 address it carries.
pub fn private_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4),
        IpAddr::V6(v6) => v6_reason(v6),
    }
}

fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_private() {
        Some("a private address")
    } else if ip.is_link_local() {
        Some("a link-local address")
    } else if a == 0 {
        Some("an unspecified (\"this network\") address")
    } else if a == 100 && (b & 0xc0) == 64 {
        Some("a shared (carrier-grade NAT) address")
    } else if ip.is_broadcast() || a >= 240 {
        Some("a reserved address")
    } else if ip.is_multicast() {
        Some("a multicast address")
    } else if (a == 192 && b == 0 && c == 0)
        || (a == 198 && (b & 0xfe) == 18)
        || ip.is_documentation()
    {
        Some("a reserved address")
    } else {
        None
    }
}

fn v6_reason(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_reason(v4);
    }
    if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_unspecified() {
        Some("an unspecified address")
    } else if s[..6].iter().all(|&x| x == 0) {
        // ::a.b.c.d, IPv4-compatible (deprecated): judged by the IPv4 address.
        v4_reason(embedded(s[6], s[7])).or(Some("an IPv4-compatible address"))
    } else if s[0] == 0x64 && s[1] == 0xff9b {
        v4_reason(embedded(s[6], s[7]))
    } else if s[0] == 0x2002 {
        v4_reason(embedded(s[1], s[2]))
    } else if (s[0] & 0xfe00) == 0xfc00 {
        Some("a private (unique local) address")
    } else if (s[0] & 0xffc0) == 0xfe80 {
        Some("a link-local address")
    } else if (s[0] & 0xffc0) == 0xfec0 {
        Some("a site-local address")
    } else if ip.is_multicast() {
        Some("a multicast address")
    } else if s[0] == 0x2001 && s[1] == 0x0db8 {
        Some("a reserved (documentation) address")
    } else {
        None
    }
}

/// The webhook client's resolver when only public addresses may be reached: it resolves a name
/// as usual and refuses it if any of its addresses is not public (checked when the request is
/// made, so a name that came to resolve to an internal address since it was set is refused).
/// A URL naming an address is not resolved: [`send_webhook`] checks it itself.
struct PublicOnly;

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some(why) = addrs.iter().find_map(|a| private_reason(a.ip())) {
                return Err(format!(
                    "the webhook's host resolves to {why}: not reached (--webhook-allow-private)"
                )
                .into());
            }
            let addrs: reqwest::dns::Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

/// An account's notification settings as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub email: Option<String>,
    pub webhook: Option<String>,
}

/// The settings of account `id`.
pub async fn settings(db: &Db, id: i64) -> Result<Settings, sqlx::Error> {
    let row: Option<(Option<String>, Option<String>)> = on_db!(db, |pool, pg| {
        sqlx::query_as("SELECT notify_email, notify_webhook FROM accounts WHERE id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?
    });
    let (email, webhook) = row.unwrap_or_default();
    Ok(Settings { email, webhook })
}

/// Store the settings of account `id` (already checked).
pub async fn save_settings(db: &Db, id: i64, s: &Settings) -> Result<(), sqlx::Error> {
    on_db!(db, |pool, pg| {
        sqlx::query("UPDATE accounts SET notify_email = $1, notify_webhook = $2 WHERE id = $3")
            .bind(&s.email)
            .bind(&s.webhook)
            .bind(id)
            .execute(pool)
            .await?;
    });
    Ok(())
}

/// The SMTP side.
struct Mail {
    transport: lettre::AsyncSmtpTransport<lettre::Tokio1Executor>,
    from: lettre::message::Mailbox,
}

impl Mail {
    fn new(url: &str, config: &NotifyConfig) -> Result<Mail, NotifyError> {
        // The error text of a bad URL is kept, never the URL (it may hold a password).
        let transport = lettre::AsyncSmtpTransport::<lettre::Tokio1Executor>::from_url(url)
            .map_err(|e| NotifyError::Smtp(e.to_string()))?
            .timeout(Some(config.timeout))
            .build();
        let from = config
            .smtp_from
            .parse()
            .map_err(|e: lettre::address::AddressError| NotifyError::From(e.to_string()))?;
        Ok(Mail { transport, from })
    }
}

/// What one waiting period sends, to whom.
#[derive(Clone, Debug)]
struct Delivery {
    game: Uuid,
    name: String,
    side: Side,
    seq: u64,
    link: String,
    account: String,
}

/// The background task.
struct Worker {
    pool: Db,
    mail: Option<Arc<Mail>>,
    http: reqwest::Client,
    config: NotifyConfig,
    permits: Arc<Semaphore>,
    shutdown: CancellationToken,
}

/// What a delivery needs to wait, retry and stop: the database (is the period still on?), the
/// attempt permits and the server's shutdown.
#[derive(Clone)]
struct Retrying {
    pool: Db,
    permits: Arc<Semaphore>,
    shutdown: CancellationToken,
    config: NotifyConfig,
}

impl Worker {
    fn retrying(&self) -> Retrying {
        Retrying {
            pool: self.pool.clone(),
            permits: self.permits.clone(),
            shutdown: self.shutdown.clone(),
            config: self.config.clone(),
        }
    }

    async fn run(self, mut rx: mpsc::Receiver<YourTurn>, shutdown: CancellationToken) {
        loop {
            let turn = tokio::select! {
                () = shutdown.cancelled() => return,
                turn = rx.recv() => match turn {
                    Some(t) => t,
                    None => return,
                },
            };
            if let Err(e) = self.handle(turn).await {
                tracing::error!(game = %turn.game, side = turn.side.as_str(), error = %e,
                    "notification not prepared");
            }
        }
    }

    /// Look the seat up, claim its marker, and start the deliveries.
    async fn handle(&self, turn: YourTurn) -> Result<(), sqlx::Error> {
        let row: Option<(String, String, Option<String>, Option<String>)> = on_db!(
            &self.pool,
            |pool, pg| {
                sqlx::query_as(
                    "SELECT g.name, a.name, a.notify_email, a.notify_webhook \
                     FROM seats s JOIN accounts a ON a.id = s.account_id JOIN games g ON g.id = s.game_id \
                     WHERE s.game_id = $1 AND s.side = $2",
                )
                .bind(turn.game.to_string())
                .bind(turn.side.as_str())
                .fetch_optional(pool)
                .await?
            }
        );
        let Some((name, account, email, webhook)) = row else {
            return Ok(()); // a guest's seat, or a computer's
        };
        let email = email.filter(|_| self.mail.is_some());
        if email.is_none() && webhook.is_none() {
            return Ok(());
        }
        // At most once per waiting period: only the first event for this seq (or a later one)
        // claims the marker; it is kept in the database, so a restart sends nothing again.
        let seq = i64::try_from(turn.seq).unwrap_or(i64::MAX);
        let claimed = on_db!(&self.pool, |pool, pg| {
            sqlx::query(
                "UPDATE seats SET notified_seq = $1 WHERE game_id = $2 AND side = $3 \
                 AND (notified_seq IS NULL OR notified_seq < $1)",
            )
            .bind(seq)
            .bind(turn.game.to_string())
            .bind(turn.side.as_str())
            .execute(pool)
            .await?
            .rows_affected()
        });
        if claimed == 0 {
            return Ok(());
        }
        let delivery = Delivery {
            game: turn.game,
            name,
            side: turn.side,
            seq: turn.seq,
            link: format!(
                "{}/#game={}",
                self.config.public_url.trim_end_matches('/'),
                turn.game
            ),
            account,
        };
        // Each delivery is a task of its own, holding an attempt permit only while it tries (a
        // retry waiting for its time holds none), so a dead receiver never holds up the rest.
        if let (Some(to), Some(mail)) = (email, &self.mail) {
            let (mail, d, retrying) = (mail.clone(), delivery.clone(), self.retrying());
            tokio::spawn(async move {
                send_email(&mail, &to, &d, &retrying).await;
            });
        }
        if let Some(url) = webhook {
            let (http, d, retrying) = (self.http.clone(), delivery, self.retrying());
            tokio::spawn(async move {
                send_webhook(&http, &url, &d, &retrying).await;
            });
        }
        Ok(())
    }
}

/// The wait before retry `n` (0-based): `backoff`, multiplied by `backoff_factor` each time, at
/// most `backoff_max`.
fn backoff(config: &NotifyConfig, n: u32) -> Duration {
    let factor = config.backoff_factor.max(1).saturating_pow(n);
    config
        .backoff
        .saturating_mul(factor)
        .min(config.backoff_max.max(config.backoff))
}

/// Whether seat `d.side` still waits in the period `d` was made for: nothing was logged in its
/// game after action `d.seq` (an action by the player, or anything ending the game, ends it).
async fn still_waiting(db: &Db, d: &Delivery) -> Result<bool, sqlx::Error> {
    let (last,): (Option<i64>,) = on_db!(db, |pool, pg| {
        sqlx::query_as("SELECT MAX(seq) FROM actions WHERE game_id = $1")
            .bind(d.game.to_string())
            .fetch_one(pool)
            .await?
    });
    Ok(last.and_then(|l| u64::try_from(l).ok()) == Some(d.seq))
}

/// Try `attempt` once and then up to `retries` more times with exponential backoff, while the
/// waiting period lasts and the server runs; the outcome is counted and logged (without the
/// destination).
async fn with_retries<F, Fut>(channel: &'static str, d: &Delivery, r: &Retrying, attempt: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let config = &r.config;
    for n in 0..=config.retries {
        if n > 0 {
            tokio::select! {
                () = r.shutdown.cancelled() => {
                    tracing::info!(game = %d.game, seq = d.seq, channel,
                        "your-turn notification retry dropped: the server is stopping");
                    return;
                }
                () = tokio::time::sleep(backoff(config, n - 1)) => {}
            }
            match still_waiting(&r.pool, d).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::info!(game = %d.game, side = d.side.as_str(), seq = d.seq, channel,
                        "your-turn notification not retried: the waiting period is over");
                    return;
                }
                Err(e) => {
                    tracing::warn!(game = %d.game, seq = d.seq, channel, error = %e,
                        "your-turn notification not retried: the game could not be read");
                    return;
                }
            }
        }
        let Ok(_permit) = r.permits.acquire().await else {
            return;
        };
        match tokio::time::timeout(config.timeout, attempt()).await {
            Ok(Ok(())) => {
                metrics::counter!(SENT, "channel" => channel).increment(1);
                tracing::info!(game = %d.game, side = d.side.as_str(), seq = d.seq, channel,
                    "your-turn notification sent");
                return;
            }
            Ok(Err(e)) => {
                tracing::warn!(game = %d.game, seq = d.seq, channel, attempt = n + 1, error = %e,
                    "your-turn notification failed");
            }
            Err(_) => {
                tracing::warn!(game = %d.game, seq = d.seq, channel, attempt = n + 1,
                    "your-turn notification timed out");
            }
        }
    }
    metrics::counter!(FAILED, "channel" => channel).increment(1);
    tracing::error!(game = %d.game, side = d.side.as_str(), seq = d.seq, channel,
        "your-turn notification given up");
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Allied => "Allied",
        Side::Chinese => "Chinese",
    }
}

async fn send_email(mail: &Mail, to: &str, d: &Delivery, r: &Retrying) {
    use lettre::AsyncTransport;
    let Ok(to) = to.parse::<lettre::message::Mailbox>() else {
        tracing::warn!(game = %d.game, "stored e-mail address no longer parses: not sent");
        return;
    };
    let subject = format!("Your move — {}", d.name);
    // Short lines, so that the body goes as plain 7-bit text.
    let body = format!(
        "{},\n\nIt is your move.\n\nGame: {}\nYou play: {}\nAfter action: {}\n\n{}\n\n\
         You are told once each time the move passes to you.\n\
         Turn these e-mails off in your account's notification settings.\n",
        d.account,
        d.name,
        side_name(d.side),
        d.seq,
        d.link
    );
    let message = lettre::Message::builder()
        .from(mail.from.clone())
        .to(to)
        .subject(subject)
        .header(lettre::message::header::ContentType::TEXT_PLAIN)
        .body(body);
    let message = match message {
        Ok(m) => m,
        Err(e) => {
            tracing::error!(game = %d.game, error = %e, "e-mail not built");
            return;
        }
    };
    with_retries("email", d, r, || {
        let m = message.clone();
        async move {
            mail.transport
                .send(m)
                .await
                .map(|_| ())
                .map_err(|e| smtp_error(&e))
        }
    })
    .await;
}

/// What went wrong with an SMTP delivery, for the log: its kind and reply code only. The
/// relay's own text often quotes the recipient ("550 <x@y>: Recipient address rejected"), and
/// addresses never reach a log.
fn smtp_error(e: &lettre::transport::smtp::Error) -> String {
    let kind = if e.is_permanent() {
        "refused for good by the relay"
    } else if e.is_transient() {
        "refused for now by the relay"
    } else if e.is_timeout() {
        "timed out"
    } else if e.is_tls() {
        "TLS failed"
    } else if e.is_client() {
        "the client failed"
    } else {
        "could not reach or speak to the relay"
    };
    match e.status() {
        Some(code) => format!("{kind} (SMTP {code})"),
        None => kind.to_string(),
    }
}

async fn send_webhook(http: &reqwest::Client, url: &str, d: &Delivery, r: &Retrying) {
    // A URL stored while private addresses were allowed (or before they were refused) is
    // checked again: a literal address never reaches the resolver.
    if !r.config.allow_private
        && let Err(e) = reqwest::Url::parse(url)
            .map_err(|e| NotifyError::Invalid(e.to_string()))
            .and_then(|u| check_public_host(&u))
    {
        metrics::counter!(FAILED, "channel" => "webhook").increment(1);
        tracing::warn!(game = %d.game, side = d.side.as_str(), seq = d.seq, error = %e,
            "your-turn webhook not sent: its address is not public");
        return;
    }
    let body = serde_json::json!({
        "event": "your_turn",
        "game_id": d.game.to_string(),
        "name": d.name,
        "side": d.side.as_str(),
        "seq": d.seq,
        "link": d.link,
    });
    with_retries("webhook", d, r, || {
        let req = http.post(url).json(&body);
        async move {
            let resp = req.send().await.map_err(|e| e.without_url().to_string())?;
            if resp.status().is_success() {
                Ok(())
            } else {
                Err(format!("the receiver answered {}", resp.status()))
            }
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_urls_are_checked_with_a_reason() {
        assert_eq!(check_email(None).unwrap(), None);
        assert_eq!(check_email(Some("  ")).unwrap(), None);
        assert_eq!(
            check_email(Some(" reid@legation.cn ")).unwrap().as_deref(),
            Some("reid@legation.cn")
        );
        for bad in ["reid", "reid@", "@x.cn", "a b@x.cn"] {
            let e = check_email(Some(bad)).unwrap_err().to_string();
            assert!(e.contains("e-mail address"), "{bad}: {e}");
        }
        assert_eq!(
            check_webhook(Some("https://hooks.example/x?t=1"), false)
                .unwrap()
                .as_deref(),
            Some("https://hooks.example/x?t=1")
        );
        for (bad, why) in [
            ("ftp://x.example/", "http://"),
            ("javascript:alert(1)", "http://"),
            ("not a url", "not a URL"),
            ("https://user:pw@x.example/", "user name"),
        ] {
            let e = check_webhook(Some(bad), false).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn webhooks_to_internal_addresses_are_refused_unless_allowed() {
        for (url, why) in [
            ("http://127.0.0.1:8080/hook", "loopback"),
            ("http://127.9.9.9/", "loopback"),
            ("http://localhost/x", "loopback name"),
            ("http://api.LOCALHOST./x", "loopback name"),
            ("http://10.1.2.3/", "private"),
            ("http://172.16.0.1/", "private"),
            ("http://192.168.1.1/", "private"),
            ("http://169.254.169.254/latest/meta-data", "link-local"),
            ("http://0.0.0.0/", "unspecified"),
            ("http://100.64.0.1/", "carrier-grade"),
            ("http://[::1]/", "loopback"),
            ("http://[::]/", "unspecified"),
            ("http://[fd00::1]/", "unique local"),
            ("http://[fe80::1]/", "link-local"),
            ("http://[::ffff:127.0.0.1]/", "loopback"),
            ("http://[::ffff:10.0.0.1]/", "private"),
            ("http://[64:ff9b::a9fe:a9fe]/", "link-local"),
            ("http://[2002:c0a8:0101::1]/", "private"),
            ("http://2130706433/", "loopback"),
            ("http://0x7f.1/", "loopback"),
        ] {
            let e = check_webhook(Some(url), false).unwrap_err();
            assert!(matches!(e, NotifyError::NotPublic(_)), "{url}: {e}");
            let e = e.to_string();
            assert!(
                e.contains(why) && e.contains("--webhook-allow-private"),
                "{url}: {e}"
            );
            assert_eq!(
                check_webhook(Some(url), true).unwrap().as_deref(),
                Some(url)
            );
        }
        for url in [
            "https://8.8.8.8/",
            "http://[2606:4700:4700::1111]/",
            "https://hooks.example/x",
            "http://[::ffff:8.8.8.8]/",
        ] {
            assert!(check_webhook(Some(url), false).is_ok(), "{url}");
        }
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_internal_addresses() {
        use reqwest::dns::Resolve;
        let name: reqwest::dns::Name = "localhost".parse().unwrap();
        let e = PublicOnly.resolve(name).await.err().expect("refused");
        assert!(e.to_string().contains("loopback"), "{e}");
        let e = check_webhook_resolves("http://localhost./x", false).await;
        assert!(e.is_ok() || matches!(e, Err(NotifyError::NotPublic(_))));
        assert!(
            check_webhook_resolves("http://localhost/x", true)
                .await
                .is_ok()
        );
    }

    #[test]
    fn retries_back_off_exponentially_up_to_the_longest_wait() {
        let config = NotifyConfig::default();
        let waits: Vec<u64> = (0..config.retries)
            .map(|n| backoff(&config, n).as_secs())
            .collect();
        assert_eq!(waits, [5, 30, 180, 1080, 3600, 3600]);
        let config = NotifyConfig {
            backoff: Duration::from_millis(100),
            backoff_factor: 2,
            backoff_max: Duration::from_millis(500),
            ..NotifyConfig::default()
        };
        let waits: Vec<u128> = (0..5).map(|n| backoff(&config, n).as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 500, 500]);
        let flat = NotifyConfig {
            backoff_factor: 0,
            ..config
        };
        assert_eq!(backoff(&flat, 40), Duration::from_millis(100));
    }

    #[tokio::test]
    async fn a_full_queue_drops_without_waiting() {
        let (tx, mut rx) = mpsc::channel(1);
        let n = Notifier {
            tx: Some(tx),
            when_connected: false,
        };
        let turn = YourTurn {
            game: Uuid::nil(),
            side: Side::Allied,
            seq: 1,
        };
        n.your_turn(turn, false);
        n.your_turn(YourTurn { seq: 2, ..turn }, false); // dropped, not awaited
        assert_eq!(rx.recv().await.map(|t| t.seq), Some(1));
        assert!(rx.try_recv().is_err());
        Notifier::off().your_turn(turn, false);
    }

    #[tokio::test]
    async fn a_player_at_the_table_is_not_sent_a_message_unless_asked_for() {
        let turn = YourTurn {
            game: Uuid::nil(),
            side: Side::Chinese,
            seq: 7,
        };
        for when_connected in [false, true] {
            let (tx, mut rx) = mpsc::channel(4);
            let n = Notifier {
                tx: Some(tx),
                when_connected,
            };
            n.your_turn(turn, true);
            assert_eq!(rx.try_recv().is_ok(), when_connected);
            n.your_turn(YourTurn { seq: 8, ..turn }, false);
            assert_eq!(rx.try_recv().map(|t| t.seq).ok(), Some(8), "away: told");
        }
    }
}
