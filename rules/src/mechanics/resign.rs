//! Resigning: a seated player concedes, and the other side wins at once, whatever the step
//! and whoever is to act. Not a rule of the boxed game (whose only ends are those of 21), but
//! a decision of the players like any other: it is logged as the action `resign`, so a replay
//! of the log ends the same way and the state hash covers the result.

use crate::mechanics::victory;
use crate::position::ctx::Ctx;
use siege_protocol::Side;

/// The stable key of a resignation in the game's result.
pub const REASON: &str = "resigned";

/// `side` resigns: the other side wins.
pub fn resign(ctx: &mut Ctx<'_>, side: Side) {
    let winner = side.other();
    let text = format!("{winner} win: {side} player resigned");
    victory::finish(ctx, winner, REASON, text);
}

#[cfg(test)]
mod tests {
    use crate::face::game::Game;
    use crate::face::testkit::scenario;
    use crate::position::action::Action;
    use crate::position::event::EventKind;
    use crate::vocabulary::error::RuleError;
    use siege_protocol::{Phase, Side};

    #[test]
    fn either_side_may_resign_whoever_is_to_act_and_the_other_wins_21() {
        for resigner in Side::BOTH {
            let mut game = Game::new(scenario(), [3; 32]);
            assert_eq!(game.to_act(), Some(Side::Allied));
            assert!(!game.legal_actions(Side::Allied).contains(&Action::Resign));
            let events = game.apply(resigner, &Action::Resign).expect("resign");
            let result = game.result().expect("the game is over");
            assert_eq!(result.winner, resigner.other());
            assert_eq!(result.reason, "resigned");
            assert_eq!(
                result.text,
                format!("{} win: {resigner} player resigned", resigner.other())
            );
            assert!(matches!(
                events.last().map(|e| &e.kind),
                Some(EventKind::GameOver { reason, .. }) if reason == "resigned"
            ));
            assert_eq!(game.view().phase, Phase::GameOver);
            assert_eq!(game.to_act(), None);
            assert_eq!(
                game.apply(resigner.other(), &Action::Resign),
                Err(RuleError::GameOver)
            );
        }
    }

    #[test]
    fn a_replayed_resignation_gives_the_same_state_21() {
        let mut played = Game::new(scenario(), [4; 32]);
        played.apply(Side::Allied, &Action::DeployDefault).unwrap();
        played.apply(Side::Allied, &Action::Resign).unwrap();
        let mut replayed = Game::new(scenario(), [4; 32]);
        replayed
            .apply_trusted(Side::Allied, &Action::DeployDefault)
            .unwrap();
        replayed
            .apply_trusted(Side::Allied, &Action::Resign)
            .unwrap();
        assert_eq!(played.state_hash(), replayed.state_hash());
        assert_eq!(played.state(), replayed.state());
    }
}
