//! `siege simulate`: plays games in-process with the random player for both sides, checks the
//! invariants after every action — stacking, never two sides in a hex, nothing on the canal,
//! every unit accounted for, always a legal action for the side to act — and counts what
//! happened, so that a thousand games exercise every rule.

use crate::rules::crt::CrtResult;
use crate::rules::event::EventKind;
use crate::rules::hex::Hex;
use crate::rules::hex_index::HexIndex;
use crate::rules::map::Terrain;
use crate::rules::pending::Pending;
use crate::rules::random::Bot;
use crate::rules::stacking;
use crate::rules::state::Loc;
use crate::rules::{Game, Scenario};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use siege_protocol::{Phase, Side};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// Safety bound on actions in one game: random play that reaches it counts as a violation.
const MAX_ACTIONS: u64 = 200_000;

/// What a simulation run reports (one JSON line).
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub games: u64,
    pub finished: u64,
    pub actions: u64,
    pub invariant_violations: u64,
    pub counts: BTreeMap<String, u64>,
    pub results: BTreeMap<String, u64>,
    pub elapsed_ms: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<String>,
}

/// The seed of game `i` of a run seeded with `seed`.
pub fn game_seed(seed: u64, i: u64) -> [u8; 32] {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut out = [0u8; 32];
    for b in &mut out {
        *b = rng.random_range(0..=255u8);
    }
    out
}

/// Play `games` random games from master seed `seed`.
pub fn run(scn: Arc<Scenario>, games: u64, seed: u64) -> Report {
    let start = Instant::now();
    let mut report = Report {
        games,
        ..Report::default()
    };
    for i in 0..games {
        play_one(&scn, game_seed(seed, i), seed.wrapping_add(i), &mut report);
    }
    report.elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    report
}

/// Play one random game, adding to `report`. Returns the finished game.
pub fn play_one(
    scn: &Arc<Scenario>,
    game_seed: [u8; 32],
    player_seed: u64,
    report: &mut Report,
) -> Game {
    let mut game = Game::new(scn.clone(), game_seed);
    let mut bot = Bot::new(player_seed, scn.map.hospital().to_vec());
    let mut n: u64 = 0;
    while game.result().is_none() {
        let Some(side) = game.to_act() else {
            violation(report, "no side to act in an unfinished game".into());
            break;
        };
        let legal = game.legal_actions(side);
        let phase = game.state().phase;
        let Some(action) = bot.choose(&game, &legal).cloned() else {
            violation(
                report,
                format!("no legal action for the {side} player in {phase:?}"),
            );
            break;
        };
        match game.apply(side, &action) {
            Ok(events) => {
                for e in &events {
                    count(report, &e.kind);
                }
            }
            Err(e) => {
                violation(
                    report,
                    format!("a legal action was refused: {action:?}: {e}"),
                );
                break;
            }
        }
        n += 1;
        if let Some(why) = check(&game) {
            violation(report, why);
            break;
        }
        if n >= MAX_ACTIONS {
            violation(
                report,
                format!("game did not end within {MAX_ACTIONS} actions"),
            );
            break;
        }
    }
    report.actions += n;
    if let Some(r) = game.result() {
        report.finished += 1;
        let key = format!("{}_{}", r.winner.as_str(), r.reason);
        *report.results.entry(key).or_default() += 1;
    }
    game
}

fn violation(report: &mut Report, why: String) {
    report.invariant_violations += 1;
    if report.violations.len() < 20 {
        report.violations.push(why);
    }
}

fn bump(report: &mut Report, key: &str) {
    *report.counts.entry(key.to_string()).or_default() += 1;
}

/// Count an event under its kind, and the combat and Big Gun details under finer keys.
fn count(report: &mut Report, kind: &EventKind) {
    bump(report, kind.name());
    match kind {
        EventKind::Combat { report: r } => {
            if r.bayonet {
                bump(report, "bayonet_charge");
            } else if r.adjacent.is_empty() {
                bump(report, "ranged_fire");
            } else {
                bump(report, "normal_combat");
            }
            if !r.ranged.is_empty() && !r.adjacent.is_empty() {
                bump(report, "combined_fire");
            }
            if r.defenders.len() > 1 {
                bump(report, "multi_hex_combat");
            }
            if r.shift > 0 {
                bump(report, "artillery_support");
            }
            if r.modifier != 0 {
                bump(report, "leader_modifier");
            }
            if let Some(res) = r.result {
                bump(report, &format!("crt_{}", crt_name(res)));
            }
        }
        EventKind::Shot { hit, effect, .. } => {
            let key = match hit {
                None => "big_gun_off_map",
                Some(_) if effect.starts_with("RUIN") => "big_gun_ruin",
                Some(_) if effect.starts_with("SL") => "big_gun_step_loss",
                Some(_) => "big_gun_no_effect",
            };
            bump(report, key);
        }
        EventKind::Sniper { hit: true, .. } => bump(report, "sniper_kill"),
        EventKind::Withdrawal { success: true, .. } => bump(report, "withdrawal_success"),
        EventKind::Recovery {
            recovered: true, ..
        } => bump(report, "recovered"),
        EventKind::Fortified { side, .. } => bump(report, &format!("fortified_{}", side.as_str())),
        EventKind::Eliminated { cause, .. } if cause == "unescorted" => {
            bump(report, "civilians_lost")
        }
        _ => {}
    }
}

fn crt_name(r: CrtResult) -> String {
    format!("{r:?}").to_lowercase()
}

/// The invariants every reachable state keeps; the first broken one, in words.
pub fn check(game: &Game) -> Option<String> {
    let scn = game.scenario();
    let st = game.state();
    let board = HexIndex::new(scn, st);
    let mut sides: Vec<Option<Side>> = vec![None; crate::rules::hex::HEX_COUNT];
    for c in &scn.counters.counters {
        let loc = st.unit(c.id).loc;
        match (c.side, loc) {
            (Side::Allied, Loc::OffMap) => {
                return Some(format!("Allied {} is off the map", c.code));
            }
            (Side::Chinese, Loc::Unplaced) => {
                return Some(format!("Chinese {} is unplaced", c.code));
            }
            (Side::Allied, Loc::Unplaced) if st.phase != Phase::AlliedSetup => {
                return Some(format!("Allied {} unplaced after setup", c.code));
            }
            _ => {}
        }
        if let Loc::Map(h) = loc {
            if scn.map.terrain(h) == Terrain::Canal {
                return Some(format!("{} stands in the canal at {h}", c.code));
            }
            match sides[h.index()] {
                Some(s) if s != c.side => return Some(format!("both sides in {h}")),
                _ => sides[h.index()] = Some(c.side),
            }
        }
    }
    let overstack_pending: Vec<Hex> = st
        .pending
        .iter()
        .filter_map(|p| match p {
            Pending::Overstack { hex, .. } => Some(*hex),
            Pending::Retreat(r) => Some(r.at),
            _ => None,
        })
        .collect();
    for h in Hex::all() {
        if !stacking::is_legal(&board, h) && !overstack_pending.contains(&h) {
            return Some(format!(
                "{h} is over-stacked ({} points)",
                board.at(h).points
            ));
        }
    }
    if game.result().is_none() {
        match game.to_act() {
            None => return Some("nobody to act in an unfinished game".into()),
            Some(side) if game.legal_actions(side).is_empty() => {
                return Some(format!(
                    "no legal action for {side} in {:?} {:?}",
                    st.phase, st.step
                ));
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_games_finish_without_breaking_an_invariant() {
        let scn = Scenario::shipped().unwrap();
        let report = run(scn, 3, 7);
        assert_eq!(report.invariant_violations, 0, "{:?}", report.violations);
        assert_eq!(report.finished, 3);
    }
}
