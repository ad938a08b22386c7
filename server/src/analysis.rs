//! The analysis board as the server answers it: the rules answer their own questions (line of
//! sight, zones of control, reach, odds, legal actions — `siege_rules::analysis`), and the
//! server adds the one the rules cannot, `suggest`: what a computer player of a given level
//! would do for a side in the position, as a plan in words and hexes, and how it rates the
//! position (docs/bots.md, docs/protocol.md). Shared by `POST /api/analysis` and
//! `siege analyze`.

use crate::rules::Game;
use crate::rules::analysis::{self, AnalysisError, Query, Request};
use crate::rules::custom::{Position, PositionError};
use crate::rules::scenario::Scenario;
use serde::Deserialize;
use serde_json::{Value, json};
use siege_bots::{Budget, Level};
use siege_protocol::Side;
use std::sync::Arc;

/// Playouts a `hard` suggestion may run unless the server is told otherwise
/// (`siege serve --suggest-nodes`).
pub const SUGGEST_NODES: u32 = 32;

/// The seed of a suggestion's search: the board never rolls the game's dice, and the same
/// position always gets the same hint.
const SUGGEST_SEED: u64 = 0x5eed;

/// `{"suggest": {"side": …, "level": …}}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Suggest {
    side: Side,
    #[serde(default = "normal")]
    level: String,
}

fn normal() -> String {
    "normal".into()
}

/// Why a request could not be answered at all.
#[derive(Debug)]
pub enum AnswerError {
    /// The request is not `{"position": …, "queries": […]}` or a query is malformed.
    BadRequest(String),
    /// The position breaks a rule.
    Position(PositionError),
}

/// One query: for the rules, or a suggestion.
enum One {
    Rules(Query),
    Suggest(Suggest),
}

/// Answer every query of `body` in order. `suggest_nodes` bounds a hard suggestion's search.
pub fn answer(
    scn: &Arc<Scenario>,
    body: &Value,
    suggest_nodes: u32,
) -> Result<Vec<Value>, AnswerError> {
    let bad = |e: String| AnswerError::BadRequest(e);
    let Some(obj) = body.as_object() else {
        return Err(bad("expected {\"position\": …, \"queries\": […]}".into()));
    };
    if let Some(k) = obj.keys().find(|k| *k != "position" && *k != "queries") {
        return Err(bad(format!(
            "unknown field `{k}`: expected position and queries"
        )));
    }
    let position: Position =
        serde_json::from_value(obj.get("position").cloned().unwrap_or(Value::Null))
            .map_err(|e| bad(format!("position: {e}")))?;
    let raw = obj
        .get("queries")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("queries: expected a list".into()))?;
    let mut queries: Vec<One> = Vec::with_capacity(raw.len());
    for (i, q) in raw.iter().enumerate() {
        let one = match q.get("suggest") {
            Some(s) if q.as_object().is_some_and(|o| o.len() == 1) => One::Suggest(
                serde_json::from_value(s.clone())
                    .map_err(|e| bad(format!("query {i}: suggest: {e}")))?,
            ),
            _ => One::Rules(
                serde_json::from_value(q.clone()).map_err(|e| bad(format!("query {i}: {e}")))?,
            ),
        };
        queries.push(one);
    }
    let rules: Vec<Query> = queries
        .iter()
        .filter_map(|q| match q {
            One::Rules(q) => Some(q.clone()),
            One::Suggest(_) => None,
        })
        .collect();
    let request = Request {
        position: position.clone(),
        queries: rules,
    };
    let mut from_rules = analysis::answer(scn, &request)
        .map_err(|AnalysisError::Position(e)| AnswerError::Position(e))?
        .into_iter();
    let mut game: Option<Game> = None;
    let mut out = Vec::with_capacity(queries.len());
    for q in &queries {
        match q {
            One::Rules(_) => out.push(from_rules.next().unwrap_or(Value::Null)),
            One::Suggest(s) => {
                if game.is_none() {
                    game = Some(
                        Game::from_position(scn.clone(), &position, [0; 32])
                            .map_err(AnswerError::Position)?,
                    );
                }
                if let Some(g) = &game {
                    out.push(suggest(g, s, suggest_nodes));
                }
            }
        }
    }
    Ok(out)
}

/// A bot's plan and evaluation for a side (docs/protocol.md, `suggest`).
fn suggest(game: &Game, s: &Suggest, nodes: u32) -> Value {
    let level: Level = match s.level.parse() {
        Ok(l) => l,
        Err(message) => {
            return json!({"error": {"code": siege_protocol::codes::UNKNOWN_LEVEL, "message": message}});
        }
    };
    let answer = siege_bots::suggest(game, s.side, level, SUGGEST_SEED, Budget::Nodes(nodes));
    let mut v = serde_json::to_value(&answer).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        let note = match answer.to_act {
            Some(side) if side == s.side => None,
            Some(side) => Some(format!(
                "the {side} player is to act in this position; the plan is empty"
            )),
            None => Some("the game is over".to_string()),
        };
        map.insert("note".into(), json!(note));
        map.insert("rules".into(), json!(["4", "8.2", "21"]));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scn() -> Arc<Scenario> {
        Arc::new(Scenario::load_default().unwrap())
    }

    #[test]
    fn a_suggestion_sits_among_the_rules_answers_in_order() {
        let body = json!({
            "position": {"turn": 3, "phase": "chinese_combat", "units": [
                {"ref": "b", "side": "chinese", "type": "boxer", "hex": "1510"},
                {"ref": "c", "side": "chinese", "type": "boxer", "hex": "1509"},
                {"ref": "a", "side": "allied", "type": "combat", "nationality": "british", "hex": "1511"}
            ]},
            "queries": [
                {"zoc": {"side": "allied"}},
                {"suggest": {"side": "chinese", "level": "normal"}},
                {"suggest": {"side": "allied"}},
                {"suggest": {"side": "chinese", "level": "expert"}}
            ]
        });
        let a = answer(&scn(), &body, 4).unwrap();
        assert_eq!(a.len(), 4);
        assert!(a[0]["hexes"].is_array(), "the rules answer first: {}", a[0]);
        assert_eq!(a[1]["side"], "chinese");
        assert!(!a[1]["plan"].as_array().unwrap().is_empty(), "{}", a[1]);
        assert!(a[1]["evaluation"].as_f64().is_some());
        assert_eq!(
            a[2]["plan"].as_array().unwrap().len(),
            0,
            "not the Allies' turn"
        );
        assert_eq!(a[3]["error"]["code"], "unknown_level");
    }

    #[test]
    fn a_malformed_suggestion_refuses_the_request() {
        let body = json!({"position": {"phase": "big_gun", "units": []},
            "queries": [{"suggest": {"side": "nobody"}}]});
        assert!(matches!(
            answer(&scn(), &body, 4),
            Err(AnswerError::BadRequest(_))
        ));
    }
}
