-- A game may start from a custom position (the analysis board) instead of the setup of
-- section 22: the position's JSON is kept so the log replays from the same start.
ALTER TABLE games ADD COLUMN position TEXT;
