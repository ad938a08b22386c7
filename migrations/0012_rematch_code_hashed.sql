-- A rematch's invite code is no longer kept in plaintext (docs/protocol.md, "Rematch"). The new
-- game's `invite_hash` already holds the code's SHA-256, as for every private game; the plaintext
-- lives only in the server's memory, to be shown again to the finished game's seats, and after a
-- restart a fresh code is issued when it is next shown (its hash replacing the stored one).
-- The codes stored so far are dropped with their column: those rematches get a fresh code the
-- next time a seat of the finished game is shown the offer.
UPDATE games SET rematch_code = NULL;
ALTER TABLE games DROP COLUMN rematch_code;
