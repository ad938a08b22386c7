//! Time controls on the wire (docs/protocol.md, "Time controls"): what a creator chooses, and
//! the clocks as the server reports them in `clock` frames, in `GET /api/games/{id}` and in
//! the lobby list.

use crate::side::Side;
use serde::{Deserialize, Serialize};

/// How a game is timed, chosen at creation. Times are in seconds so that tests can use tiny
/// periods; the page offers minutes and days.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeControl {
    /// No clock (the default): nobody can lose on time.
    #[default]
    None,
    /// A bank per side that runs while that side has the decision, with `increment_seconds`
    /// added to both banks at the start of every game turn.
    Live {
        bank_seconds: u32,
        #[serde(default)]
        increment_seconds: u32,
    },
    /// Each time the decision passes to a side, that side has `window_seconds` to act.
    Correspondence { window_seconds: u32 },
}

impl TimeControl {
    /// Whether a clock runs at all.
    pub fn is_timed(&self) -> bool {
        !matches!(self, TimeControl::None)
    }
}

/// The clocks of a timed game at the instant `now`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    pub control: TimeControl,
    /// Milliseconds each side has left at `now` (never below 0).
    pub allied_ms: i64,
    pub chinese_ms: i64,
    /// The side whose clock runs (the side to act, once both seats are taken); `null` before
    /// the second seat is taken and after the end.
    pub running: Option<Side>,
    /// When the running side's time runs out (Unix ms).
    pub deadline: Option<i64>,
    /// The server's time of this report (Unix ms): count down from here.
    pub now: i64,
    /// The side whose time has run out, which the other side may claim against.
    pub out_of_time: Option<Side>,
}
