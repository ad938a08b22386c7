//! Game leases, for several server nodes on one database: which node runs a game, until when,
//! and with which fencing number. A node takes a game's lease before it reads the game's log,
//! renews every lease it holds in one statement, and lets the lease go when the game unloads
//! or the node shuts down. Another node may take a lease only once it has expired; taking it
//! raises its `fence`. The writer checks each appended action's fence in the appending
//! transaction ([`super::writer`]), so a node that lost a lease can never write that game's
//! log again — the holder that replaced it has read the log after taking the lease, and
//! nothing reaches the log behind its back.
//!
//! Time is the caller's (Unix milliseconds), so that tests can hold it still; the nodes'
//! clocks need only agree to well within a lease's length.

use super::{Store, StoreError, on_db};
use uuid::Uuid;

/// The outcome of asking for a game's lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lease {
    /// This node holds it, with this fencing number.
    Held(i64),
    /// Another node holds it until it expires: its name and where it is reached.
    Elsewhere { node: String, addr: String },
}

impl Store {
    /// Take game `id`'s lease for `node` (reached at `addr`) until `until`, if nobody holds it
    /// after `now` or `node` already does. Taking it always raises the fencing number, so any
    /// append still in flight from an earlier holding is refused.
    pub async fn take_lease(
        &self,
        id: Uuid,
        node: &str,
        addr: &str,
        now: i64,
        until: i64,
    ) -> Result<Lease, StoreError> {
        let id = id.to_string();
        let fence: Option<i64> = on_db!(&self.db, |pool, pg| {
            sqlx::query_scalar(
                "INSERT INTO leases (game_id, node, addr, fence, expires_at) \
                 VALUES ($1, $2, $3, 1, $5) \
                 ON CONFLICT (game_id) DO UPDATE SET node = excluded.node, addr = excluded.addr, \
                   fence = leases.fence + 1, expires_at = excluded.expires_at \
                 WHERE leases.expires_at <= $4 OR leases.node = excluded.node \
                 RETURNING fence",
            )
            .bind(&id)
            .bind(node)
            .bind(addr)
            .bind(now)
            .bind(until)
            .fetch_optional(pool)
            .await?
        });
        if let Some(fence) = fence {
            return Ok(Lease::Held(fence));
        }
        let holder: Option<(String, String)> = on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT node, addr FROM leases WHERE game_id = $1")
                .bind(&id)
                .fetch_optional(pool)
                .await?
        });
        // The holder may have let it go in between: the caller asks again later.
        let (node, addr) = holder.unwrap_or_default();
        Ok(Lease::Elsewhere { node, addr })
    }

    /// The node holding game `id`'s lease after `now`, with where it is reached; `None` when
    /// no lease is held.
    pub async fn lease_holder(
        &self,
        id: Uuid,
        now: i64,
    ) -> Result<Option<(String, String)>, StoreError> {
        Ok(on_db!(&self.db, |pool, pg| {
            sqlx::query_as("SELECT node, addr FROM leases WHERE game_id = $1 AND expires_at > $2")
                .bind(id.to_string())
                .bind(now)
                .fetch_optional(pool)
                .await?
        }))
    }

    /// Extend to `until` the leases of `games` that `node` still holds, in one statement; the
    /// games and fencing numbers it still holds, in order. A game missing from the answer was
    /// taken by another node. (A lease the node holds but did not name — one whose release
    /// failed — is left to expire.)
    pub async fn renew_leases(
        &self,
        node: &str,
        until: i64,
        games: &[Uuid],
    ) -> Result<Vec<(Uuid, i64)>, StoreError> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<(String, i64)> = on_db!(&self.db, |pool, pg| {
            let mut query = sqlx::QueryBuilder::new("UPDATE leases SET expires_at = ");
            query.push_bind(until);
            query.push(" WHERE node = ");
            query.push_bind(node);
            // On PostgreSQL the rows are locked in the games' order first, as the writer's
            // fencing check locks them, so that the two cannot deadlock.
            query.push(if pg {
                " AND game_id IN (SELECT game_id FROM leases WHERE expires_at > 0 AND game_id IN ("
            } else {
                " AND expires_at > 0 AND game_id IN ("
            });
            let mut ids = query.separated(", ");
            for id in games {
                ids.push_bind(id.to_string());
            }
            query.push(if pg {
                ") ORDER BY game_id FOR NO KEY UPDATE) RETURNING game_id, fence"
            } else {
                ") RETURNING game_id, fence"
            });
            query.build_query_as().fetch_all(pool).await?
        });
        let mut held = rows
            .into_iter()
            .map(|(id, fence)| {
                Uuid::parse_str(&id)
                    .map(|id| (id, fence))
                    .map_err(|e| StoreError::Corrupt(format!("lease of game {id}: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        held.sort_unstable();
        Ok(held)
    }

    /// Let game `id`'s lease go at once, if `node` still holds it with `fence` (the row stays,
    /// so the fencing number keeps growing).
    pub async fn release_lease(&self, id: Uuid, node: &str, fence: i64) -> Result<(), StoreError> {
        on_db!(&self.db, |pool, pg| {
            sqlx::query(
                "UPDATE leases SET expires_at = 0 WHERE game_id = $1 AND node = $2 AND fence = $3",
            )
            .bind(id.to_string())
            .bind(node)
            .bind(fence)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(())
    }

    /// Let every lease of `node` go at once (a graceful shutdown, once its games have stopped):
    /// the other nodes take its games on their next request instead of after the expiry.
    pub async fn release_leases(&self, node: &str) -> Result<u64, StoreError> {
        Ok(on_db!(&self.db, |pool, pg| {
            sqlx::query("UPDATE leases SET expires_at = 0 WHERE node = $1 AND expires_at > 0")
                .bind(node)
                .execute(pool)
                .await?
                .rows_affected()
        }))
    }
}
