//! A timed game's clocks (docs/protocol.md, "Time controls"): a bank per side that runs while
//! that side has the decision (live), or a window that opens afresh each time the decision
//! passes to a side (correspondence). The clock is times, not a timer: the side whose clock
//! runs, when its decision began and what each side had then. The game task moves it on with
//! every action and stores it in the same commit; nothing in memory counts down, so a restart
//! loses no time and gives none back. The rules know no clock: the task refuses a claim on time
//! until the clock of the side to act is spent, then passes `claim_timeout` to the rules.

use siege_protocol::{ClockView, Side, TimeControl};

/// The clocks of a timed game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub control: TimeControl,
    /// Milliseconds each side had left when the running side's decision began.
    pub allied_ms: i64,
    pub chinese_ms: i64,
    /// The side whose clock runs.
    pub running: Option<Side>,
    /// When the running side's decision began (Unix ms).
    pub since: i64,
}

impl Clock {
    /// A clock that has not started (the second seat is not taken yet); `None` when untimed.
    pub fn new(control: TimeControl) -> Option<Clock> {
        let full = full_ms(control)?;
        Some(Clock {
            control,
            allied_ms: full,
            chinese_ms: full,
            running: None,
            since: 0,
        })
    }

    fn left_at_start(&self, side: Side) -> i64 {
        match side {
            Side::Allied => self.allied_ms,
            Side::Chinese => self.chinese_ms,
        }
    }

    fn set(&mut self, side: Side, ms: i64) {
        match side {
            Side::Allied => self.allied_ms = ms,
            Side::Chinese => self.chinese_ms = ms,
        }
    }

    /// Milliseconds `side` has left at `now`, never below 0.
    pub fn left(&self, side: Side, now: i64) -> i64 {
        let at_start = self.left_at_start(side);
        if self.running == Some(side) {
            (at_start - (now - self.since).max(0)).max(0)
        } else {
            at_start
        }
    }

    /// When the running side runs out (Unix ms).
    pub fn deadline(&self) -> Option<i64> {
        self.running
            .map(|s| self.since.saturating_add(self.left_at_start(s)))
    }

    /// The side whose time has run out at `now`.
    pub fn out_of_time(&self, now: i64) -> Option<Side> {
        self.running
            .filter(|_| self.deadline().is_some_and(|d| now >= d))
    }

    /// The clock of the side to act starts: the second seat was taken at `now`. `false` when
    /// it was already running.
    pub fn start(&mut self, to_act: Option<Side>, now: i64) -> bool {
        if self.running.is_some() {
            return false;
        }
        self.running = to_act;
        self.since = now;
        to_act.is_some()
    }

    /// An action was taken at `now`: `to_act` decides next (`None`: the game is over) and the
    /// game turn went from `turn_before` to `turn_after`. A live bank loses the time its side
    /// spent and every new game turn adds the increment to both banks; a correspondence window
    /// opens afresh for the side the decision passes to. Returns whether anything changed
    /// (a side acting again within its own decision changes nothing).
    pub fn after_action(
        &mut self,
        to_act: Option<Side>,
        turn_before: u8,
        turn_after: u8,
        now: i64,
    ) -> bool {
        let Some(running) = self.running else {
            return false;
        };
        let new_turns = i64::from(turn_after.saturating_sub(turn_before));
        let live = matches!(self.control, TimeControl::Live { .. });
        if to_act == Some(running) && (new_turns == 0 || !live) {
            return false;
        }
        match self.control {
            TimeControl::Live {
                increment_seconds, ..
            } => {
                let bonus = new_turns * i64::from(increment_seconds) * 1000;
                let spent_left = self.left(running, now);
                let other = running.other();
                let other_left = self.left_at_start(other);
                self.set(running, spent_left + bonus);
                self.set(other, other_left + bonus);
            }
            TimeControl::Correspondence { .. } | TimeControl::None => {
                let full = full_ms(self.control).unwrap_or(0);
                self.set(Side::Allied, full);
                self.set(Side::Chinese, full);
            }
        }
        self.running = to_act;
        self.since = now;
        true
    }

    /// The clocks as reported at `now`.
    pub fn view(&self, now: i64) -> ClockView {
        ClockView {
            control: self.control,
            allied_ms: self.left(Side::Allied, now),
            chinese_ms: self.left(Side::Chinese, now),
            running: self.running,
            deadline: self.deadline(),
            now,
            out_of_time: self.out_of_time(now),
        }
    }
}

/// A full bank or window in milliseconds; `None` when untimed.
fn full_ms(control: TimeControl) -> Option<i64> {
    match control {
        TimeControl::None => None,
        TimeControl::Live { bank_seconds, .. } => Some(i64::from(bank_seconds) * 1000),
        TimeControl::Correspondence { window_seconds } => Some(i64::from(window_seconds) * 1000),
    }
}

/// The longest period a time control may set: 60 days.
pub const MAX_SECONDS: u32 = 60 * 24 * 3600;

/// Check a creator's time control: every period from 1 second to [`MAX_SECONDS`] (an increment
/// may be 0). The message names the field.
pub fn check(control: &TimeControl) -> Result<(), String> {
    let within = |name: &str, v: u32, min: u32| {
        if v < min || v > MAX_SECONDS {
            Err(format!(
                "time_control.{name} must be from {min} to {MAX_SECONDS} seconds (60 days), not {v}"
            ))
        } else {
            Ok(())
        }
    };
    match *control {
        TimeControl::None => Ok(()),
        TimeControl::Live {
            bank_seconds,
            increment_seconds,
        } => {
            within("bank_seconds", bank_seconds, 1)?;
            within("increment_seconds", increment_seconds, 0)
        }
        TimeControl::Correspondence { window_seconds } => {
            within("window_seconds", window_seconds, 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIVE: TimeControl = TimeControl::Live {
        bank_seconds: 100,
        increment_seconds: 10,
    };

    #[test]
    fn a_live_bank_runs_only_for_the_side_to_decide() {
        let mut c = Clock::new(LIVE).unwrap();
        assert_eq!(
            c.out_of_time(1_000_000),
            None,
            "not started: nobody runs out"
        );
        assert!(c.start(Some(Side::Allied), 0));
        assert_eq!(c.left(Side::Allied, 30_000), 70_000);
        assert_eq!(c.left(Side::Chinese, 30_000), 100_000);
        // The Allies act again within their decision: nothing changes.
        assert!(!c.after_action(Some(Side::Allied), 1, 1, 30_000));
        // The decision passes to the Chinese at 40 s: the Allied bank keeps 60 s.
        assert!(c.after_action(Some(Side::Chinese), 1, 1, 40_000));
        assert_eq!(c.left(Side::Allied, 90_000), 60_000);
        assert_eq!(c.left(Side::Chinese, 90_000), 50_000);
        assert_eq!(c.deadline(), Some(140_000));
        assert_eq!(c.out_of_time(139_999), None);
        assert_eq!(c.out_of_time(140_000), Some(Side::Chinese));
        // A new game turn adds the increment to both banks.
        assert!(c.after_action(Some(Side::Allied), 1, 2, 50_000));
        assert_eq!(c.left(Side::Chinese, 50_000), 100_000);
        assert_eq!(c.left(Side::Allied, 50_000), 70_000);
        // The end stops every clock.
        assert!(c.after_action(None, 2, 2, 60_000));
        assert_eq!(c.running, None);
        assert_eq!(c.out_of_time(i64::MAX), None);
    }

    #[test]
    fn a_correspondence_window_opens_afresh_when_the_decision_passes() {
        let mut c = Clock::new(TimeControl::Correspondence { window_seconds: 60 }).unwrap();
        c.start(Some(Side::Chinese), 0);
        assert_eq!(c.left(Side::Chinese, 50_000), 10_000);
        c.after_action(Some(Side::Allied), 1, 1, 50_000);
        assert_eq!(c.left(Side::Allied, 50_000), 60_000);
        c.after_action(Some(Side::Chinese), 1, 1, 100_000);
        assert_eq!(c.left(Side::Chinese, 100_000), 60_000, "a fresh window");
        assert_eq!(c.out_of_time(160_000), Some(Side::Chinese));
        // A new turn within one side's decision does not open a new window.
        c.after_action(Some(Side::Chinese), 1, 2, 130_000);
        assert_eq!(c.left(Side::Chinese, 130_000), 30_000);
    }

    #[test]
    fn time_controls_out_of_bounds_are_refused_by_name() {
        assert!(check(&LIVE).is_ok());
        let e = check(&TimeControl::Correspondence { window_seconds: 0 }).unwrap_err();
        assert!(e.contains("window_seconds"), "{e}");
        let e = check(&TimeControl::Live {
            bank_seconds: 10,
            increment_seconds: MAX_SECONDS + 1,
        })
        .unwrap_err();
        assert!(e.contains("increment_seconds"), "{e}");
    }
}
