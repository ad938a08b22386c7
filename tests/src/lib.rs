//! The integration-test kit: a real server started in-process on port 0 with its own
//! database, and a client ([`client`]) that speaks only docs/protocol.md. The tests themselves live
//! in `tests/`; the one that must kill a server process lives in the server package, where
//! the `siege` binary is at hand.
//!
//! The servers run on SQLite unless `SIEGE_TEST_STORE=postgres`: then each test's server gets a
//! fresh database on the PostgreSQL cluster named by `SIEGE_TEST_POSTGRES_URL`
//! (`tests/pg/start.sh`), so the same tests run on both stores (`.ci/run` runs the storage
//! tests a second time so). Asking for PostgreSQL without the URL fails the test, saying so.

pub mod client;

use siege::games::Games;
use siege::server::{Config, Server};
use std::path::PathBuf;
use tokio_util::sync::CancellationToken;

/// With `SIEGE_TEST_LOG` set (a tracing filter such as `debug` or `siege=trace`), the servers
/// of a test binary log to its output: for finding out what a failing test's server did.
fn log_if_asked() {
    if let Ok(filter) = std::env::var("SIEGE_TEST_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_thread_names(true)
            .with_test_writer()
            .try_init();
    }
}

/// Where a test folder names its PostgreSQL database.
const POSTGRES_URL_FILE: &str = "postgres-url";

/// A server running in this process.
pub struct TestServer {
    pub base: String,
    pub http: client::Http,
    pub dir: PathBuf,
    /// The server's games registry: which games are loaded.
    pub games: Games,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Start a server on `127.0.0.1:0` with a fresh database.
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    /// Start a server, adjusting its configuration first (e.g. a lower connection limit).
    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> TestServer {
        TestServer::start_in(client::temp_dir("it"), adjust).await
    }

    /// Start a server on the database in `dir` (kept from an earlier server, or new). Its
    /// per-client rates and caps are off (every test client is 127.0.0.1); the tests of the
    /// limits turn them on in `adjust`.
    pub async fn start_in(dir: PathBuf, adjust: impl FnOnce(&mut Config)) -> TestServer {
        log_if_asked();
        let db = TestServer::prepare_database(&dir).await;
        let mut config = Config::new("127.0.0.1:0", db);
        config.limits = siege::server::limits::Limits::unlimited();
        adjust(&mut config);
        let server = Server::bind(&config).await.expect("server binds");
        let addr = server.local_addr().expect("address");
        let shutdown = server.shutdown_token();
        let games = server.games();
        let task = tokio::spawn(async move {
            server.run().await.expect("server runs");
        });
        let base = format!("http://{addr}");
        TestServer {
            http: client::Http::new(&base),
            base,
            dir,
            games,
            shutdown,
            task,
        }
    }

    /// Whether the test servers run on PostgreSQL (`SIEGE_TEST_STORE=postgres`).
    pub fn on_postgres() -> bool {
        siege::store::scratch::Kind::from_env() == siege::store::scratch::Kind::Postgres
    }

    /// The database of a server started in `dir`: on PostgreSQL, a database created for the
    /// folder the first time and named in it (`postgres-url`), so that a server started again
    /// in the same folder finds the same games.
    pub async fn prepare_database(dir: &std::path::Path) -> String {
        if TestServer::on_postgres() && !dir.join(POSTGRES_URL_FILE).exists() {
            let url = siege::store::scratch::postgres_database().await;
            std::fs::write(dir.join(POSTGRES_URL_FILE), &url).expect("postgres-url written");
        }
        TestServer::database_url(dir)
    }

    /// The database URL of a server started in `dir` (after [`TestServer::prepare_database`]).
    pub fn database_url(dir: &std::path::Path) -> String {
        if TestServer::on_postgres() {
            std::fs::read_to_string(dir.join(POSTGRES_URL_FILE))
                .expect("the folder's PostgreSQL database was created when its server started")
        } else {
            format!("sqlite://{}", dir.join("siege.db").display())
        }
    }

    /// A direct connection to the database of the server started in `dir`, for tests that read
    /// or tamper with rows behind the server's back: sqlx's `Any` driver, on either store.
    /// Statements use `$N` placeholders, which both drivers bind by number; where the dialects
    /// differ, a test picks its spelling by [`TestServer::on_postgres`].
    pub async fn raw_database(dir: &std::path::Path) -> sqlx::AnyPool {
        sqlx::any::install_default_drivers();
        sqlx::AnyPool::connect(&TestServer::database_url(dir))
            .await
            .expect("the test database opens")
    }

    /// The statement that drops the log's append-only trigger on updates, in the store's
    /// dialect: tests that tamper with a log behind the server's back run it first.
    pub fn drop_update_trigger() -> &'static str {
        if TestServer::on_postgres() {
            "DROP TRIGGER actions_no_update ON actions"
        } else {
            "DROP TRIGGER actions_no_update"
        }
    }

    /// Shut down gracefully and wait until the server has finished; returns the folder of its
    /// database, kept for another server.
    pub async fn stop_keeping_data(self) -> PathBuf {
        self.shutdown.cancel();
        let _ = self.task.await;
        self.dir
    }

    /// Shut down gracefully, wait, and remove the database.
    pub async fn stop(self) {
        let dir = self.stop_keeping_data().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}
