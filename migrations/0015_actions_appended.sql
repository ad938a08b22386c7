-- The log kept in the order it is written (docs/benchmarks.md, "The log kept in the order it is
-- written", 2026-12-04).
--
-- Until now `actions` was clustered by (game_id, seq) (WITHOUT ROWID): each game's entries lay
-- together, so a commit that carried one action from each of thirty games changed thirty leaf
-- pages, and a leaf split every few appends. Every changed page is written whole to the WAL and
-- copied again by the checkpoint — 16 to 18 KB of writes for a 270-byte entry. Kept as a rowid
-- table, the entries of one commit go side by side onto the table's last page, and only the
-- small entries of the (game_id, seq) index land on a page per game.
--
-- The entries already stored are copied in (game_id, seq) order, so each finished game's log
-- stays on neighbouring pages. The copy is one transaction: it needs free disk for the new
-- table in the WAL and then in the file, and the old table's pages stay in the file as free
-- pages that later appends reuse (`VACUUM`, with the server stopped, gives them back).
CREATE TABLE actions_appended (
    game_id    TEXT NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    side       TEXT NOT NULL CHECK (side IN ('allied', 'chinese')),
    action     TEXT NOT NULL,
    events     TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    turn       INTEGER NOT NULL,
    phase      TEXT NOT NULL,
    at         INTEGER NOT NULL,
    to_act     TEXT CHECK (to_act IS NULL OR to_act IN ('allied', 'chinese'))
);
INSERT INTO actions_appended (game_id, seq, side, action, events, state_hash, turn, phase, at, to_act)
    SELECT game_id, seq, side, action, events, state_hash, turn, phase, at, to_act
    FROM actions ORDER BY game_id, seq;
DROP TABLE actions;
ALTER TABLE actions_appended RENAME TO actions;

-- What the primary key was: one entry per seq of a game, and a game's log read in order.
CREATE UNIQUE INDEX actions_by_game ON actions (game_id, seq);

-- The log stays append-only (0001, 0004): the triggers went with the old table.
CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
BEGIN
    SELECT RAISE(ABORT, 'the action log is append-only');
END;

CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
WHEN NOT EXISTS (SELECT 1 FROM expired_games e WHERE e.id = OLD.game_id)
BEGIN
    SELECT RAISE(ABORT, 'the action log is append-only');
END;
