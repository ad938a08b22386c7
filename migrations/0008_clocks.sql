-- Time controls (docs/protocol.md, "Time controls"). One row per timed game; untimed games
-- have none. The clock is stored as times, never as a timer: the side whose clock runs, when
-- its decision began, and what each side had left then — enough to compute the clocks after
-- any restart. `deadline` is when the running side runs out, so games out of time are found
-- by an indexed query without loading them.
CREATE TABLE clocks (
    game_id    TEXT PRIMARY KEY NOT NULL REFERENCES games (id),
    -- The time control as JSON ({"kind": "live", "bank_seconds": …} or
    -- {"kind": "correspondence", "window_seconds": …}).
    control    TEXT NOT NULL,
    -- Milliseconds each side had left when the running side's decision began.
    allied_ms  INTEGER NOT NULL,
    chinese_ms INTEGER NOT NULL,
    -- The side whose clock runs; NULL before the second seat is taken and after the end.
    running    TEXT CHECK (running IN ('allied', 'chinese')),
    -- When the running side's decision began (Unix ms).
    since      INTEGER,
    -- When the running side runs out of time (Unix ms).
    deadline   INTEGER
) WITHOUT ROWID;

CREATE INDEX clocks_by_deadline ON clocks (deadline) WHERE running IS NOT NULL;
