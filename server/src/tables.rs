//! The scenario as the page and `siege map --json` publish it: the map and counter mix of
//! [`Scenario::to_json`] with the Combat Results Table (R4; rules 8.2, 8.1.2, 9) added as a
//! grid, so a client can put the table on screen and work out the chance of each result of
//! the attack being declared from its column and die modifier — read from the same table the
//! engine resolves with, never a copy of it.

use crate::rules::Scenario;
use crate::rules::crt::{CrtResult, Odds};
use serde_json::{Value, json};

/// Every result of the table, with what it does in words and the rules that say so (8.2).
const RESULTS: [(CrtResult, &str); 7] = [
    (
        CrtResult::AE,
        "attacker eliminated: every attacking unit is removed (8.2)",
    ),
    (
        CrtResult::AL1,
        "attacker loses a step and retreats: one attacking unit loses a step, then the attackers retreat (8.2, 8.3)",
    ),
    (
        CrtResult::AR,
        "attacker retreats: every attacking unit retreats 3 hexes (8.2, 8.3)",
    ),
    (
        CrtResult::DR,
        "defender retreats: every defending unit retreats 3 hexes (8.2, 8.3)",
    ),
    (
        CrtResult::DL1,
        "defender loses a step and retreats: one defending unit loses a step, then the defenders retreat (8.2, 8.3)",
    ),
    (
        CrtResult::EX,
        "exchange: the defender is eliminated and the attacker loses at least as many strength points (8.2)",
    ),
    (
        CrtResult::DE,
        "defender eliminated: every defending unit is removed (8.2)",
    ),
];

/// Columns of the table, `1-3` to `6-1` (R4).
const COLUMNS: u8 = 8;

/// `GET /api/scenario`: [`Scenario::to_json`] plus `crt`:
/// `{columns: ["1-3", …], die: {"1": ["AE", …], …, "6": […]}, results: [{code, text}],
///   below: "AE"}` — `die[d][c]` is the result of modified die `d` on column `c`, `below` the
/// automatic result of odds under the first column (8.1.2).
pub fn scenario_json(scn: &Scenario) -> Value {
    let mut out = scn.to_json();
    let columns: Vec<&str> = (0..COLUMNS)
        .map(|c| scn.crt.column_name(Odds::Column(c)))
        .collect();
    let die: serde_json::Map<String, Value> = (1..=6i8)
        .map(|d| {
            let row: Vec<CrtResult> = (0..COLUMNS)
                .map(|c| scn.crt.result(Odds::Column(c), d))
                .collect();
            (d.to_string(), json!(row))
        })
        .collect();
    let results: Vec<Value> = RESULTS
        .iter()
        .map(|(code, text)| json!({"code": code, "text": text}))
        .collect();
    if let Value::Object(map) = &mut out {
        map.insert(
            "crt".into(),
            json!({
                "columns": columns,
                "die": die,
                "results": results,
                "below": scn.crt.result(Odds::BelowOneToThree, 1),
            }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crt_is_published_as_the_engine_reads_it_r4() {
        let scn = Scenario::load_default().unwrap();
        let json = scenario_json(&scn);
        let crt = &json["crt"];
        assert_eq!(crt["columns"][0], "1-3");
        assert_eq!(crt["columns"][7], "6-1");
        for d in 1..=6i8 {
            for c in 0..COLUMNS {
                let want = serde_json::to_value(scn.crt.result(Odds::Column(c), d)).unwrap();
                assert_eq!(
                    crt["die"][d.to_string()][usize::from(c)],
                    want,
                    "die {d}, column {c}"
                );
            }
        }
        // R4 as printed: die 1 on 1-3 is AE, die 6 on 6-1 is DE.
        assert_eq!(crt["die"]["1"][0], "AE");
        assert_eq!(crt["die"]["6"][7], "DE");
        assert_eq!(crt["below"], "AE");
        assert_eq!(crt["results"].as_array().unwrap().len(), 7);
        // The map and counters are still all there.
        assert_eq!(json["hexes"].as_array().unwrap().len(), 1560);
    }
}
