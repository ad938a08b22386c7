//! Throwaway databases for tests, on either database: a SQLite file in a fresh temporary
//! folder, or a fresh PostgreSQL database on the cluster named by `SIEGE_TEST_POSTGRES_URL`
//! (`tests/pg/start.sh` starts one and prints its URL). Every store test runs against both;
//! the PostgreSQL runs need that cluster, and without the variable they fail saying so rather
//! than pass having tested nothing.
//!
//! Tests that start whole servers pick their store with `SIEGE_TEST_STORE` ([`Kind::from_env`]):
//! unset, SQLite; `postgres`, PostgreSQL — so the integration tests run on either unchanged.

use sqlx::Connection;
use std::path::PathBuf;

/// The variable naming the test cluster: a URL whose user may create databases.
pub const POSTGRES_URL_VAR: &str = "SIEGE_TEST_POSTGRES_URL";

/// The variable choosing the store of the servers that integration tests start.
pub const STORE_VAR: &str = "SIEGE_TEST_STORE";

/// Which database a test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sqlite,
    Postgres,
}

/// A fresh, empty database for one test.
#[derive(Debug)]
pub struct Scratch {
    /// Its URL, for `Store::open` or `siege serve --database`.
    pub url: String,
    /// The temporary folder of a SQLite file (removed by [`Scratch::remove`]).
    pub dir: Option<PathBuf>,
}

impl Kind {
    /// The store chosen by `SIEGE_TEST_STORE`: `sqlite` (the default) or `postgres`; any other
    /// value fails the test, saying what it may be.
    pub fn from_env() -> Kind {
        match std::env::var(STORE_VAR).as_deref() {
            Ok("postgres") => Kind::Postgres,
            Ok("sqlite") | Ok("") | Err(_) => Kind::Sqlite,
            Ok(other) => panic!("{STORE_VAR} is sqlite or postgres, not {other:?}"),
        }
    }
}

impl Scratch {
    /// A new database of `kind`; `tag` names the SQLite folder.
    pub async fn new(kind: Kind, tag: &str) -> Scratch {
        match kind {
            Kind::Sqlite => {
                let dir =
                    std::env::temp_dir().join(format!("siege-{tag}-{}", uuid::Uuid::new_v4()));
                std::fs::create_dir_all(&dir).expect("temporary folder");
                Scratch {
                    url: format!("sqlite://{}", dir.join("siege.db").display()),
                    dir: Some(dir),
                }
            }
            Kind::Postgres => Scratch {
                url: postgres_database().await,
                dir: None,
            },
        }
    }

    /// Remove a SQLite folder. A PostgreSQL test database stays until its throwaway cluster
    /// goes (dropping it would wait for every pooled connection to close).
    pub fn remove(self) {
        if let Some(dir) = self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The test cluster's URL; panics, naming the variable and the script, when it is not set.
pub fn postgres_url() -> String {
    std::env::var(POSTGRES_URL_VAR).unwrap_or_else(|_| {
        panic!(
            "this test runs on PostgreSQL and needs {POSTGRES_URL_VAR} \
             (start a throwaway cluster with `tests/pg/start.sh` and export the URL it prints)"
        )
    })
}

/// Create a new database on the test cluster and return its URL.
pub async fn postgres_database() -> String {
    let base = postgres_url();
    let name = format!("siege_test_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&base)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {POSTGRES_URL_VAR}={base}: {e}"));
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .unwrap_or_else(|e| panic!("cannot create a test database on {base}: {e}"));
    let _ = admin.close().await;
    with_database(&base, &name)
}

/// `url` with its database name replaced by `name` (the query string kept).
fn with_database(url: &str, name: &str) -> String {
    let (url, query) = url
        .split_once('?')
        .map_or((url, None), |(u, q)| (u, Some(q)));
    let start = url.find("://").map_or(0, |i| i + 3);
    let base = match url[start..].find('/') {
        Some(slash) => &url[..start + slash],
        None => url,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

/// Define each listed `async fn NAME(kind: Kind)` as two tests, `sqlite::NAME` and
/// `postgres::NAME`. The PostgreSQL one is ignored by a plain `cargo test` (it needs the test
/// cluster) and run with `--ignored`, as `.ci/run` does with the cluster started.
#[cfg(test)]
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name($crate::store::scratch::Kind::Sqlite).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                #[ignore = "needs PostgreSQL: SIEGE_TEST_POSTGRES_URL (tests/pg/start.sh); run with --ignored"]
                async fn $name() {
                    super::$name($crate::store::scratch::Kind::Postgres).await
                }
            )*
        }
    };
}
#[cfg(test)]
pub(crate) use on_both;

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn the_database_name_is_replaced_and_the_query_kept() {
        assert_eq!(
            with_database("postgres://u@127.0.0.1:5/postgres", "x"),
            "postgres://u@127.0.0.1:5/x"
        );
        assert_eq!(
            with_database("postgres://u:p@h:5/postgres?sslmode=disable", "x"),
            "postgres://u:p@h:5/x?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h:5", "x"), "postgres://h:5/x");
    }
}
