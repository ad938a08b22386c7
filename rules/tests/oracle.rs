//! The oracle: hand-worked cases from the rulebook and the rulings, kept as data in
//! `tests/oracle/*.json` at the top of the repository, run against the engine.
//!
//! Each case names its rulebook section, says in a sentence why the expected answer follows
//! from the rules, gives a position, and then either asks the analysis board one question
//! (`ask`: line of sight, zones of control, reachable hexes, command control, odds, legal
//! actions, or whether the position may exist at all) or plays actions from the position with
//! dice chosen for the case (`play`) and checks what came of them. The expected answers were
//! worked out from the rules, not read off the engine.
//!
//! A case the engine is known to get wrong carries `engine_wrong` (the ruling and what the
//! engine does instead). Such a case must still disagree with the engine: once the engine is
//! fixed the test fails until the flag is removed, so a fix can never go unnoticed and a wrong
//! answer can never silently pass. `docs/oracle.md` describes the format.

use serde::Deserialize;
use serde_json::{Map, Value, json};
use siege_protocol::Side;
use siege_rules::analysis::{self, Query, Request};
use siege_rules::custom::Position;
use siege_rules::dice::Dice;
use siege_rules::play::step_name;
use siege_rules::state::Loc;
use siege_rules::units::UnitId;
use siege_rules::{Action, Game, Scenario};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// One file of cases: a topic of the rules.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    topic: String,
    cases: Vec<Case>,
}

/// One hand-worked case.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    /// The rulebook section(s) or ruling(s) that decide the answer.
    section: String,
    /// One sentence of reasoning from the rules to the expected answer.
    reasoning: String,
    position: Position,
    /// A question for the analysis board (or `"build"`: may this position exist?).
    #[serde(default)]
    ask: Option<Value>,
    /// Actions played from the position.
    #[serde(default)]
    play: Option<Play>,
    expect: Map<String, Value>,
    /// The engine is known to get this case wrong: which ruling, and what it does instead.
    #[serde(default)]
    engine_wrong: Option<String>,
}

/// Actions played from a position.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Play {
    /// The dice the case needs, in the order they are rolled: the runner picks a seed whose
    /// stream begins with them.
    #[serde(default)]
    dice: Vec<u8>,
    /// Each taken by the side to act; unit fields name units by their `ref`.
    #[serde(default)]
    actions: Vec<Value>,
    /// After the actions, this one must be refused and change nothing.
    #[serde(default)]
    refuse: Option<Value>,
}

fn scenario() -> Arc<Scenario> {
    Arc::new(Scenario::load_default().expect("the shipped scenario loads"))
}

fn oracle_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/oracle")
}

fn load() -> Vec<(String, Case)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(oracle_dir())
        .expect("tests/oracle exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for p in files {
        let text = std::fs::read_to_string(&p).expect("readable case file");
        let file: File = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not a case file: {e}", p.display()));
        for c in file.cases {
            out.push((file.topic.clone(), c));
        }
    }
    out
}

/// A seed whose dice stream starts with `dice`.
fn seed_for(dice: &[u8]) -> [u8; 32] {
    for i in 0u64..10_000_000 {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&i.to_le_bytes());
        let mut d = Dice::from_seed(seed);
        if dice.iter().all(|want| d.roll() == *want) {
            return seed;
        }
    }
    panic!("no seed starts with the dice {dice:?}");
}

/// Replace unit `ref`s by unit ids in an action (or expected action) written in a case.
fn with_ids(v: &Value, refs: &BTreeMap<String, UnitId>) -> Result<Value, String> {
    let Value::Object(m) = v else {
        return Err(format!("an action is a JSON object, not {v}"));
    };
    let mut out = Map::new();
    for (k, x) in m {
        let x = match (k.as_str(), x) {
            ("unit" | "leader", Value::String(r)) => match refs.get(r) {
                Some(id) => json!(id.0),
                None => return Err(format!("no unit `{r}` in the position")),
            },
            _ => x.clone(),
        };
        out.insert(k.clone(), x);
    }
    Ok(Value::Object(out))
}

/// Whether `action` has every field of `pattern` with the same value (a partial match: a
/// pattern `{"type":"move","to":"0709"}` matches a move there whatever its cost).
fn matches(pattern: &Value, action: &Value) -> bool {
    match (pattern, action) {
        (Value::Object(p), Value::Object(a)) => p.iter().all(|(k, v)| a.get(k) == Some(v)),
        _ => pattern == action,
    }
}

fn hexes(v: &Value) -> Vec<String> {
    serde_json::from_value(v.clone()).unwrap_or_default()
}

/// Expected keys not understood are an error in the case, not a silent pass.
fn unknown_keys(expect: &Map<String, Value>, known: &[&str], out: &mut Vec<String>) {
    for k in expect.keys() {
        if !known.contains(&k.as_str()) {
            out.push(format!(
                "the case expects `{k}`, which this kind of question does not answer"
            ));
        }
    }
}

/// Compare the listed fields of an answer.
fn fields(answer: &Value, expect: &Map<String, Value>, keys: &[&str], out: &mut Vec<String>) {
    for k in keys {
        if let Some(want) = expect.get(*k) {
            let got = answer.get(*k).cloned().unwrap_or(Value::Null);
            if &got != want {
                out.push(format!("{k}: expected {want}, engine says {got}"));
            }
        }
    }
}

/// The mismatches between the engine's answer and the case.
fn evaluate(scn: &Arc<Scenario>, case: &Case) -> Vec<String> {
    let mut out = Vec::new();
    match (&case.ask, &case.play) {
        (Some(ask), None) => ask_board(scn, case, ask, &mut out),
        (None, Some(play)) => play_out(scn, case, play, &mut out),
        _ => out.push("a case has exactly one of `ask` and `play`".into()),
    }
    out
}

fn ask_board(scn: &Arc<Scenario>, case: &Case, ask: &Value, out: &mut Vec<String>) {
    let e = &case.expect;
    if ask == "build" {
        unknown_keys(e, &["valid", "rule"], out);
        let got = case.position.build(scn, [0; 32]);
        let (valid, rule) = match &got {
            Ok(_) => (true, Value::Null),
            Err(err) => (false, json!(err.rule)),
        };
        let answer = json!({"valid": valid, "rule": rule});
        fields(&answer, e, &["valid", "rule"], out);
        return;
    }
    let query: Query = match serde_json::from_value(ask.clone()) {
        Ok(q) => q,
        Err(err) => return out.push(format!("`ask` is not an analysis query: {err}")),
    };
    let req = Request {
        position: case.position.clone(),
        queries: vec![query.clone()],
    };
    let answer = match analysis::answer(scn, &req) {
        Ok(mut a) => a.remove(0),
        Err(err) => return out.push(format!("the engine refused the position: {err}")),
    };
    if let Some(err) = answer.get("error") {
        return out.push(format!("the engine answered with an error: {err}"));
    }
    match query {
        Query::Los { .. } => {
            unknown_keys(e, &["clear"], out);
            fields(&answer, e, &["clear"], out);
        }
        Query::Zoc { .. } => {
            unknown_keys(e, &["in", "out"], out);
            let got = hexes(&answer["hexes"]);
            for h in hexes(e.get("in").unwrap_or(&Value::Null)) {
                if !got.contains(&h) {
                    out.push(format!(
                        "{h} should be in the zone of control; the engine leaves it out"
                    ));
                }
            }
            for h in hexes(e.get("out").unwrap_or(&Value::Null)) {
                if got.contains(&h) {
                    out.push(format!(
                        "{h} should be outside the zone of control; the engine puts it in"
                    ));
                }
            }
        }
        Query::Reachable { .. } => {
            unknown_keys(e, &["allowance", "reach", "unreachable"], out);
            fields(&answer, e, &["allowance"], out);
            let dests = answer["destinations"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            if let Some(Value::Object(reach)) = e.get("reach") {
                for (h, mp) in reach {
                    match dests.get(h) {
                        Some(got) if got == mp => {}
                        Some(got) => out.push(format!("{h}: expected {mp} MP, engine says {got}")),
                        None => out.push(format!(
                            "{h} should be reachable for {mp} MP; the engine says not"
                        )),
                    }
                }
            }
            for h in hexes(e.get("unreachable").unwrap_or(&Value::Null)) {
                if let Some(mp) = dests.get(&h) {
                    out.push(format!(
                        "{h} should be out of reach; the engine reaches it for {mp} MP"
                    ));
                }
            }
        }
        Query::CommandControl { .. } => {
            let keys = ["in_command", "movement_allowance", "reaction_allowance"];
            unknown_keys(e, &keys, out);
            fields(&answer, e, &keys, out);
        }
        Query::Odds(_) => {
            let keys = [
                "attack",
                "defence",
                "defence_base",
                "multiplier",
                "odds",
                "shift",
                "column",
                "modifier",
                "legal",
            ];
            unknown_keys(e, &keys, out);
            fields(&answer, e, &keys, out);
        }
        Query::LegalActions { .. } => {
            unknown_keys(e, &["includes", "excludes"], out);
            let refs: BTreeMap<String, UnitId> =
                serde_json::from_value(answer["units"].clone()).unwrap_or_default();
            let legal = answer["legal_actions"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            check_actions(e, &legal, &refs, out);
        }
    }
}

/// `includes`/`excludes` (or `legal_includes`/`legal_excludes`) against a list of actions.
fn check_actions(
    e: &Map<String, Value>,
    legal: &[Value],
    refs: &BTreeMap<String, UnitId>,
    out: &mut Vec<String>,
) {
    let lists = [
        ("includes", true),
        ("excludes", false),
        ("legal_includes", true),
        ("legal_excludes", false),
    ];
    for (key, wanted) in lists {
        let Some(Value::Array(patterns)) = e.get(key) else {
            continue;
        };
        for p in patterns {
            let p = match with_ids(p, refs) {
                Ok(p) => p,
                Err(err) => {
                    out.push(err);
                    continue;
                }
            };
            let found = legal.iter().any(|a| matches(&p, a));
            if found != wanted {
                let verb = if wanted { "should be" } else { "should not be" };
                out.push(format!("{p} {verb} legal; legal now: {}", summary(legal)));
            }
        }
    }
}

/// A list of actions in a message: the first ten and how many more.
fn summary(actions: &[Value]) -> String {
    let shown: Vec<String> = actions.iter().take(10).map(Value::to_string).collect();
    match actions.len().saturating_sub(10) {
        0 => format!("[{}]", shown.join(", ")),
        more => format!("[{}, … and {more} more]", shown.join(", ")),
    }
}

fn loc_name(loc: Loc) -> String {
    match loc {
        Loc::Map(h) => h.to_string(),
        Loc::Eliminated => "eliminated".into(),
        Loc::OffMap => "off_map".into(),
        Loc::Unplaced => "unplaced".into(),
    }
}

fn play_out(scn: &Arc<Scenario>, case: &Case, play: &Play, out: &mut Vec<String>) {
    let seed = if play.dice.is_empty() {
        [0; 32]
    } else {
        seed_for(&play.dice)
    };
    let built = match case.position.build(scn, seed) {
        Ok(b) => b,
        Err(err) => return out.push(format!("the engine refused the position: {err}")),
    };
    let refs = built.refs;
    let mut game = Game::from_state(scn.clone(), built.state);
    let mut texts: Vec<String> = Vec::new();
    for (i, a) in play.actions.iter().enumerate() {
        let action: Action = match with_ids(a, &refs).and_then(|v| {
            serde_json::from_value(v)
                .map_err(|err| format!("action {i} ({a}) is not an action: {err}"))
        }) {
            Ok(x) => x,
            Err(err) => return out.push(err),
        };
        let Some(side) = game.to_act() else {
            return out.push(format!(
                "action {i} ({a}): nobody is to act (the game is over)"
            ));
        };
        match game.apply(side, &action) {
            Ok(events) => texts.extend(events.into_iter().map(|e| e.text)),
            Err(err) => {
                let legal: Vec<Value> = game
                    .legal_actions(side)
                    .iter()
                    .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
                    .collect();
                let legal = summary(&legal);
                return out.push(format!(
                    "action {i} ({a}) was refused for the {side} player: {err}; legal: {legal}"
                ));
            }
        }
    }
    if let Some(r) = &play.refuse {
        let (side, a) = match (r.get("side"), r.get("action")) {
            (Some(s), Some(a)) => (serde_json::from_value::<Side>(s.clone()).ok(), a),
            _ => (game.to_act(), r),
        };
        let parsed = with_ids(a, &refs).and_then(|v| {
            serde_json::from_value::<Action>(v)
                .map_err(|err| format!("{a} is not an action: {err}"))
        });
        match (side, parsed) {
            (Some(side), Ok(action)) => {
                let before = game.state_hash();
                if game.apply(side, &action).is_ok() {
                    out.push(format!(
                        "{a} should be refused for the {side} player; the engine accepted it"
                    ));
                } else if game.state_hash() != before {
                    out.push(format!("refusing {a} changed the state"));
                }
            }
            (None, _) => out.push("`refuse` names no side and nobody is to act".into()),
            (_, Err(err)) => out.push(err),
        }
    }
    expect_after(scn, &game, &refs, &texts, &case.expect, out);
}

fn expect_after(
    scn: &Scenario,
    game: &Game,
    refs: &BTreeMap<String, UnitId>,
    texts: &[String],
    e: &Map<String, Value>,
    out: &mut Vec<String>,
) {
    let known = [
        "units",
        "reduced",
        "pending",
        "to_act",
        "step",
        "phase",
        "legal_includes",
        "legal_excludes",
        "result",
        "combat",
        "control",
        "events",
        "ruins",
    ];
    unknown_keys(e, &known, out);
    let st = game.state();
    if let Some(Value::Object(units)) = e.get("units") {
        for (r, want) in units {
            match refs.get(r) {
                None => out.push(format!("no unit `{r}` in the position")),
                Some(id) => {
                    let got = loc_name(st.unit(*id).loc);
                    if want.as_str() != Some(got.as_str()) {
                        out.push(format!(
                            "unit `{r}`: expected at {want}, engine has it at {got}"
                        ));
                    }
                }
            }
        }
    }
    if let Some(Value::Object(reduced)) = e.get("reduced") {
        for (r, want) in reduced {
            if let Some(id) = refs.get(r) {
                let got = st.unit(*id).reduced;
                if want.as_bool() != Some(got) {
                    out.push(format!(
                        "unit `{r}`: reduced expected {want}, engine says {got}"
                    ));
                }
            }
        }
    }
    if let Some(want) = e.get("pending") {
        let got = st.pending.first().map(|p| p.name());
        if want.as_str() != got {
            out.push(format!("pending: expected {want}, engine has {got:?}"));
        }
    }
    if let Some(want) = e.get("to_act") {
        let got = game.to_act().map(|s| s.as_str());
        if want.as_str() != got {
            out.push(format!("to act: expected {want}, engine says {got:?}"));
        }
    }
    if let Some(want) = e.get("step") {
        let got = step_name(st);
        if want.as_str() != Some(got.as_str()) {
            out.push(format!("step: expected {want}, engine is at {got}"));
        }
    }
    if let Some(want) = e.get("phase") {
        let got = st.phase().as_str();
        if want.as_str() != Some(got) {
            out.push(format!("phase: expected {want}, engine is in {got}"));
        }
    }
    let legal: Vec<Value> = match game.to_act() {
        Some(side) => game
            .legal_actions(side)
            .iter()
            .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
            .collect(),
        None => Vec::new(),
    };
    check_actions(e, &legal, refs, out);
    if let Some(want) = e.get("result") {
        let got = match game.result() {
            None => Value::Null,
            Some(r) => json!({"winner": r.winner, "reason": r.reason}),
        };
        if &got != want {
            out.push(format!("result: expected {want}, engine says {got}"));
        }
    }
    if let Some(Value::Object(want)) = e.get("combat") {
        let got = st
            .last_combat
            .as_ref()
            .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
            .unwrap_or(Value::Null);
        for (k, v) in want {
            let g = got.get(k).cloned().unwrap_or(Value::Null);
            if &g != v {
                out.push(format!("combat {k}: expected {v}, engine says {g}"));
            }
        }
    }
    if let Some(Value::Object(want)) = e.get("control") {
        for (h, side) in want {
            let i = scn
                .map
                .victory_hexes()
                .iter()
                .position(|(v, _)| v.to_string() == *h);
            match i {
                None => out.push(format!("{h} is not a victory hex")),
                Some(i) => {
                    let got = st.control[i].as_str();
                    if side.as_str() != Some(got) {
                        out.push(format!(
                            "control of {h}: expected {side}, engine says {got}"
                        ));
                    }
                }
            }
        }
    }
    if let Some(Value::Object(want)) = e.get("ruins") {
        for (h, ruined) in want {
            let got = st.ruins.iter().any(|r| r.to_string() == *h);
            if ruined.as_bool() != Some(got) {
                out.push(format!("ruin in {h}: expected {ruined}, engine says {got}"));
            }
        }
    }
    if let Some(Value::Array(want)) = e.get("events") {
        for w in want {
            let w = w.as_str().unwrap_or_default();
            if !texts.iter().any(|t| t.contains(w)) {
                out.push(format!("no event says `{w}`; events: {texts:?}"));
            }
        }
    }
}

#[test]
fn the_engine_agrees_with_the_hand_worked_oracle() {
    let scn = scenario();
    let cases = load();
    let mut failures: Vec<String> = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    let mut wrong: Vec<String> = Vec::new();
    let mut per_topic: BTreeMap<&str, usize> = BTreeMap::new();
    for (topic, case) in &cases {
        *per_topic.entry(topic.as_str()).or_default() += 1;
        if ids.contains(&case.id.as_str()) {
            failures.push(format!("{}: two cases have this id", case.id));
        }
        ids.push(&case.id);
        if case.section.trim().is_empty() || case.reasoning.trim().len() < 20 {
            failures.push(format!(
                "{}: every case names its section and gives its reasoning",
                case.id
            ));
        }
        let mismatches = evaluate(&scn, case);
        match (&case.engine_wrong, mismatches.is_empty()) {
            (None, true) => {}
            (None, false) => failures.push(format!(
                "{} ({}): the engine disagrees with the rules:\n    {}",
                case.id,
                case.section,
                mismatches.join("\n    ")
            )),
            (Some(why), false) => wrong.push(format!(
                "{}: {why}\n    the engine: {}",
                case.id,
                mismatches.join("\n    the engine: ")
            )),
            (Some(why), true) => failures.push(format!(
                "{}: marked engine_wrong ({why}) but the engine now agrees: remove the flag",
                case.id
            )),
        }
    }
    println!("oracle: {} cases; by topic: {per_topic:?}", cases.len());
    for w in &wrong {
        println!("known engine error (still wrong, as the case records): {w}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} oracle cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        cases.len() >= 60,
        "the oracle holds at least 60 cases, not {}",
        cases.len()
    );
}
