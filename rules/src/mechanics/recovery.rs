//! Step recovery in the hospital (8.6): from turn 2, at the start of each turn up to three
//! reduced two-step Allied units in a hospital hex roll a die; 1–3 restores the unit to full
//! strength, with 1 added to the roll for each doctor eliminated. At least one doctor must be in
//! the hospital. A unit that fails may not attack that turn.

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

/// Doctors eliminated so far: each adds 1 to recovery rolls (8.6).
fn doctors_lost(scn: &Scenario, st: &State) -> u8 {
    let n = scn
        .counters
        .counters
        .iter()
        .filter(|c| c.kind == UnitKind::Doctor && st.unit(c.id).loc == Loc::Eliminated)
        .count();
    u8::try_from(n).unwrap_or(u8::MAX)
}

/// Whether this turn's recovery is over.
pub fn finished(scn: &Scenario, st: &State, rolled: u8) -> bool {
    st.turn < 2 || rolled >= PER_TURN || !doctor_present(scn, st) || candidates(scn, st).is_empty()
}

/// At the start of the turn: roll for every candidate when there are no more than three.
pub fn begin(ctx: &mut Ctx<'_>) {
    if finished(ctx.scn, ctx.st, 0) {
        return;
    }
    let all = candidates(ctx.scn, ctx.st);
    if all.len() <= usize::from(PER_TURN) {
        for u in all {
            roll(ctx, u);
        }
    }
}

/// The Allied choice of which unit rolls next, when more than three could.
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

    #[test]
    fn reduced_units_in_the_hospital_roll_1_to_3_to_recover_8_6() {
        let mut kit = Kit::new();
        kit.st.turn = 2;
        kit.st.step = Step::Recovery { rolled: 0 };
        let h = kit.scn.map.hospital()[0];
        let gb = kit.put("gb1", h);
        kit.st.unit_mut(gb).reduced = true;
        kit.put("poole", h);
        assert_eq!(candidates(&kit.scn, &kit.st), vec![gb]);
        let events = kit.run(begin);
        let EventKind::Recovery { die, recovered, .. } = events[0].kind else {
            panic!()
        };
        assert_eq!(recovered, die <= 3);
        assert_eq!(kit.st.unit(gb).reduced, !recovered);
        assert_eq!(kit.st.unit(gb).marks.recovery_failed, !recovered);
    }

    #[test]
    fn no_recovery_without_a_doctor_in_the_hospital_8_6() {
        let mut kit = Kit::new();
        kit.st.turn = 3;
        let h = kit.scn.map.hospital()[0];
        let gb = kit.put("gb1", h);
        kit.st.unit_mut(gb).reduced = true;
        assert!(finished(&kit.scn, &kit.st, 0));
        assert!(kit.run(begin).is_empty());
    }

    #[test]
    fn each_lost_doctor_adds_one_to_the_roll_8_6() {
        let mut kit = Kit::new();
        assert_eq!(doctors_lost(&kit.scn, &kit.st), 0);
        let velde = kit.id("velde");
        kit.st.unit_mut(velde).loc = Loc::Eliminated;
        assert_eq!(doctors_lost(&kit.scn, &kit.st), 1);
    }
}
