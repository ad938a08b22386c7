//! Where `tower-sessions` keeps its sessions: the `sessions` table of our store, through
//! the library's extension point, [`SessionStore`] (its own sqlx store does not build against
//! the sqlx this project uses). The library makes the ids (128 random bits), the cookie and
//! the expiry; this only stores records. An expired record is never loaded, and
//! [`SqlSessions::delete_expired`] sweeps them out.

use crate::store::{Db, on_db};
use async_trait::async_trait;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, ExpiredDeletion, SessionStore};

/// The sessions table as a session store.
#[derive(Clone, Debug)]
pub struct SqlSessions {
    db: Db,
}

impl SqlSessions {
    pub fn new(store: &crate::store::Store) -> SqlSessions {
        SqlSessions {
            db: store.pool().clone(),
        }
    }
}

fn backend(e: sqlx::Error) -> session_store::Error {
    session_store::Error::Backend(e.to_string())
}

fn encode(record: &Record) -> session_store::Result<String> {
    serde_json::to_string(&record.data).map_err(|e| session_store::Error::Encode(e.to_string()))
}

#[async_trait]
impl SessionStore for SqlSessions {
    /// Insert a new record, drawing a new id while the drawn one is taken.
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        let data = encode(record)?;
        loop {
            let inserted = on_db!(&self.db, |pool, pg| {
                sqlx::query(
                    "INSERT INTO sessions (id, data, expires_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(record.id.to_string())
                .bind(&data)
                .bind(record.expiry_date.unix_timestamp())
                .execute(pool)
                .await
                .map_err(backend)?
                .rows_affected()
            });
            if inserted == 1 {
                return Ok(());
            }
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        let data = encode(record)?;
        on_db!(&self.db, |pool, pg| {
            sqlx::query(
                "INSERT INTO sessions (id, data, expires_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (id) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at",
            )
            .bind(record.id.to_string())
            .bind(&data)
            .bind(record.expiry_date.unix_timestamp())
            .execute(pool)
            .await
            .map_err(backend)?;
        });
        Ok(())
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let row: Option<(String, i64)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as(
                "SELECT data, expires_at FROM sessions WHERE id = $1 AND expires_at > $2",
            )
            .bind(id.to_string())
            .bind(time::OffsetDateTime::now_utc().unix_timestamp())
            .fetch_optional(pool)
            .await
            .map_err(backend)?
        });
        let Some((data, expires_at)) = row else {
            return Ok(None);
        };
        Ok(Some(Record {
            id: *id,
            data: serde_json::from_str(&data)
                .map_err(|e| session_store::Error::Decode(e.to_string()))?,
            expiry_date: time::OffsetDateTime::from_unix_timestamp(expires_at)
                .map_err(|e| session_store::Error::Decode(e.to_string()))?,
        }))
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        on_db!(&self.db, |pool, pg| {
            sqlx::query("DELETE FROM sessions WHERE id = $1")
                .bind(id.to_string())
                .execute(pool)
                .await
                .map_err(backend)?;
        });
        Ok(())
    }
}

#[async_trait]
impl ExpiredDeletion for SqlSessions {
    async fn delete_expired(&self) -> session_store::Result<()> {
        on_db!(&self.db, |pool, pg| {
            sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
                .bind(time::OffsetDateTime::now_utc().unix_timestamp())
                .execute(pool)
                .await
                .map_err(backend)?;
        });
        Ok(())
    }
}
