//! Attrition (14; ruling R6): from turn 2, at the start of the Allied movement phase, the Allied
//! player removes one combat unit or volunteers of his choice from the game — disease, shelling
//! and the rest of the siege's slow losses.

use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::state::{Loc, State};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::UnitKind;
use siege_protocol::Side;

/// The units the Allied player may remove (R6: not leaders, artillery, civilians or doctors).
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    if st.turn >= 2 {
        for c in scn.counters.counters.iter() {
            if c.side == Side::Allied
                && matches!(c.kind, UnitKind::Combat | UnitKind::Volunteer)
                && matches!(st.unit(c.id).loc, Loc::Map(_))
            {
                out.push(Action::RemoveUnit { unit: c.id });
            }
        }
    }
    if out.is_empty() {
        out.push(Action::Pass);
    }
}

/// Remove the chosen unit, then move on to Allied movement.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    if let Action::RemoveUnit { unit } = action {
        let hex = ctx.st.unit(*unit).hex();
        ctx.st.unit_mut(*unit).loc = Loc::Eliminated;
        let at = hex.map_or(String::new(), |h| format!(" at {h}"));
        let text = format!(
            "Attrition: {}{at} are removed from the game (14)",
            ctx.name(*unit)
        );
        ctx.emit(EventKind::Attrition { unit: *unit, hex }, text);
        ctx.step_done = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::Kit;

    #[test]
    fn attrition_removes_a_combat_unit_from_turn_2_but_never_a_leader_14_r6() {
        let mut kit = Kit::new();
        kit.deploy_allies();
        kit.st.turn = 1;
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &mut out);
        assert_eq!(out, vec![Action::Pass]);
        kit.st.turn = 2;
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &mut out);
        assert_eq!(out.len(), 18);
        let myers = kit.id("myers");
        assert!(!out.contains(&Action::RemoveUnit { unit: myers }));
    }
}
