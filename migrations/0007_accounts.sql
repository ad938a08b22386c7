-- Optional accounts, their sessions, seats held by an account, and private games
-- (docs/protocol.md, "Accounts" and "Private games and public seeks").

-- A player's account. Only the argon2id PHC string of the password is kept. `epoch` grows
-- with every password change: a session signed in under an older epoch is signed out.
CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    epoch         INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL
);

-- The session library's records (tower-sessions): the session id, its data as JSON, and when it
-- expires (Unix seconds). An expired row is never loaded and is deleted by the housekeeping.
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY NOT NULL,
    data       TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

-- The account holding a seat: set when the seat is taken while signed in or later claimed.
ALTER TABLE seats ADD COLUMN account_id INTEGER REFERENCES accounts (id);
CREATE INDEX seats_by_account ON seats (account_id) WHERE account_id IS NOT NULL;

-- A private game's invite code, as hex SHA-256; NULL for a public seek (and for every game
-- created before private games existed, which anyone could join).
ALTER TABLE games ADD COLUMN invite_hash TEXT;
-- Whether a public seek may be joined by a guest (1) or only by a signed-in player (0).
ALTER TABLE games ADD COLUMN guests INTEGER NOT NULL DEFAULT 1;
