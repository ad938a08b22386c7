//! Why an action was refused: a comparable error with a stable snake_case code for the wire and,
//! where a rule refused it, the rules section. A refused action changes nothing.

use siege_protocol::{Side, codes};

/// A refusal by the rules engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The game has ended; nothing more can be done (21).
    #[error("the game is over")]
    GameOver,
    /// The other side (or nobody) is to decide now.
    #[error("{}", not_your_turn(*side, *to_act))]
    NotYourTurn { side: Side, to_act: Option<Side> },
    /// A rule forbids the action, or it is not one of the legal actions now.
    #[error("{message}")]
    Illegal {
        /// Stable snake_case code from `siege_protocol::codes`, e.g. `zoc`, `stacking`.
        code: &'static str,
        /// The rules section (or ruling) that decided, e.g. `6` or `R6`.
        rule: &'static str,
        message: String,
    },
    /// Settling an action's consequences did not end within the bound (an engine bug): the
    /// action is refused and the state left as it was, so a game never hangs.
    #[error("the engine did not settle this action within {rounds} rounds")]
    Runaway { rounds: usize },
}

fn not_your_turn(side: Side, to_act: Option<Side>) -> String {
    match to_act {
        Some(other) => format!("it is the {other} player's decision, not the {side} player's"),
        None => "nobody is to act now".to_string(),
    }
}

impl RuleError {
    /// A refusal citing a rule.
    pub fn illegal(
        code: &'static str,
        rule: &'static str,
        message: impl Into<String>,
    ) -> RuleError {
        RuleError::Illegal {
            code,
            rule,
            message: message.into(),
        }
    }

    /// The stable wire code.
    pub fn code(&self) -> &'static str {
        match self {
            RuleError::GameOver => codes::GAME_OVER,
            RuleError::NotYourTurn { .. } => codes::NOT_YOUR_TURN,
            RuleError::Illegal { code, .. } => code,
            RuleError::Runaway { .. } => codes::RUNAWAY,
        }
    }

    /// The rules section that refused the action, if a rule did.
    pub fn rule(&self) -> Option<&'static str> {
        match self {
            RuleError::Illegal { rule, .. } if !rule.is_empty() => Some(rule),
            _ => None,
        }
    }
}
