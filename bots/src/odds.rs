//! The Combat Results Table as probabilities (8.2; ruling R4, docs/rulings.md): for an odds
//! column and a die modifier, the chance of each result, and what a unit or a step is worth to
//! each side, so that an attack's expected outcome can be weighed in one number.

use siege_rules::crt::{CrtResult, Odds};
use siege_rules::scenario::Scenario;
use siege_rules::units::{UnitId, UnitKind};

/// The results of the table in a fixed order.
pub const RESULTS: [CrtResult; 7] = [
    CrtResult::AE,
    CrtResult::AL1,
    CrtResult::AR,
    CrtResult::DR,
    CrtResult::DL1,
    CrtResult::EX,
    CrtResult::DE,
];

/// The chance of each result (in the order of [`RESULTS`]) for a column and a die modifier.
pub fn distribution(scn: &Scenario, column: Odds, modifier: i8) -> [f64; 7] {
    let mut p = [0.0; 7];
    for die in 1..=6i8 {
        let r = scn.crt.result(column, die + modifier);
        if let Some(i) = RESULTS.iter().position(|x| *x == r) {
            p[i] += 1.0 / 6.0;
        }
    }
    p
}

/// Chance that the defender leaves or loses its hex (DR, DL1, EX, DE).
pub fn p_defender_out(p: &[f64; 7]) -> f64 {
    p[3] + p[4] + p[5] + p[6]
}

/// Chance that the defender retreats alive (DR, DL1): the hex is emptied and the attacker may
/// advance into it (8.4).
pub fn p_retreat(p: &[f64; 7]) -> f64 {
    p[3] + p[4]
}

/// What a unit on the map is worth, in the currency of one Allied combat step. Allied losses
/// are permanent (8.2); Chinese ones come back as replacements (19), so they weigh less.
pub fn worth(scn: &Scenario, u: UnitId, reduced: bool) -> f64 {
    let c = scn.counters.get(u);
    match c.kind {
        // A reduced unit still holds a hex and escorts civilians: losing it costs more than
        // flipping a whole one.
        UnitKind::Combat if reduced => 1.3,
        UnitKind::Combat => 2.3,
        UnitKind::Volunteer => 2.6,
        UnitKind::Leader => 1.6,
        UnitKind::Civilian => 1.6,
        UnitKind::Artillery => 0.6 + 0.4 * f64::from(c.bonus),
        UnitKind::Doctor => 0.4,
        UnitKind::Boxer if reduced => 0.12,
        UnitKind::Boxer => 0.3,
        UnitKind::Imperial => 0.32,
    }
}

/// What one step loss costs a unit (flip, or elimination of a one-step or reduced unit).
pub fn step_worth(scn: &Scenario, u: UnitId, reduced: bool) -> f64 {
    let c = scn.counters.get(u);
    if c.reduced.is_some() && !reduced {
        worth(scn, u, false) - worth(scn, u, true)
    } else {
        worth(scn, u, reduced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn scn() -> Arc<Scenario> {
        Arc::new(Scenario::load_default().unwrap())
    }

    #[test]
    fn a_column_spreads_six_faces_over_the_results_r4() {
        let s = scn();
        let p = distribution(&s, Odds::Column(3), 0);
        let total: f64 = p.iter().sum();
        assert!((total - 1.0).abs() < 1e-9);
        // 2-1: AR AR DR DL1 DL1 EX.
        assert!((p[2] - 2.0 / 6.0).abs() < 1e-9);
        assert!((p_defender_out(&p) - 4.0 / 6.0).abs() < 1e-9);
        let below = distribution(&s, Odds::BelowOneToThree, 0);
        assert!(
            (below[0] - 1.0).abs() < 1e-9,
            "automatic AE below 1-3 (8.1.2)"
        );
    }

    #[test]
    fn a_leader_modifier_moves_the_die_toward_better_results_11_1() {
        let s = scn();
        let plain = distribution(&s, Odds::Column(2), 0);
        let led = distribution(&s, Odds::Column(2), 1);
        assert!(p_defender_out(&led) > p_defender_out(&plain));
    }
}
