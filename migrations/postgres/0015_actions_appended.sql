-- The log kept in the order it is written: SQLite's 0015 turns `actions` from a table clustered
-- by (game_id, seq) into one kept in write order with a (game_id, seq) index. On PostgreSQL a
-- table is a heap kept in write order already, and its primary key is that index: nothing
-- changes but this note on the table, so that both databases say the same.
COMMENT ON TABLE actions IS
    'The action log, append-only, kept in the order it is written; one entry per (game_id, seq).';
