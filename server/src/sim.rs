//! `siege simulate`: plays games in-process with the random player for both sides, checks the
//! invariants at every action boundary and counts what happened, so that a thousand games
//! exercise every rule. The invariants:
//!
//! - the state: stacking within section 7 (outside a retreat or an over-stack being settled),
//!   never two sides in a hex, nothing in the canal, every unit accounted for;
//! - civilians (15, R7): none on the map without an Allied combat unit in or beside its hex
//!   (once the setup is over; a stack still on its way, not yet stopped, may leave them for the
//!   length of its move);
//! - movement (6, 8.3, 8.4, 12): no move enters an enemy ZOC and goes on, or steps directly from
//!   one enemy ZOC hex to another, and no Allied unit leaves an enemy ZOC in the reaction
//!   phase; no retreat or withdrawal enters an enemy ZOC or enemy hex — only an advance after
//!   combat (and a bayonet charge carrying the hex it charged) may go from ZOC to ZOC;
//! - refusals: now and then an action that is not legal (a legal one with a field changed, or
//!   one from a fixed list) is thrown at the engine, which must refuse it without changing the
//!   state hash, and so must a legal action sent by the side not to act;
//! - choices: the side to act always has a legal action, and one that does something — a step
//!   with nothing to decide (only `end_phase` or `pass`) is skipped, and an interruption with a
//!   single possible answer is taken by the engine, never left to the player.

use crate::rules::crt::CrtResult;
use crate::rules::event::{Event, EventKind};
use crate::rules::hex::{HEX_COUNT, Hex};
use crate::rules::hex_index::HexIndex;
use crate::rules::map::Terrain;
use crate::rules::pending::Pending;
use crate::rules::random::Bot;
use crate::rules::stacking;
use crate::rules::state::{Loc, Step};
use crate::rules::units::{UnitId, UnitKind};
use crate::rules::{Action, Game, Scenario};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use siege_protocol::{Phase, Side};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Instant;

/// Safety bound on actions in one game: random play that reaches it counts as a violation.
const MAX_ACTIONS: u64 = 200_000;

/// One action in this many is followed by a refusal probe.
const PROBE_EVERY: u32 = 16;

/// What a simulation run reports (one JSON line).
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub games: u64,
    pub finished: u64,
    pub actions: u64,
    pub invariant_violations: u64,
    /// Violations by kind: `state`, `civilian_escort`, `zoc_movement`, `refusal`, `choice`,
    /// `stuck`.
    pub violations_by_kind: BTreeMap<String, u64>,
    /// Illegal actions thrown at the engine, each refused without a change.
    pub refusals_probed: u64,
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
    // The refusal probes draw from their own stream so that the games played are the same
    // with or without them.
    let mut prober = ChaCha8Rng::seed_from_u64(player_seed ^ 0x5EED_F00D);
    let mut stranded: BTreeSet<UnitId> = BTreeSet::new();
    let mut n: u64 = 0;
    while game.result().is_none() {
        let Some(side) = game.to_act() else {
            violation(
                report,
                "stuck",
                "no side to act in an unfinished game".into(),
            );
            break;
        };
        let legal = game.legal_actions(side);
        let phase = game.state().phase();
        let Some(action) = bot.choose(&game, &legal).cloned() else {
            violation(
                report,
                "stuck",
                format!("no legal action for the {side} player in {phase:?}"),
            );
            break;
        };
        if prober.random_ratio(1, PROBE_EVERY)
            && let Some(why) = probe_refusals(&mut game, side, &legal, &mut prober, report)
        {
            violation(report, "refusal", why);
            break;
        }
        let before = HexIndex::new(scn, game.state());
        match game.apply(side, &action) {
            Ok(events) => {
                for e in &events {
                    count(report, &e.kind);
                }
                if let Some(why) = check_moves(scn, &before, phase, &events) {
                    violation(report, "zoc_movement", why);
                    break;
                }
            }
            Err(e) => {
                violation(
                    report,
                    "refusal",
                    format!("a legal action was refused: {action:?}: {e}"),
                );
                break;
            }
        }
        n += 1;
        if let Some(why) = check(&game) {
            violation(report, "state", why);
            break;
        }
        if let Some(why) = check_choice(&game) {
            violation(report, "choice", why);
            break;
        }
        let now = unescorted_civilians(&game);
        for (u, h) in &now {
            if stranded.insert(*u) {
                let why = format!(
                    "{} at {h} have no Allied combat unit with or beside them (15, R7) after {action:?} in {:?}",
                    scn.counters.get(*u).code,
                    game.state().phase()
                );
                violation(report, "civilian_escort", why);
            }
        }
        stranded.retain(|u| now.iter().any(|(c, _)| c == u));
        if n >= MAX_ACTIONS {
            violation(
                report,
                "stuck",
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

fn violation(report: &mut Report, kind: &str, why: String) {
    report.invariant_violations += 1;
    *report
        .violations_by_kind
        .entry(kind.to_string())
        .or_default() += 1;
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
    let mut sides: Vec<Option<Side>> = vec![None; HEX_COUNT];
    for c in &scn.counters.counters {
        let loc = st.unit(c.id).loc;
        match (c.side, loc) {
            (Side::Allied, Loc::OffMap) => {
                return Some(format!("Allied {} is off the map", c.code));
            }
            (Side::Chinese, Loc::Unplaced) => {
                return Some(format!("Chinese {} is unplaced", c.code));
            }
            (Side::Allied, Loc::Unplaced) if st.phase() != Phase::AlliedSetup => {
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
                    st.phase(),
                    st.step
                ));
            }
            _ => {}
        }
    }
    None
}

/// Civilians on the map with no Allied combat unit or volunteers in or beside their hex (15),
/// each with its hex. Two moments are let pass: the Allied setup, while units are still being
/// placed (22), and a stack that has started moving and not yet stopped, which may have left
/// them behind for the length of its move — the check waits for it to stop (5, 15).
pub fn unescorted_civilians(game: &Game) -> Vec<(UnitId, Hex)> {
    let scn = game.scenario();
    let st = game.state();
    if st.phase() == Phase::AlliedSetup
        || matches!(&st.step, Step::Move { group: Some(g) } if g.started)
    {
        return Vec::new();
    }
    let escorts: Vec<Hex> = scn
        .counters
        .counters
        .iter()
        .filter(|c| matches!(c.kind, UnitKind::Combat | UnitKind::Volunteer))
        .filter_map(|c| st.unit(c.id).hex())
        .collect();
    scn.counters
        .counters
        .iter()
        .filter(|c| c.kind == UnitKind::Civilian)
        .filter_map(|c| st.unit(c.id).hex().map(|h| (c.id, h)))
        .filter(|(_, h)| !escorts.iter().any(|e| e == h || e.is_adjacent(*h)))
        .collect()
}

/// The movement of one action against the zones of control it started under (6, 8.3, 8.4, 12):
/// a move stops on entering an enemy ZOC, never steps from one enemy ZOC hex straight into
/// another, and never leaves an enemy ZOC in the Allied reaction phase; a retreat or withdrawal
/// never enters an enemy ZOC or an enemy hex. Advances after combat (8.4), a leader joining the
/// nearest friendly unit (11.1) and a bayonet charge carrying the hex it charged (8.1.3, the
/// only move that costs nothing) are not movement in this sense.
pub fn check_moves(
    scn: &Scenario,
    before: &HexIndex,
    phase: Phase,
    events: &[Event],
) -> Option<String> {
    let side_of = |units: &[UnitId]| units.first().map(|u| scn.counters.get(*u).side);
    for e in events {
        match &e.kind {
            EventKind::Moved { units, path, mp } if *mp > 0 => {
                let Some(side) = side_of(units) else { continue };
                let zoc = |h: &Hex| before.in_zoc_of(side.other(), *h);
                if let Some(w) = path.windows(2).find(|w| zoc(&w[0]) && zoc(&w[1])) {
                    return Some(format!(
                        "moved directly from enemy ZOC at {} to enemy ZOC at {} (6): {}",
                        w[0], w[1], e.text
                    ));
                }
                let inner = &path[1..path.len().saturating_sub(1).max(1)];
                if let Some(h) = inner.iter().find(|h| zoc(h)) {
                    return Some(format!(
                        "moved on after entering enemy ZOC at {h} (6): {}",
                        e.text
                    ));
                }
                if phase == Phase::AlliedReaction
                    && side == Side::Allied
                    && path.first().is_some_and(zoc)
                {
                    return Some(format!(
                        "left an enemy ZOC in the reaction phase (6): {}",
                        e.text
                    ));
                }
            }
            EventKind::Retreated { units, to, .. } => {
                let Some(side) = side_of(units) else { continue };
                if before.in_zoc_of(side.other(), *to) || before.enemy_in(side, *to) {
                    return Some(format!(
                        "retreated into enemy ZOC or an enemy hex at {to} (8.3, 12): {}",
                        e.text
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

/// Every step either offers the player a choice or is passed over: the side to act has a legal
/// action that does something — a step whose only actions are `end_phase` or `pass` has nothing
/// to decide and must be skipped (with an event), and an interruption with a single possible
/// answer (a forced retreat step, say) is the engine's to take, not the player's.
pub fn check_choice(game: &Game) -> Option<String> {
    if game.result().is_some() {
        return None;
    }
    let side = game.to_act()?;
    let legal = game.legal_actions(side);
    let st = game.state();
    let only_ending = legal
        .iter()
        .all(|a| matches!(a, Action::EndPhase | Action::Pass));
    if !st.pending.is_empty() && legal.len() == 1 {
        return Some(format!(
            "the {side} player is asked to settle {:?} with a single possible action ({:?}), which the engine should take",
            st.pending[0].name(),
            legal[0]
        ));
    }
    if st.pending.is_empty() && !legal.is_empty() && only_ending {
        return Some(format!(
            "the {side} player is asked to end {:?} {:?}, which has nothing to decide and should be skipped",
            st.phase(),
            st.step
        ));
    }
    None
}

/// One action of every kind, its fields to be filled at random by [`probe_refusals`].
const TEMPLATES: [&str; 39] = [
    r#"{"type":"deploy_default"}"#,
    r#"{"type":"select_unit","unit":0}"#,
    r#"{"type":"choose_area","area":"british"}"#,
    r#"{"type":"place","hex":"1010"}"#,
    r#"{"type":"select_entry","kind":"boxer"}"#,
    r#"{"type":"enter","hex":"0101"}"#,
    r#"{"type":"select_stack","hex":"1010"}"#,
    r#"{"type":"unselect_unit","unit":0}"#,
    r#"{"type":"move","to":"1010","mp":1}"#,
    r#"{"type":"stop"}"#,
    r#"{"type":"attempt_recovery","unit":0}"#,
    r#"{"type":"place_gun","hex":"0101"}"#,
    r#"{"type":"fire","direction":"n"}"#,
    r#"{"type":"detonate","hex":"1010"}"#,
    r#"{"type":"restore","unit":0}"#,
    r#"{"type":"remove_unit","unit":0}"#,
    r#"{"type":"snipe","leader":0}"#,
    r#"{"type":"fortify","hex":"1010"}"#,
    r#"{"type":"attempt_withdrawal","leader":0}"#,
    r#"{"type":"charge","hex":"1010","mp":1}"#,
    r#"{"type":"attack","hex":"1010"}"#,
    r#"{"type":"add_defender","hex":"1010"}"#,
    r#"{"type":"add_attacker","unit":0}"#,
    r#"{"type":"remove_attacker","unit":0}"#,
    r#"{"type":"add_artillery","unit":0}"#,
    r#"{"type":"remove_artillery","unit":0}"#,
    r#"{"type":"set_leader_use","leader":0,"use":"modifier"}"#,
    r#"{"type":"resolve"}"#,
    r#"{"type":"cancel_attack"}"#,
    r#"{"type":"lose_step","unit":0}"#,
    r#"{"type":"retreat","to":"1010"}"#,
    r#"{"type":"stop_retreat"}"#,
    r#"{"type":"leave_map"}"#,
    r#"{"type":"advance","unit":0,"to":"1010"}"#,
    r#"{"type":"place_leader","leader":0,"hex":"1010"}"#,
    r#"{"type":"eliminate","unit":0}"#,
    r#"{"type":"lift","hex":"1010"}"#,
    r#"{"type":"pass"}"#,
    r#"{"type":"end_phase"}"#,
];

/// A random value of the same kind as `v`: a hex for a hex, a small number for a number, one of
/// the words the field takes for a word.
fn scramble(v: &serde_json::Value, rng: &mut ChaCha8Rng) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(_) => Value::from(rng.random_range(0..200u32)),
        Value::String(s) if s.len() == 4 && s.bytes().all(|b| b.is_ascii_digit()) => {
            match Hex::from_index(rng.random_range(0..HEX_COUNT)) {
                Some(h) => Value::from(h.to_string()),
                None => v.clone(),
            }
        }
        Value::String(_) => {
            const WORDS: [&str; 13] = [
                "n",
                "ne",
                "se",
                "s",
                "sw",
                "nw",
                "strength",
                "modifier",
                "boxer",
                "reduced_boxer",
                "imperial",
                "british",
                "fu",
            ];
            Value::from(WORDS[rng.random_range(0..WORDS.len())])
        }
        other => other.clone(),
    }
}

/// An action that is probably not legal now: a legal one with a field changed, or one of any
/// kind with random fields.
fn candidate(legal: &[Action], rng: &mut ChaCha8Rng) -> Option<Action> {
    let mut v = if !legal.is_empty() && rng.random_bool(0.5) {
        serde_json::to_value(&legal[rng.random_range(0..legal.len())]).ok()?
    } else {
        serde_json::from_str(TEMPLATES[rng.random_range(0..TEMPLATES.len())]).ok()?
    };
    if let serde_json::Value::Object(m) = &mut v {
        let keys: Vec<String> = m.keys().filter(|k| *k != "type").cloned().collect();
        if !keys.is_empty() {
            let k = &keys[rng.random_range(0..keys.len())];
            let new = scramble(&m[k], rng);
            m.insert(k.clone(), new);
        }
    }
    serde_json::from_value(v).ok()
}

/// Throw an action that is not legal at the engine, and a legal one as the side not to act:
/// both must be refused and leave the state hash as it was. The broken promise, in words.
fn probe_refusals(
    game: &mut Game,
    side: Side,
    legal: &[Action],
    rng: &mut ChaCha8Rng,
    report: &mut Report,
) -> Option<String> {
    let before = game.state_hash();
    if let Some(a) = candidate(legal, rng).filter(|a| !legal.contains(a)) {
        report.refusals_probed += 1;
        if game.apply(side, &a).is_ok() {
            return Some(format!(
                "{a:?} is not among the legal actions of the {side} player, yet was accepted"
            ));
        }
        if game.state_hash() != before {
            return Some(format!("refusing {a:?} changed the state"));
        }
    }
    if let Some(a) = legal.first() {
        report.refusals_probed += 1;
        if game.apply(side.other(), a).is_ok() {
            return Some(format!(
                "{a:?} was accepted from the {} player, who is not to act",
                side.other()
            ));
        }
        if game.state_hash() != before {
            return Some(format!(
                "refusing {a:?} from the side not to act changed the state"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::custom::Position;

    fn scenario() -> Arc<Scenario> {
        Scenario::shipped().unwrap()
    }

    /// A game from a position, with the unit each `ref` names.
    fn game_at(json: &str) -> (Game, BTreeMap<String, UnitId>) {
        let scn = scenario();
        let p: Position = serde_json::from_str(json).unwrap();
        let built = p.build(&scn, [0; 32]).unwrap();
        (Game::from_state(scn, built.state), built.refs)
    }

    fn hex(s: &str) -> Hex {
        s.parse().unwrap()
    }

    #[test]
    fn random_games_finish_without_breaking_an_invariant() {
        let report = run(scenario(), 3, 7);
        assert_eq!(report.invariant_violations, 0, "{:?}", report.violations);
        assert_eq!(report.finished, 3);
        assert!(report.refusals_probed > 0, "refusals were probed");
    }

    #[test]
    fn a_civilian_without_an_escort_is_found_15() {
        let (game, refs) = game_at(
            r#"{"turn":2,"phase":"allied_movement","units":[
                {"ref":"c","side":"allied","type":"civilian","hex":"0707"},
                {"ref":"L","side":"allied","type":"leader","name":"Myers","hex":"0708"},
                {"ref":"e","side":"allied","type":"combat","nationality":"british","hex":"0710"}]}"#,
        );
        assert_eq!(unescorted_civilians(&game), vec![(refs["c"], hex("0707"))]);
        let (game, _) = game_at(
            r#"{"turn":2,"phase":"allied_movement","units":[
                {"ref":"c","side":"allied","type":"civilian","hex":"0707"},
                {"ref":"e","side":"allied","type":"combat","nationality":"british","hex":"0708"}]}"#,
        );
        assert!(unescorted_civilians(&game).is_empty());
    }

    fn moved(units: Vec<UnitId>, path: &[&str]) -> Event {
        Event {
            kind: EventKind::Moved {
                units,
                path: path.iter().map(|h| hex(h)).collect(),
                mp: 1,
            },
            text: "a move".into(),
        }
    }

    #[test]
    fn moves_from_zoc_to_zoc_or_through_zoc_are_found_6() {
        // British at 0707 cover 0706, 0708, 0606, 0607, 0806, 0807.
        let (game, refs) = game_at(
            r#"{"turn":2,"phase":"chinese_movement","units":[
                {"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"0707"},
                {"ref":"x","side":"chinese","type":"boxer","hex":"0708"}]}"#,
        );
        let scn = game.scenario();
        let board = HexIndex::new(scn, game.state());
        let x = vec![refs["x"]];
        let phase = Phase::ChineseMovement;
        let ok = moved(x.clone(), &["0708", "0709", "0710"]);
        assert_eq!(check_moves(scn, &board, phase, &[ok]), None);
        let zoc_to_zoc = moved(x.clone(), &["0708", "0807"]);
        assert!(check_moves(scn, &board, phase, &[zoc_to_zoc]).is_some());
        let through = moved(x.clone(), &["0709", "0708", "0709"]);
        assert!(check_moves(scn, &board, phase, &[through]).is_some());
        let retreat = Event {
            kind: EventKind::Retreated {
                units: x.clone(),
                from: hex("0709"),
                to: hex("0708"),
            },
            text: "a retreat".into(),
        };
        assert!(check_moves(scn, &board, phase, &[retreat]).is_some());
        let advance = Event {
            kind: EventKind::Advanced {
                unit: refs["x"],
                from: hex("0708"),
                to: hex("0807"),
            },
            text: "an advance".into(),
        };
        assert_eq!(check_moves(scn, &board, phase, &[advance]), None);
    }

    #[test]
    fn reacting_out_of_enemy_zoc_is_found_6() {
        let (game, refs) = game_at(
            r#"{"turn":2,"phase":"allied_reaction","units":[
                {"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"0708"},
                {"ref":"x","side":"chinese","type":"boxer","hex":"0707"}]}"#,
        );
        let scn = game.scenario();
        let board = HexIndex::new(scn, game.state());
        let away = moved(vec![refs["b"]], &["0708", "0709"]);
        assert!(
            check_moves(
                scn,
                &board,
                Phase::AlliedReaction,
                std::slice::from_ref(&away)
            )
            .is_some()
        );
        assert_eq!(
            check_moves(scn, &board, Phase::AlliedMovement, &[away]),
            None
        );
    }

    #[test]
    fn illegal_actions_are_refused_without_a_change() {
        let (mut game, _) = game_at(
            r#"{"turn":2,"phase":"chinese_combat","units":[
                {"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"0708"},
                {"ref":"x","side":"chinese","type":"boxer","hex":"0707"}]}"#,
        );
        let side = game.to_act().unwrap();
        let legal = game.legal_actions(side);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut report = Report::default();
        for _ in 0..200 {
            assert_eq!(
                probe_refusals(&mut game, side, &legal, &mut rng, &mut report),
                None
            );
        }
        assert!(report.refusals_probed > 200);
        assert_eq!(check_choice(&game), None);
    }
}
