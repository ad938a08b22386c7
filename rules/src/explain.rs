//! Why an action was refused, in words with the rule that refused it. Only reached on the error
//! path: the legal-action list decides legality; this finds the most useful explanation.

use super::action::Action;
use super::board::Board;
use super::error::RuleError;
use super::hex::Hex;
use super::movement;
use super::phases;
use super::scenario::Scenario;
use super::stacking;
use super::state::{State, Step};
use super::terrain::{Ground, ground};

/// The refusal of `action`, which is not among `legal`.
pub fn refusal(scn: &Scenario, st: &State, action: &Action, legal: &[Action]) -> RuleError {
    let same_kind = legal.iter().any(|a| a.kind() == action.kind());
    if !same_kind {
        let wanted: Vec<&str> = {
            let mut k: Vec<&str> = legal.iter().map(Action::kind).collect();
            k.dedup();
            k.sort_unstable();
            k.dedup();
            k
        };
        return RuleError::illegal(
            "not_legal_now",
            "4",
            format!(
                "`{}` is not possible now: it is the {} {} step; legal now: {}",
                action.kind(),
                st.phase.title(),
                phases::step_name(&st.step).replace('_', " "),
                wanted.join(", ")
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
            "wrong_cost",
            "5.1",
            format!(
                "moving to {to} costs a different number of MP than {mp}: send the action back unchanged"
            ),
        );
    }
    RuleError::illegal(
        "not_a_legal_choice",
        "4",
        format!(
            "{} is not one of the legal choices now",
            serde_json::to_string(action).unwrap_or_default()
        ),
    )
}

/// Why a stack in `from` cannot move to `to` (5.1, 6, 7, 18.1).
fn explain_move(scn: &Scenario, st: &State, from: Hex, to: Hex) -> RuleError {
    let board = Board::new(scn, st);
    let side = movement::mover(st.phase);
    if ground(&scn.map, st, to) == Ground::Canal {
        return RuleError::illegal(
            "terrain",
            "5.1",
            format!("{to} is canal: no unit may enter it (5.1, R3)"),
        );
    }
    if board.enemy_in(side, to) {
        return RuleError::illegal(
            "enemy_hex",
            "5.1",
            format!("{to} holds enemy units: no unit may enter it (5.1)"),
        );
    }
    if board.in_zoc_of(side.other(), from)
        && to.is_adjacent(from)
        && board.in_zoc_of(side.other(), to)
    {
        return RuleError::illegal(
            "zoc",
            "6",
            format!(
                "{from} and {to} are both in enemy ZOC: no moving directly from one enemy ZOC to another (6)"
            ),
        );
    }
    if let Step::Move { group: Some(g) } = &st.step {
        if g.halted {
            return RuleError::illegal(
                "zoc",
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
            "movement_points",
            "5.1",
            format!(
                "{to} cannot be reached from {from} with {left} MP left without passing an enemy unit, the canal or an enemy ZOC (5.1, 6, R3)"
            ),
        );
    }
    RuleError::illegal(
        "not_a_legal_choice",
        "5",
        format!("{to} is not a legal destination"),
    )
}
