-- My games and rematches (docs/protocol.md, "My games" and "Rematch").

-- The side to act after each action (NULL once the game is over, and for every action logged
-- before this column existed). Written in the same INSERT as the action itself, so the
-- listing finds whose move it is, and since when, by a query, without loading a game.
ALTER TABLE actions ADD COLUMN to_act TEXT CHECK (to_act IS NULL OR to_act IN ('allied', 'chinese'));

-- The side to act before the first action (the setup's, or a custom start's).
ALTER TABLE games ADD COLUMN first_to_act TEXT CHECK (first_to_act IS NULL OR first_to_act IN ('allied', 'chinese'));

-- A finished game's rematch: the new game, the side that asked for it, and its invite code
-- (kept so that the opponent's seat can be given the invite link whenever it comes back; it is
-- shown to the two seats of this game only, never to spectators).
ALTER TABLE games ADD COLUMN rematch_id TEXT;
ALTER TABLE games ADD COLUMN rematch_by TEXT CHECK (rematch_by IS NULL OR rematch_by IN ('allied', 'chinese'));
ALTER TABLE games ADD COLUMN rematch_code TEXT;

-- A signed-in player's games, newest first.
CREATE INDEX seats_by_account_game ON seats (account_id, game_id) WHERE account_id IS NOT NULL;
