//! Expiry of games nobody joined (`--expire-unjoined-days`, 14 by default): an open game whose
//! creator was never given an opponent, untouched for the expiry age, is deleted. The store
//! finds the candidates with one query; a game somebody is connected to right now is left
//! alone (as is one that another node of several runs), one loaded with nobody there is let go
//! (its task ends with its last handle), and each deletion holds the game's tenancy, so it
//! cannot race a load.

use super::{Games, Tenancy};
use crate::store::{Store, StoreError, now_ms};
use std::time::Duration;

impl Games {
    /// Delete every game nobody joined that has been untouched for `age`; how many went.
    pub async fn expire_unjoined(&self, age: Duration) -> Result<usize, StoreError> {
        let store = &self.inner.store;
        let now = now_ms();
        let cutoff = now.saturating_sub(i64::try_from(age.as_millis()).unwrap_or(i64::MAX));
        let mut expired = 0;
        loop {
            let ids = store.unjoined_since(cutoff, Store::expiry_batch()).await?;
            let mut progressed = false;
            for id in ids {
                if self.inner.shutdown.is_cancelled() {
                    return Ok(expired);
                }
                let (_tenancy, mut guard) = self.lock_tenancy(id).await;
                if matches!(&*guard, Tenancy::Live(h) if !h.is_closed() && h.connection_count() > 0)
                {
                    continue;
                }
                // Another node of several runs it now: someone is there.
                if matches!(self.held_elsewhere(id).await, Ok(Some(_)) | Err(_)) {
                    continue;
                }
                if store.expire(id, cutoff, now).await? {
                    expired += 1;
                    progressed = true;
                    tracing::info!(game = %id, "expired: nobody joined");
                }
                *guard = Tenancy::Empty;
                drop(guard);
                self.lock_registry().remove(&id);
                // Leave room between deletions for the writer, which shares SQLite's one lock.
                tokio::task::yield_now().await;
            }
            if !progressed {
                return Ok(expired);
            }
        }
    }
}
