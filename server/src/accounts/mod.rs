//! Optional player accounts (docs/protocol.md, "Accounts"): a user name and a password kept
//! only as an argon2id hash (the RustCrypto `argon2` crate, its recommended parameters), and
//! the seats an account holds. Sessions live in [`sessions`]; the HTTP routes in
//! `server::auth`. Hashing runs on the blocking pool: it costs tens of milliseconds of CPU on
//! purpose and must not stall a game task's thread.

pub mod sessions;

use crate::store::{Db, Store, StoreError, now_ms, on_db};
use argon2::{Argon2, PasswordHasher, PasswordVerifier};

/// The shortest and longest user names, in characters.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 3..=24;
/// The shortest and longest passwords, in characters. The upper bound keeps a hash request
/// from carrying megabytes into the hash function.
pub const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=256;

/// A signed-in player as the server knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: i64,
    pub name: String,
    /// Grows with each password change; sessions from an older epoch are signed out.
    pub epoch: i64,
}

/// Why an account operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// A user name or password outside the rules; the message names which and why.
    #[error("{0}")]
    Invalid(String),
    #[error("the user name {0:?} is taken")]
    NameTaken(String),
    /// Unknown name or wrong password: the same answer for both.
    #[error("wrong user name or password")]
    BadCredentials,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("password hashing failed: {0}")]
    Hash(String),
}

impl From<sqlx::Error> for AccountError {
    fn from(e: sqlx::Error) -> AccountError {
        AccountError::Store(StoreError::Db(e))
    }
}

/// A user name, checked: 3 to 24 letters, digits, `_`, `-` or `.` (no spaces, nothing that
/// could pass for markup or another player in a listing).
pub fn check_name(name: &str) -> Result<&str, AccountError> {
    let name = name.trim();
    let n = name.chars().count();
    if !NAME_CHARS.contains(&n) {
        return Err(AccountError::Invalid(format!(
            "a user name has {} to {} characters, not {n}",
            NAME_CHARS.start(),
            NAME_CHARS.end()
        )));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(AccountError::Invalid(format!(
            "a user name is letters, digits, '_', '-' and '.': {c:?} is not allowed"
        )));
    }
    Ok(name)
}

/// A password, checked for length only (the rest is the player's business).
pub fn check_password(password: &str) -> Result<(), AccountError> {
    let n = password.chars().count();
    if PASSWORD_CHARS.contains(&n) {
        Ok(())
    } else {
        Err(AccountError::Invalid(format!(
            "a password has {} to {} characters",
            PASSWORD_CHARS.start(),
            PASSWORD_CHARS.end()
        )))
    }
}

/// The argon2id PHC string of `password`, with a fresh random salt.
async fn hash(password: String) -> Result<String, AccountError> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| AccountError::Hash(e.to_string()))
    })
    .await
    .map_err(|e| AccountError::Hash(e.to_string()))?
}

/// Whether `password` matches the PHC string `stored`.
async fn verify(password: String, stored: String) -> Result<bool, AccountError> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .verify_password(password.as_bytes(), stored.as_str())
            .is_ok()
    })
    .await
    .map_err(|e| AccountError::Hash(e.to_string()))
}

/// A hash of a random password nobody knows, verified against for unknown names so that a
/// wrong name takes as long to refuse as a wrong password. Made once, when first needed.
async fn decoy() -> Result<String, AccountError> {
    static DECOY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DECOY
        .get_or_try_init(|| hash(crate::games::tokens::new_token().0))
        .await
        .cloned()
}

/// The accounts of a store.
#[derive(Clone, Debug)]
pub struct Accounts {
    db: Db,
}

impl Accounts {
    pub fn new(store: &Store) -> Accounts {
        Accounts {
            db: store.pool().clone(),
        }
    }

    /// Create an account and return it.
    pub async fn sign_up(&self, name: &str, password: &str) -> Result<Account, AccountError> {
        let name = check_name(name)?.to_string();
        check_password(password)?;
        let hashed = hash(password.to_string()).await?;
        // Names are unique regardless of case: SQLite's column is `COLLATE NOCASE`,
        // PostgreSQL's unique index is on `lower(name)`, the conflict target named here.
        let row: Option<(i64,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(if pg {
                "INSERT INTO accounts (name, password_hash, created_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (lower(name)) DO NOTHING RETURNING id"
            } else {
                "INSERT INTO accounts (name, password_hash, created_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (name) DO NOTHING RETURNING id"
            })
            .bind(&name)
            .bind(&hashed)
            .bind(now_ms())
            .fetch_optional(pool)
            .await?
        });
        match row {
            Some((id,)) => Ok(Account { id, name, epoch: 0 }),
            None => Err(AccountError::NameTaken(name)),
        }
    }

    /// The account named `name` if `password` is its password.
    pub async fn log_in(&self, name: &str, password: &str) -> Result<Account, AccountError> {
        let row: Option<(i64, String, String, i64)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(if pg {
                "SELECT id, name, password_hash, epoch FROM accounts WHERE lower(name) = lower($1)"
            } else {
                "SELECT id, name, password_hash, epoch FROM accounts WHERE name = $1"
            })
            .bind(name.trim())
            .fetch_optional(pool)
            .await?
        });
        let Some((id, name, stored, epoch)) = row else {
            let _ = verify(password.to_string(), decoy().await?).await;
            return Err(AccountError::BadCredentials);
        };
        if verify(password.to_string(), stored).await? {
            Ok(Account { id, name, epoch })
        } else {
            Err(AccountError::BadCredentials)
        }
    }

    /// Change the password of `account` if `old` is its current one; every other session of
    /// the account is signed out (the epoch grows). Returns the account with its new epoch.
    pub async fn change_password(
        &self,
        account: &Account,
        old: &str,
        new: &str,
    ) -> Result<Account, AccountError> {
        check_password(new)?;
        let (stored,): (String,) = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT password_hash FROM accounts WHERE id = $1")
                .bind(account.id)
                .fetch_one(pool)
                .await?
        });
        if !verify(old.to_string(), stored.clone()).await? {
            return Err(AccountError::BadCredentials);
        }
        let hashed = hash(new.to_string()).await?;
        // Only if no other change got in between (the hash compared is the one verified).
        let row: Option<(i64,)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "UPDATE accounts SET password_hash = $1, epoch = epoch + 1 \
                 WHERE id = $2 AND password_hash = $3 RETURNING epoch",
            )
            .bind(&hashed)
            .bind(account.id)
            .bind(&stored)
            .fetch_optional(pool)
            .await?
        });
        let (epoch,) = row.ok_or(AccountError::BadCredentials)?;
        Ok(Account {
            epoch,
            ..account.clone()
        })
    }

    /// The account `id` as it is now, if it still exists at `epoch`.
    pub async fn current(&self, id: i64, epoch: i64) -> Result<Option<Account>, AccountError> {
        let row: Option<(i64, String, i64)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT id, name, epoch FROM accounts WHERE id = $1 AND epoch = $2")
                .bind(id)
                .bind(epoch)
                .fetch_optional(pool)
                .await?
        });
        Ok(row.map(|(id, name, epoch)| Account { id, name, epoch }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_passwords_are_checked_with_a_reason() {
        assert_eq!(check_name("  Reid_1900 ").unwrap(), "Reid_1900");
        for bad in ["ab", "a b c", "<script>", &"x".repeat(25)] {
            let e = check_name(bad).unwrap_err().to_string();
            assert!(e.contains("user name"), "{bad}: {e}");
        }
        assert!(check_password("short").is_err());
        assert!(check_password("long enough").is_ok());
        assert!(check_password(&"p".repeat(257)).is_err());
    }

    #[tokio::test]
    async fn a_hash_is_argon2id_and_verifies_only_its_password() {
        let h = hash("correct horse".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(!h.contains("correct horse"));
        assert!(verify("correct horse".into(), h.clone()).await.unwrap());
        assert!(!verify("wrong horse".into(), h).await.unwrap());
        // The decoy is a well-formed hash (verifying it costs a full hash), matched by nothing.
        let decoy = decoy().await.unwrap();
        assert!(decoy.starts_with("$argon2id$"));
        assert!(!verify(String::new(), decoy).await.unwrap());
    }
}
