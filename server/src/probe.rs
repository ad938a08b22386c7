//! Measurement hooks on the game path, owned by the server: the game tasks report where each
//! accepted action's time went (the rules, encoding, waiting for its commit) and the store's
//! writer reports each transaction's time and size — to a [`Probe`] the server was given at
//! start, or to nothing. The game path knows only this small interface; what listens (the load
//! generator's stage timers behind `--bench-routes`, or metrics) lives elsewhere and is plugged
//! in by whoever starts the server. With no probe, each hook is one branch.

use std::sync::Arc;
use std::time::Duration;

/// Where one accepted action's time went on the server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActionTiming {
    /// Checking and applying the action (the rules).
    pub apply: Duration,
    /// Serializing the log entry (the action, its events) and hashing the state.
    pub encode: Duration,
    /// Building the new state's frames (its view, its legal actions, the patches and player
    /// frames the connections asked of the last action), done while the commit is in flight.
    pub frame: Duration,
    /// From handing the entry to the writer until its commit was confirmed.
    pub store: Duration,
}

/// Something that listens to the game path's measurements. Called on the game tasks and the
/// writer: it must be quick and must not block.
pub trait Probe: Send + Sync {
    /// One accepted action.
    fn action(&self, timing: ActionTiming);
    /// One transaction of the writer: `actions` actions committed in `took`.
    fn commit(&self, actions: usize, took: Duration);
}

/// The probe of a server, or none: clone freely.
#[derive(Clone, Default)]
pub struct Probes(Option<Arc<dyn Probe>>);

impl Probes {
    /// Report to `probe`.
    pub fn new(probe: Arc<dyn Probe>) -> Probes {
        Probes(Some(probe))
    }

    /// Report to nothing.
    pub fn off() -> Probes {
        Probes(None)
    }

    /// One accepted action.
    pub fn action(&self, timing: ActionTiming) {
        if let Some(p) = &self.0 {
            p.action(timing);
        }
    }

    /// One transaction of the writer.
    pub fn commit(&self, actions: usize, took: Duration) {
        if let Some(p) = &self.0 {
            p.commit(actions, took);
        }
    }
}

impl std::fmt::Debug for Probes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Probes(on)"
        } else {
            "Probes(off)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Count(Mutex<(usize, usize)>);

    impl Probe for Count {
        fn action(&self, _: ActionTiming) {
            self.0.lock().unwrap().0 += 1;
        }
        fn commit(&self, actions: usize, _: Duration) {
            self.0.lock().unwrap().1 += actions;
        }
    }

    #[test]
    fn a_probe_hears_what_the_game_path_reports_and_none_is_silent() {
        let count = Arc::new(Count::default());
        let on = Probes::new(count.clone());
        on.action(ActionTiming::default());
        on.commit(3, Duration::ZERO);
        Probes::off().action(ActionTiming::default());
        assert_eq!(*count.0.lock().unwrap(), (1, 3));
    }
}
