//! The `siege` command: parses arguments and hands over to the library. `anyhow` lives here
//! only; everything below speaks typed errors. With no subcommand it serves.

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use siege::rules::Scenario;
use siege::server::limits::Limits;
use siege::server::{Config, Server};
use siege_protocol::GameLog;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The whole program's allocator. Every action copies a state and writes frames and patches:
/// with glibc's malloc the allocator was about a fifth of the server's CPU under load
/// (docs/benchmarks.md, "Server CPU per action").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "siege",
    version,
    about = "Siege at Peking: the rules engine, game server and tools",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// With no subcommand, `siege` serves with these flags.
    #[command(flatten)]
    serve: ServeArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the game: the HTTP API, the WebSockets and the page (the default).
    Serve(Box<ServeArgs>),
    /// Audit a game: replay its log from the seed, check every state hash and the seed
    /// against its commitment, and print the result. Exits non-zero on any mismatch.
    Replay {
        /// The log as `GET /api/games/{id}/log` returns it (a finished game: it has the seed).
        #[arg(long, conflicts_with = "game")]
        log: Option<PathBuf>,
        /// A game id in the database.
        #[arg(long, requires = "database")]
        game: Option<String>,
        /// The database holding `--game`.
        #[arg(long, env = "DATABASE_URL")]
        database: Option<String>,
    },
    /// Play random games in-process, checking the invariants after every action.
    Simulate {
        /// How many games to play.
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// Master seed: the same seed plays the same games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Answer questions about a position: reads `{"position":…,"queries":[…]}` on stdin and
    /// prints `{"answers":[…]}` (the analysis board; it never rolls dice).
    Analyze,
    /// Load the server the way players do, over the protocol only, and report round trips,
    /// fan-out, throughput, memory and the bare-echo and raw-SQLite baselines
    /// (docs/benchmarks.md).
    Load(siege::load::LoadArgs),
    /// Play whole games between two computer players on every core and print one JSON line:
    /// wins per side, win rates with 95% intervals, actions, decision times, refusals
    /// (docs/bots.md).
    Arena(siege::arena::ArenaArgs),
    /// Render the map: `--svg FILE` writes a drawing, `--json` prints the map data.
    Map {
        /// Write the map as SVG to this file.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Print the map and counter mix as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on (port 0: any free port).
    #[arg(long, env = "SIEGE_ADDR", default_value = "127.0.0.1:8080")]
    addr: String,
    /// Database URL: a SQLite file (`sqlite://PATH`, created if missing) or PostgreSQL
    /// (`postgres://USER:PASSWORD@HOST:PORT/DB`, an existing database).
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://siege.db")]
    database: String,
    /// Folder of the web page (default: ./web, else the project's web/).
    #[arg(long)]
    web_dir: Option<PathBuf>,
    /// Serve the benchmark routes: `GET /bench/echo`, a bare WebSocket echo for the load
    /// generator, `GET /bench/durable-echo`, the same echo after one write through the store's
    /// writer, and `GET /bench/stages`, where accepted actions' time went.
    #[arg(long)]
    bench_routes: bool,
    /// Frames a WebSocket may send per second (bursts of twice as many); raise it for bots.
    #[arg(long, env = "SIEGE_FRAME_RATE", default_value_t = siege::server::limits::RATE_PER_SECOND)]
    frame_rate: u32,
    /// Playouts a `hard` engine hint (`suggest`) may run on the analysis board.
    #[arg(long, env = "SIEGE_SUGGEST_NODES", default_value_t = siege::analysis::SUGGEST_NODES)]
    suggest_nodes: u32,
    /// Threads that think for the computer players (at most this many cores do bot work).
    #[arg(long, env = "SIEGE_BOT_WORKERS", default_value_t = siege::games::bots::default_workers(),
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..256))]
    bot_workers: usize,
    /// Milliseconds a `hard` computer player may search one decision.
    #[arg(long, env = "SIEGE_BOT_THINK_MS", default_value_t = siege::games::bots::THINK_MS)]
    bot_think_ms: u64,
    /// Milliseconds a computer player waits before each action, so that its moves can be
    /// followed.
    #[arg(long, env = "SIEGE_BOT_PACE_MS", default_value_t = siege::games::bots::PACE_MS)]
    bot_pace_ms: u64,
    /// Seconds a game with nobody connected stays loaded before its task unloads.
    #[arg(long, env = "SIEGE_IDLE_UNLOAD_SECS", default_value_t = siege::games::IDLE_UNLOAD_SECS)]
    idle_unload_secs: u64,
    /// Within a game turn, store a snapshot of the state at least every this many actions (one
    /// is stored at the start of every turn too): loading a game replays at most this many.
    #[arg(long, env = "SIEGE_SNAPSHOT_EVERY", default_value_t = siege::games::SNAPSHOT_EVERY,
          value_parser = clap::value_parser!(u64).range(1..))]
    snapshot_every: u64,
    /// Let the allocator use the kernel's transparent huge pages. Off by default: each huge page
    /// the server takes is zeroed whole on the path of the game that needed it, which put the
    /// p99 of a cold game's first touch at 32–46 ms (5–8 ms without) and doubled the round
    /// trip's p99 at players' pace; on, the server spent about 5 % less CPU an action when
    /// saturated on one machine of two measured (docs/benchmarks.md, "Huge pages off").
    #[arg(long, env = "SIEGE_HUGE_PAGES", default_value_t = false, action = clap::ArgAction::Set)]
    huge_pages: bool,
    /// Run the background audit (every log replayed from its seed, at most a fifth of a core).
    #[arg(long, env = "SIEGE_AUDIT", default_value_t = true, action = clap::ArgAction::Set)]
    audit: bool,
    /// Milliseconds the background audit pauses after each game, at least (it also rests four
    /// times as long as the game took to check, so it takes at most a fifth of a core).
    #[arg(long, env = "SIEGE_AUDIT_PAUSE_MS", default_value_t = siege::audit::PAUSE_MS)]
    audit_pause_ms: u64,
    /// Mark the session cookie `Secure` (only sent over HTTPS): set it when the server is
    /// reached through a TLS proxy.
    #[arg(long, env = "SIEGE_SECURE_COOKIES", default_value_t = false, action = clap::ArgAction::Set)]
    secure_cookies: bool,
    /// This node's name when several `siege serve` share one PostgreSQL database: each game is
    /// then run by one node at a time, which holds its lease (docs/scaling.md). Unique per
    /// node. Without it the server runs alone and takes no leases.
    #[arg(long, env = "SIEGE_NODE_ID")]
    node_id: Option<String>,
    /// With --node-id: the URL the other nodes reach this one at, to pass it requests for its
    /// games (`http://node1:8080`); by default `http://` and the address listened on.
    #[arg(long, env = "SIEGE_ADVERTISE", requires = "node_id")]
    advertise: Option<String>,
    /// With --node-id: seconds a game's lease lasts unless renewed — how long the games of a
    /// node that died wait before another node takes them.
    #[arg(long, env = "SIEGE_LEASE_SECS", default_value_t = siege::games::cluster::LEASE_SECS,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    lease_secs: u64,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    notify: NotifyArgs,
}

/// Your-turn e-mail and webhooks for signed-in players (docs/protocol.md, "Notifications").
#[derive(Args)]
#[command(next_help_heading = "Notifications")]
struct NotifyArgs {
    /// SMTP relay for your-turn e-mail: smtp://HOST:PORT (plain), smtp://HOST:587?tls=required
    /// (STARTTLS) or smtps://USER:PASS@HOST (TLS); unset: no e-mail. Never logged.
    #[arg(long, env = "SIEGE_SMTP_URL", hide_env_values = true)]
    smtp_url: Option<String>,
    /// The From: of your-turn e-mail.
    #[arg(
        long,
        env = "SIEGE_SMTP_FROM",
        default_value = "Siege at Peking <siege@localhost>"
    )]
    smtp_from: String,
    /// Where the page is reached (e.g. https://siege.example), for the links in notifications;
    /// unset: links are relative (/#game=ID).
    #[arg(long, env = "SIEGE_PUBLIC_URL", default_value = "")]
    public_url: String,
    /// Your-turn events waiting for the notifier before more are dropped (logged, counted).
    #[arg(long, env = "SIEGE_NOTIFY_QUEUE", default_value_t = siege::notify::QUEUE,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    notify_queue: usize,
    /// Retries of a failed e-mail or webhook, with exponential backoff, while the player has not
    /// acted (a delivery stops at its first success).
    #[arg(long, env = "SIEGE_NOTIFY_RETRIES", default_value_t = siege::notify::RETRIES)]
    notify_retries: u32,
    /// Seconds one e-mail or webhook attempt may take.
    #[arg(long, env = "SIEGE_NOTIFY_TIMEOUT_SECS", default_value_t = siege::notify::TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    notify_timeout_secs: u64,
    /// Milliseconds before the first retry (then --notify-backoff-factor times longer each time).
    #[arg(long, env = "SIEGE_NOTIFY_BACKOFF_MS", default_value_t = siege::notify::BACKOFF_MS)]
    notify_backoff_ms: u64,
    /// How many times longer each retry waits than the one before.
    #[arg(long, env = "SIEGE_NOTIFY_BACKOFF_FACTOR", default_value_t = siege::notify::BACKOFF_FACTOR,
          value_parser = clap::value_parser!(u32).range(1..))]
    notify_backoff_factor: u32,
    /// The longest wait before a retry, in seconds.
    #[arg(long, env = "SIEGE_NOTIFY_BACKOFF_MAX_SECS", default_value_t = siege::notify::BACKOFF_MAX_SECS)]
    notify_backoff_max_secs: u64,
    /// E-mail and webhook attempts in flight at once (a retry waiting for its time takes none).
    #[arg(long, env = "SIEGE_NOTIFY_PARALLEL", default_value_t = siege::notify::PARALLEL,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    notify_parallel: usize,
    /// Let webhooks reach loopback, private, link-local and reserved addresses (and localhost).
    /// Off: such a URL is refused when a player sets it (400 webhook_not_public), and every
    /// address a webhook's host resolves to is checked again when it is delivered.
    #[arg(long, env = "SIEGE_WEBHOOK_ALLOW_PRIVATE", default_value_t = false, action = clap::ArgAction::Set,
          num_args = 0..=1, default_missing_value = "true")]
    webhook_allow_private: bool,
    /// Send your-turn messages to players who have the game open too. Off: a player connected
    /// to the game when the decision passes to them is told by the page only.
    #[arg(long, env = "SIEGE_NOTIFY_WHEN_CONNECTED", default_value_t = false, action = clap::ArgAction::Set,
          num_args = 0..=1, default_missing_value = "true")]
    notify_when_connected: bool,
}

impl NotifyArgs {
    fn config(self) -> siege::notify::NotifyConfig {
        siege::notify::NotifyConfig {
            smtp_url: self.smtp_url.filter(|u| !u.trim().is_empty()),
            smtp_from: self.smtp_from,
            public_url: self.public_url,
            queue: self.notify_queue,
            retries: self.notify_retries,
            timeout: std::time::Duration::from_secs(self.notify_timeout_secs),
            backoff: std::time::Duration::from_millis(self.notify_backoff_ms),
            backoff_factor: self.notify_backoff_factor,
            backoff_max: std::time::Duration::from_secs(self.notify_backoff_max_secs),
            parallel: self.notify_parallel,
            allow_private: self.webhook_allow_private,
            when_connected: self.notify_when_connected,
        }
    }
}

/// The limits that keep one client from filling, starving or stalling the server
/// (docs/security.md). A rate or cap of 0 turns it off.
#[derive(Args)]
#[command(next_help_heading = "Limits")]
struct LimitArgs {
    /// Games one client (address; IPv6: its /64) may create per minute, in bursts of as many; a
    /// signed-in player's account has the same allowance across all its addresses.
    #[arg(long, env = "SIEGE_CREATE_RATE", default_value_t = Limits::default().create_per_minute)]
    create_rate: u32,
    /// Seats one client (address, and account when signed in) may take or claim per minute, in
    /// bursts of as many.
    #[arg(long, env = "SIEGE_JOIN_RATE", default_value_t = Limits::default().join_per_minute)]
    join_rate: u32,
    /// Accounts one client may create per minute, in bursts of as many.
    #[arg(long, env = "SIEGE_SIGNUP_RATE", default_value_t = Limits::default().signup_per_minute)]
    signup_rate: u32,
    /// Log-in attempts (and password changes) one client may make per minute.
    #[arg(long, env = "SIEGE_LOGIN_RATE", default_value_t = Limits::default().login_per_minute)]
    login_rate: u32,
    /// Days after which a session nobody used is signed out.
    #[arg(long, env = "SIEGE_SESSION_DAYS", default_value_t = 30)]
    session_days: u64,
    /// Games one client (the account when signed in, else the address) may have at once waiting
    /// for an opponent or under way with a computer seated.
    #[arg(long, env = "SIEGE_MAX_OPEN_GAMES", default_value_t = Limits::default().max_open_games)]
    max_open_games: u32,
    /// Days after which a game nobody joined (and nobody touched) is deleted; 0: never.
    #[arg(long, env = "SIEGE_EXPIRE_UNJOINED_DAYS", default_value_t = 14)]
    expire_unjoined_days: u64,
    /// Days a decision may wait in a game without a clock before the other player may claim
    /// the game as abandoned (claim_timeout); 0: never.
    #[arg(long, env = "SIEGE_ABANDON_DAYS", default_value_t = siege::server::limits::ABANDON_DAYS,
          value_parser = clap::value_parser!(u64).range(0..=36_500))]
    abandon_days: u64,
    /// Proxies (addresses or networks, comma-separated) whose X-Forwarded-For names the client;
    /// from anyone else the header is ignored.
    #[arg(long, env = "SIEGE_TRUSTED_PROXY", value_delimiter = ',', value_parser = parse_net)]
    trusted_proxy: Vec<ipnet::IpNet>,
    /// Open connections, all clients together (lowered to the open-file limit less a reserve).
    #[arg(long, env = "SIEGE_MAX_CONNECTIONS", default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// Open connections from one client address (trusted proxies are exempt).
    #[arg(long, env = "SIEGE_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = Limits::default().max_connections_per_address)]
    max_connections_per_address: usize,
    /// Seconds within which a request's headers must arrive (and a keep-alive connection's
    /// next request begin).
    #[arg(long, env = "SIEGE_HEADER_TIMEOUT", default_value_t = Limits::default().header_timeout.as_secs())]
    header_timeout: u64,
    /// Seconds after which a connection where nothing moves is closed (a quiet WebSocket is
    /// pinged first).
    #[arg(long, env = "SIEGE_IDLE_TIMEOUT", default_value_t = Limits::default().idle_timeout.as_secs())]
    idle_timeout: u64,
    /// Low-priority threads for expensive requests (past states, analysis); default: half the
    /// cores, at least 1.
    #[arg(long, env = "SIEGE_HEAVY_THREADS", default_value_t = Limits::default().heavy_threads)]
    heavy_threads: usize,
    /// Expensive requests that may wait for a thread before more are refused with `busy`.
    #[arg(long, env = "SIEGE_HEAVY_QUEUE", default_value_t = Limits::default().heavy_queue)]
    heavy_queue: usize,
    /// Milliseconds of work one expensive request may take.
    #[arg(long, env = "SIEGE_WORK_BUDGET_MS", default_value_t = 2000)]
    work_budget_ms: u64,
    /// The largest analysis answer, in KiB.
    #[arg(long, env = "SIEGE_MAX_ANSWER_KIB", default_value_t = 512)]
    max_answer_kib: usize,
    /// The longest chat message, in characters.
    #[arg(long, env = "SIEGE_CHAT_MAX_CHARS", default_value_t = siege::games::chat::MAX_CHARS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    chat_max_chars: usize,
    /// Chat messages one sender (a seat, or a spectator's address) may send per minute in a
    /// game, in bursts of up to 5.
    #[arg(long, env = "SIEGE_CHAT_RATE", default_value_t = siege::games::chat::PER_MINUTE)]
    chat_rate: u32,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        let secs = |s: u64| Duration::from_secs(s.max(1));
        Limits {
            create_per_minute: self.create_rate,
            join_per_minute: self.join_rate,
            signup_per_minute: self.signup_rate,
            login_per_minute: self.login_rate,
            session_idle: Duration::from_secs(self.session_days.max(1) * 24 * 3600),
            max_open_games: self.max_open_games,
            expire_unjoined: (self.expire_unjoined_days > 0)
                .then(|| Duration::from_secs(self.expire_unjoined_days * 24 * 3600)),
            abandon_after: (self.abandon_days > 0)
                .then(|| Duration::from_secs(self.abandon_days.saturating_mul(24 * 3600))),
            trusted_proxies: self.trusted_proxy.clone(),
            max_connections: self.max_connections,
            max_connections_per_address: self.max_connections_per_address,
            header_timeout: secs(self.header_timeout),
            idle_timeout: secs(self.idle_timeout),
            heavy_threads: self.heavy_threads.max(1),
            heavy_queue: self.heavy_queue,
            work_budget: Duration::from_millis(self.work_budget_ms.max(1)),
            max_answer: self.max_answer_kib.max(1) * 1024,
            chat: siege::games::chat::ChatLimits {
                max_chars: self.chat_max_chars,
                per_minute: self.chat_rate,
            },
        }
    }
}

/// An address (`10.0.0.2`) or a network (`10.0.0.0/8`).
fn parse_net(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{text:?} is neither an IP address nor a network like 10.0.0.0/8"))
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        None => serve(cli.serve),
        Some(Command::Serve(args)) => serve(*args),
        Some(Command::Replay {
            log,
            game,
            database,
        }) => replay(log, game, database),
        Some(Command::Simulate { games, seed }) => {
            let scenario = load_scenario()?;
            let report = siege::sim::run(scenario, games, seed);
            println!("{}", serde_json::to_string(&report)?);
            if report.invariant_violations > 0 || report.finished < report.games {
                std::process::exit(1);
            }
            Ok(())
        }
        Some(Command::Map { svg, json }) => {
            let scenario = load_scenario()?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string(&siege::tables::scenario_json(&scenario))?
                );
            }
            if let Some(path) = svg {
                std::fs::write(&path, siege::map_svg::render_svg(&scenario.map))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            Ok(())
        }
        Some(Command::Analyze) => analyze(&load_scenario()?),
        Some(Command::Load(args)) => load(&args),
        Some(Command::Arena(args)) => {
            let report = siege::arena::run(load_scenario()?, &args)?;
            println!("{}", serde_json::to_string(&report)?);
            if report.refusals > 0 {
                std::process::exit(1);
            }
            Ok(())
        }
    }
}

fn load_scenario() -> anyhow::Result<Arc<Scenario>> {
    Ok(Arc::new(
        Scenario::load_default().context("loading the scenario data")?,
    ))
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

fn serve(args: ServeArgs) -> anyhow::Result<()> {
    init_tracing();
    if !args.huge_pages {
        // Before the runtime's threads exist and before any game is loaded: the setting is the
        // process's and is checked at every page fault from here on.
        no_huge_pages();
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the runtime")?;
    runtime.block_on(async {
        let mut config = Config::new(args.addr, args.database);
        if let Some(dir) = args.web_dir {
            config.web_dir = dir;
        }
        config.frame_rate = args.frame_rate;
        config.suggest_nodes = args.suggest_nodes;
        config.bots = siege::games::bots::BotConfig {
            workers: args.bot_workers,
            think: std::time::Duration::from_millis(args.bot_think_ms),
            pace: std::time::Duration::from_millis(args.bot_pace_ms),
        };
        config.idle_unload = std::time::Duration::from_secs(args.idle_unload_secs);
        config.snapshot_every = args.snapshot_every;
        config.audit = args.audit.then(|| siege::audit::AuditConfig {
            pause: std::time::Duration::from_millis(args.audit_pause_ms),
            rest: siege::audit::REST,
        });
        let stages = args
            .bench_routes
            .then(|| Arc::new(siege::load::stages::StageTimes::default()));
        if let Some(stages) = &stages {
            config.probe = siege::probe::Probes::new(stages.clone());
        }
        config.limits = args.limits.limits();
        config.secure_cookies = args.secure_cookies;
        config.notify = args.notify.config();
        config.cluster = args.node_id.map(|node| siege::games::cluster::Cluster {
            node,
            addr: args.advertise.unwrap_or_default(),
            lease: std::time::Duration::from_secs(args.lease_secs),
        });
        let mut server = Server::bind(&config).await.context("starting the server")?;
        if let Some(stages) = stages {
            let routes = siege::load::routes::bench(
                stages,
                server.writer(),
                server.shutdown_token(),
                server.socket_tracker(),
            );
            server.mount(routes);
        }
        let addr = server.local_addr()?;
        println!("listening on http://{addr}");
        std::io::stdout().flush()?;
        let shutdown = server.shutdown_token();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("shutting down");
            shutdown.cancel();
        });
        server.run().await.context("serving")
    })
}

/// Turns the kernel's transparent huge pages off for this process (`--huge-pages false`): a
/// huge page is zeroed whole, 2 MiB at once, on the path of whichever game's allocation faulted
/// it in. The allocator asks for them (`madvise`) on the memory it takes from the system; the
/// process's flag overrides that request. Where the kernel has no such setting, nothing to do.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::thread::disable_transparent_huge_pages(true) {
        tracing::warn!("could not turn transparent huge pages off ({e}): serving with them");
    }
}

/// SIGINT or SIGTERM.
async fn wait_for_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

fn replay(
    log: Option<PathBuf>,
    game: Option<String>,
    database: Option<String>,
) -> anyhow::Result<()> {
    let scenario = load_scenario()?;
    let log: GameLog = match (log, game, database) {
        (Some(path), _, _) => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?
        }
        (None, Some(id), Some(database)) => {
            let id = uuid::Uuid::parse_str(&id).context("the game id is not a UUID")?;
            let runtime = tokio::runtime::Runtime::new()?;
            runtime.block_on(async {
                let store = siege::store::Store::open_existing(&database).await?;
                let log = store.game_log(id, true).await?;
                store.close().await;
                log.with_context(|| format!("no game {id} in {database}"))
            })?
        }
        _ => anyhow::bail!("say which game: --log FILE, or --game ID --database URL"),
    };
    let audit = siege::replay::audit(scenario, &log)
        .with_context(|| format!("game {} does NOT replay", log.game_id))?;
    println!("game {}", log.game_id);
    println!("seed matches its commitment {}", log.seed_commitment);
    println!(
        "{} actions replayed; every state hash and every roll matches",
        audit.entries
    );
    println!("final state hash {}", audit.final_hash);
    match audit.result {
        Some(r) => println!("result: {} wins ({}): {}", r.winner, r.reason, r.text),
        None => println!("result: the game is not finished"),
    }
    Ok(())
}

/// `siege load`: the summary, then the same figures as one JSON line; exit 1 on any error.
fn load(args: &siege::load::LoadArgs) -> anyhow::Result<()> {
    init_tracing();
    let runtime = tokio::runtime::Runtime::new().context("starting the runtime")?;
    let report = runtime.block_on(siege::load::run(args))?;
    print!("{report}");
    println!("{}", serde_json::to_string(&report)?);
    if report.errors > 0 {
        std::process::exit(1);
    }
    Ok(())
}

/// `siege analyze`: one request on stdin, one answer on stdout; exit 2 on a bad request.
fn analyze(scenario: &Arc<Scenario>) -> anyhow::Result<()> {
    use siege::analysis::{self, AnswerError};
    let mut input = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut input).context("reading stdin")?;
    let request: serde_json::Value = match serde_json::from_str(&input) {
        Ok(r) => r,
        Err(e) => refuse(e.to_string()),
    };
    match analysis::answer(scenario, &request, analysis::SUGGEST_NODES) {
        Ok(answers) => println!("{}", serde_json::json!({ "answers": answers })),
        Err(AnswerError::BadRequest(message)) => refuse(message),
        Err(AnswerError::Position(e)) => {
            let body = serde_json::json!({"error": {"code": siege_protocol::codes::INVALID_POSITION, "message": e.message, "unit": e.unit, "rule": e.rule}});
            println!("{body}");
            std::process::exit(2);
        }
    }
    Ok(())
}

/// Print a bad-request error and exit 2.
fn refuse(message: String) -> ! {
    let body = serde_json::json!({"error": {"code": siege_protocol::codes::BAD_REQUEST, "message": message}});
    println!("{body}");
    std::process::exit(2);
}
