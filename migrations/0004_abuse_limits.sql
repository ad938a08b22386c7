-- What the server needs to hold its limits (docs/security.md).

-- Who created a game that is still open (waiting for an opponent), to cap open games per
-- creator: the limiter's key (`ip:203.0.113.7`, `ip:2001:db8:1:2::/64`). Cleared when the game
-- stops being open, so an address is kept no longer than the game waits.
ALTER TABLE games ADD COLUMN creator TEXT;
CREATE INDEX games_open_by_creator ON games (creator) WHERE status = 'open';

-- Games nobody joined, deleted once untouched for the expiry age (`--expire-unjoined-days`).
-- The record says which game ids existed and when they went.
CREATE TABLE expired_games (
    id         TEXT PRIMARY KEY NOT NULL,
    created_at INTEGER NOT NULL,
    expired_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The log stays append-only: its rows may be deleted only with their whole game, when the game
-- has been recorded as expired in the same transaction.
DROP TRIGGER actions_no_delete;
CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
WHEN NOT EXISTS (SELECT 1 FROM expired_games e WHERE e.id = OLD.game_id)
BEGIN
    SELECT RAISE(ABORT, 'the action log is append-only');
END;

-- One row the writer rewrites to learn whether writing works again after a failure (/healthz).
CREATE TABLE health (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at INTEGER NOT NULL
);
