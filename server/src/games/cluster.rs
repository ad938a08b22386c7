//! One node among several on one database (`siege serve --node-id`): the leases that make
//! each game run on one node at a time. A node takes a game's lease before it reads the game's
//! log (loading or creating it), renews all its leases every third of a lease, stops a game
//! whose lease another node took, and lets a game's lease go when the game unloads and all of
//! them when it shuts down. The store keeps the leases and checks each append's fencing number
//! ([`crate::store::Lease`]); the HTTP edge sends a request for a game held elsewhere to its
//! holder (`server::cluster`).
//!
//! A node that dies keeps its leases until they expire (`--lease-secs`, 5 by default): the
//! next request for one of its games, on any node, waits that long at most before that node
//! takes the game and loads it from the log.

use super::{GameError, Games, Tenancy};
use crate::store::{Lease, now_ms};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The default of `--lease-secs`.
pub const LEASE_SECS: u64 = 5;

/// This node's place among several.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// Its name, unique among the nodes (`--node-id`).
    pub node: String,
    /// Where the other nodes reach it (`--advertise`), to pass it requests for its games.
    pub addr: String,
    /// How long a lease lasts unless renewed: how long a dead node's games wait.
    pub lease: Duration,
}

impl Cluster {
    /// When a lease taken or renewed at `now` expires.
    fn until(&self, now: i64) -> i64 {
        now.saturating_add(i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX))
    }
}

/// The fencing numbers of the leases this node holds, with when each was taken: a renewal
/// judges only the leases taken before it began.
pub(super) type Fences = BTreeMap<Uuid, (i64, Instant)>;

impl Games {
    /// This node's place among several, if it is one.
    pub fn cluster(&self) -> Option<&Cluster> {
        self.inner.config.cluster.as_ref()
    }

    /// Take game `id`'s lease (a no-op for a single server): its fencing number, or
    /// [`GameError::Elsewhere`] while another node holds it.
    pub(super) async fn take_lease(&self, id: Uuid) -> Result<Option<i64>, GameError> {
        let Some(cluster) = self.cluster() else {
            return Ok(None);
        };
        let now = now_ms();
        let lease = self
            .inner
            .store
            .take_lease(id, &cluster.node, &cluster.addr, now, cluster.until(now))
            .await?;
        match lease {
            Lease::Held(fence) => {
                self.lock_fences().insert(id, (fence, Instant::now()));
                Ok(Some(fence))
            }
            Lease::Elsewhere { node, addr } => Err(GameError::Elsewhere { node, addr }),
        }
    }

    /// Let game `id`'s lease go, its task having stopped.
    pub(super) async fn release_lease(&self, id: Uuid, fence: i64) {
        let Some(cluster) = self.cluster() else {
            return;
        };
        {
            let mut fences = self.lock_fences();
            if fences.get(&id).is_some_and(|(f, _)| *f == fence) {
                fences.remove(&id);
            }
        }
        if let Err(e) = self
            .inner
            .store
            .release_lease(id, &cluster.node, fence)
            .await
        {
            tracing::warn!(game = %id, error = %e, "releasing a lease failed; it expires");
        }
    }

    /// The node holding game `id`, with where it is reached, when that is not this node (and
    /// this node runs no task for it): where a request for the game belongs.
    pub async fn held_elsewhere(&self, id: Uuid) -> Result<Option<(String, String)>, GameError> {
        let Some(cluster) = self.cluster() else {
            return Ok(None);
        };
        if self.loaded(id).is_some() {
            return Ok(None);
        }
        let holder = self.inner.store.lease_holder(id, now_ms()).await?;
        Ok(holder.filter(|(node, _)| *node != cluster.node))
    }

    /// Renew this node's leases every third of a lease until shutdown, stopping any game whose
    /// lease another node has taken (this node was paused or cut off for longer than a lease).
    pub async fn keep_leases(self) {
        let Some(cluster) = self.cluster().cloned() else {
            return;
        };
        let mut tick = tokio::time::interval(cluster.lease / 3);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = self.inner.shutdown.cancelled() => return,
                _ = tick.tick() => {}
            }
            let began = Instant::now();
            let mine: Vec<(Uuid, i64)> = self
                .lock_fences()
                .iter()
                .filter(|(_, (_, taken))| *taken < began)
                .map(|(id, (fence, _))| (*id, *fence))
                .collect();
            let ids: Vec<Uuid> = mine.iter().map(|(id, _)| *id).collect();
            let held = match self
                .inner
                .store
                .renew_leases(&cluster.node, cluster.until(now_ms()), &ids)
                .await
            {
                Ok(held) => held,
                Err(e) => {
                    tracing::warn!(error = %e, "renewing the leases failed");
                    continue;
                }
            };
            for (id, fence) in mine {
                if held.binary_search(&(id, fence)).is_err() {
                    // Stopped beside the renewals, which must not wait for a game's lock.
                    let games = self.clone();
                    self.inner
                        .tracker
                        .spawn(async move { games.stop_lost(id, fence).await });
                }
            }
        }
    }

    /// Every lease's length until shutdown, take and run the computer games that no node runs
    /// while it is a computer's decision (the store finds them by a query): a game between two
    /// computers created on a node that does not keep new games, or any computer game whose
    /// node died. A person's game is loaded where it is first asked for; a computer whose move
    /// it is has nobody to ask, so some node must adopt it. Several nodes may try at once: the
    /// lease lets one have it, and the others are told it is held.
    pub async fn adopt_bot_games(self) {
        let Some(cluster) = self.cluster().cloned() else {
            return;
        };
        let mut tick = tokio::time::interval(cluster.lease);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = self.inner.shutdown.cancelled() => return,
                _ = tick.tick() => {}
            }
            match self.adopt_bot_games_once().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(games = n, "computer games adopted"),
                Err(e) => tracing::warn!(error = %e, "looking for computer games to adopt failed"),
            }
        }
    }

    /// One round of [`Games::adopt_bot_games`]: how many games this node took.
    pub async fn adopt_bot_games_once(&self) -> Result<usize, GameError> {
        let ids = self.inner.store.unheld_bot_decisions(now_ms()).await?;
        Ok(self.load_each(ids, "computer game not adopted").await)
    }

    /// Stop game `id`, whose lease (with `fence`) another node took — unless this node has
    /// taken the game again since.
    async fn stop_lost(&self, id: Uuid, fence: i64) {
        {
            let mut fences = self.lock_fences();
            if fences.get(&id).map(|(f, _)| *f) != Some(fence) {
                return;
            }
            fences.remove(&id);
        }
        tracing::warn!(game = %id, "another node took this game's lease: stopping it here");
        let (_tenancy, mut guard) = self.lock_tenancy(id).await;
        // A load of the game since (under this lock) took a new lease: that task stays.
        if self.lock_fences().contains_key(&id) {
            return;
        }
        if let Tenancy::Live(h) = &*guard {
            h.stop().await;
            *guard = Tenancy::Empty;
        }
        drop(guard);
        self.forget(id);
    }

    /// Let every lease of this node go (a graceful shutdown, after its games have stopped):
    /// the other nodes take its games at once instead of after the leases expire.
    pub async fn release_leases(&self) {
        let Some(cluster) = self.cluster() else {
            return;
        };
        match self.inner.store.release_leases(&cluster.node).await {
            Ok(n) => tracing::info!(leases = n, "leases handed over"),
            Err(e) => tracing::warn!(error = %e, "handing the leases over failed; they expire"),
        }
    }

    fn lock_fences(&self) -> std::sync::MutexGuard<'_, Fences> {
        self.inner
            .fences
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::GamesConfig;
    use crate::rules::Action;
    use crate::store::scratch::{Kind, Scratch, on_both};
    use crate::store::writer::Writer;
    use crate::store::{Store, StoreError};
    use siege_protocol::Side;

    on_both!(
        a_stalled_node_that_lost_its_lease_cannot_append_and_its_game_stops,
        a_seat_given_by_a_node_that_lost_the_game_is_refused,
        a_chat_line_sent_through_a_node_that_lost_the_game_is_refused,
        a_computer_game_no_node_runs_is_adopted_and_plays_on,
    );

    /// A node of several, with its own writer, on `store`.
    fn node(name: &str, store: &Store, lease: Duration) -> (Games, Writer) {
        let (writer, _task) = Writer::start(store.clone());
        let games = Games::for_tests(
            store,
            &writer,
            GamesConfig {
                cluster: Some(Cluster {
                    node: name.into(),
                    addr: format!("http://{name}:8080"),
                    lease,
                }),
                bots: crate::games::bots::BotConfig {
                    workers: 1,
                    think: Duration::from_millis(10),
                    // Slow enough that a game between computers outlasts a test.
                    pace: Duration::from_millis(40),
                },
                ..GamesConfig::default()
            },
        );
        (games, writer)
    }

    /// How long a lease lasts in these tests.
    const LEASE: Duration = Duration::from_secs(2);

    /// Two nodes, A and B, each with its own writer, on one fresh database.
    struct Nodes {
        a: Games,
        b: Games,
        store: Store,
        writers: [Writer; 2],
        dir: Scratch,
    }

    impl Nodes {
        async fn new(kind: Kind, tag: &str) -> Nodes {
            let dir = Scratch::new(kind, tag).await;
            let store = Store::open(&dir.url).await.unwrap();
            let (a, a_writer) = node("a", &store, LEASE);
            let (b, b_writer) = node("b", &store, LEASE);
            Nodes {
                a,
                b,
                store,
                writers: [a_writer, b_writer],
                dir,
            }
        }

        async fn close(self) {
            for writer in &self.writers {
                writer.close().await;
            }
            self.store.close().await;
            drop(self.dir);
        }
    }

    /// A new game on `games` (`testing::create`).
    async fn create(games: &Games, bots: bool) -> Uuid {
        crate::games::testing::create(games, "leased", bots).await
    }

    /// Whether the task behind `handle` stops within 30 s — generous: a commit's fsync can
    /// take seconds on a machine busy writing.
    async fn closes(handle: &crate::games::GameHandle) -> bool {
        for _ in 0..3000 {
            if handle.is_closed() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }

    use crate::games::testing::log_grows;

    /// Several nodes (docs/scaling.md, "Leases, fencing and failover"): node A runs a game,
    /// stalls past its lease (it renews nothing here), and node B takes the game over. A's next
    /// action is refused as fenced — the log is untouched — and A's game task stops; B plays on.
    async fn a_stalled_node_that_lost_its_lease_cannot_append_and_its_game_stops(kind: Kind) {
        let nodes = Nodes::new(kind, "fence").await;
        let (a, b, store, lease) = (&nodes.a, &nodes.b, &nodes.store, LEASE);
        let id = create(a, false).await;
        // A new game is not kept by the node that wrote it; joining loads it on A.
        assert!(a.loaded(id).is_none());
        a.join(id, None).await.unwrap();
        let on_a = a.loaded(id).expect("A runs the game");
        // B is told A holds it while the lease lasts.
        assert!(matches!(b.get(id).await, Err(GameError::Elsewhere { node, .. }) if node == "a"));
        tokio::time::sleep(lease + Duration::from_millis(300)).await;
        let on_b = b.get(id).await.expect("B takes the expired lease");
        let refused = on_a
            .act(Side::Allied, 0, Action::DeployDefault)
            .await
            .unwrap_err();
        assert!(
            matches!(refused, GameError::Store(StoreError::Fenced(_))),
            "{refused}"
        );
        assert_eq!(store.log_len(id).await.unwrap(), 0);
        assert!(closes(&on_a).await, "the fenced-off task stops");
        on_b.act(Side::Allied, 0, Action::DeployDefault)
            .await
            .unwrap();
        assert_eq!(store.log_len(id).await.unwrap(), 1);
        nodes.close().await;
    }

    /// Several nodes (docs/scaling.md, "What the fence does not guard"): node A runs a game
    /// and loses it to B while stalled. A player joining through A is not seated by A — the
    /// seat would be one B never hears of — but told where the game runs now, and A's task
    /// stops; the seat stays free for B to give.
    async fn a_seat_given_by_a_node_that_lost_the_game_is_refused(kind: Kind) {
        let nodes = Nodes::new(kind, "seat-fence").await;
        let (a, b, store, lease) = (&nodes.a, &nodes.b, &nodes.store, LEASE);
        let id = create(a, false).await;
        let on_a = a.get(id).await.expect("A runs the game");
        tokio::time::sleep(lease + Duration::from_millis(300)).await;
        b.get(id).await.expect("B takes the expired lease");
        let refused = a.join(id, None).await.unwrap_err();
        assert!(
            matches!(&refused, GameError::Elsewhere { node, .. } if node == "b"),
            "{refused}"
        );
        assert_eq!(
            store.seats(id).await.unwrap().len(),
            1,
            "only the creator's"
        );
        assert!(on_a.is_closed(), "the fenced-off task stopped");
        let (side, _) = b.join(id, None).await.unwrap();
        assert_eq!(side, Side::Chinese);
        assert_eq!(store.seats(id).await.unwrap().len(), 2);
        nodes.close().await;
    }

    /// Several nodes (docs/scaling.md, "What the fence does not guard"): node A ran a game and
    /// lost it to B while stalled. A chat line sent through A's stale handle is refused with
    /// `moved` and not stored — B's readers would never see it live — and the same line sent
    /// through B is stored.
    async fn a_chat_line_sent_through_a_node_that_lost_the_game_is_refused(kind: Kind) {
        use crate::games::chat::{ChatHub, ChatLimits};
        use siege_protocol::{Channel, You, codes};
        let nodes = Nodes::new(kind, "chat-fence").await;
        let (a, b, store, lease) = (&nodes.a, &nodes.b, &nodes.store, LEASE);
        let id = create(a, false).await;
        let on_a = a.get(id).await.expect("A runs the game");
        assert!(on_a.fence().is_some(), "a node of several holds a lease");
        let hub = ChatHub::new(store.clone(), ChatLimits::default());
        let both = [Channel::Table, Channel::Spectators];
        hub.post(id, You::Allied, "a", "before", on_a.fence())
            .await
            .expect("A holds the lease: stored");
        tokio::time::sleep(lease + Duration::from_millis(300)).await;
        let on_b = b.get(id).await.expect("B takes the expired lease");
        let refused = hub
            .post(id, You::Allied, "a", "through A", on_a.fence())
            .await
            .unwrap_err();
        assert_eq!(refused.code, codes::MOVED, "{}", refused.message);
        hub.post(id, You::Allied, "a", "through B", on_b.fence())
            .await
            .expect("B holds the lease: stored");
        let texts: Vec<String> = store
            .chat(id, &both, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|m| m.text)
            .collect();
        assert_eq!(texts, ["before", "through B"]);
        nodes.close().await;
    }

    /// Several nodes (docs/scaling.md, "Computer games"): a game between two computers is not
    /// kept by the node that created it, and nobody touches it. Node B adopts it — it is a
    /// computer's decision and no node holds the lease — and its computers play. When B stalls
    /// past its lease, A adopts it in turn and it plays on there; B's next move is fenced off
    /// and B's task stops.
    async fn a_computer_game_no_node_runs_is_adopted_and_plays_on(kind: Kind) {
        let nodes = Nodes::new(kind, "adopt").await;
        let (a, b, store, lease) = (&nodes.a, &nodes.b, &nodes.store, LEASE);
        let id = create(a, true).await;
        assert!(a.loaded(id).is_none(), "not kept by the creating node");
        assert_eq!(store.log_len(id).await.unwrap(), 0);
        assert_eq!(b.adopt_bot_games_once().await.unwrap(), 1);
        let on_b = b.loaded(id).expect("B runs the game");
        let played = log_grows(store, id, 3).await;
        // A live lease: nothing for A to adopt, and A is told where it runs.
        assert_eq!(a.adopt_bot_games_once().await.unwrap(), 0);
        assert!(matches!(a.get(id).await, Err(GameError::Elsewhere { node, .. }) if node == "b"));
        // B stalls: in these tests nothing renews its lease, which runs out.
        tokio::time::sleep(lease + Duration::from_millis(300)).await;
        assert_eq!(a.adopt_bot_games_once().await.unwrap(), 1);
        assert!(a.loaded(id).is_some(), "A runs the game now");
        assert!(closes(&on_b).await, "B's fenced-off task stopped");
        let now = store.log_len(id).await.unwrap();
        assert!(now >= played);
        log_grows(store, id, now + 3).await;
        // Once every lease has run out (a time past them all) the game is there to adopt
        // again — but not while it is held for the operator, who must clear it first.
        assert_eq!(
            store.unheld_bot_decisions(i64::MAX).await.unwrap(),
            vec![id]
        );
        store.hold(id, "held for the test").await.unwrap();
        assert!(
            store
                .unheld_bot_decisions(i64::MAX)
                .await
                .unwrap()
                .is_empty()
        );
        a.hold(id, "test over".into()).await;
        nodes.close().await;
    }
}
