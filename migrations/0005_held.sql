-- A game the server holds for the operator: why, in words (an engine that did not settle an
-- action, docs/protocol.md). NULL for every game in play. A held game refuses every action and
-- is not loaded again until an operator clears it.
ALTER TABLE games ADD COLUMN held TEXT;
