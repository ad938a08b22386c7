//! Winning on time: the side not to act claims the game because the side to act has let its
//! clock run out. The rules keep no clock — the server does, and passes a claim on only once
//! the clock of the side to act is spent (docs/protocol.md, "Time controls"). What the rules
//! check is the shape of a claim: it comes from the side that is waiting, against the side to
//! act. Logged as the action `claim_timeout`, so a replay ends the same way.

use crate::mechanics::victory;
use crate::position::ctx::Ctx;
use crate::vocabulary::error::RuleError;
use siege_protocol::{Side, codes};

/// The stable key of a win on time in the game's result.
pub const REASON: &str = "timeout";

/// Whether `claimant` may claim against `to_act` (the side whose decision it is): only the
/// waiting side can, and only while someone is to act.
pub fn check(claimant: Side, to_act: Option<Side>) -> Result<(), RuleError> {
    match to_act {
        None => Err(RuleError::GameOver),
        Some(s) if s == claimant => Err(RuleError::illegal(
            codes::NOT_YOUR_TURN,
            "",
            format!(
                "the {claimant} player is to act and cannot claim a win on time against the other side"
            ),
        )),
        Some(_) => Ok(()),
    }
}

/// `claimant` wins on time against the other side.
pub fn claim(ctx: &mut Ctx<'_>, claimant: Side) {
    let loser = claimant.other();
    let text = format!("{claimant} win on time: the {loser} player's clock ran out");
    victory::finish(ctx, claimant, REASON, text);
}

#[cfg(test)]
mod tests {
    use crate::face::game::Game;
    use crate::face::testkit::scenario;
    use crate::position::action::Action;
    use siege_protocol::Side;

    #[test]
    fn only_the_waiting_side_may_claim_on_time() {
        let mut game = Game::new(scenario(), [5; 32]);
        assert_eq!(game.to_act(), Some(Side::Allied));
        let refused = game.apply(Side::Allied, &Action::ClaimTimeout).unwrap_err();
        assert_eq!(refused.code(), "not_your_turn");
        assert!(game.result().is_none());
        assert!(
            !game
                .legal_actions(Side::Allied)
                .contains(&Action::ClaimTimeout)
        );
        game.apply(Side::Chinese, &Action::ClaimTimeout).unwrap();
        let result = game.result().expect("over");
        assert_eq!(result.winner, Side::Chinese);
        assert_eq!(result.reason, "timeout");
        assert_eq!(
            result.text,
            "Chinese win on time: the Allied player's clock ran out"
        );
    }
}
