//! The bots on hand-made positions (built as the analysis board builds them): they take an
//! undefended victory hex (21), never leave civilians without an escort (15), attack at the
//! best odds their units can reach (8.2), pick the cheapest step loss (8.6), answer the same way
//! for the same seed, and play whole games without a single refused action.

use serde_json::json;
use siege_bots::{Bot, Budget, Level, suggest};
use siege_protocol::{Phase, Side};
use siege_rules::crt::CrtResult;
use siege_rules::custom::Position;
use siege_rules::event::EventKind;
use siege_rules::hex::Hex;
use siege_rules::map::Terrain;
use siege_rules::{Event, Game, Scenario};
use std::sync::{Arc, OnceLock};

fn scn() -> Arc<Scenario> {
    static SCN: OnceLock<Arc<Scenario>> = OnceLock::new();
    SCN.get_or_init(|| Arc::new(Scenario::load_default().expect("the shipped scenario")))
        .clone()
}

fn hex(s: &str) -> Hex {
    s.parse().expect("a hex")
}

fn game(position: serde_json::Value) -> Game {
    let p: Position = serde_json::from_value(position).expect("a position");
    Game::from_position(scn(), &p, [7; 32]).expect("a valid position")
}

/// Let a bot of `level` play `side` while it is that side's turn in the same phase; every
/// action must be legal. Returns the events.
fn play_phase(g: &mut Game, level: Level, side: Side) -> Vec<Event> {
    let phase = g.state().phase();
    let mut bot = Bot::new(level, 11);
    let mut events = Vec::new();
    for _ in 0..500 {
        if g.to_act() != Some(side) || g.state().phase() != phase || g.result().is_some() {
            break;
        }
        let d = bot.decide(g, side, Budget::Nodes(4)).expect("a decision");
        events.extend(g.apply(side, &d.action).expect("the bot's action is legal"));
    }
    events
}

/// An open hex of the shipped map with open ground all around, `r` deep, away from the edge.
fn open_hex(r: u32) -> Hex {
    let map = &scn().map;
    Hex::all()
        .filter(|h| h.edge_depth() > 3)
        .find(|h| {
            Hex::all()
                .filter(|x| x.distance(*h) <= r)
                .all(|x| map.terrain(x) == Terrain::Clear && map.victory(x).is_none())
        })
        .expect("open ground")
}

fn unit(r: &str, side: &str, kind: &str, hex: Hex) -> serde_json::Value {
    json!({"ref": r, "side": side, "type": kind, "hex": hex.to_string()})
}

#[test]
fn the_chinese_walk_into_an_undefended_victory_hex_21() {
    // 0914 (the Carriage Park sheds, a primary hex) is empty; a Boxer stands three hexes off.
    let mut g = game(json!({"turn": 4, "phase": "chinese_movement", "units": [
        {"ref": "b", "side": "chinese", "type": "boxer", "hex": "0911"},
        {"ref": "g", "side": "allied", "type": "combat", "nationality": "british", "hex": "1618"},
        {"ref": "L", "side": "allied", "type": "leader", "name": "Strouts", "hex": "1618"}
    ]}));
    let i = scn()
        .map
        .victory_hexes()
        .iter()
        .position(|(h, _)| *h == hex("0914"))
        .expect("0914 is a victory hex");
    assert_eq!(g.state().control[i], Side::Allied);
    let events = play_phase(&mut g, Level::Normal, Side::Chinese);
    assert_eq!(
        g.state().control[i],
        Side::Chinese,
        "the Boxers took 0914: {:?}",
        events.iter().map(|e| &e.text).collect::<Vec<_>>()
    );
    // The easy player does it too: it walks at the nearest victory hex.
    let mut g = game(json!({"turn": 4, "phase": "chinese_movement", "units": [
        {"ref": "b", "side": "chinese", "type": "boxer", "hex": "0911"},
        {"ref": "g", "side": "allied", "type": "combat", "nationality": "british", "hex": "1618"}
    ]}));
    play_phase(&mut g, Level::Easy, Side::Chinese);
    assert_eq!(g.state().control[i], Side::Chinese);
}

#[test]
fn the_allies_walk_back_into_an_empty_victory_hex_the_chinese_took_21() {
    let mut g = game(
        json!({"turn": 3, "phase": "allied_movement", "control": {"1618": "chinese"}, "units": [
            {"ref": "g", "side": "allied", "type": "combat", "nationality": "british", "hex": "1719"},
            {"ref": "L", "side": "allied", "type": "leader", "name": "Strouts", "hex": "1719"},
            {"ref": "b", "side": "chinese", "type": "boxer", "hex": "0105"}
        ]}),
    );
    let events = play_phase(&mut g, Level::Normal, Side::Allied);
    let i = scn()
        .map
        .victory_hexes()
        .iter()
        .position(|(h, _)| *h == hex("1618"))
        .expect("1618 is a victory hex");
    assert_eq!(
        g.state().control[i],
        Side::Allied,
        "1618 retaken: {:?}",
        events.iter().map(|e| &e.text).collect::<Vec<_>>()
    );
}

#[test]
fn the_allies_never_leave_civilians_without_an_escort_15() {
    // Volunteers alone escort the civilians; a victory hex the Chinese took lies within reach.
    // Walking there would strand the civilians (15): the bot stays, at every level above random.
    for level in [Level::Easy, Level::Normal, Level::Hard] {
        let mut g = game(
            json!({"turn": 3, "phase": "allied_movement", "control": {"1618": "chinese"}, "units": [
                {"ref": "v", "side": "allied", "type": "volunteer", "hex": "1514"},
                {"ref": "c", "side": "allied", "type": "civilian", "hex": "1514"},
                {"ref": "d", "side": "allied", "type": "civilian", "hex": "1413"},
                {"ref": "b", "side": "chinese", "type": "boxer", "hex": "0105"}
            ]}),
        );
        let before = g
            .on_map(Side::Allied)
            .filter(|(_, k)| *k == siege_rules::units::UnitKind::Civilian)
            .count();
        let events = play_phase(&mut g, level, Side::Allied);
        let after = g
            .on_map(Side::Allied)
            .filter(|(_, k)| *k == siege_rules::units::UnitKind::Civilian)
            .count();
        assert_eq!(
            (before, after),
            (2, 2),
            "{level:?} kept the civilians escorted: {:?}",
            events.iter().map(|e| &e.text).collect::<Vec<_>>()
        );
        assert!(
            !events.iter().any(
                |e| matches!(&e.kind, EventKind::Eliminated { cause, .. } if cause == "unescorted")
            ),
            "{level:?}: no civilian lost"
        );
    }
}

#[test]
fn an_attack_gathers_the_units_for_the_best_odds_8_2() {
    // A British unit in the open; two Boxers next to it and a third one that can fire from two
    // hexes away: 20 against 4 reads on 5-1, 30 against 4 on 6-1. The bot brings all three.
    let h = open_hex(2);
    let around: Vec<Hex> = h.neighbours().collect();
    let (n1, n2) = (around[0], around[3]);
    let s = scn();
    let probe = game(json!({"turn": 3, "phase": "chinese_combat", "units": [
        unit("a", "allied", "combat", h), unit("b1", "chinese", "boxer", n1), unit("b2", "chinese", "boxer", n2)
    ]}));
    let board = siege_rules::hex_index::HexIndex::new(&s, probe.state());
    let far = Hex::all()
        .filter(|x| x.distance(h) == 2 && !x.is_adjacent(n1) && !x.is_adjacent(n2))
        .find(|x| siege_rules::los::line_of_sight(&s, probe.state(), &board, *x, h).clear)
        .expect("a hex in range and sight");
    let mut g = game(json!({"turn": 3, "phase": "chinese_combat", "units": [
        unit("a", "allied", "combat", h), unit("b1", "chinese", "boxer", n1),
        unit("b2", "chinese", "boxer", n2), unit("b3", "chinese", "boxer", far)
    ]}));
    let events = play_phase(&mut g, Level::Normal, Side::Chinese);
    let combat = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Combat { report } => Some(report.clone()),
            _ => None,
        })
        .expect("an attack was made");
    assert_eq!(combat.column, "6-1", "{}", combat.attack_detail);
    assert_eq!(combat.adjacent.len() + combat.ranged.len(), 3);
}

#[test]
fn a_hopeless_attack_is_not_made_when_nothing_forces_it_8_2() {
    // A Boxer in a building next to the British in a building: no zone of control forces it
    // (6), and 10 against 12 risks the Boxer for little. The normal Chinese pass.
    let s = scn();
    let (b1, b2) = Hex::all()
        .filter(|h| s.map.terrain(*h) == Terrain::Building && s.map.victory(*h).is_none())
        .find_map(|a| {
            a.neighbours()
                .find(|n| s.map.terrain(*n) == Terrain::Building && s.map.victory(*n).is_none())
                .map(|n| (a, n))
        })
        .expect("two buildings side by side");
    let mut g = game(json!({"turn": 3, "phase": "chinese_combat", "units": [
        unit("a", "allied", "combat", b1), unit("b", "chinese", "boxer", b2)
    ]}));
    let events = play_phase(&mut g, Level::Normal, Side::Chinese);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Combat { .. })),
        "no attack at 1-2 out of choice"
    );
    assert_ne!(g.state().phase(), Phase::ChineseCombat);
}

#[test]
fn ranged_fire_is_taken_whenever_it_can_hurt_8_1_1() {
    // Allied fire from three hexes away risks nothing: the normal Allies fire.
    let h = open_hex(2);
    let s = scn();
    let target = h.neighbours().next().expect("a neighbour");
    let shooter = Hex::all()
        .find(|x| x.distance(target) == 3 && x.distance(h) >= 2)
        .expect("a firing hex");
    let mut g = game(json!({"turn": 3, "phase": "allied_combat", "units": [
        unit("a", "allied", "volunteer", shooter),
        {"ref": "L", "side": "allied", "type": "leader", "name": "Strouts", "hex": shooter.to_string()},
        {"ref": "b", "side": "chinese", "type": "boxer", "hex": target.to_string(), "reduced": true}
    ]}));
    let board = siege_rules::hex_index::HexIndex::new(&s, g.state());
    if !siege_rules::los::line_of_sight(&s, g.state(), &board, shooter, target).clear {
        return; // the open ground found has a blocked line: nothing to test here
    }
    let events = play_phase(&mut g, Level::Normal, Side::Allied);
    let fired = events.iter().any(|e| {
        matches!(&e.kind, EventKind::Combat { report } if report.adjacent.is_empty() && !report.ranged.is_empty())
    });
    assert!(
        fired,
        "{:?}",
        events.iter().map(|e| &e.text).collect::<Vec<_>>()
    );
}

#[test]
fn the_cheapest_step_is_lost_8_6() {
    // A Chinese attack gets an EX-free DL1 on a stack of a whole and a reduced British unit:
    // whichever result comes, the Allied bot flips the whole unit rather than lose the reduced.
    let s = scn();
    let h = open_hex(2);
    let n = h.neighbours().next().expect("a neighbour");
    for seed in 0..40u8 {
        let p: Position = serde_json::from_value(json!({"turn": 3, "phase": "chinese_combat", "units": [
            {"ref": "g1", "side": "allied", "type": "combat", "nationality": "british", "hex": h.to_string()},
            {"ref": "g2", "side": "allied", "type": "combat", "nationality": "british", "hex": h.to_string(), "reduced": true},
            {"ref": "b1", "side": "chinese", "type": "boxer", "hex": n.to_string()},
            {"ref": "b2", "side": "chinese", "type": "imperial", "hex": n.to_string()},
            {"ref": "b3", "side": "chinese", "type": "boxer", "hex": n.to_string()}
        ]}))
        .expect("a position");
        let mut g = Game::from_position(s.clone(), &p, [seed; 32]).expect("valid");
        let mut bots = [Bot::new(Level::Normal, 1), Bot::new(Level::Normal, 2)];
        let mut lost = None;
        for _ in 0..200 {
            let Some(side) = g.to_act() else { break };
            if g.state().phase() != Phase::ChineseCombat {
                break;
            }
            let d = bots[usize::from(side == Side::Chinese)]
                .decide(&g, side, Budget::Nodes(2))
                .expect("a decision");
            let events = g.apply(side, &d.action).expect("legal");
            for e in &events {
                if let EventKind::Combat { report } = &e.kind
                    && report.result == Some(CrtResult::DL1)
                {
                    lost = Some(());
                }
            }
            if lost.is_some() && g.state().pending.is_empty() {
                break;
            }
        }
        if lost.is_some() {
            let g1 = g.scenario().counters.by_code("gb1").expect("gb1").id;
            let g2 = g.scenario().counters.by_code("gb2").expect("gb2").id;
            assert!(g.state().unit(g1).reduced, "the whole unit flipped");
            assert!(g.state().unit(g2).hex().is_some(), "the reduced unit lives");
            return;
        }
    }
    panic!("no DL1 in 40 seeds");
}

#[test]
fn the_same_seed_gives_the_same_decision_and_plan() {
    let mut g = Game::new(scn(), [3; 32]);
    let mut setup = Bot::new(Level::Normal, 5);
    while g.state().phase() == Phase::AlliedSetup || g.state().phase() == Phase::ChineseSetup {
        let side = g.to_act().expect("someone");
        let d = setup
            .decide(&g, side, Budget::Nodes(0))
            .expect("a decision");
        g.apply(side, &d.action).expect("legal");
    }
    for level in [Level::Easy, Level::Normal, Level::Hard] {
        let side = g.to_act().expect("someone");
        let a = suggest(&g, side, level, 9, Budget::Nodes(6));
        let b = suggest(&g, side, level, 9, Budget::Nodes(6));
        assert_eq!(a.action, b.action, "{level:?}");
        assert_eq!(
            serde_json::to_string(&a.plan).unwrap(),
            serde_json::to_string(&b.plan).unwrap(),
            "{level:?}"
        );
    }
}

#[test]
fn whole_games_between_levels_have_no_refused_action() {
    for (allied, chinese, seed) in [
        (Level::Easy, Level::Normal, 1u8),
        (Level::Normal, Level::Easy, 2),
        (Level::Normal, Level::Random, 3),
        (Level::Random, Level::Normal, 4),
    ] {
        let mut g = Game::new(scn(), [seed; 32]);
        let mut bots = [
            Bot::new(allied, u64::from(seed)),
            Bot::new(chinese, u64::from(seed) + 100),
        ];
        let mut n = 0;
        while g.result().is_none() && n < 20_000 {
            let side = g.to_act().expect("someone to act");
            let d = bots[usize::from(side == Side::Chinese)]
                .decide(&g, side, Budget::Nodes(2))
                .expect("a decision");
            g.apply(side, &d.action).unwrap_or_else(|e| {
                panic!("{allied:?} v {chinese:?}: refused {:?}: {e}", d.action)
            });
            n += 1;
        }
        assert!(g.result().is_some(), "{allied:?} v {chinese:?} finished");
    }
}
