-- Games under way with a computer seated count against their creator's cap on open games
-- (docs/protocol.md, `--max-open-games`). Their `creator` is kept (a human game's is cleared
-- when its second seat is taken), so this index holds, in practice, only those games.
CREATE INDEX games_active_by_creator ON games (creator) WHERE status = 'active';
-- A creator is kept no longer than a game is open or under way: finished games forget theirs.
UPDATE games SET creator = NULL WHERE status = 'finished';
