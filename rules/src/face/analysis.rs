//! The analysis board: questions about a position answered by the engine, each answer with the
//! rule sections that decided it — line of sight (8.5), zones of control (6), reachable hexes
//! (5, 6, 7, 11.2, 18.1), command control (11.2), the odds of an attack (8.2, 9, 11.1, 18) and
//! the legal actions the game would offer. The board never rolls dice.

use crate::face::custom::{Position, PositionError};
use crate::face::game::Game;
use crate::mechanics::combat;
use crate::mechanics::movement;
use crate::position::action::LeaderUse;
use crate::position::command;
use crate::position::declaration::Declaration;
use crate::position::hex_index::HexIndex;
use crate::position::los;
use crate::position::state::{Group, State};
use crate::position::step_id::StepId;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::UnitId;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use siege_protocol::{Phase, Side, codes};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A request: a position and the questions asked of it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub position: Position,
    pub queries: Vec<Query>,
}

/// One question.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Query {
    Los { from: Hex, to: Hex },
    Zoc { side: Side },
    Reachable { unit: String },
    CommandControl { unit: String },
    Odds(OddsQuery),
    LegalActions { side: Side },
}

/// The attack whose odds are asked for.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OddsQuery {
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    #[serde(default)]
    pub leader_use: BTreeMap<String, LeaderUse>,
    #[serde(default)]
    pub artillery: Vec<String>,
    #[serde(default)]
    pub bayonet: bool,
}

/// Why a request could not be answered at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    #[error(transparent)]
    Position(#[from] PositionError),
}

/// The seed of the dice an analysed position carries (never rolled).
const SEED: [u8; 32] = [0; 32];

/// Answer every query about the position, in order. A query naming an unknown unit is answered
/// with an error object; an invalid position refuses the whole request.
pub fn answer(scn: &Arc<Scenario>, req: &Request) -> Result<Vec<Value>, AnalysisError> {
    let built = req.position.build(scn, SEED)?;
    let game = Game::from_state(scn.clone(), built.state.clone());
    Ok(req
        .queries
        .iter()
        .map(|q| one(scn, &game, &built.refs, q))
        .collect())
}

fn unknown(unit: &str) -> Value {
    json!({"error": {"code": codes::UNKNOWN_UNIT, "message": format!("no unit called `{unit}` in the position")}})
}

fn one(scn: &Scenario, game: &Game, refs: &BTreeMap<String, UnitId>, q: &Query) -> Value {
    let st = game.state();
    let board = HexIndex::of(scn, st);
    match q {
        Query::Los { from, to } => {
            let s = los::line_of_sight(scn, st, &board, *from, *to);
            json!({"clear": s.clear, "blocked_at": s.blocked_at, "path": s.path, "reason": s.reason, "rules": ["8.5", "18", "R6"]})
        }
        Query::Zoc { side } => {
            let hexes: Vec<Hex> = Hex::all().filter(|h| board.in_zoc_of(*side, *h)).collect();
            json!({"side": side, "hexes": hexes, "rules": ["6", "15", "18.1", "18.2", "R6"]})
        }
        Query::Reachable { unit } => match refs.get(unit) {
            None => unknown(unit),
            Some(&id) => reachable(scn, st, &board, id),
        },
        Query::CommandControl { unit } => match refs.get(unit) {
            None => unknown(unit),
            Some(&id) => {
                let in_command = command::in_command(scn, st, &board, id);
                let mut probe = st.clone();
                probe.unit_mut(id).marks.out_of_command = !in_command;
                let full = command::allowance(scn, &probe, id, Phase::AlliedMovement);
                let reaction = command::allowance(scn, &probe, id, Phase::AlliedReaction);
                json!({"in_command": in_command, "movement_allowance": full, "reaction_allowance": reaction, "rules": ["11.2", "5.2"]})
            }
        },
        Query::Odds(o) => odds(scn, st, &board, refs, o),
        Query::LegalActions { side } => {
            // With the warnings a player would see before a loss (face/warnings.rs).
            let actions = game.offered(*side);
            json!({"side": side, "to_act": game.to_act(), "legal_actions": actions, "units": refs, "rules": ["4"]})
        }
    }
}

/// Every hex the unit could move to in the position's phase (or, outside movement, in its own
/// side's movement phase), with the MP it costs.
fn reachable(scn: &Scenario, st: &State, board: &HexIndex, id: UnitId) -> Value {
    let c = scn.counters.get(id);
    let Some(hex) = st.unit(id).hex() else {
        return json!({"error": {"code": codes::OFF_MAP, "message": "the unit is not on the map"}});
    };
    let slot = match (st.slot, c.side) {
        (s @ (StepId::ChineseMove | StepId::Reaction | StepId::AlliedMove), _)
            if s.side() == c.side =>
        {
            s
        }
        (_, Side::Chinese) => StepId::ChineseMove,
        (_, Side::Allied) => StepId::AlliedMove,
    };
    let phase = slot.phase();
    let mut probe = st.clone();
    probe.go_to(slot, slot.fresh());
    if c.side == Side::Allied {
        command::mark(scn, &mut probe);
    }
    let group = Group {
        units: vec![id],
        hex,
        spent: 0,
        started: false,
        halted: false,
    };
    let mut dests: BTreeMap<Hex, u8> = BTreeMap::new();
    let can = movement::movable(scn, &probe, Some(board), id, phase);
    if can {
        for (h, mp) in movement::destinations(scn, &probe, board, c.side, &group, phase) {
            dests.insert(h, mp);
        }
    }
    let why_not = (!can).then(|| {
        if phase == Phase::AlliedReaction {
            "an Allied unit in an enemy ZOC may not move in the reaction phase (6)".to_string()
        } else {
            "the unit cannot move now".to_string()
        }
    });
    json!({"phase": phase, "allowance": movement::budget(scn, &probe, &group, phase), "destinations": dests, "why_not": why_not, "rules": ["5", "6", "7", "9", "11.2", "18.1"]})
}

fn odds(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    refs: &BTreeMap<String, UnitId>,
    o: &OddsQuery,
) -> Value {
    let ids = |names: &[String]| -> Result<Vec<UnitId>, Value> {
        names
            .iter()
            .map(|n| refs.get(n).copied().ok_or_else(|| unknown(n)))
            .collect()
    };
    let (attackers, defenders, artillery) =
        match (ids(&o.attackers), ids(&o.defenders), ids(&o.artillery)) {
            (Ok(a), Ok(d), Ok(g)) => (a, d, g),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e,
        };
    let Some(side) = attackers.first().map(|a| scn.counters.get(*a).side) else {
        return json!({"error": {"code": codes::NO_ATTACKERS, "message": "name at least one attacker"}});
    };
    let mut hexes: Vec<Hex> = defenders.iter().filter_map(|d| st.unit(*d).hex()).collect();
    hexes.sort();
    hexes.dedup();
    if hexes.is_empty() {
        return json!({"error": {"code": codes::NO_DEFENDERS, "message": "name at least one defender on the map"}});
    }
    let leader_use = o
        .leader_use
        .iter()
        .filter_map(|(name, u)| refs.get(name).map(|id| (*id, *u)))
        .collect();
    let charge_from = if o.bayonet {
        attackers.first().and_then(|a| st.unit(*a).hex())
    } else {
        None
    };
    let mut d = Declaration {
        side,
        defenders: hexes.clone(),
        attackers: attackers.clone(),
        artillery: Vec::new(),
        leader_use,
        charge_from,
        defender_leaders_chosen: true,
    };
    // Guns that may not support the attack say why and lend no bonus (9, R7).
    let mut problems: Vec<String> = Vec::new();
    for &g in &artillery {
        match combat::artillery_refusal(scn, st, board, &d, g) {
            None => d.artillery.push(g),
            Some(why) => problems.push(why),
        }
    }
    let report = crate::mechanics::report::compute(scn, st, &d);
    for &a in &attackers {
        let c = scn.counters.get(a);
        if c.side != side {
            problems.push(format!("{} is not on the attacking side", c.name));
        } else if !o.bayonet && combat::mode(scn, st, board, side, a, &hexes).is_none() {
            problems.push(format!("{} can neither attack adjacent nor fire at range with a clear line of sight on every defending hex (8.1.1, 8.1.2, 8.5)", c.name));
        }
    }
    if let Some(why) = &report.why_not {
        problems.push(why.clone());
    }
    let mut value = serde_json::to_value(&report).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert("legal".into(), json!(problems.is_empty()));
        map.insert(
            "why_not".into(),
            json!(if problems.is_empty() {
                None
            } else {
                Some(problems.join("; "))
            }),
        );
        map.insert(
            "rules".into(),
            json!(["8.1", "8.2", "9", "11.1", "18", "R4"]),
        );
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::scenario;

    fn ask(position: &str, queries: &str) -> Vec<Value> {
        let req: Request =
            serde_json::from_str(&format!(r#"{{"position":{position},"queries":{queries}}}"#))
                .unwrap();
        answer(&scenario(), &req).unwrap()
    }

    #[test]
    fn zoc_reaches_into_open_ground_but_not_into_a_building_6_18_2() {
        // 1614 and 1615 are hospital buildings of the British Legation.
        let a = ask(
            r#"{"phase":"chinese_movement","units":[{"ref":"b","side":"chinese","type":"boxer","hex":"1613"}]}"#,
            r#"[{"zoc":{"side":"chinese"}}]"#,
        );
        let hexes: Vec<String> = serde_json::from_value(a[0]["hexes"].clone()).unwrap();
        assert!(hexes.contains(&"1613".to_string()));
        assert!(
            !hexes.contains(&"1614".to_string()),
            "no ZOC into a building hex"
        );
        assert!(a[0]["rules"].as_array().unwrap().iter().any(|r| r == "6"));
    }

    #[test]
    fn los_is_answered_with_path_and_block_8_5() {
        let a = ask(
            r#"{"phase":"big_gun","units":[]}"#,
            r#"[{"los":{"from":"0914","to":"1016"}}]"#,
        );
        assert!(a[0]["clear"].is_boolean());
        assert_eq!(a[0]["path"][0], "0914");
    }

    #[test]
    fn command_control_and_reachable_hexes_answer_for_a_unit_11_2_5() {
        let a = ask(
            r#"{"phase":"allied_movement","units":[{"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"1618"},{"ref":"L","side":"allied","type":"leader","name":"Strouts","hex":"1619"}]}"#,
            r#"[{"command_control":{"unit":"b"}},{"reachable":{"unit":"b"}},{"reachable":{"unit":"nobody"}}]"#,
        );
        assert_eq!(a[0]["in_command"], true);
        assert_eq!(a[0]["movement_allowance"], 6);
        assert!(a[1]["destinations"].as_object().unwrap().len() > 3);
        assert_eq!(a[2]["error"]["code"], "unknown_unit");
    }

    #[test]
    fn odds_show_strengths_terrain_and_legality_8_2() {
        let a = ask(
            r#"{"turn":3,"phase":"allied_combat","units":[
                {"ref":"a","side":"chinese","type":"boxer","hex":"1510"},
                {"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"1511"},
                {"ref":"L","side":"allied","type":"leader","name":"Myers","hex":"1511"}]}"#,
            r#"[{"odds":{"attackers":["b","L"],"defenders":["a"],"leader_use":{"L":"modifier"}}}]"#,
        );
        assert_eq!(a[0]["attack"], 4);
        assert_eq!(a[0]["modifier"], 1);
        assert!(a[0]["legal"].is_boolean());
        assert!(a[0]["terrain"].as_str().unwrap().contains("1510"));
    }

    #[test]
    fn legal_actions_are_those_the_game_offers_4() {
        let a = ask(
            r#"{"turn":2,"phase":"allied_movement","units":[{"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"1618"}]}"#,
            r#"[{"legal_actions":{"side":"allied"}},{"legal_actions":{"side":"chinese"}}]"#,
        );
        assert!(!a[0]["legal_actions"].as_array().unwrap().is_empty());
        assert!(a[1]["legal_actions"].as_array().unwrap().is_empty());
    }

    use crate::vocabulary::map::Terrain;

    /// The first hex of the shipped map meeting `pred`.
    fn find(pred: impl Fn(Hex) -> bool) -> Hex {
        Hex::all()
            .find(|h| pred(*h))
            .expect("the map has such a hex")
    }

    fn terrain(h: Hex) -> Terrain {
        scenario().map.terrain(h)
    }

    fn unit(r: &str, side: &str, kind: &str, extra: &str, hex: Hex) -> String {
        format!(r#"{{"ref":"{r}","side":"{side}","type":"{kind}","hex":"{hex}"{extra}}}"#)
    }

    #[test]
    fn zoc_never_runs_from_one_building_hex_to_another_6() {
        let (a, b) = Hex::all()
            .filter(|h| terrain(*h) == Terrain::Building)
            .find_map(|a| {
                a.neighbours()
                    .find(|n| terrain(*n) == Terrain::Building)
                    .map(|b| (a, b))
            })
            .unwrap();
        let pos = format!(
            r#"{{"phase":"allied_movement","units":[{}]}}"#,
            unit("b", "chinese", "boxer", "", a)
        );
        let ans = ask(&pos, r#"[{"zoc":{"side":"chinese"}}]"#);
        let hexes: Vec<Hex> = serde_json::from_value(ans[0]["hexes"].clone()).unwrap();
        assert!(hexes.contains(&a) && !hexes.contains(&b));
    }

    #[test]
    fn los_along_a_hexside_is_blocked_only_when_both_sides_block_r6() {
        // An odd column's hex to the odd column two to the east on the same row runs along the
        // hexside between the even column's two hexes: find one in the open.
        let open = |h: Hex| matches!(terrain(h), Terrain::Clear | Terrain::Outside);
        let from = find(|h| {
            h.col() % 2 == 1
                && h.col() < 37
                && h.row() > 1
                && [(0, 0), (2, 0), (1, 0), (1, -1)].iter().all(|(dc, dr)| {
                    Hex::new(h.col() + dc, (h.row() as i16 + dr) as u8).is_some_and(open)
                })
        });
        let to = Hex::new(from.col() + 2, from.row()).unwrap();
        let s1 = Hex::new(from.col() + 1, from.row() - 1).unwrap();
        let s2 = Hex::new(from.col() + 1, from.row()).unwrap();
        let one = format!(
            r#"{{"phase":"big_gun","units":[{}]}}"#,
            unit("x", "chinese", "boxer", "", s1)
        );
        assert_eq!(
            ask(
                &one,
                &format!(r#"[{{"los":{{"from":"{from}","to":"{to}"}}}}]"#)
            )[0]["clear"],
            true
        );
        let both = format!(
            r#"{{"phase":"big_gun","units":[{},{}]}}"#,
            unit("x", "chinese", "boxer", "", s1),
            unit("y", "chinese", "boxer", "", s2)
        );
        let a = ask(
            &both,
            &format!(r#"[{{"los":{{"from":"{from}","to":"{to}"}}}}]"#),
        );
        assert_eq!(a[0]["clear"], false);
    }

    #[test]
    fn no_line_of_sight_over_the_tartar_wall_8_5() {
        let a = ask(
            r#"{"phase":"big_gun","units":[]}"#,
            r#"[{"los":{"from":"2533","to":"2538"}},{"los":{"from":"2535","to":"2538"}}]"#,
        );
        assert_eq!(a[0]["clear"], false, "from the legations over the wall");
        assert_eq!(terrain("2535".parse().unwrap()), Terrain::TartarWall);
        assert_eq!(a[1]["clear"], true, "from the wall itself: {}", a[1]);
    }

    /// Odds of a Boxer attack from the open next to a British unit standing in `h`.
    fn odds_against(h: Hex, ruins: &str, forts: &str) -> Value {
        let from = h
            .neighbours()
            .find(|n| matches!(terrain(*n), Terrain::Clear | Terrain::Outside))
            .unwrap_or_else(|| {
                h.neighbours()
                    .find(|n| terrain(*n) != Terrain::Canal)
                    .unwrap()
            });
        let pos = format!(
            r#"{{"turn":3,"phase":"chinese_combat","units":[{},{}],"ruins":[{ruins}],"fortifications":[{forts}]}}"#,
            unit("a", "chinese", "boxer", "", from),
            unit("b", "allied", "combat", r#","nationality":"british""#, h)
        );
        ask(&pos, r#"[{"odds":{"attackers":["a"],"defenders":["b"]}}]"#).remove(0)
    }

    #[test]
    fn odds_apply_each_terrain_multiplier_18_17_13_r3() {
        let clear = find(|h| {
            terrain(h) == Terrain::Clear
                && !h.is_edge()
                && h.neighbours().any(|n| terrain(n) == Terrain::Clear)
        });
        assert_eq!(odds_against(clear, "", "")["multiplier"], 1);
        assert_eq!(
            odds_against(clear, &format!(r#""{clear}""#), "")["multiplier"],
            2,
            "ruin (17)"
        );
        let fort = format!(r#"{{"hex":"{clear}","built_by":"allied"}}"#);
        assert_eq!(
            odds_against(clear, "", &fort)["multiplier"],
            3,
            "fortification (13)"
        );
        let building = find(|h| {
            terrain(h) == Terrain::Building && h.neighbours().any(|n| terrain(n) == Terrain::Clear)
        });
        let b = odds_against(building, "", "");
        assert_eq!(
            (b["multiplier"].as_u64(), b["defence"].as_u64()),
            (Some(3), Some(12))
        );
        let wall = find(|h| {
            terrain(h) == Terrain::Wall && h.neighbours().any(|n| terrain(n) == Terrain::Clear)
        });
        assert_eq!(odds_against(wall, "", "")["multiplier"], 3, "wall (18.4)");
        let tw = find(|h| {
            terrain(h) == Terrain::TartarWall
                && h.neighbours()
                    .any(|n| terrain(n) != Terrain::TartarWall && terrain(n) != Terrain::Canal)
        });
        assert_eq!(
            odds_against(tw, "", "")["multiplier"],
            4,
            "Tartar Wall (18.1)"
        );
    }

    #[test]
    fn odds_shift_right_for_artillery_9() {
        let pos = r#"{"turn":3,"phase":"allied_combat","units":[
            {"ref":"a","side":"chinese","type":"boxer","hex":"1510"},
            {"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"1509"},
            {"ref":"g","side":"allied","type":"artillery","name":"Betsy","hex":"1512"},
            {"ref":"m","side":"allied","type":"combat","nationality":"british","hex":"1512"}]}"#;
        let a = ask(
            pos,
            r#"[{"odds":{"attackers":["b"],"defenders":["a"],"artillery":["g"]}}]"#,
        );
        assert_eq!(a[0]["shift"], 2);
        assert_ne!(a[0]["odds"], a[0]["column"]);
    }

    #[test]
    fn artillery_in_an_enemy_zoc_gives_no_bonus_and_says_why_8_2_9_r7() {
        // Betsy and her crew beside the Boxers: their ZOC forbids ranged fire, and the gun's
        // bonus is ranged fire.
        let pos = r#"{"turn":3,"phase":"allied_combat","units":[
            {"ref":"a","side":"chinese","type":"boxer","hex":"1510"},
            {"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"1509"},
            {"ref":"g","side":"allied","type":"artillery","name":"Betsy","hex":"1511"},
            {"ref":"m","side":"allied","type":"combat","nationality":"british","hex":"1511"}]}"#;
        let a = ask(
            pos,
            r#"[{"odds":{"attackers":["b"],"defenders":["a"],"artillery":["g"]}}]"#,
        );
        assert_eq!(a[0]["shift"], 0, "{}", a[0]);
        assert_eq!(a[0]["legal"], false);
        let why = a[0]["why_not"].as_str().unwrap_or("");
        assert!(why.contains("enemy ZOC") && why.contains("R7"), "{why}");
    }

    #[test]
    fn command_control_is_not_traced_through_enemy_zoc_11_2() {
        // A British unit with its leader four hexes south across open ground, then Boxers
        // closing every line between them.
        let open = |h: Hex| matches!(terrain(h), Terrain::Clear);
        let start = find(|h| {
            (0..=4).all(|d| Hex::new(h.col(), h.row() + d).is_some_and(open)) && !h.is_edge()
        });
        let leader = Hex::new(start.col(), start.row() + 4).unwrap();
        let allies = format!(
            "{},{}",
            unit(
                "b",
                "allied",
                "combat",
                r#","nationality":"british""#,
                start
            ),
            unit("L", "allied", "leader", r#","name":"Strouts""#, leader)
        );
        let free = format!(r#"{{"phase":"allied_movement","units":[{allies}]}}"#);
        assert_eq!(
            ask(&free, r#"[{"command_control":{"unit":"b"}}]"#)[0]["in_command"],
            true
        );
        // Boxers two hexes from the unit on every side except towards the leader cover its ring.
        let ring: Vec<Hex> = Hex::all()
            .filter(|h| h.distance(start) == 2 && h.distance(leader) > 2)
            .collect();
        let boxers: Vec<String> = ring
            .iter()
            .enumerate()
            .filter(|(_, h)| !matches!(terrain(**h), Terrain::Canal))
            .map(|(i, h)| unit(&format!("x{i}"), "chinese", "boxer", "", *h))
            .collect();
        let mid = Hex::new(start.col(), start.row() + 2).unwrap();
        let mut all = boxers.clone();
        all.push(unit("y", "chinese", "boxer", "", mid));
        let blocked = format!(
            r#"{{"phase":"allied_movement","units":[{allies},{}]}}"#,
            all.join(",")
        );
        let a = ask(&blocked, r#"[{"command_control":{"unit":"b"}}]"#);
        assert_eq!(a[0]["in_command"], false, "every line passes an enemy ZOC");
        assert_eq!(a[0]["movement_allowance"], 3);
    }
}
