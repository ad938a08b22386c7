-- A game's state hashes are all computed by one version of the state hash (docs/protocol.md):
-- 1 hashes the state's JSON (every game stored before version 2 existed), 2 a compact binary
-- encoding. A game keeps its version for life, so every stored game verifies as it was written.
ALTER TABLE games ADD COLUMN hash_version INTEGER NOT NULL DEFAULT 1;

-- The background audit's progress: entries 1..audited_seq have been replayed from the seed with
-- every action, event and state hash checked. audit_error says why a replay failed; such a game
-- is held (corrupt_log) until an operator looks at it.
ALTER TABLE games ADD COLUMN audited_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN audit_error TEXT;

-- The rules state after entry seq, as JSON, so that loading a game replays only the entries
-- after the nearest snapshot. A cache of the log, never its substitute: a snapshot is used only
-- when its state hash equals the one the log stores for entry seq, and the audit compares every
-- snapshot with the state replayed from the seed.
CREATE TABLE snapshots (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    state   TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- Snapshots, once written, stay as they are (the audit's checkpoints rely on it).
CREATE TRIGGER snapshots_no_update BEFORE UPDATE ON snapshots
BEGIN
    SELECT RAISE(ABORT, 'snapshots are never changed');
END;
