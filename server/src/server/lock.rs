//! One server per database. Two `siege serve` on one SQLite file would each load and run their
//! own copy of a game, and only the log's primary key would stop the second copy's actions. So
//! a server takes an exclusive lock on `DATABASE.lock` (beside the database file) before it
//! opens the store, holds it for as long as it runs, and refuses to start if another process
//! holds it. The lock is the operating system's (`flock` through `fs4`): it dies with the
//! process, so a killed server leaves no stale lock. SQLite's own `locking_mode=EXCLUSIVE`
//! would shut out the server's own pool of connections as well.

use sqlx::sqlite::SqliteConnectOptions;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "another siege server{} is already serving {database} (it holds {lock}): stop it first; two servers on one database would each run their own copy of a game",
        pid.as_ref().map_or(String::new(), |p| format!(" (pid {p})"))
    )]
    Held {
        database: String,
        lock: String,
        pid: Option<String>,
    },
    #[error("cannot lock {lock}: {source}")]
    Io {
        lock: String,
        source: std::io::Error,
    },
}

/// The held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct DatabaseLock {
    _file: File,
    pub path: PathBuf,
}

impl DatabaseLock {
    /// Lock the database at `url`; `Ok(None)` for an in-memory database (nothing to share)
    /// and for PostgreSQL, which is no file beside this process: a PostgreSQL database is
    /// shared by design, and keeping two servers off one game is not a file lock's job there.
    pub fn take(url: &str) -> Result<Option<DatabaseLock>, LockError> {
        if url.contains(":memory:") || crate::store::is_postgres(url) {
            return Ok(None);
        }
        let Ok(options) = SqliteConnectOptions::from_str(url) else {
            // The store will report the bad URL itself.
            return Ok(None);
        };
        let path = lock_path(options.get_filename());
        let io = |source| LockError::Io {
            lock: path.display().to_string(),
            source,
        };
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                let pid = pid.trim();
                return Err(LockError::Held {
                    database: url.to_string(),
                    lock: path.display().to_string(),
                    pid: (!pid.is_empty()).then(|| pid.to_string()),
                });
            }
            Err(fs4::TryLockError::Error(e)) => return Err(io(e)),
        }
        // The holder's pid, for the message another server prints.
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(Some(DatabaseLock { _file: file, path }))
    }
}

/// `siege.db` → `siege.db.lock`.
fn lock_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_one_database_is_refused_until_the_first_is_dropped() {
        let dir = std::env::temp_dir().join(format!("siege-lock-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}", dir.join("siege.db").display());
        let first = DatabaseLock::take(&url).unwrap().unwrap();
        let second = DatabaseLock::take(&url).unwrap_err();
        let message = second.to_string();
        assert!(message.contains("another siege server"), "{message}");
        assert!(
            message.contains(&format!("pid {}", std::process::id())),
            "{message}"
        );
        drop(first);
        assert!(DatabaseLock::take(&url).unwrap().is_some());
        assert!(DatabaseLock::take("sqlite::memory:").unwrap().is_none());
        let _ = std::fs::remove_dir_all(dir);
    }
}
