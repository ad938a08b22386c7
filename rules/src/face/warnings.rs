//! Warnings before losses a player might not expect. Some legal actions cost something the
//! board does not show at a glance: civilians left without an escort are lost at once (15),
//! artillery left without a combat unit beside the enemy is overrun by the first Chinese unit
//! to enter its hex (9), a leader left alone is moved off (11.1), a lone unit removed to
//! attrition leaves its hex empty (14), a victory hex left empty can be taken by the enemy
//! walking in (21), and a fortification, once built, stays for good (13). Such an action is
//! offered with a `warning` — the loss in words with its rule — so that a page can ask once
//! before sending it.
//!
//! A warning is found by trying the action on a copy of the position and comparing the two,
//! so it says exactly what the rules will do. Only the kinds of action that can cause these
//! losses are tried, and only when a unit they move or remove stands where leaving matters
//! (with civilians or a gun, beside them, or on a victory hex); everything else is offered
//! without a trial.

use crate::mechanics::fortifications;
use crate::position::action::Action;
use crate::position::ctx::{Ctx, names};
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::pending::Pending;
use crate::position::state::{State, Step};
use crate::sequence::play;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use serde::{Deserialize, Serialize};
use siege_protocol::Side;

/// A loss an action will cause, in words, with the rule that causes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub text: String,
    /// The rules section, e.g. `15`.
    pub rule: String,
}

/// A legal action as offered to a player: the action itself (sent back as it is, with or
/// without its warning) and the warning, if it has one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Offered {
    #[serde(flatten)]
    pub action: Action,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<Warning>,
}

/// An element of `legal_actions` as a client may send it back — unchanged, or without its
/// `warning` — turned into the action itself: the warning is advice about the action, not part
/// of it. Anything but an object is returned as it is (and refused by the action's parser).
pub fn without_warning(mut element: serde_json::Value) -> serde_json::Value {
    if let Some(fields) = element.as_object_mut() {
        fields.remove("warning");
    }
    element
}

/// The action of an element of `legal_actions`, with or without its `warning`: read in place,
/// copied only when it has a warning to leave out (most have none; a client reading long lists,
/// the load generator, spent an eighth of its CPU copying them).
pub fn action_of(element: &serde_json::Value) -> Result<Action, serde_json::Error> {
    if element.get("warning").is_some() {
        serde_json::from_value(without_warning(element.clone()))
    } else {
        Action::deserialize(element)
    }
}

/// The legal actions of `side` in `st`, each with its warning if it has one.
///
/// A selected stack may be offered dozens of moves, and each would be tried on a copy of the
/// position. What a move leaves behind does not depend on where the stack goes
/// ([`Risky::same_wherever_it_goes`]): such moves share the warning found for the first of
/// them. A move arriving with or beside civilians, or carrying civilians with no escort of
/// their own, is tried by itself.
pub fn annotate(scn: &Scenario, st: &State, side: Side, legal: Vec<Action>) -> Vec<Offered> {
    let risky = Risky::of(scn, st, side);
    let mut shared: Option<Option<Warning>> = None;
    legal
        .into_iter()
        .map(|action| {
            let warning = risky.as_ref().and_then(|r| {
                if r.same_wherever_it_goes(scn, st, &action) {
                    shared
                        .get_or_insert_with(|| r.warn(scn, st, &action))
                        .clone()
                } else {
                    r.warn(scn, st, &action)
                }
            });
            Offered { action, warning }
        })
        .collect()
}

/// The warning of one action of `side` in `st`, if it has one.
pub fn warning(scn: &Scenario, st: &State, side: Side, action: &Action) -> Option<Warning> {
    Risky::of(scn, st, side)?.warn(scn, st, action)
}

/// Where leaving matters for `side`: the hexes whose units guard civilians or man a gun next
/// to the enemy, and the victory hexes it holds. Built once per position.
struct Risky {
    side: Side,
    /// Hexes a unit of `side` leaving (moving, removed, eliminated) may cost something.
    hexes: Vec<Hex>,
    /// Where the civilians of `side` are (15), for [`Risky::same_wherever_it_goes`]: read once
    /// per position, not once per offered move.
    civilians: Vec<Hex>,
}

impl Risky {
    /// `None` when nothing `side` can do this step causes such a loss.
    fn of(scn: &Scenario, st: &State, side: Side) -> Option<Risky> {
        let board = HexIndex::of(scn, st);
        let mut hexes: Vec<Hex> = Vec::new();
        let mut civilians: Vec<Hex> = Vec::new();
        for c in scn.counters.counters.iter() {
            let Some(h) = st.unit(c.id).hex() else {
                continue;
            };
            if c.side == side && c.kind == UnitKind::Civilian {
                civilians.push(h);
            }
            match c.kind {
                // Civilians: every hex from which a combat unit escorts them (15).
                UnitKind::Civilian if side == Side::Allied => {
                    hexes.push(h);
                    hexes.extend(h.neighbours());
                }
                // A manned gun beside the enemy (9).
                UnitKind::Artillery
                    if side == Side::Allied
                        && board.at(h).manned
                        && h.neighbours().any(|n| board.enemy_in(Side::Allied, n)) =>
                {
                    hexes.push(h)
                }
                // A leader who could be left alone (11.1).
                UnitKind::Leader if side == Side::Allied => hexes.push(h),
                _ => {}
            }
        }
        hexes.extend(
            scn.map
                .victory_hexes()
                .iter()
                .map(|(h, _)| *h)
                .filter(|h| board.at(*h).side == Some(side)),
        );
        hexes.sort();
        hexes.dedup();
        civilians.sort();
        civilians.dedup();
        Some(Risky {
            side,
            hexes,
            civilians,
        })
    }

    /// Whether `action` moves the selected stack somewhere its arrival changes nothing a
    /// warning speaks of, so that it warns as any other such move of the stack does. The
    /// losses warned of are civilians without an escort (15), a gun left unmanned (9), a
    /// leader left alone (11.1) and a victory hex left empty (21). What the stack leaves
    /// behind — its hex emptied, a gun there unmanned, civilians there or beside it without
    /// their escort, a leader whose company those civilians were — is the same wherever it
    /// goes. What it takes along is safe wherever it goes unless it carries civilians with
    /// no escort of their own (an Allied combat unit or volunteers, 15): a gun that moves is
    /// never the gun left behind, and a leader is moved off only when the units with him are
    /// eliminated (11.1), which a move alone never does. Only an arrival with or beside
    /// civilians of the side could save them: such moves are each tried.
    fn same_wherever_it_goes(&self, scn: &Scenario, st: &State, action: &Action) -> bool {
        let Action::Move { to, .. } = action else {
            return false;
        };
        let Step::Move { group: Some(g) } = &st.step else {
            return false;
        };
        let kinds = || g.units.iter().map(|u| scn.counters.get(*u).kind);
        let carries_civilians = kinds().any(|k| k == UnitKind::Civilian);
        let escorted = kinds().any(|k| matches!(k, UnitKind::Combat | UnitKind::Volunteer));
        if carries_civilians && !escorted {
            return false;
        }
        !self
            .civilians
            .iter()
            .any(|h| *h == *to || h.is_adjacent(*to))
    }

    /// The warning of `action`, trying it on a copy when it moves or removes a unit from a
    /// hex where that matters.
    fn warn(&self, scn: &Scenario, st: &State, action: &Action) -> Option<Warning> {
        if let Action::Fortify { hex } = action {
            return Some(fortify(scn, st, self.side, *hex));
        }
        let from = self.source(st, action)?;
        let lone = match action {
            Action::RemoveUnit { unit } => Some(*unit),
            _ => None,
        };
        if !self.hexes.contains(&from) && lone.is_none() {
            return None;
        }
        let mut after = st.clone();
        let mut ctx = Ctx::new(scn, &mut after);
        play::apply(&mut ctx, action).ok()?;
        let events = ctx.events;
        let mut found: Vec<Warning> = Vec::new();
        let before = HexIndex::of(scn, st);
        let board = HexIndex::of(scn, &after);
        // Civilians lost at once (15).
        let lost: Vec<(UnitId, Option<Hex>)> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Eliminated { unit, hex, cause }
                    if cause == "unescorted" && scn.counters.get(*unit).side == self.side =>
                {
                    Some((*unit, *hex))
                }
                _ => None,
            })
            .collect();
        if !lost.is_empty() {
            let units: Vec<UnitId> = lost.iter().map(|(u, _)| *u).collect();
            let at: Vec<String> = lost
                .iter()
                .filter_map(|(_, h)| h.map(|h| h.to_string()))
                .collect();
            found.push(Warning {
                text: format!(
                    "{} at {} would have no Allied combat unit with or beside them and are lost at once",
                    names(scn, &units),
                    at.join(", ")
                ),
                rule: "15".into(),
            });
        }
        // Guns left unmanned beside the enemy (9).
        let guns: Vec<(UnitId, Hex)> = scn
            .counters
            .counters
            .iter()
            .filter(|c| c.side == self.side && c.kind == UnitKind::Artillery)
            .filter_map(|c| {
                let was = st.unit(c.id).hex()?;
                let now = after.unit(c.id).hex()?;
                (was == now
                    && before.at(was).manned
                    && !board.at(now).manned
                    && now.neighbours().any(|n| board.enemy_in(self.side, n)))
                .then_some((c.id, now))
            })
            .collect();
        for (gun, hex) in guns {
            found.push(Warning {
                text: format!(
                    "{} at {hex} would be left without a combat unit beside the enemy: the first Chinese unit to enter the hex overruns it",
                    scn.counters.get(gun).name
                ),
                rule: "9".into(),
            });
        }
        // Leaders left alone go to the nearest friendly unit (11.1).
        let mut alone: Vec<(UnitId, Hex)> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::LeaderMoved { leader, from, .. } => Some((*leader, *from)),
                _ => None,
            })
            .collect();
        alone.extend(after.pending.iter().filter_map(|p| match p {
            Pending::PlaceLeader { leader, from } if !st.pending.contains(p) => {
                Some((*leader, *from))
            }
            _ => None,
        }));
        for (leader, at) in alone {
            found.push(Warning {
                text: format!(
                    "{} would be left alone at {at} and must go to the nearest friendly unit",
                    scn.counters.get(leader).name
                ),
                rule: "11.1".into(),
            });
        }
        // Victory hexes left empty (21).
        let left: Vec<Hex> = scn
            .map
            .victory_hexes()
            .iter()
            .map(|(h, _)| *h)
            .filter(|h| before.at(*h).side == Some(self.side) && board.at(*h).side.is_none())
            .collect();
        for hex in left {
            found.push(Warning {
                text: format!(
                    "{hex} is a victory hex: left empty, it passes to the {} as soon as one of their units enters it",
                    self.side.other()
                ),
                rule: "21".into(),
            });
        }
        // A lone unit removed to attrition leaves its hex empty (14).
        if let Some(u) = lone
            && found.is_empty()
            && !st.units_at(from).any(|o| {
                o != u
                    && matches!(
                        scn.counters.get(o).kind,
                        UnitKind::Combat | UnitKind::Volunteer
                    )
            })
        {
            found.push(Warning {
                text: format!(
                    "{} stands alone at {from}: removing it leaves the hex without a combat unit",
                    scn.counters.get(u).name
                ),
                rule: "14".into(),
            });
        }
        join(found)
    }

    /// The hex a unit leaves by `action`, for the kinds of action that move or remove units of
    /// the side deciding; `None` for every other kind.
    fn source(&self, st: &State, action: &Action) -> Option<Hex> {
        match action {
            Action::Move { .. } => match &st.step {
                Step::Move { group: Some(g) } => Some(g.hex),
                _ => None,
            },
            Action::RemoveUnit { unit }
            | Action::Advance { unit, .. }
            | Action::Eliminate { unit }
            | Action::LoseStep { unit } => st.unit(*unit).hex(),
            Action::Lift { hex } => Some(*hex),
            _ => None,
        }
    }
}

/// Several losses as one warning: their sentences in order, each with its rule; the first
/// one's rule is the warning's.
fn join(found: Vec<Warning>) -> Option<Warning> {
    let rule = found.first()?.rule.clone();
    let text = found
        .iter()
        .map(|w| format!("{} ({})", w.text, w.rule))
        .collect::<Vec<_>>()
        .join("; ");
    Some(Warning {
        text: capitalise(&text),
        rule,
    })
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A fortification is for good (13).
fn fortify(scn: &Scenario, st: &State, side: Side, hex: Hex) -> Warning {
    let left = fortifications::left(scn, st, side);
    Warning {
        text: format!(
            "A fortification at {hex} stays for good: only the Big Gun can destroy it, it shelters whichever side holds the hex, and it uses one of your {left} counters left (13)"
        ),
        rule: "13".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};
    use crate::position::state::{Group, Step};
    use siege_protocol::Phase;

    /// Moves sharing one warning (15, 9, 11.1, 21): in whole random games, at every decision,
    /// each offered action carries exactly the warning that trying that action alone finds.
    #[test]
    fn every_offered_warning_is_the_one_its_own_trial_finds_15_9_11_1_21() {
        use crate::face::game::Game;
        use crate::face::random::Bot;
        use crate::face::testkit::scenario;
        let scn = scenario();
        let mut moves_warned = 0;
        for seed in 1..=6u8 {
            let mut game = Game::new(scn.clone(), [seed; 32]);
            let mut bot = Bot::new(u64::from(seed), scn.map.hospital().to_vec());
            while let Some(side) = game.to_act() {
                let st = game.state();
                for offered in game.offered(side) {
                    let alone = warning(&scn, st, side, &offered.action);
                    assert_eq!(
                        offered.warning, alone,
                        "seed {seed}: {:?} in {:?}",
                        offered.action, st.step
                    );
                    if matches!(offered.action, Action::Move { .. }) && alone.is_some() {
                        moves_warned += 1;
                    }
                }
                let legal = game.legal_actions(side);
                let action = bot.choose(&game, &legal).expect("a legal action").clone();
                game.apply(side, &action).expect("legal actions apply");
            }
        }
        assert!(moves_warned > 0, "some moves were warned of");
    }

    /// The warnings `side` is offered now, by action.
    fn warned(kit: &Kit, side: Side) -> Vec<(Action, Warning)> {
        kit.game()
            .offered(side)
            .into_iter()
            .filter_map(|o| o.warning.map(|w| (o.action, w)))
            .collect()
    }

    /// An attrition step of turn 3 on an open board.
    fn attrition() -> Kit {
        let mut kit = Kit::open();
        kit.at(3, Phase::AlliedMovement, Step::Attrition);
        kit
    }

    #[test]
    fn moving_the_only_escort_away_from_civilians_warns_of_their_loss_15() {
        let mut kit = Kit::open();
        let here = kit.some_clear_hex_where(|k, h| k.open_around(h, 4));
        let civ = kit.place(UnitKind::Civilian, Side::Allied, here);
        let escort = kit.place(UnitKind::Combat, Side::Allied, here);
        kit.at(
            3,
            Phase::AlliedMovement,
            Step::Move {
                group: Some(Group {
                    units: vec![escort],
                    hex: here,
                    spent: 0,
                    started: false,
                    halted: false,
                }),
            },
        );
        let warned = warned(&kit, Side::Allied);
        let far: Vec<&(Action, Warning)> = warned
            .iter()
            .filter(|(a, _)| matches!(a, Action::Move { to, .. } if to.distance(here) >= 2))
            .collect();
        assert!(!far.is_empty(), "moves two hexes away are warned of");
        for (_, w) in &far {
            assert_eq!(w.rule, "15");
            assert!(
                w.text.contains(&kit.scn.counters.get(civ).name),
                "{}",
                w.text
            );
            assert!(w.text.contains(&here.to_string()), "{}", w.text);
        }
        // Staying beside the civilians costs nothing: no warning.
        let offered = kit.game().offered(Side::Allied);
        let beside = offered
            .iter()
            .find(|o| matches!(o.action, Action::Move { to, .. } if to.distance(here) == 1))
            .expect("a move to a neighbouring hex");
        assert_eq!(beside.warning, None);
    }

    #[test]
    fn removing_the_gun_crew_beside_the_enemy_warns_that_the_gun_will_be_overrun_9() {
        let mut kit = attrition();
        let here = kit.some_clear_hex_where(|k, h| k.open_around(h, 2));
        let gun = kit.place(UnitKind::Artillery, Side::Allied, here);
        let crew = kit.place(UnitKind::Combat, Side::Allied, here);
        let next = here.neighbours().next().expect("a neighbour");
        kit.place(UnitKind::Boxer, Side::Chinese, next);
        let w = warned(&kit, Side::Allied);
        let (_, crew_warning) = w
            .iter()
            .find(|(a, _)| *a == Action::RemoveUnit { unit: crew })
            .expect("removing the crew is warned of");
        assert_eq!(crew_warning.rule, "9");
        assert!(crew_warning.text.contains(&kit.scn.counters.get(gun).name));
        // With no enemy beside the gun, the same removal leaves an empty hex only (14).
        let boxer = kit.st.units_at(next).next().expect("the boxer");
        kit.st.unit_mut(boxer).loc = crate::position::state::Loc::OffMap;
        let w = warned(&kit, Side::Allied);
        let (_, w) = w
            .iter()
            .find(|(a, _)| *a == Action::RemoveUnit { unit: crew })
            .expect("still warned: the hex is left without a combat unit");
        assert_eq!(w.rule, "14");
    }

    #[test]
    fn removing_a_lone_unit_to_attrition_warns_the_hex_is_left_empty_but_one_of_two_does_not_14() {
        let mut kit = attrition();
        let a = kit.some_clear_hex_where(|k, h| k.open_around(h, 2));
        let lone = kit.place(UnitKind::Combat, Side::Allied, a);
        let far = kit.some_clear_hex_where(|k, h| k.open_around(h, 2) && h.distance(a) > 4);
        let one = kit.place(UnitKind::Combat, Side::Allied, far);
        let two = kit.place(UnitKind::Combat, Side::Allied, far);
        let w = warned(&kit, Side::Allied);
        assert!(
            w.iter()
                .any(|(x, w)| *x == Action::RemoveUnit { unit: lone } && w.rule == "14")
        );
        assert!(
            !w.iter().any(
                |(x, _)| matches!(x, Action::RemoveUnit { unit } if *unit == one || *unit == two)
            ),
            "a unit that leaves another beside it is removed without a warning"
        );
    }

    #[test]
    fn leaving_a_victory_hex_empty_warns_it_can_be_taken_21() {
        let mut kit = attrition();
        let (v, _) = kit.scn.map.victory_hexes()[0];
        let holder = kit.place(UnitKind::Combat, Side::Allied, v);
        let w = warned(&kit, Side::Allied);
        let (_, w) = w
            .iter()
            .find(|(a, _)| *a == Action::RemoveUnit { unit: holder })
            .expect("warned");
        assert_eq!(w.rule, "21");
        assert!(
            w.text.contains(&format!("{v} is a victory hex")),
            "{}",
            w.text
        );
    }

    #[test]
    fn building_a_fortification_warns_it_is_for_good_13() {
        let mut kit = Kit::open();
        let here = kit.some_clear_hex_where(|k, h| k.open_around(h, 2));
        for _ in 0..3 {
            kit.place(UnitKind::Combat, Side::Allied, here);
        }
        kit.at(3, Phase::AlliedCombat, Step::Fortify);
        let w = warned(&kit, Side::Allied);
        assert!(
            !w.is_empty(),
            "the hex takes a fortification: {:?}",
            kit.game().legal_actions(Side::Allied)
        );
        for (a, w) in &w {
            assert!(matches!(a, Action::Fortify { .. }));
            assert_eq!(w.rule, "13");
        }
        assert!(w.iter().any(|(a, _)| *a == Action::Fortify { hex: here }));
    }

    #[test]
    fn an_offered_action_sent_back_with_its_warning_is_the_action_itself() {
        let offered = Offered {
            action: Action::Fortify { hex: hex("1014") },
            warning: Some(Warning {
                text: "for good".into(),
                rule: "13".into(),
            }),
        };
        let sent = serde_json::to_value(&offered).unwrap();
        assert_eq!(sent["warning"]["rule"], "13");
        assert_eq!(action_of(&sent).unwrap(), offered.action);
        let plain = serde_json::to_value(&offered.action).unwrap();
        let again = serde_json::to_value(&offered).unwrap();
        assert_eq!(without_warning(again), plain);
        assert_eq!(
            without_warning(plain.clone()),
            plain,
            "an element without one is unchanged"
        );
        assert_eq!(action_of(&plain).unwrap(), offered.action, "read in place");
        for bad in [
            serde_json::json!("end_phase"),
            serde_json::json!({"type": "no_such_action"}),
            serde_json::json!({"type": "no_such_action", "warning": {}}),
            serde_json::json!({}),
        ] {
            assert!(action_of(&bad).is_err(), "{bad}");
        }
    }
}
