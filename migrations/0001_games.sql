-- The store of siege: games, seats and the append-only action log.
-- Times are Unix milliseconds (UTC). Ids are UUID strings.

CREATE TABLE games (
    id              TEXT PRIMARY KEY NOT NULL,
    name            TEXT NOT NULL,
    -- open: a seat is free; active: both seats taken; finished: the game has a result.
    status          TEXT NOT NULL CHECK (status IN ('open', 'active', 'finished')),
    -- The 32-byte dice seed, kept private until the game is finished.
    seed            BLOB NOT NULL CHECK (length(seed) = 32),
    -- Hex SHA-256 of the seed, published at creation.
    seed_commitment TEXT NOT NULL,
    -- The result as JSON ({winner, reason, text}) once finished.
    result          TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

CREATE INDEX games_by_status ON games (status, created_at);

-- A seat is held by whoever has the token; only its SHA-256 is stored.
CREATE TABLE seats (
    game_id    TEXT NOT NULL REFERENCES games (id),
    side       TEXT NOT NULL CHECK (side IN ('allied', 'chinese')),
    token_hash TEXT NOT NULL,
    taken_at   INTEGER NOT NULL,
    PRIMARY KEY (game_id, side)
) WITHOUT ROWID;

-- Every accepted action, in order. seq starts at 1; the state after entry seq has hash
-- state_hash. turn and phase are those after the action, for listings.
CREATE TABLE actions (
    game_id    TEXT NOT NULL REFERENCES games (id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    side       TEXT NOT NULL CHECK (side IN ('allied', 'chinese')),
    action     TEXT NOT NULL,
    events     TEXT NOT NULL,
    state_hash TEXT NOT NULL,
    turn       INTEGER NOT NULL,
    phase      TEXT NOT NULL,
    at         INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

-- The log is append-only: an accepted action is never changed or taken back.
CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions
BEGIN
    SELECT RAISE(ABORT, 'the action log is append-only');
END;

CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions
BEGIN
    SELECT RAISE(ABORT, 'the action log is append-only');
END;
