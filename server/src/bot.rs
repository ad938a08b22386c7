//! A random player: chooses among the legal actions with weights that keep games moving (it
//! rarely takes back a selection or cancels an attack, rarely lifts units off the map) while
//! still trying every kind of decision. Used by `siege simulate`, the load generator and tests.
//! It knows no rules beyond the names of the actions.

use crate::rules::Action;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use siege_protocol::Phase;

/// How much the random player likes an action in `phase`, relative to 1.
pub fn weight(phase: Phase, action: &Action) -> f64 {
    let setup = matches!(phase, Phase::AlliedSetup | Phase::ChineseSetup);
    match action {
        Action::SelectUnit { .. } if setup => 0.05,
        Action::EndPhase if setup => 10.0,
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
        Action::AddAttacker { .. } | Action::AddArtillery { .. } => 3.0,
        Action::Charge { .. } => 8.0,
        Action::AttemptWithdrawal { .. } => 1.0,
        Action::Fortify { .. } => 2.0,
        Action::Detonate { .. } => 0.5,
        Action::Snipe { .. } => 4.0,
        Action::Advance { .. } => 2.0,
        Action::EndPhase => 0.5,
        _ => 1.0,
    }
}

/// Choose one of `legal` at random by [`weight`]. `None` only when `legal` is empty.
pub fn choose<'a>(rng: &mut ChaCha8Rng, phase: Phase, legal: &'a [Action]) -> Option<&'a Action> {
    let total: f64 = legal.iter().map(|a| weight(phase, a)).sum();
    if legal.is_empty() || total <= 0.0 {
        return legal.first();
    }
    let mut x = rng.random_range(0.0..total);
    for a in legal {
        let w = weight(phase, a);
        if x < w {
            return Some(a);
        }
        x -= w;
    }
    legal.last()
}
