//! Why an action was refused, in words with the rule that refused it. Only reached on the error
//! path: the legal-action list decides legality; this finds the most useful explanation.

use crate::mechanics::movement;
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
    let same_kind = legal.iter().any(|a| a.same_kind(action));
    if !same_kind {
        let wanted: std::collections::BTreeSet<String> = legal.iter().map(Action::kind).collect();
        return RuleError::illegal(
            codes::NOT_LEGAL_NOW,
            "4",
            format!(
                "`{}` is not possible now: it is the {} {} step; legal now: {}",
                action.kind(),
                st.phase.title(),
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

/// Why a stack in `from` cannot move to `to` (5.1, 6, 7, 18.1).
fn explain_move(scn: &Scenario, st: &State, from: Hex, to: Hex) -> RuleError {
    let board = HexIndex::new(scn, st);
    let side = phasing_side(st.phase);
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
        let left = movement::budget(scn, st, g, st.phase).unwrap_or(0);
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
