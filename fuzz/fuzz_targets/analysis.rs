//! Fuzz target: arbitrary analysis requests (`POST /api/analysis`, `siege analyze`).
//!
//! Half the inputs are the raw body, read as the server reads it; the other half build a
//! request from the bytes — a position of up to 24 units of any type on any hex (on the map or
//! just off it), ruins, fortifications, a turn and a phase, and up to 8 questions of every
//! kind about named or unknown units — so that most inputs reach the engine rather than the
//! JSON reader. The properties: never a panic; a request is either refused with an error that
//! names what was wrong or answered with one answer object per question. Time per input is
//! bounded by libFuzzer's `-timeout` (fuzz/run).

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use siege_rules::Scenario;
use siege_rules::analysis::{self, Request};
use std::sync::{Arc, OnceLock};

/// The most questions one request may ask (the server's limit).
const MAX_QUERIES: usize = 200;

fn scenario() -> &'static Arc<Scenario> {
    static SCN: OnceLock<Arc<Scenario>> = OnceLock::new();
    SCN.get_or_init(|| Arc::new(Scenario::load_default().expect("the shipped scenario loads")))
}

const PHASES: [&str; 9] = [
    "big_gun",
    "chinese_movement",
    "allied_reaction",
    "sniper",
    "chinese_combat",
    "allied_movement",
    "allied_combat",
    "allied_setup",
    "end_of_turn",
];
const KINDS: [(&str, &str); 8] = [
    ("allied", "combat"),
    ("allied", "volunteer"),
    ("allied", "leader"),
    ("allied", "artillery"),
    ("allied", "civilian"),
    ("allied", "doctor"),
    ("chinese", "boxer"),
    ("chinese", "imperial"),
];
const NATIONS: [&str; 8] = [
    "british", "russian", "american", "german", "french", "austrian", "italian", "japanese",
];
const NAMES: [&str; 8] = [
    "Myers", "Strouts", "Shiba", "Betsy", "US Colt", "Velde", "Poole", "Gordon",
];

/// Reads bytes one at a time, zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    /// A hex number, mostly on the 39 × 40 map, sometimes just off it.
    fn hex(&mut self) -> String {
        let col = self.byte() % 41;
        let row = self.byte() % 42;
        format!("{col:02}{row:02}")
    }

    fn pick<'s>(&mut self, from: &[&'s str]) -> &'s str {
        from[usize::from(self.byte()) % from.len()]
    }
}

/// A request built from the bytes.
fn structured(b: &mut Bytes<'_>) -> Value {
    let n = usize::from(b.byte() % 25);
    let mut units = Vec::new();
    for i in 0..n {
        let (side, kind) = KINDS[usize::from(b.byte()) % KINDS.len()];
        let mut u = json!({"ref": format!("u{i}"), "side": side, "type": kind, "hex": b.hex()});
        let flags = b.byte();
        if flags & 1 != 0 {
            u["reduced"] = json!(true);
        }
        if flags & 2 != 0 {
            u["nationality"] = json!(b.pick(&NATIONS));
        }
        if flags & 4 != 0 {
            u["name"] = json!(b.pick(&NAMES));
        }
        if flags & 8 != 0 {
            u["side"] = json!(if side == "allied" {
                "chinese"
            } else {
                "allied"
            });
        }
        units.push(u);
    }
    let ruins: Vec<String> = (0..b.byte() % 4).map(|_| b.hex()).collect();
    let forts: Vec<Value> = (0..b.byte() % 3)
        .map(|_| json!({"hex": b.hex(), "built_by": b.pick(&["allied", "chinese"])}))
        .collect();
    let unit = |b: &mut Bytes<'_>| format!("u{}", b.byte() % 26);
    let mut queries = Vec::new();
    for _ in 0..b.byte() % 9 {
        let q = match b.byte() % 7 {
            0 => json!({"los": {"from": b.hex(), "to": b.hex()}}),
            1 => json!({"zoc": {"side": b.pick(&["allied", "chinese"])}}),
            2 => json!({"reachable": {"unit": unit(b)}}),
            3 => json!({"command_control": {"unit": unit(b)}}),
            4 => json!({"legal_actions": {"side": b.pick(&["allied", "chinese"])}}),
            _ => {
                let attackers: Vec<String> = (0..b.byte() % 4).map(|_| unit(b)).collect();
                let defenders: Vec<String> = (0..b.byte() % 3).map(|_| unit(b)).collect();
                let artillery: Vec<String> = (0..b.byte() % 3).map(|_| unit(b)).collect();
                let mut leader_use = serde_json::Map::new();
                for _ in 0..b.byte() % 3 {
                    leader_use.insert(unit(b), json!(b.pick(&["strength", "modifier"])));
                }
                json!({"odds": {"attackers": attackers, "defenders": defenders,
                    "artillery": artillery, "leader_use": leader_use, "bayonet": b.byte() & 1 == 1}})
            }
        };
        queries.push(q);
    }
    let mut control = serde_json::Map::new();
    for _ in 0..b.byte() % 4 {
        control.insert(b.hex(), json!(b.pick(&["allied", "chinese"])));
    }
    json!({
        "position": {
            "turn": b.byte() % 13,
            "phase": b.pick(&PHASES),
            "units": units,
            "ruins": ruins,
            "fortifications": forts,
            "control": control,
            "civilians_lost": b.byte() & 1 == 1,
        },
        "queries": queries,
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((mode, rest)) = data.split_first() else {
        return;
    };
    let body: Value = if mode & 1 == 0 {
        let Ok(v) = serde_json::from_slice(rest) else {
            return;
        };
        v
    } else {
        structured(&mut Bytes(rest))
    };
    let Ok(request) = serde_json::from_value::<Request>(body) else {
        return;
    };
    if request.queries.len() > MAX_QUERIES {
        return;
    }
    match analysis::answer(scenario(), &request) {
        Err(analysis::AnalysisError::Position(e)) => {
            assert!(!e.message.is_empty(), "a refused position must say why");
        }
        Ok(answers) => {
            assert_eq!(
                answers.len(),
                request.queries.len(),
                "one answer per question"
            );
            for a in &answers {
                assert!(a.is_object(), "every answer is an object: {a}");
            }
        }
    }
});
