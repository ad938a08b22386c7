//! Why an action was refused, in words with the rule that refused it. Only reached on the error
//! path: the legal-action list decides legality; this finds the most useful explanation.

use crate::mechanics::{entry, movement, setup};
use crate::position::action::Action;
use crate::position::hex_index::HexIndex;
use crate::position::stacking;
use crate::position::state::ground;
use crate::position::state::phasing_side;
use crate::position::state::{State, Step};
use crate::sequence::play;
use crate::vocabulary::error::RuleError;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::Ground;
use siege_protocol::codes;

/// The refusal of `action`, which is not among `legal`.
pub fn refusal(scn: &Scenario, st: &State, action: &Action, legal: &[Action]) -> RuleError {
    if let Some(e) = by_rule(scn, st, action) {
        return e;
    }
    let same_kind = legal.iter().any(|a| a.same_kind(action));
    if !same_kind {
        let wanted: std::collections::BTreeSet<String> = legal.iter().map(Action::kind).collect();
        return RuleError::illegal(
            codes::NOT_LEGAL_NOW,
            "4",
            format!(
                "`{}` is not possible now: it is the {} {} step; legal now: {}",
                action.kind(),
                st.phase().title(),
                play::step_name(st).replace('_', " "),
                wanted.into_iter().collect::<Vec<_>>().join(", ")
            ),
        );
    }
    if let (Action::Move { to, .. }, Step::Move { group: Some(g) }) = (action, &st.step) {
        return explain_move(scn, st, g.hex, *to);
    }
    if let Action::Move { to, mp } = action
        && legal
            .iter()
            .any(|a| matches!(a, Action::Move { to: t, .. } if t == to))
    {
        return RuleError::illegal(
            codes::WRONG_COST,
            "5.1",
            format!(
                "moving to {to} costs a different number of MP than {mp}: send the action back unchanged"
            ),
        );
    }
    RuleError::illegal(
        codes::NOT_A_LEGAL_CHOICE,
        "4",
        format!(
            "{} is not one of the legal choices now",
            serde_json::to_string(action).unwrap_or_default()
        ),
    )
}

/// The refusal of the rule that forbids `action`, for the actions whose rules say more than
/// "not one of the choices": entering at a full or wrong hex (22, 7, R6), selecting while
/// another stack is selected (5), placing outside the setup area or over the limit (22, 7).
fn by_rule(scn: &Scenario, st: &State, action: &Action) -> Option<RuleError> {
    match (action, &st.step) {
        (Action::Enter { hex, units }, Step::Entry { .. }) => {
            entry::why_not_enter(scn, st, *hex, units)
        }
        (Action::SelectStack { hex }, Step::Move { .. }) => {
            movement::why_not_select(scn, st, Some(*hex))
        }
        // An id that names no unit is refused below as no choice at all.
        (Action::SelectUnit { unit }, Step::Move { .. })
            if st.units.get(unit.index()).is_some() =>
        {
            movement::why_not_select(scn, st, st.unit(*unit).hex())
        }
        (Action::Place { hex }, Step::AlliedSetup { .. }) => setup::why_not_place(scn, st, *hex),
        _ => None,
    }
}

/// Why a stack in `from` cannot move to `to` (5.1, 6, 7, 18.1).
fn explain_move(scn: &Scenario, st: &State, from: Hex, to: Hex) -> RuleError {
    let board = HexIndex::of(scn, st);
    let side = phasing_side(st.phase());
    if ground(&scn.map, st, to) == Ground::Canal {
        return RuleError::illegal(
            codes::TERRAIN,
            "5.1",
            format!("{to} is canal: no unit may enter it (5.1, R3)"),
        );
    }
    if board.enemy_in(side, to) {
        return RuleError::illegal(
            codes::ENEMY_HEX,
            "5.1",
            format!("{to} holds enemy units: no unit may enter it (5.1)"),
        );
    }
    if board.in_zoc_of(side.other(), from)
        && to.is_adjacent(from)
        && board.in_zoc_of(side.other(), to)
    {
        return RuleError::illegal(
            codes::ZOC,
            "6",
            format!(
                "{from} and {to} are both in enemy ZOC: no moving directly from one enemy ZOC to another (6)"
            ),
        );
    }
    if let Step::Move { group: Some(g) } = &st.step {
        if g.halted {
            return RuleError::illegal(
                codes::ZOC,
                "6",
                format!("the stack entered an enemy ZOC at {from} and must stop (6)"),
            );
        }
        let (points, guns) = stacking::load(scn, st, &g.units);
        if let Err(e) = stacking::fits(&board, side, to, points, guns) {
            return e;
        }
        let left = movement::budget(scn, st, g, st.phase()).unwrap_or(0);
        return RuleError::illegal(
            codes::MOVEMENT_POINTS,
            "5.1",
            format!(
                "{to} cannot be reached from {from} with {left} MP left without passing an enemy unit, the canal or an enemy ZOC (5.1, 6, R3)"
            ),
        );
    }
    RuleError::illegal(
        codes::NOT_A_LEGAL_CHOICE,
        "5",
        format!("{to} is not a legal destination"),
    )
}

#[cfg(test)]
mod tests {
    use crate::face::testkit::{Kit, hex};
    use crate::position::action::Action;
    use crate::position::state::{Group, Step};
    use crate::vocabulary::units::{UnitId, UnitKind};
    use siege_protocol::{Phase, Side};

    #[test]
    fn selecting_elsewhere_while_a_stack_is_moving_is_refused_with_rule_5_and_a_bad_id_changes_nothing()
     {
        let mut kit = Kit::open();
        let a = kit.some_clear_hex_where(|k, h| k.open_around(h, 2));
        let b = kit.some_clear_hex_where(|k, h| k.open_around(h, 2) && h.distance(a) > 4);
        let moving = kit.place(UnitKind::Combat, Side::Allied, a);
        let other = kit.place(UnitKind::Combat, Side::Allied, b);
        kit.at(
            3,
            Phase::AlliedMovement,
            Step::Move {
                group: Some(Group {
                    units: vec![moving],
                    hex: a,
                    spent: 1,
                    started: true,
                    halted: false,
                }),
            },
        );
        let mut game = kit.game();
        let before = game.state_hash();
        let e = game
            .apply(Side::Allied, &Action::SelectStack { hex: b })
            .unwrap_err();
        assert_eq!(e.rule(), Some("5"));
        assert!(e.to_string().contains("have begun moving"), "{e}");
        let e = game
            .apply(Side::Allied, &Action::SelectUnit { unit: other })
            .unwrap_err();
        assert_eq!(e.rule(), Some("5"));
        // An id that names no unit is no choice: refused, never a crash.
        assert!(
            game.apply(Side::Allied, &Action::SelectUnit { unit: UnitId(999) })
                .is_err()
        );
        assert!(
            game.apply(
                Side::Allied,
                &Action::Enter {
                    hex: hex("0501"),
                    units: vec![UnitId(999)]
                }
            )
            .is_err()
        );
        assert_eq!(game.state_hash(), before);
    }
}
