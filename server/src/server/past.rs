//! Past states ready to send: the views of `state?at=N` and of finished games, by game and
//! seq. A past state never changes (the log only grows), so an entry is right for as long as
//! it is kept; the oldest entry makes room for a new one. Small on purpose: it saves the replay
//! when many readers step through the same game, and bounds what a stranger can make the server
//! keep.

use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use uuid::Uuid;

/// The cache.
#[derive(Debug)]
pub struct PastStates {
    capacity: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    views: HashMap<(Uuid, u64), Bytes>,
    /// Keys in the order they came, oldest first.
    order: VecDeque<(Uuid, u64)>,
}

impl PastStates {
    pub fn new(capacity: usize) -> PastStates {
        PastStates {
            capacity: capacity.max(1),
            inner: Mutex::default(),
        }
    }

    /// The view of game `id` after `seq` actions, if kept.
    pub fn get(&self, id: Uuid, seq: u64) -> Option<Bytes> {
        self.lock().views.get(&(id, seq)).cloned()
    }

    /// Keep a view, dropping the oldest when full.
    pub fn put(&self, id: Uuid, seq: u64, view: Bytes) {
        let mut inner = self.lock();
        if inner.views.insert((id, seq), view).is_some() {
            return;
        }
        inner.order.push_back((id, seq));
        while inner.order.len() > self.capacity {
            if let Some(old) = inner.order.pop_front() {
                inner.views.remove(&old);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_at_most_its_capacity_dropping_the_oldest() {
        let cache = PastStates::new(2);
        let g = Uuid::new_v4();
        cache.put(g, 1, Bytes::from_static(b"1"));
        cache.put(g, 2, Bytes::from_static(b"2"));
        cache.put(g, 1, Bytes::from_static(b"1"));
        cache.put(g, 3, Bytes::from_static(b"3"));
        assert_eq!(cache.get(g, 1), None);
        assert_eq!(cache.get(g, 2).as_deref(), Some(&b"2"[..]));
        assert_eq!(cache.get(g, 3).as_deref(), Some(&b"3"[..]));
    }
}
