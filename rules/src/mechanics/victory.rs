//! Victory (21): control of the 11 victory hexes — the last side to occupy or pass through a hex
//! controls it; all are Allied at the start — and the three ways the Chinese win: at any moment
//! controlling as many victory hexes as the turn number, holding all 7 primary hexes at the end,
//! or eliminating every Allied combat unit and leader. Otherwise the Allies win after turn 11.
//! Losing all four civilians lowers both Chinese thresholds by two (15).

use crate::mechanics::civilians;
use crate::position::ctx::{Ctx, plural};
use crate::position::event::EventKind;
use crate::position::state::{GameResult, Loc, State};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::map::VictoryKind;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::UnitKind;
use siege_protocol::Side;

/// A unit of `side` enters or passes through `hex`: it takes control of a victory hex (21).
pub fn enter(ctx: &mut Ctx<'_>, side: Side, hex: Hex) {
    let Some(i) = ctx
        .scn
        .map
        .victory_hexes()
        .iter()
        .position(|(h, _)| *h == hex)
    else {
        return;
    };
    if ctx.st.control[i] != side {
        ctx.st.control[i] = side;
        ctx.emit(
            EventKind::ControlChanged { hex, side },
            format!("The {side} player takes control of victory hex {hex} (21)"),
        );
    }
}

/// How many victory hexes the Chinese control, all and primary.
pub fn chinese_held(scn: &Scenario, st: &State) -> (usize, usize) {
    let mut all = 0;
    let mut primary = 0;
    for ((_, kind), side) in scn.map.victory_hexes().iter().zip(&st.control) {
        if *side == Side::Chinese {
            all += 1;
            if *kind == VictoryKind::Primary {
                primary += 1;
            }
        }
    }
    (all, primary)
}

/// Victory hexes the Chinese need now to win at once (21, 15): the turn number, two fewer
/// once every civilian is lost, never fewer than one.
pub fn needed_now(scn: &Scenario, st: &State) -> usize {
    let relief = if civilians::all_lost(scn, st) { 2 } else { 0 };
    usize::from(st.turn.max(1)).saturating_sub(relief).max(1)
}

/// Primary hexes the Chinese must hold at the end (21, 15).
pub fn primary_needed(scn: &Scenario, st: &State) -> usize {
    let primaries = scn
        .map
        .victory_hexes()
        .iter()
        .filter(|(_, k)| *k == VictoryKind::Primary)
        .count();
    if civilians::all_lost(scn, st) {
        primaries.saturating_sub(2)
    } else {
        primaries
    }
}

/// Check the instant Chinese victories (21); ends the game if one has happened.
pub fn check_instant(ctx: &mut Ctx<'_>) {
    if ctx.st.is_over() || ctx.st.turn == 0 {
        return;
    }
    let (held, _) = chinese_held(ctx.scn, ctx.st);
    let needed = needed_now(ctx.scn, ctx.st);
    if held >= needed {
        let text = format!(
            "The Chinese control {} in turn {}, needing {needed}: the legations fall (21)",
            plural(held, "victory hex", "victory hexes"),
            ctx.st.turn
        );
        finish(ctx, Side::Chinese, "victory_hexes", text);
        return;
    }
    let allied_left = ctx.scn.counters.counters.iter().any(|c| {
        matches!(
            c.kind,
            UnitKind::Combat | UnitKind::Volunteer | UnitKind::Leader
        ) && matches!(ctx.st.unit(c.id).loc, Loc::Map(_))
    });
    if !allied_left {
        finish(
            ctx,
            Side::Chinese,
            "annihilation",
            "Every Allied combat unit and leader has been eliminated: the Chinese win (21)".into(),
        );
    }
}

/// The end of turn 11: the Chinese win with every primary hex, otherwise the Allies (21).
pub fn check_final(ctx: &mut Ctx<'_>) {
    if ctx.st.is_over() {
        return;
    }
    let (_, primary) = chinese_held(ctx.scn, ctx.st);
    let needed = primary_needed(ctx.scn, ctx.st);
    if primary >= needed {
        let text = format!(
            "The Chinese hold {} at the end of the game, needing {needed} (21)",
            plural(primary, "primary victory hex", "primary victory hexes")
        );
        finish(ctx, Side::Chinese, "primary_hexes", text);
    } else {
        let text = format!(
            "The legations held out through turn 11: the relief column arrives and the Allies win (21; the Chinese held {primary} of the {needed} primary hexes they needed)"
        );
        finish(ctx, Side::Allied, "held_out", text);
    }
}

/// End the game: `winner` wins for `reason` (a short stable key), said in `text`.
pub fn finish(ctx: &mut Ctx<'_>, winner: Side, reason: &str, text: String) {
    ctx.st.end(GameResult {
        winner,
        reason: reason.to_string(),
        text: text.clone(),
    });
    ctx.st.pending.clear();
    ctx.st.declaration = None;
    ctx.emit(
        EventKind::GameOver {
            winner,
            reason: reason.to_string(),
        },
        text,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};

    #[test]
    fn passing_through_a_victory_hex_takes_control_21() {
        let mut kit = Kit::new();
        kit.st.turn = 5;
        let events = kit.run(|ctx| enter(ctx, Side::Chinese, hex("3012")));
        assert_eq!(events.len(), 1);
        assert_eq!(chinese_held(&kit.scn, &kit.st), (1, 0));
        // Entering again changes nothing.
        assert!(
            kit.run(|ctx| enter(ctx, Side::Chinese, hex("3012")))
                .is_empty()
        );
    }

    #[test]
    fn the_chinese_win_at_once_with_as_many_hexes_as_the_turn_21() {
        let mut kit = Kit::new();
        kit.deploy_allies();
        kit.st.turn = 2;
        kit.run(|ctx| enter(ctx, Side::Chinese, hex("3012")));
        kit.run(check_instant);
        assert!(!kit.st.is_over());
        kit.run(|ctx| enter(ctx, Side::Chinese, hex("2208")));
        kit.run(check_instant);
        let r = kit.st.result().cloned().unwrap();
        assert_eq!(
            (r.winner, r.reason.as_str()),
            (Side::Chinese, "victory_hexes")
        );
    }

    #[test]
    fn losing_every_civilian_lowers_the_threshold_by_two_15_21() {
        let mut kit = Kit::new();
        kit.st.turn = 7;
        assert_eq!(needed_now(&kit.scn, &kit.st), 7);
        assert_eq!(primary_needed(&kit.scn, &kit.st), 7);
        for code in ["civ1", "civ2", "civ3", "civ4"] {
            let u = kit.id(code);
            kit.st.unit_mut(u).loc = Loc::Eliminated;
        }
        assert_eq!(needed_now(&kit.scn, &kit.st), 5);
        assert_eq!(primary_needed(&kit.scn, &kit.st), 5);
    }

    #[test]
    fn the_allies_win_if_they_hold_a_primary_hex_after_turn_11_21() {
        let mut kit = Kit::new();
        kit.st.turn = 11;
        for h in ["0914", "1618", "1227", "1228", "1726", "2019"] {
            kit.run(|ctx| enter(ctx, Side::Chinese, hex(h)));
        }
        kit.run(check_final);
        assert_eq!(kit.st.result().cloned().unwrap().winner, Side::Allied);
        let mut kit = Kit::new();
        kit.st.turn = 11;
        for h in ["0914", "1618", "1227", "1228", "1726", "2019", "2020"] {
            kit.run(|ctx| enter(ctx, Side::Chinese, hex(h)));
        }
        kit.run(check_final);
        assert_eq!(kit.st.result().cloned().unwrap().reason, "primary_hexes");
    }

    #[test]
    fn eliminating_every_allied_combat_unit_and_leader_wins_21() {
        let mut kit = Kit::new();
        kit.st.turn = 3;
        kit.put("civ1", hex("2019"));
        kit.run(check_instant);
        assert_eq!(kit.st.result().cloned().unwrap().reason, "annihilation");
    }

    #[test]
    fn one_victory_hex_is_said_in_the_singular_21() {
        let mut kit = Kit::new();
        kit.deploy_allies();
        kit.st.turn = 1;
        kit.run(|ctx| enter(ctx, Side::Chinese, hex("3012")));
        let events = kit.run(check_instant);
        let text = &events.last().expect("the game ends").text;
        assert!(text.contains("control 1 victory hex in turn 1"), "{text}");
    }
}
