-- The chat of a game, kept beside its action log (never in it): the players' table chat and the
-- spectators' chat (docs/protocol.md, "Chat"). Deleted with its game (expiry).
CREATE TABLE chat (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    channel TEXT NOT NULL CHECK (channel IN ('table', 'spectators')),
    -- allied, chinese or spectator.
    sender  TEXT NOT NULL CHECK (sender IN ('allied', 'chinese', 'spectator')),
    text    TEXT NOT NULL,
    at      INTEGER NOT NULL
);

CREATE INDEX chat_by_game ON chat (game_id, id);

-- A player's choice to hide the spectator chat, per seat.
CREATE TABLE chat_mutes (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    side    TEXT NOT NULL CHECK (side IN ('allied', 'chinese')),
    PRIMARY KEY (game_id, side)
) WITHOUT ROWID;
