//! Step recovery in the hospital (8.6; ruling R7): from turn 2, at the start of each turn, the
//! Allied player chooses which reduced two-step Allied units in hospital hexes attempt recovery —
//! up to three, or none. Each chosen unit rolls a die at once; 1–3 restores it to full strength,
//! with 1 added to the roll for each doctor that was on the map and was eliminated (a doctor a
//! custom position left out never counts). At least one doctor must be in the hospital. A unit
//! that fails may not attack that turn.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::state::{Loc, State, Step};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};

/// At most this many units try to recover each turn (8.6).
const PER_TURN: u8 = 3;

/// Reduced two-step Allied units in a hospital hex that have not yet rolled this turn.
pub fn candidates(scn: &Scenario, st: &State) -> Vec<UnitId> {
    scn.counters
        .counters
        .iter()
        .filter(|c| c.steps() == 2 && c.side == siege_protocol::Side::Allied)
        .filter(|c| {
            let u = st.unit(c.id);
            u.reduced && !u.marks.recovery_failed && u.hex().is_some_and(|h| scn.map.is_hospital(h))
        })
        .map(|c| c.id)
        .collect()
}

/// Whether a doctor is in a hospital hex (8.6).
pub fn doctor_present(scn: &Scenario, st: &State) -> bool {
    scn.counters
        .counters
        .iter()
        .filter(|c| c.kind == UnitKind::Doctor)
        .any(|c| st.unit(c.id).hex().is_some_and(|h| scn.map.is_hospital(h)))
}

/// Doctors eliminated during the game: each adds 1 to recovery rolls (8.6). A doctor absent
/// from a custom position was never on the map and is not one of them (R7).
fn doctors_lost(scn: &Scenario, st: &State) -> u8 {
    let n = scn
        .counters
        .counters
        .iter()
        .filter(|c| {
            c.kind == UnitKind::Doctor
                && st.unit(c.id).loc == Loc::Eliminated
                && !st.absent.contains(&c.id)
        })
        .count();
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// Whether this turn's recovery is over: before turn 2, three attempts made, no doctor in the
/// hospital or nobody left to try.
pub fn finished(scn: &Scenario, st: &State, rolled: u8) -> bool {
    st.turn < 2 || rolled >= PER_TURN || !doctor_present(scn, st) || candidates(scn, st).is_empty()
}

/// The Allied choice (8.6, R7): any candidate attempts next, or none more this turn (`pass`).
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    let Step::Recovery { rolled } = st.step else {
        return;
    };
    if finished(scn, st, rolled) {
        return;
    }
    for unit in candidates(scn, st) {
        out.push(Action::AttemptRecovery { unit });
    }
    out.push(Action::Pass);
}

/// Roll for the chosen unit.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    if let Action::AttemptRecovery { unit } = action {
        roll(ctx, *unit);
    }
}

fn roll(ctx: &mut Ctx<'_>, u: UnitId) {
    if let Step::Recovery { rolled } = &mut ctx.st.step {
        *rolled += 1;
    }
    let die = ctx.roll();
    let modified = die + doctors_lost(ctx.scn, ctx.st);
    let recovered = modified <= 3;
    let name = ctx.name(u);
    let text = if recovered {
        ctx.st.unit_mut(u).reduced = false;
        format!("{name} recover in the hospital: rolled {die}, {modified} needs 1-3 (8.6)")
    } else {
        ctx.st.unit_mut(u).marks.recovery_failed = true;
        format!(
            "{name} fail to recover: rolled {die}, {modified} needs 1-3; they may not attack this turn (8.6)"
        )
    };
    ctx.emit(
        EventKind::Recovery {
            unit: u,
            die,
            modified,
            recovered,
        },
        text,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;
    use crate::position::step_id::StepId;

    /// Turn 3's recovery step with the reduced British 1 and Dr Poole in the hospital.
    fn hospital() -> (Kit, UnitId) {
        let mut kit = Kit::new();
        kit.st.turn = 3;
        kit.set(siege_protocol::Phase::BigGun, Step::Recovery { rolled: 0 });
        let h = kit.scn.map.hospital()[0];
        let gb = kit.put("gb1", h);
        kit.st.unit_mut(gb).reduced = true;
        kit.put("poole", h);
        (kit, gb)
    }

    #[test]
    fn reduced_units_in_the_hospital_roll_1_to_3_to_recover_8_6() {
        let (mut kit, gb) = hospital();
        assert_eq!(candidates(&kit.scn, &kit.st), vec![gb]);
        let events = kit.run(|ctx| apply(ctx, &Action::AttemptRecovery { unit: gb }));
        let EventKind::Recovery { die, recovered, .. } = events[0].kind else {
            panic!()
        };
        assert_eq!(recovered, die <= 3);
        assert_eq!(kit.st.unit(gb).reduced, !recovered);
        assert_eq!(kit.st.unit(gb).marks.recovery_failed, !recovered);
    }

    #[test]
    fn recovery_is_the_allied_players_choice_of_up_to_three_or_none_8_6_r7() {
        let (kit, gb) = hospital();
        let mut game = kit.game();
        // Nothing is rolled before the Allies choose, and they may choose none.
        assert_eq!(game.to_act(), Some(siege_protocol::Side::Allied));
        let legal = game.legal_actions(siege_protocol::Side::Allied);
        assert_eq!(
            legal,
            vec![Action::AttemptRecovery { unit: gb }, Action::Pass]
        );
        let events = game
            .apply(siege_protocol::Side::Allied, &Action::Pass)
            .unwrap();
        assert!(
            !events
                .iter()
                .any(|e| matches!(e.kind, EventKind::Recovery { .. }))
        );
        assert!(game.state().unit(gb).reduced, "no roll, no recovery");
        assert_eq!(game.state().step, Step::BigGunPlace);
        // Four candidates: the Allies pick three, one at a time, and the step ends itself.
        // (Each in a hospital hex of its own: recovered units may over-stack a hex, 8.6, 7.)
        let (mut kit, _) = hospital();
        let beds = kit.scn.map.hospital().to_vec();
        for (i, code) in ["gb2", "ru1", "ru2"].into_iter().enumerate() {
            let u = kit.put(code, beds[(i + 1) % beds.len()]);
            kit.st.unit_mut(u).reduced = true;
        }
        let mut game = kit.game();
        for _ in 0..3 {
            let choice = game
                .legal_actions(siege_protocol::Side::Allied)
                .into_iter()
                .find(|a| matches!(a, Action::AttemptRecovery { .. }))
                .expect("a unit may still try");
            game.apply(siege_protocol::Side::Allied, &choice).unwrap();
        }
        assert_ne!(
            game.state().slot,
            StepId::Recovery,
            "three attempts a turn at most"
        );
    }

    #[test]
    fn no_recovery_without_a_doctor_in_the_hospital_8_6() {
        let mut kit = Kit::new();
        kit.st.turn = 3;
        let h = kit.scn.map.hospital()[0];
        let gb = kit.put("gb1", h);
        kit.st.unit_mut(gb).reduced = true;
        assert!(finished(&kit.scn, &kit.st, 0));
        let mut out = Vec::new();
        kit.set(siege_protocol::Phase::BigGun, Step::Recovery { rolled: 0 });
        legal(&kit.scn, &kit.st, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn each_lost_doctor_adds_one_to_the_roll_8_6() {
        let mut kit = Kit::new();
        assert_eq!(doctors_lost(&kit.scn, &kit.st), 0);
        let velde = kit.id("velde");
        kit.st.unit_mut(velde).loc = Loc::Eliminated;
        assert_eq!(doctors_lost(&kit.scn, &kit.st), 1);
    }

    #[test]
    fn a_doctor_left_out_of_a_custom_position_is_not_lost_8_6_r7() {
        let mut kit = Kit::new();
        let velde = kit.id("velde");
        kit.st.unit_mut(velde).loc = Loc::Eliminated;
        kit.st.absent.push(velde);
        assert_eq!(doctors_lost(&kit.scn, &kit.st), 0);
        // And the roll is read unmodified: a 3 recovers.
        let (mut kit, gb) = hospital();
        kit.st.unit_mut(velde).loc = Loc::Eliminated;
        kit.st.absent.push(velde);
        kit.rig(&[3]);
        kit.run(|ctx| apply(ctx, &Action::AttemptRecovery { unit: gb }));
        assert!(!kit.st.unit(gb).reduced);
    }
}
