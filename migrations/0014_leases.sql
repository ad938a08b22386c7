-- Which server node runs each game, when several nodes share one database. A node holds a
-- game's lease while the game is loaded and renews it; another node may take it once it has
-- expired. `fence` grows by one whenever the lease is taken, and every append of the game's
-- actions checks it in the same transaction, so a node that lost the lease (paused,
-- partitioned) can never write to the log again. A single server without `--node-id` takes
-- no leases. `addr` is where the other nodes reach the holder, to pass it requests.
CREATE TABLE leases (
    game_id    TEXT PRIMARY KEY NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    node       TEXT NOT NULL,
    addr       TEXT NOT NULL,
    fence      INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX leases_by_node ON leases (node);
