//! The HTTP and WebSocket edge of the game server (docs/protocol.md). [`app`] builds the router
//! from an [`AppState`], apart from any socket, so tests can drive it directly; [`Server`]
//! locks the database, opens the store, expires games nobody joined, binds the address and
//! serves until shutdown — then stops accepting, closes every socket with "going away", lets
//! every game task finish its in-flight write, and closes the writer and the store, in that
//! order. The limits that keep clients from exhausting it are in [`limits`] and
//! docs/security.md.

mod auth;
pub mod client;
mod error;
mod export;
pub mod forward;
mod guard;
mod heavy;
mod http;
pub mod limits;
mod listener;
mod lock;
mod past;
pub mod rate;
mod rematch;
mod ws;

pub use error::{AppError, WireError};

use crate::accounts::Accounts;
use crate::accounts::sessions::SqlSessions;
use crate::games::chat::ChatHub;
use crate::games::{Games, GamesConfig};
use crate::probe::Probes;
use crate::rules::{Scenario, ScenarioError};
use crate::store::writer::{self, Writer};
use crate::store::{Store, StoreError};
use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{DefaultBodyLimit, Path, State, WebSocketUpgrade};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use heavy::Heavy;
use limits::Limits;
use lock::DatabaseLock;
use past::PastStates;
use rate::Rates;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_http::services::ServeDir;
use tower_http::trace::TraceLayer;
use tracing::Instrument;

/// How the server is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// `HOST:PORT` to listen on; port 0 picks a free one.
    pub addr: String,
    /// The SQLite URL, e.g. `sqlite://siege.db` (created if missing).
    pub database: String,
    /// The static page's folder; a missing folder only makes `/` answer 404.
    pub web_dir: PathBuf,
    /// Where the game path reports its measurements (none by default; `siege serve
    /// --bench-routes` plugs in the load generator's stage timers).
    pub probe: Probes,
    /// Connections allowed per game.
    pub max_connections_per_game: usize,
    /// Frames a socket may send per second (bursts of twice as many).
    pub frame_rate: u32,
    /// How long a game with nobody connected stays loaded.
    pub idle_unload: Duration,
    /// Within a game turn, a snapshot of the state at least every this many actions (one is
    /// stored at the start of every turn too).
    pub snapshot_every: u64,
    /// The background audit, or none.
    pub audit: Option<crate::audit::AuditConfig>,
    /// The most actions the writer commits in one transaction: [`writer::MAX_BATCH`] (group
    /// commit), or `SIEGE_COMMIT_BATCH` from the environment — `1` turns group commit off, to
    /// measure what it gains (docs/benchmarks.md).
    pub commit_batch: usize,
    /// Playouts a `hard` engine hint (`suggest`) may run on the analysis board.
    pub suggest_nodes: u32,
    /// The computer players' worker threads, thinking time and pace.
    pub bots: crate::games::bots::BotConfig,
    /// The server-wide limits (rates, caps, timeouts, the expensive-request pool).
    pub limits: Limits,
    /// Whether the session cookie is marked `Secure` (the server is reached over HTTPS).
    pub secure_cookies: bool,
    /// Your-turn e-mail and webhooks (docs/protocol.md, "Notifications").
    pub notify: crate::notify::NotifyConfig,
    /// This node's name, address and lease length when it is one of several on one
    /// database (`--node-id`); `None`: a single server, which takes no leases.
    pub cluster: Option<crate::games::cluster::Cluster>,
}

impl Config {
    /// The defaults of `siege serve`, with the given address and database.
    pub fn new(addr: impl Into<String>, database: impl Into<String>) -> Config {
        Config {
            addr: addr.into(),
            database: database.into(),
            web_dir: default_web_dir(),
            probe: Probes::off(),
            max_connections_per_game: limits::MAX_CONNECTIONS_PER_GAME,
            frame_rate: limits::RATE_PER_SECOND,
            idle_unload: Duration::from_secs(crate::games::IDLE_UNLOAD_SECS),
            snapshot_every: crate::games::SNAPSHOT_EVERY,
            audit: Some(crate::audit::AuditConfig::default()),
            commit_batch: commit_batch_from_env(),
            suggest_nodes: crate::analysis::SUGGEST_NODES,
            bots: crate::games::bots::BotConfig::default(),
            limits: Limits::default(),
            secure_cookies: false,
            notify: crate::notify::NotifyConfig::default(),
            cluster: None,
        }
    }
}

/// `SIEGE_COMMIT_BATCH`, when set to a whole number of at least 1; else group commit in full.
fn commit_batch_from_env() -> usize {
    std::env::var("SIEGE_COMMIT_BATCH")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n >= 1)
        .map_or(writer::MAX_BATCH, |n| n.min(writer::MAX_BATCH))
}

/// The project's `web/`: relative to the current folder, else beside the server's sources.
pub fn default_web_dir() -> PathBuf {
    let here = PathBuf::from("web");
    if here.is_dir() {
        return here;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web")
}

/// Why the server could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("scenario: {0}")]
    Scenario(#[from] ScenarioError),
    #[error("network: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Locked(#[from] lock::LockError),
    #[error("notifications: {0}")]
    Notify(#[from] crate::notify::NotifyError),
    /// A setting that cannot work (named with the flag to change).
    #[error("{0}")]
    Config(String),
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub games: Games,
    /// `GET /api/scenario`, serialized once.
    pub scenario_json: Bytes,
    /// Cancelled when the server shuts down.
    pub shutdown: CancellationToken,
    /// Every WebSocket connection, so shutdown can wait for them to close.
    pub sockets: TaskTracker,
    pub web_dir: PathBuf,
    /// Frames a socket may send per second.
    pub frame_rate: u32,
    /// Playouts a `hard` engine hint may run.
    pub suggest_nodes: u32,
    /// The writer, for its health.
    pub writer: Writer,
    pub limits: Arc<Limits>,
    /// Creation and join rates per client.
    pub rates: Arc<Rates>,
    /// The players' accounts.
    pub accounts: Accounts,
    /// Whether the session cookie is marked `Secure`.
    secure_cookies: bool,
    /// Whether your-turn e-mail can be sent (an SMTP relay is configured).
    pub email_available: bool,
    /// Whether a webhook may name a loopback, private or link-local address
    /// (`--webhook-allow-private`).
    pub webhook_allow_private: bool,
    /// The games' chat: checked, stored and delivered apart from the game tasks.
    pub chat: Arc<ChatHub>,
    /// Where expensive requests run.
    heavy: Heavy,
    /// Past states ready to send.
    past: Arc<PastStates>,
    /// When `/healthz` last asked the writer for a probe (Unix ms), so a flood of health checks
    /// is not a flood of writes.
    last_probe: Arc<AtomicI64>,
    /// Numbers connections in the logs.
    next_conn: Arc<AtomicU64>,
    /// Rematches being made, and their offers to the finished games' seats.
    pub rematches: Arc<rematch::Rematches>,
}

impl AppState {
    /// State for `games` writing through `writer`, with shutdown signalled by `shutdown`.
    pub fn new(
        games: Games,
        writer: Writer,
        shutdown: CancellationToken,
        config: &Config,
    ) -> AppState {
        let scenario_json = Bytes::from(crate::tables::scenario_json(games.scenario()).to_string());
        let chat = Arc::new(ChatHub::new(games.store().clone(), config.limits.chat));
        let limits = &config.limits;
        let accounts = Accounts::new(games.store());
        AppState {
            games,
            scenario_json,
            shutdown,
            sockets: TaskTracker::new(),
            web_dir: config.web_dir.clone(),
            frame_rate: config.frame_rate,
            suggest_nodes: config.suggest_nodes,
            writer,
            limits: Arc::new(limits.clone()),
            rates: Arc::new(Rates::new(limits)),
            accounts,
            secure_cookies: config.secure_cookies,
            email_available: config
                .notify
                .smtp_url
                .as_deref()
                .is_some_and(|u| !u.trim().is_empty()),
            webhook_allow_private: config.notify.allow_private,
            chat,
            heavy: Heavy::start(limits.heavy_threads, limits.heavy_queue, limits.work_budget),
            past: Arc::new(PastStates::new(limits::PAST_STATES)),
            last_probe: Arc::new(AtomicI64::new(0)),
            next_conn: Arc::new(AtomicU64::new(1)),
            rematches: Arc::new(rematch::Rematches::default()),
        }
    }
}

/// The router: the API, the game sockets, and the static page, behind the browser-facing
/// guards (security headers, no cross-site POSTs).
pub fn app(state: AppState) -> Router {
    let router = Router::new()
        .route("/healthz", get(http::healthz))
        .route("/metrics", get(http::metrics))
        .route("/api/scenario", get(http::scenario))
        .route("/api/games", post(http::create).get(http::list))
        .route("/api/games/{id}", get(http::game))
        .route("/api/games/{id}/join", post(http::join))
        .route("/api/games/{id}/claim", post(http::claim))
        .route("/api/games/{id}/rematch", post(rematch::rematch))
        .route("/api/games/{id}/explain", post(http::explain))
        .route("/api/games/{id}/log", get(http::log))
        .route("/api/games/{id}/chat", get(export::chat))
        .route("/api/games/{id}/transcript", get(export::transcript))
        .route("/api/games/{id}/state", get(http::state_at))
        .route("/api/analysis", post(http::analysis))
        .route("/api/account", get(auth::me))
        .route("/api/account/signup", post(auth::sign_up))
        .route("/api/account/login", post(auth::log_in))
        .route("/api/account/logout", post(auth::log_out))
        .route("/api/account/password", post(auth::change_password))
        .route(
            "/api/account/notifications",
            get(auth::notifications).post(auth::set_notifications),
        )
        .route("/api/{*rest}", any(http::no_route))
        .route("/ws/games/{id}", get(game_socket));
    let next_request = Arc::new(AtomicU64::new(1));
    let sessions = auth::layer(
        SqlSessions::new(state.games.store()),
        state.limits.session_idle,
        state.secure_cookies,
    );
    let router = router
        .method_not_allowed_fallback(http::method_not_allowed)
        .layer(sessions)
        .fallback_service(ServeDir::new(&state.web_dir))
        .layer(axum::middleware::from_fn(guard::same_origin_writes))
        .layer(DefaultBodyLimit::max(limits::MAX_FRAME))
        // Outside the guards: a request passed to another node meets that node's. (The
        // security headers below are added only where the answer lacks them.)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            forward::to_holder,
        ));
    guard::security_headers(router)
        // A refusal (busy, over a limit) is not the server failing: not an error in the log,
        // which a flood of refusals would otherwise fill. Real failures are logged where they
        // happen (`AppError::internal`).
        .layer(TraceLayer::new_for_http().on_failure(
            tower_http::trace::DefaultOnFailure::new().level(tracing::Level::DEBUG),
        ).make_span_with(
            move |req: &axum::http::Request<axum::body::Body>| {
                // The path only: no query string, no headers — nothing that could carry a token.
                let id = next_request.fetch_add(1, Ordering::Relaxed);
                tracing::info_span!("request", id, method = %req.method(), path = req.uri().path())
            },
        ))
        .with_state(state)
}

/// `GET /ws/games/{id}`: a game must exist before the socket is upgraded (else a JSON 404).
async fn game_socket(
    State(app): State<AppState>,
    session: tower_sessions::Session,
    Path(id): Path<String>,
    client::ClientIp(ip): client::ClientIp,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, AppError> {
    let id = http::game_id(&id)?;
    app.games.get(id).await?;
    let account = auth::signed_in(&app, &session).await?.map(|a| a.id);
    let upgrade = upgrade.map_err(|r| {
        AppError::bad_request(format!("{}: this route speaks WebSocket", r.body_text()))
    })?;
    let conn = app.next_conn.fetch_add(1, Ordering::Relaxed);
    let sockets = app.sockets.clone();
    Ok(upgrade
        .read_buffer_size(limits::READ_BUFFER)
        .write_buffer_size(limits::WRITE_BUFFER)
        .max_message_size(limits::MAX_TRANSPORT_FRAME)
        .max_frame_size(limits::MAX_TRANSPORT_FRAME)
        .on_upgrade(move |socket| {
            let span = tracing::info_span!("socket", game = %id, conn);
            let client = client::ClientKey::of(ip).stored();
            sockets.track_future(ws::serve(socket, id, app, conn, account, client).instrument(span))
        })
        .into_response())
}

/// A server, bound and ready to run.
pub struct Server {
    listener: TcpListener,
    state: AppState,
    games: TaskTracker,
    writer: Writer,
    writer_task: JoinHandle<()>,
    store: Store,
    /// Routes mounted beside the API by whoever starts the server (the benchmark routes).
    extra: Router,
    caps: listener::Caps,
    /// Expiry, metric upkeep and the rate tables' pruning.
    housekeeping: JoinHandle<()>,
    /// Held until the server has closed its store.
    _lock: Option<DatabaseLock>,
}

impl Server {
    /// Lock the database, open the store (migrating it), expire games nobody joined, start the
    /// background audit, and bind. No game is loaded here, however many the store holds: each
    /// loads when first touched.
    pub async fn bind(config: &Config) -> Result<Server, ServerError> {
        let lock = DatabaseLock::take(&config.database)?;
        if let Some(lock) = &lock {
            tracing::debug!(lock = %lock.path.display(), "database locked");
        }
        crate::observe::recorder();
        let scenario = Arc::new(Scenario::load_default()?);
        let store = Store::open(&config.database).await?;
        let (writer, writer_task) =
            Writer::start_with(store.clone(), config.commit_batch, config.probe.clone());
        if config.commit_batch < writer::MAX_BATCH {
            tracing::warn!(
                batch = config.commit_batch,
                "group commit limited by SIEGE_COMMIT_BATCH (a benchmark setting)"
            );
        }
        // A node of several binds before its games are set up, to advertise the address it
        // got; a single server binds last, as before.
        let early = match &config.cluster {
            Some(_) => Some(TcpListener::bind(&config.addr).await?),
            None => None,
        };
        let cluster = match &early {
            Some(listener) => advertised(config.cluster.clone(), listener.local_addr()?)?,
            None => None,
        };
        let shutdown = CancellationToken::new();
        let games_tracker = TaskTracker::new();
        let notifier = crate::notify::Notifier::start(&config.notify, &store, shutdown.clone())?;
        let games = Games::new(
            scenario.clone(),
            store.clone(),
            writer.clone(),
            shutdown.clone(),
            games_tracker.clone(),
            GamesConfig {
                max_connections: config.max_connections_per_game,
                idle: config.idle_unload,
                probe: config.probe.clone(),
                snapshot_every: config.snapshot_every,
                bots: config.bots.clone(),
                notifier,
                abandon_after: config.limits.abandon_after,
                cluster: cluster.clone(),
            },
        );
        if let Some(cluster) = &cluster {
            tracing::info!(node = %cluster.node, addr = %cluster.addr, lease_secs = cluster.lease.as_secs_f64(), "one node of several: games are leased");
            games_tracker.spawn(games.clone().keep_leases());
        }
        // Games nobody joined are expired before anyone can touch (and so load) them.
        if let Some(age) = config.limits.expire_unjoined {
            let expired = games.expire_unjoined(age).await?;
            if expired > 0 {
                tracing::info!(games = expired, "games nobody joined expired");
            }
        }
        // Games with a computer seated are loaded in the background, so that a computer whose
        // decision it was when the server stopped goes on without waiting for a touch. A node
        // of several adopts the ones whose decision is a computer's and that no node runs, now
        // and every lease's length after.
        if cluster.is_some() {
            games_tracker.spawn(games.clone().adopt_bot_games());
        } else {
            let resumer = games.clone();
            games_tracker.spawn(async move {
                match resumer.resume_bots().await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(games = n, "games with a computer player resumed"),
                    Err(e) => {
                        tracing::error!(error = %e, "games with a computer player not resumed")
                    }
                }
            });
        }
        if let Some(audit) = &config.audit {
            crate::audit::start(
                audit.clone(),
                crate::audit::Links {
                    database: config.database.clone(),
                    scenario,
                    writer: writer.clone(),
                    games: games.clone(),
                    runtime: tokio::runtime::Handle::current(),
                    shutdown: shutdown.clone(),
                },
            )?;
        }
        if !config.web_dir.is_dir() {
            tracing::warn!(dir = %config.web_dir.display(), "web folder missing: / will answer 404");
        }
        let listener = match early {
            Some(listener) => listener,
            None => TcpListener::bind(&config.addr).await?,
        };
        let caps = listener::Caps::of(&config.limits);
        let state = AppState::new(games, writer.clone(), shutdown, config);
        let housekeeping = tokio::spawn(housekeeping(state.clone()));
        Ok(Server {
            listener,
            state,
            games: games_tracker,
            writer,
            writer_task,
            store,
            extra: Router::new(),
            caps,
            housekeeping,
            _lock: lock,
        })
    }

    /// The address actually bound (the real port when asked for port 0).
    pub fn local_addr(&self) -> Result<SocketAddr, ServerError> {
        Ok(self.listener.local_addr()?)
    }

    /// Cancel this token to shut the server down gracefully.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.state.shutdown.clone()
    }

    /// The games registry (to see how many games are loaded, in tests and benchmarks).
    pub fn games(&self) -> Games {
        self.state.games.clone()
    }

    /// The store's writer, through which every action is committed (for the benchmark
    /// routes' durable echo, which writes through it too).
    pub fn writer(&self) -> Writer {
        self.writer.clone()
    }

    /// The tracker of every socket: shutdown waits for the sockets it tracks.
    pub fn socket_tracker(&self) -> TaskTracker {
        self.state.sockets.clone()
    }

    /// Serve `routes` beside the API (e.g. the benchmark routes, `crate::load::routes`); the
    /// game path knows nothing of them.
    pub fn mount(&mut self, routes: Router) {
        let extra = std::mem::take(&mut self.extra);
        self.extra = extra.merge(routes);
    }

    /// Serve until the shutdown token is cancelled, then shut down in order.
    pub async fn run(self) -> Result<(), ServerError> {
        let shutdown = self.state.shutdown.clone();
        let sockets = self.state.sockets.clone();
        let games = self.state.games.clone();
        tracing::info!(
            connections = self.caps.total,
            per_address = self.caps.per_address,
            "connection caps"
        );
        listener::serve(
            self.listener,
            app(self.state).merge(self.extra),
            self.caps,
            shutdown.clone(),
        )
        .await;
        shutdown.cancel();
        let _ = self.housekeeping.await;
        sockets.close();
        sockets.wait().await;
        self.games.close();
        self.games.wait().await;
        self.writer.close().await;
        // Every game has stopped and its last action is written: its lease passes at once.
        games.release_leases().await;
        let _ = self.writer_task.await;
        self.store.close().await;
        tracing::info!("shut down");
        Ok(())
    }
}

/// `cluster` with its address filled in when none was given: `http://` and the address
/// listened on, unless that is a wildcard, which the other nodes cannot reach.
fn advertised(
    cluster: Option<crate::games::cluster::Cluster>,
    bound: SocketAddr,
) -> Result<Option<crate::games::cluster::Cluster>, ServerError> {
    let Some(mut cluster) = cluster else {
        return Ok(None);
    };
    if cluster.node.trim().is_empty() {
        return Err(ServerError::Config("--node-id must not be empty".into()));
    }
    if cluster.addr.is_empty() {
        if bound.ip().is_unspecified() {
            return Err(ServerError::Config(format!(
                "--node-id {}: listening on {bound}, which other nodes cannot reach; say where they reach this node with --advertise http://HOST:PORT",
                cluster.node
            )));
        }
        cluster.addr = format!("http://{bound}");
    }
    let parsed: Option<axum::http::Uri> = cluster.addr.parse().ok();
    if !parsed.is_some_and(|u| u.scheme_str() == Some("http") && u.port_u16().is_some()) {
        return Err(ServerError::Config(format!(
            "--advertise {}: want http://HOST:PORT",
            cluster.addr
        )));
    }
    Ok(Some(cluster))
}

/// How often the metrics recorder drains its histograms.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);
/// How often idle clients are dropped from the rate tables.
const PRUNE_EVERY: Duration = Duration::from_secs(60);
/// How often games nobody joined are looked for (and once at start-up).
const EXPIRE_EVERY: Duration = Duration::from_secs(3600);

/// The server's periodic chores, until shutdown.
async fn housekeeping(app: AppState) {
    let mut upkeep = tokio::time::interval(UPKEEP_EVERY);
    let mut prune = tokio::time::interval(PRUNE_EVERY);
    // Expiry ran at start-up: the first tick is an hour away.
    let mut expire =
        tokio::time::interval_at(tokio::time::Instant::now() + EXPIRE_EVERY, EXPIRE_EVERY);
    for timer in [&mut upkeep, &mut prune, &mut expire] {
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    }
    loop {
        tokio::select! {
            () = app.shutdown.cancelled() => return,
            _ = upkeep.tick() => {
                if let Some(recorder) = crate::observe::recorder() {
                    recorder.run_upkeep();
                }
            }
            _ = prune.tick() => {
                app.rates.prune();
                use tower_sessions::session_store::ExpiredDeletion;
                if let Err(e) = SqlSessions::new(app.games.store()).delete_expired().await {
                    tracing::error!(error = %e, "deleting expired sessions");
                }
                app.chat.prune();
            }
            _ = expire.tick() => {
                if let Some(age) = app.limits.expire_unjoined {
                    match app.games.expire_unjoined(age).await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(games = n, "games nobody joined expired"),
                        Err(e) => tracing::error!(error = %e, "expiring games nobody joined"),
                    }
                }
            }
        }
    }
}
