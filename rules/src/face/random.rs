//! A random player: chooses among the legal actions with weights that keep games moving (it
//! rarely drops a unit from a selection or cancels an attack, rarely lifts units off the map,
//! never takes a decision back with `undo`) while still trying every kind of decision often
//! enough for a thousand games to exercise every rule. It knows no rules beyond the names of the
//! actions; the one piece of map knowledge it uses is where the hospital is, so that wounded
//! units sometimes go there (8.6); and in the setup a unit it places again is drawn to its hex of
//! the default deployment, so that a gun placed alone soon finds its crew (9).
//! Used by `siege simulate`, the load generator and tests.

use crate::Action;
use crate::Game;
use crate::mechanics::setup::area_key;
use crate::position::state::{Loc, Step};
use crate::vocabulary::hex::Hex;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siege_protocol::Phase;

/// A seeded random player.
pub struct Bot {
    rng: ChaCha8Rng,
    /// Moves into these hexes are favoured (the hospital).
    favoured: Vec<Hex>,
}

impl Bot {
    /// A random player seeded with `seed`, favouring moves into `favoured` hexes.
    pub fn new(seed: u64, favoured: Vec<Hex>) -> Bot {
        Bot {
            rng: ChaCha8Rng::seed_from_u64(seed),
            favoured,
        }
    }

    /// Whether the stack being moved holds a reduced unit that the hospital could restore.
    fn wounded_moving(game: &Game) -> bool {
        let Step::Move { group: Some(g) } = &game.state().step else {
            return false;
        };
        g.units
            .iter()
            .any(|u| game.state().unit(*u).reduced && game.scenario().counters.get(*u).steps() == 2)
    }

    /// The default-deployment hex of the unit being placed in the Allied setup, if one is.
    fn setup_home(game: &Game) -> Option<Hex> {
        let Step::AlliedSetup {
            selected: Some(u), ..
        } = game.state().step
        else {
            return None;
        };
        game.scenario()
            .deployment
            .hexes
            .iter()
            .find(|(d, _)| *d == u)
            .map(|(_, h)| *h)
    }

    /// How much the player likes `action` in `game`, relative to 1: wounded units are drawn
    /// towards the hospital.
    pub fn weight_in(&self, game: &Game, action: &Action) -> f64 {
        let st = game.state();
        match action {
            Action::SelectUnit { unit } if st.unit(*unit).reduced => 8.0,
            Action::SelectUnit { unit }
                if game.scenario().counters.get(*unit).kind
                    == crate::vocabulary::units::UnitKind::Doctor =>
            {
                0.05
            }
            // In the setup a unit it places again is drawn home, to its hex of the default
            // deployment: a gun or civilians placed alone (9, 15) cannot keep the setup from
            // ending for long.
            Action::ChooseArea { area }
                if Self::setup_home(game)
                    .is_some_and(|h| area_key(&game.scenario().map, h) == area) =>
            {
                50.0
            }
            Action::Place { hex } if Self::setup_home(game) == Some(*hex) => 200.0,
            // Once every unit is placed the default deployment places nothing (22); taking it
            // again and again would only stall a setup that is not yet legal.
            Action::DeployDefault
                if matches!(st.step, Step::AlliedSetup { .. })
                    && st.units.iter().all(|u| u.loc != Loc::Unplaced) =>
            {
                0.01
            }
            Action::Move { to, .. } if Self::wounded_moving(game) => {
                let d = self
                    .favoured
                    .iter()
                    .map(|h| h.distance(*to))
                    .min()
                    .unwrap_or(99);
                1000.0 / f64::from(1 + d).powi(3)
            }
            _ => self.weight(st.phase(), action),
        }
    }

    /// How much the player likes `action` in `phase`, relative to 1.
    pub fn weight(&self, phase: Phase, action: &Action) -> f64 {
        match action {
            Action::Move { to, .. } if self.favoured.contains(to) => 25.0,
            _ => weight(phase, action),
        }
    }

    /// Choose one of `legal` at random by [`Bot::weight_in`]. `None` only when `legal` is empty.
    pub fn choose<'a>(&mut self, game: &Game, legal: &'a [Action]) -> Option<&'a Action> {
        let weights: Vec<f64> = legal.iter().map(|a| self.weight_in(game, a)).collect();
        pick(&mut self.rng, legal, &weights)
    }
}

/// How much a random player likes `action` in `phase`, relative to 1: usually rolling for
/// recovery, rarely undoing a choice or lifting units off, readily attacking and resolving,
/// quickly through the setup.
pub fn weight(phase: Phase, action: &Action) -> f64 {
    let setup = matches!(phase, Phase::AlliedSetup | Phase::ChineseSetup);
    let moving = matches!(
        phase,
        Phase::ChineseMovement | Phase::AlliedReaction | Phase::AlliedMovement
    );
    match action {
        // Taking back a decision only wanders: a random player never does.
        Action::Undo => 0.0,
        Action::SelectUnit { .. } if setup => 0.05,
        Action::EndPhase if setup => 10.0,
        Action::EndPhase if moving => 3.0,
        Action::UnselectUnit { .. }
        | Action::CancelAttack
        | Action::RemoveAttacker { .. }
        | Action::RemoveArtillery { .. } => 0.02,
        Action::Lift { .. } => 0.01,
        Action::LeaveMap => 0.3,
        Action::ChooseArea { .. } | Action::SelectEntry { .. } => 0.2,
        Action::DeployDefault => 20.0,
        Action::Resolve => 6.0,
        Action::Attack { .. } => 3.0,
        Action::AddAttacker { .. } | Action::AddArtillery { .. } | Action::AddAttackers { .. } => {
            3.0
        }
        Action::Charge { .. } => 8.0,
        Action::AttemptWithdrawal { .. } => 1.0,
        // Recovery is a choice (8.6, R7); a random player still usually tries.
        Action::AttemptRecovery { .. } => 4.0,
        Action::Fortify { .. } => 2.0,
        Action::Detonate { .. } => 0.5,
        Action::Snipe { .. } => 4.0,
        Action::Advance { .. } => 2.0,
        Action::EndPhase => 0.5,
        _ => 1.0,
    }
}

/// Choose one of `legal` at random by [`weight`], for clients that know only the phase (the
/// wire-level test clients and the load generator). `None` only when `legal` is empty.
pub fn choose<'a>(rng: &mut ChaCha8Rng, phase: Phase, legal: &'a [Action]) -> Option<&'a Action> {
    let weights: Vec<f64> = legal.iter().map(|a| weight(phase, a)).collect();
    pick(rng, legal, &weights)
}

fn pick<'a>(rng: &mut ChaCha8Rng, legal: &'a [Action], weights: &[f64]) -> Option<&'a Action> {
    let total: f64 = weights.iter().sum();
    if legal.is_empty() || total <= 0.0 {
        return legal.first();
    }
    let mut x = rng.random_range(0.0..total);
    for (a, w) in legal.iter().zip(weights) {
        if x < *w {
            return Some(a);
        }
        x -= w;
    }
    legal.last()
}
