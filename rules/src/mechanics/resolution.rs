//! Combat resolution (8.2; rulings R4, R6): the die is rolled once for each attack, the modified
//! roll read on the odds column, and the result applied at once — step losses with the owner's
//! choice of unit, EX by nominal strength, retreats of the losing stacks, then the advance into
//! a hex the result emptied, by retreat or by elimination, for either side (8.4, R7). Ranged
//! fire alone takes no adverse result; leaders are eliminated only alone and are otherwise moved
//! to the nearest friendly unit.

use crate::mechanics::combat::defending_units;
use crate::mechanics::report;
use crate::position::combat_report::CombatReport;
use crate::position::ctx::Ctx;
use crate::position::declaration::Declaration;
use crate::position::event::EventKind;
use crate::position::pending::Pending;
use crate::vocabulary::crt::{self, CrtResult};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::units::{UnitId, UnitKind};
use crate::{mechanics::advance, mechanics::losses, mechanics::retreat};
use siege_protocol::Side;

/// Roll the die and apply the result of the declared combat (8.2).
pub fn resolve(ctx: &mut Ctx<'_>) {
    let Some(d) = ctx.st.declaration.take() else {
        return;
    };
    let mut rep = report::compute(ctx.scn, ctx.st, &d);
    let die = ctx.roll();
    let modified = (i16::from(die) + i16::from(rep.modifier)).clamp(1, 6) as u8;
    let raw = crt::odds(rep.attack, rep.defence);
    let column = crt::shift(raw, rep.shift);
    let result = ctx.scn.crt.result(column, modified as i8);
    rep.die = Some(die);
    rep.modified = Some(modified);
    rep.result = Some(result);
    for &u in d.attackers.iter().chain(&d.artillery) {
        ctx.st.unit_mut(u).marks.attacked = true;
    }
    let defenders = defending_units(ctx.st, &d);
    for &u in &defenders {
        ctx.st.unit_mut(u).marks.defended = true;
    }
    let text = report::describe(ctx.scn, &rep, &d);
    ctx.st.last_combat = Some(std::sync::Arc::new(rep.clone()));
    ctx.emit(
        EventKind::Combat {
            report: Box::new(rep.clone()),
        },
        text,
    );
    apply_result(ctx, &d, &rep, result, defenders);
}

/// Apply a CRT result (8.2; R6): losses with the owner's choice, retreats, then the advances
/// into every hex the result may have emptied (8.4, R7).
fn apply_result(
    ctx: &mut Ctx<'_>,
    d: &Declaration,
    rep: &CombatReport,
    result: CrtResult,
    defenders: Vec<UnitId>,
) {
    let attacker = d.side;
    let defender = attacker.other();
    let adjacent: Vec<UnitId> = rep.adjacent.clone();
    let fighters: Vec<UnitId> = adjacent
        .iter()
        .copied()
        .filter(|u| ctx.scn.counters.get(*u).kind != UnitKind::Leader)
        .collect();
    let charge = d.charge_from.is_some();
    // Where the adjacent attackers stand before the result moves or removes them.
    let mut attack_hexes: Vec<Hex> = match d.charge_from {
        Some(h) => vec![h],
        None => adjacent
            .iter()
            .filter_map(|u| ctx.st.unit(*u).hex())
            .collect(),
    };
    attack_hexes.sort();
    attack_hexes.dedup();
    let cause = format!(
        "{result} at {}",
        d.defenders
            .iter()
            .map(Hex::to_string)
            .collect::<Vec<_>>()
            .join("/")
    );
    match result {
        CrtResult::AR => retreat_attackers(ctx, d, &adjacent),
        CrtResult::AL1 => {
            let cands = losses::candidates(ctx.scn, ctx.st, &fighters);
            losses::push_loss(ctx, attacker, cands, 1, 0, &cause);
            retreat_attackers(ctx, d, &adjacent);
        }
        CrtResult::AE => {
            for &u in &fighters {
                losses::eliminate(ctx, u, &cause);
            }
        }
        CrtResult::DR => retreat_defenders(ctx, d, defender),
        CrtResult::DL1 => {
            let cands = losses::candidates(ctx.scn, ctx.st, &defenders);
            losses::push_loss(ctx, defender, cands, 1, 0, &cause);
            retreat_defenders(ctx, d, defender);
        }
        CrtResult::DE | CrtResult::EX => {
            eliminate_defenders(ctx, &defenders, &cause);
            if result == CrtResult::EX {
                let points = u8::try_from(rep.defence_base).unwrap_or(u8::MAX).max(1);
                let cands = losses::candidates(ctx.scn, ctx.st, &fighters);
                let cause = format!("EX: at least {points} strength points (8.2, R6)");
                losses::push_loss(ctx, attacker, cands, 0, points, &cause);
            }
        }
    }
    if charge {
        // The chargers take the hex if the defender is gone, else stay where they charged from (R6).
        ctx.st.pending.push(Pending::Occupy {
            side: attacker,
            units: d.attackers.clone(),
            hex: d.defenders[0],
        });
    } else if matches!(
        result,
        CrtResult::DR | CrtResult::DL1 | CrtResult::DE | CrtResult::EX
    ) {
        // The losing hexes are emptied by retreat or by elimination: every attacker took part,
        // those firing at range included (8.4, R7).
        advance::push(ctx, attacker, d.attackers.clone(), d.defenders.clone());
    }
    if matches!(
        result,
        CrtResult::AR | CrtResult::AL1 | CrtResult::AE | CrtResult::EX
    ) {
        // The attackers' adjacent hexes may be emptied the same ways: the defender may advance
        // into them (8.4, R7).
        advance::push(ctx, defender, defenders, attack_hexes);
    }
    if adjacent.is_empty() && matches!(result, CrtResult::AR | CrtResult::AL1 | CrtResult::AE) {
        ctx.emit(
            EventKind::Skipped {
                phase: ctx.st.phase(),
                step: "adverse_result".into(),
            },
            "Ranged fire alone takes no adverse result (8.1.1)".into(),
        );
    }
}

fn retreat_attackers(ctx: &mut Ctx<'_>, d: &Declaration, adjacent: &[UnitId]) {
    let mut hexes: Vec<Hex> = adjacent
        .iter()
        .filter_map(|u| ctx.st.unit(*u).hex())
        .collect();
    hexes.sort();
    hexes.dedup();
    for h in hexes {
        let units: Vec<UnitId> = adjacent
            .iter()
            .copied()
            .filter(|u| ctx.st.unit(*u).hex() == Some(h))
            .collect();
        retreat::push(ctx, d.side, units, h);
    }
}

fn retreat_defenders(ctx: &mut Ctx<'_>, d: &Declaration, defender: Side) {
    for &h in &d.defenders {
        let units: Vec<UnitId> = ctx.st.units_at(h).collect();
        retreat::push(ctx, defender, units, h);
    }
}

/// DE and the defender's half of EX: every defending unit is eliminated; leaders stacked with
/// combat units go to the nearest friendly unit instead, leaders alone are eliminated (11.1).
fn eliminate_defenders(ctx: &mut Ctx<'_>, defenders: &[UnitId], cause: &str) {
    let had_combat: Vec<Hex> = defenders
        .iter()
        .filter(|u| ctx.scn.counters.get(**u).kind.is_combat_unit())
        .filter_map(|u| ctx.st.unit(*u).hex())
        .collect();
    for &u in defenders {
        let kind = ctx.scn.counters.get(u).kind;
        let hex = ctx.st.unit(u).hex();
        if kind == UnitKind::Leader && hex.is_some_and(|h| had_combat.contains(&h)) {
            continue;
        }
        if kind != UnitKind::Leader {
            losses::eliminate(ctx, u, cause);
        }
    }
    for &u in defenders {
        let kind = ctx.scn.counters.get(u).kind;
        let hex = ctx.st.unit(u).hex();
        if kind == UnitKind::Leader && hex.is_some_and(|h| !had_combat.contains(&h)) {
            losses::eliminate(ctx, u, cause);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};
    use crate::position::action::Action;
    use crate::position::state::Loc;
    use siege_protocol::Phase;

    fn report(
        scn: &crate::vocabulary::scenario::Scenario,
        st: &crate::position::state::State,
        d: &Declaration,
    ) -> CombatReport {
        report::compute(scn, st, d)
    }

    #[test]
    fn ranged_fire_alone_takes_no_adverse_result_8_1_1() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1011"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let d = kit.declare(Side::Allied, &["1013"], &[gb]);
        let r = report(&kit.scn, &kit.st, &d);
        let events = kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::AE, vec![bx]));
        assert_eq!(kit.st.unit(gb).loc, Loc::Map(hex("1011")));
        assert!(events.iter().any(|e| e.text.contains("no adverse result")));
    }

    #[test]
    fn an_exchange_costs_the_attacker_at_least_the_defenders_nominal_strength_8_2_r6() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let g1 = kit.put("gb1", hex("1013"));
        let g2 = kit.put("gb2", hex("1013"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        kit.st.unit_mut(bx).reduced = true;
        let d = kit.declare(Side::Allied, &["1014"], &[g1, g2]);
        let r = report(&kit.scn, &kit.st, &d);
        assert_eq!(r.defence_base, 5);
        kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::EX, vec![bx]));
        assert_eq!(kit.st.unit(bx).loc, Loc::Eliminated);
        let Some(Pending::StepLoss { points, .. }) = kit.st.pending.first() else {
            panic!("{:?}", kit.st.pending)
        };
        assert_eq!(*points, 5);
        // Flipping British 1 is worth 2, eliminating the reduced unit 2 more, then British 2 flips: 6 >= 5.
        for _ in 0..3 {
            let unit = if kit.st.unit(g1).hex().is_some() {
                g1
            } else {
                g2
            };
            kit.run(|ctx| crate::mechanics::losses::apply_choice(ctx, &Action::LoseStep { unit }));
        }
        assert!(
            kit.st
                .pending
                .iter()
                .all(|p| !matches!(p, Pending::StepLoss { .. }))
        );
        assert_eq!(kit.st.unit(g1).loc, Loc::Eliminated);
        assert!(kit.st.unit(g2).reduced);
    }

    #[test]
    fn dl1_takes_a_step_then_retreats_and_the_allies_advance_only_with_a_leader_8_2_8_4() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1013"));
        let b1 = kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let d = kit.declare(Side::Allied, &["1014"], &[gb]);
        let r = report(&kit.scn, &kit.st, &d);
        kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::DL1, vec![b1]));
        let kinds: Vec<&str> = kit.st.pending.iter().map(Pending::name).collect();
        assert_eq!(
            kinds,
            ["step_loss", "retreat"],
            "no advance without a leader"
        );
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1013"));
        let myers = kit.put("myers", hex("1013"));
        let b1 = kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let d = kit.declare(Side::Allied, &["1014"], &[gb, myers]);
        let r = report(&kit.scn, &kit.st, &d);
        kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::DL1, vec![b1]));
        let kinds: Vec<&str> = kit.st.pending.iter().map(Pending::name).collect();
        assert_eq!(kinds, ["step_loss", "retreat", "advance"]);
    }

    /// The advances offered now to `side`, as (unit, hex) pairs.
    fn advances(kit: &Kit) -> Vec<(UnitId, Hex)> {
        let mut out = Vec::new();
        for p in &kit.st.pending {
            if let Pending::Advance { units, hexes, .. } = p {
                let mut legal = Vec::new();
                advance::legal(&kit.scn, &kit.st, units, hexes, &mut legal);
                out.extend(legal.into_iter().filter_map(|a| match a {
                    Action::Advance { unit, to } => Some((unit, to)),
                    _ => None,
                }));
            }
        }
        out
    }

    #[test]
    fn a_de_empties_the_hex_and_the_attacker_may_advance_8_4_r7() {
        let mut kit = Kit::combat(Phase::ChineseCombat);
        let gb = kit.put("gb1", hex("1014"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let d = kit.declare(Side::Chinese, &["1014"], &[bx]);
        let r = report(&kit.scn, &kit.st, &d);
        kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::DE, vec![gb]));
        assert_eq!(kit.st.unit(gb).loc, Loc::Eliminated);
        assert_eq!(advances(&kit), vec![(bx, hex("1014"))]);
    }

    #[test]
    fn an_exchange_empties_the_defenders_hex_and_the_attacker_may_advance_8_4_r7() {
        // Two Boxers against British 1: EX. The British are gone; the Boxers pay their points,
        // then either may take 1014. The defenders, all eliminated, have nobody to advance.
        let mut kit = Kit::combat(Phase::ChineseCombat);
        let gb = kit.put("gb1", hex("1014"));
        let b1 = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let b2 = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let d = kit.declare(Side::Chinese, &["1014"], &[b1, b2]);
        let r = report(&kit.scn, &kit.st, &d);
        kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::EX, vec![gb]));
        assert_eq!(kit.st.unit(gb).loc, Loc::Eliminated);
        while matches!(kit.st.pending.first(), Some(Pending::StepLoss { .. })) {
            kit.run(|ctx| {
                crate::mechanics::losses::apply_choice(ctx, &Action::LoseStep { unit: b1 })
            });
        }
        // Either Boxer may take the hex, and nothing is offered to the eliminated British.
        assert_eq!(advances(&kit), vec![(b1, hex("1014")), (b2, hex("1014"))]);
    }

    #[test]
    fn an_ae_empties_the_attackers_hex_and_the_defender_may_advance_8_4_r7() {
        // The Boxers attacking British and Myers are eliminated: the British may take 1013,
        // Myers having defended with them.
        let mut kit = Kit::combat(Phase::ChineseCombat);
        let gb = kit.put("gb1", hex("1014"));
        let myers = kit.put("myers", hex("1014"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let d = kit.declare(Side::Chinese, &["1014"], &[bx]);
        let r = report(&kit.scn, &kit.st, &d);
        kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::AE, vec![gb, myers]));
        assert_eq!(kit.st.unit(bx).loc, Loc::Eliminated);
        assert!(advances(&kit).contains(&(gb, hex("1013"))));
        // Without a leader the Allies do not advance (8.4).
        let mut kit = Kit::combat(Phase::ChineseCombat);
        let gb = kit.put("gb1", hex("1014"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let d = kit.declare(Side::Chinese, &["1014"], &[bx]);
        let r = report(&kit.scn, &kit.st, &d);
        kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::AE, vec![gb]));
        assert!(advances(&kit).is_empty());
    }

    /// Play a resolved combat on through the public API: the Chinese take their step losses on
    /// `chinese_loss` first, each displaced leader goes where he is offered, and every other
    /// interruption is passed, until `side` is offered an advance or nothing is pending.
    fn play_until_advance(
        game: &mut crate::face::game::Game,
        side: Side,
        chinese_loss: UnitId,
    ) -> Vec<(UnitId, Hex)> {
        for _ in 0..20 {
            let Some(p) = game.state().pending.first().cloned() else {
                break;
            };
            let who = p.side();
            let legal = game.legal_actions(who);
            if let Pending::Advance { side: s, .. } = p
                && s == side
            {
                return legal
                    .into_iter()
                    .filter_map(|a| match a {
                        Action::Advance { unit, to } => Some((unit, to)),
                        _ => None,
                    })
                    .collect();
            }
            let choice = legal
                .iter()
                .find(|a| matches!(a, Action::LoseStep { unit } if *unit == chinese_loss))
                .or_else(|| {
                    legal
                        .iter()
                        .find(|a| matches!(a, Action::PlaceLeader { .. }))
                })
                .or_else(|| legal.iter().find(|a| matches!(a, Action::Pass)))
                .or_else(|| legal.first())
                .cloned()
                .unwrap_or_else(|| panic!("nothing to do for {p:?}"));
            game.apply(who, &choice).unwrap();
        }
        Vec::new()
    }

    #[test]
    fn an_al1_that_empties_the_attackers_hex_lets_the_defender_advance_8_4_r7() {
        // Reduced British 1 (2) attack reduced Boxers (5): 1-3, and a 3 reads AL1. The British
        // lose their last step, 1013 is empty, and the Boxers may take it.
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1013"));
        kit.st.unit_mut(gb).reduced = true;
        // Far off, so that the Allies are not wiped out by the loss (21).
        kit.put("gb2", hex("2020"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        kit.st.unit_mut(bx).reduced = true;
        let d = kit.declare(Side::Allied, &["1014"], &[gb]);
        assert_eq!(report(&kit.scn, &kit.st, &d).column, "1-3");
        kit.rig(&[3]);
        let mut game = kit.game();
        let events = game.apply(Side::Allied, &Action::Resolve).unwrap();
        assert!(
            events.iter().any(|e| e.text.contains(": AL1")),
            "{:?}",
            events.iter().map(|e| &e.text).collect::<Vec<_>>()
        );
        let offered = play_until_advance(&mut game, Side::Chinese, bx);
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert_eq!(offered, vec![(bx, hex("1013"))]);
        game.apply(
            Side::Chinese,
            &Action::Advance {
                unit: bx,
                to: hex("1013"),
            },
        )
        .unwrap();
        assert_eq!(game.state().unit(bx).loc, Loc::Map(hex("1013")));
    }

    #[test]
    fn an_exchange_that_empties_the_attackers_hex_lets_the_defender_advance_8_4_r7() {
        // Reduced Boxers in 1013 and full Boxers in 1115 (15) attack reduced British 1 and Myers
        // in 1014 (3): 5-1, and a 3 reads EX. The British are eliminated and Myers, left alone,
        // joins the nearest friendly unit, British 2 in 0914. The Chinese pay with the reduced
        // Boxers (5 points for 3), which empties 1013, and Myers, who took part in the defence,
        // is offered it.
        let mut kit = Kit::combat(Phase::ChineseCombat);
        let gb = kit.put("gb1", hex("1014"));
        kit.st.unit_mut(gb).reduced = true;
        let myers = kit.put("myers", hex("1014"));
        kit.put("gb2", hex("0914"));
        let b1 = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        kit.st.unit_mut(b1).reduced = true;
        let b2 = kit.place(UnitKind::Boxer, Side::Chinese, hex("1115"));
        let mut d = kit.declare(Side::Chinese, &["1014"], &[b1, b2]);
        d.defender_leaders_chosen = true;
        kit.st.declaration = Some(d.clone());
        assert_eq!(report(&kit.scn, &kit.st, &d).column, "5-1");
        kit.rig(&[3]);
        let mut game = kit.game();
        let events = game.apply(Side::Chinese, &Action::Resolve).unwrap();
        assert!(
            events.iter().any(|e| e.text.contains(": EX")),
            "{:?}",
            events.iter().map(|e| &e.text).collect::<Vec<_>>()
        );
        let offered = play_until_advance(&mut game, Side::Allied, b1);
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert_eq!(game.state().unit(b1).loc, Loc::Eliminated);
        assert_eq!(game.state().unit(b2).loc, Loc::Map(hex("1115")));
        assert_eq!(game.state().unit(myers).loc, Loc::Map(hex("0914")));
        assert_eq!(offered, vec![(myers, hex("1013"))]);
    }

    #[test]
    fn a_leader_firing_at_range_took_part_and_lets_the_allies_advance_8_4_r7() {
        // Volunteers beside the Boxers; British 1 and Myers fire from 1011, three hexes off.
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let vol = kit.put("vol1", hex("1015"));
        let gb = kit.put("gb1", hex("1011"));
        let myers = kit.put("myers", hex("1011"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let d = kit.declare(Side::Allied, &["1014"], &[vol, gb, myers]);
        let r = report(&kit.scn, &kit.st, &d);
        assert_eq!(r.ranged, vec![gb, myers]);
        kit.run(|ctx| apply_result(ctx, &d, &r, CrtResult::DR, vec![bx]));
        // The Boxers retreat (moved off here by hand); the volunteers may take their hex.
        kit.st.unit_mut(bx).loc = Loc::Map(hex("1017"));
        kit.st.pending.retain(|p| !matches!(p, Pending::Retreat(_)));
        assert_eq!(advances(&kit), vec![(vol, hex("1014"))]);
    }
}
