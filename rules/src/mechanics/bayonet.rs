//! The bayonet charge (8.1.3; rulings R6, R7): before Allied combat, units that did not move in
//! the Allied movement phase may charge, led by a leader stacked with them from the start of that
//! phase; at most 15 strength points (current strength, leaders included) charge each turn. They
//! move up to half their allowance, subject to terrain and zones of control, onto the enemy hex,
//! attack only the units there with their strength quadrupled (leaders too), with no leader die
//! modifier, no artillery and no advance after combat. If the defender stays, the surviving
//! chargers go back to the hex they charged from.

use crate::mechanics::movement;
use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::declaration::Declaration;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::pending::Pending;
use crate::position::stacking;
use crate::position::state::ground;
use crate::position::state::{Group, Loc, State, Step};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// Strength points that may charge in one turn (8.1.3).
const POINTS_PER_TURN: u8 = 15;

/// Whether `u` may charge: an Allied combat unit, volunteer or leader that did not move in the
/// Allied movement phase and has not fought this phase.
fn can_charge(scn: &Scenario, st: &State, u: UnitId) -> bool {
    let c = scn.counters.get(u);
    let us = st.unit(u);
    c.side == Side::Allied
        && matches!(
            c.kind,
            UnitKind::Combat | UnitKind::Volunteer | UnitKind::Leader
        )
        && us.hex().is_some()
        && !us.marks.moved_full
        && !us.marks.attacked
        && !us.marks.recovery_failed
}

/// Charge targets of a group: (enemy hex, MP to reach it, hex charged from).
pub fn charges(scn: &Scenario, st: &State, g: &Group) -> Vec<(Hex, u8, Hex)> {
    let has_leader = g
        .units
        .iter()
        .any(|u| scn.counters.get(*u).kind == UnitKind::Leader);
    let has_unit = g
        .units
        .iter()
        .any(|u| scn.counters.get(*u).kind != UnitKind::Leader);
    let (points, _) = stacking::load(scn, st, &g.units);
    if !has_leader || !has_unit || st.charge_points + points > POINTS_PER_TURN {
        return Vec::new();
    }
    let budget = g
        .units
        .iter()
        .map(|u| scn.counters.get(*u).movement / 2)
        .min()
        .unwrap_or(0);
    let board = HexIndex::of(scn, st);
    let reach = movement::reach(&board, Side::Allied, g.hex, budget);
    let mut out: Vec<(Hex, u8, Hex)> = Vec::new();
    for x in reach.hexes() {
        if x != g.hex && !stacking::has_room(&board, Side::Allied, x, points, 0) {
            continue;
        }
        let from = ground(&scn.map, st, x);
        for t in x.neighbours() {
            if !board.enemy_in(Side::Allied, t) || st.units_at(t).any(|u| st.unit(u).marks.defended)
            {
                continue;
            }
            let Some(step) = scn.terrain.entry_cost(
                from,
                ground(&scn.map, st, t),
                st.fortification(t).is_some(),
            ) else {
                continue;
            };
            let mp = reach.cost[x.index()].saturating_add(step);
            if mp > budget {
                continue;
            }
            match out.iter_mut().find(|(h, _, _)| *h == t) {
                Some(e) if e.1 <= mp => {}
                Some(e) => *e = (t, mp, x),
                None => out.push((t, mp, x)),
            }
        }
    }
    out.sort();
    out
}

/// Forming a charge, charging, or passing.
pub fn legal(scn: &Scenario, st: &State, group: Option<&Group>, out: &mut Vec<Action>) {
    match group {
        None => {
            for c in scn.counters.counters.iter() {
                let Some(h) = st.unit(c.id).hex() else {
                    continue;
                };
                if !can_charge(scn, st, c.id) {
                    continue;
                }
                // A charge needs a leader and a fighting unit together in the hex.
                let here: Vec<UnitKind> = st
                    .units_at(h)
                    .filter(|u| can_charge(scn, st, *u))
                    .map(|u| scn.counters.get(u).kind)
                    .collect();
                if here.contains(&UnitKind::Leader) && here.iter().any(|k| *k != UnitKind::Leader) {
                    out.push(Action::SelectUnit { unit: c.id });
                }
            }
        }
        Some(g) => {
            for u in st.units_at(g.hex) {
                if !g.units.contains(&u) && can_charge(scn, st, u) {
                    out.push(Action::SelectUnit { unit: u });
                }
            }
            out.extend(g.units.iter().map(|&unit| Action::UnselectUnit { unit }));
            for (hex, mp, _) in charges(scn, st, g) {
                out.push(Action::Charge { hex, mp });
            }
        }
    }
    out.push(Action::Pass);
}

/// Apply a bayonet action.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    match action {
        Action::SelectUnit { unit } => {
            let Some(hex) = ctx.st.unit(*unit).hex() else {
                return;
            };
            if let Step::Bayonet { group } = &mut ctx.st.step {
                match group {
                    Some(g) => g.units.push(*unit),
                    None => {
                        *group = Some(Group {
                            units: vec![*unit],
                            hex,
                            spent: 0,
                            started: false,
                            halted: false,
                        })
                    }
                }
            }
        }
        Action::UnselectUnit { unit } => {
            if let Step::Bayonet { group } = &mut ctx.st.step
                && let Some(g) = group
            {
                g.units.retain(|u| u != unit);
                if g.units.is_empty() {
                    *group = None;
                }
            }
        }
        Action::Charge { hex, .. } => charge(ctx, *hex),
        _ => {}
    }
}

fn charge(ctx: &mut Ctx<'_>, target: Hex) {
    let Step::Bayonet { group: Some(g) } = ctx.st.step.clone() else {
        return;
    };
    let Some(&(_, _, from)) = charges(ctx.scn, ctx.st, &g)
        .iter()
        .find(|(t, _, _)| *t == target)
    else {
        return;
    };
    ctx.st.step = Step::Bayonet { group: None };
    let (points, _) = stacking::load(ctx.scn, ctx.st, &g.units);
    ctx.st.charge_points += points;
    if from != g.hex {
        let board = HexIndex::of(ctx.scn, ctx.st);
        let budget = g
            .units
            .iter()
            .map(|u| ctx.scn.counters.get(*u).movement / 2)
            .min()
            .unwrap_or(0);
        let reach = movement::reach(&board, Side::Allied, g.hex, budget);
        let cost = reach.cost[from.index()];
        let path = reach.path(from);
        for &u in &g.units {
            ctx.st.unit_mut(u).loc = Loc::Map(from);
        }
        let mut full = vec![g.hex];
        full.extend(path);
        let text = format!(
            "{} move up to charge, {} → {from}",
            ctx.names(&g.units),
            g.hex
        );
        ctx.emit(
            EventKind::Moved {
                units: g.units.clone(),
                path: full,
                mp: cost,
            },
            text,
        );
    }
    ctx.st.declaration = Some(Declaration {
        attackers: g.units.clone(),
        charge_from: Some(from),
        ..Declaration::new(Side::Allied, target)
    });
    crate::mechanics::resolution::resolve(ctx);
}

/// After a charge: the chargers take the hex if the defender is gone, else stay put (R6).
pub fn occupy(ctx: &mut Ctx<'_>) -> bool {
    let Some(Pending::Occupy { side, units, hex }) = ctx.st.pending.first().cloned() else {
        return false;
    };
    ctx.st.pending.remove(0);
    let board = HexIndex::of(ctx.scn, ctx.st);
    if board.enemy_in(side, hex) {
        return true;
    }
    let survivors: Vec<UnitId> = units
        .into_iter()
        .filter(|u| ctx.st.unit(*u).hex().is_some())
        .collect();
    if survivors.is_empty() {
        return true;
    }
    let from = ctx.st.unit(survivors[0]).hex().unwrap_or(hex);
    for &u in &survivors {
        ctx.st.unit_mut(u).loc = Loc::Map(hex);
    }
    let text = format!(
        "{} carry {hex} with the bayonet (8.1.3)",
        ctx.names(&survivors)
    );
    ctx.emit(
        EventKind::Moved {
            units: survivors,
            path: vec![from, hex],
            mp: 0,
        },
        text,
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;
    use crate::position::action::Action;
    use siege_protocol::Phase;

    /// A leader and a unit that did not move, two hexes from a Boxer stack in the open.
    fn charge_kit() -> (Kit, Hex, Hex, UnitId, UnitId) {
        let mut kit = Kit::open();
        let h = kit.some_clear_hex();
        let gb = kit.put("gb1", h);
        let myers = kit.put("myers", h);
        let target = kit.hex_at_distance(h, 2);
        kit.place(UnitKind::Boxer, Side::Chinese, target);
        kit.st.turn = 2;
        kit.set(
            Phase::AlliedCombat,
            Step::Bayonet {
                group: Some(Group {
                    units: vec![gb, myers],
                    hex: h,
                    spent: 0,
                    started: false,
                    halted: false,
                }),
            },
        );
        (kit, h, target, gb, myers)
    }

    #[test]
    fn a_leader_and_unmoved_units_may_charge_within_half_their_allowance_8_1_3() {
        let (kit, h, target, gb, myers) = charge_kit();
        let Step::Bayonet { group: Some(g) } = &kit.st.step else {
            panic!()
        };
        let found = charges(&kit.scn, &kit.st, g);
        assert_eq!(found.len(), 1, "{found:?}");
        let (t, mp, from) = found[0];
        assert_eq!(t, target);
        assert_eq!(mp, 2);
        assert_eq!(from, kit.hex_at_distance(h, 1));
        // Without the leader there is no charge.
        let alone = Group {
            units: vec![gb],
            ..g.clone()
        };
        assert!(charges(&kit.scn, &kit.st, &alone).is_empty());
        let _ = myers;
    }

    #[test]
    fn units_that_moved_in_the_movement_phase_may_not_charge_8_1_3() {
        let (mut kit, _, _, gb, _) = charge_kit();
        assert!(can_charge(&kit.scn, &kit.st, gb));
        kit.st.unit_mut(gb).marks.moved_full = true;
        assert!(!can_charge(&kit.scn, &kit.st, gb));
    }

    #[test]
    fn no_more_than_15_points_charge_a_turn_8_1_3() {
        let (mut kit, _, _, _, _) = charge_kit();
        kit.st.charge_points = 11;
        let Step::Bayonet { group: Some(g) } = &kit.st.step else {
            panic!()
        };
        assert!(
            charges(&kit.scn, &kit.st, g).is_empty(),
            "4 + 1 more would make 16"
        );
    }

    #[test]
    fn the_15_points_count_current_strength_leaders_included_8_1_3_r7() {
        // British 1 reduced (2) and Myers (1) make 3 points: with 12 already charged, 15.
        let (mut kit, _, _, gb, _) = charge_kit();
        kit.st.unit_mut(gb).reduced = true;
        kit.st.charge_points = 12;
        let Step::Bayonet { group: Some(g) } = kit.st.step.clone() else {
            panic!()
        };
        assert_eq!(
            charges(&kit.scn, &kit.st, &g).len(),
            1,
            "2 + 1 more make 15"
        );
        kit.st.charge_points = 13;
        assert!(charges(&kit.scn, &kit.st, &g).is_empty(), "16 is too many");
    }

    #[test]
    fn a_charge_is_quadrupled_without_leader_modifier_or_advance_8_1_3() {
        let (mut kit, _, target, gb, myers) = charge_kit();
        let events = kit.run(|ctx| apply(ctx, &Action::Charge { hex: target, mp: 2 }));
        let report = events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Combat { report } => Some(report.clone()),
                _ => None,
            })
            .expect("the charge is resolved at once");
        assert!(report.bayonet);
        assert_eq!(report.attack, (4 + 1) * 4);
        assert_eq!(report.modifier, 0);
        assert!(kit.st.pending.iter().all(|p| !matches!(
            p,
            Pending::Advance {
                side: Side::Allied,
                ..
            }
        )));
        assert!(kit.st.unit(gb).marks.attacked && kit.st.unit(myers).marks.attacked);
        assert_eq!(kit.st.charge_points, 5);
    }
}
