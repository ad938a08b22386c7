//! The view: everything a person (or a client that knows no rules) needs to draw the game —
//! every unit with its hex and side shown, markers, the turn and phase, whose decision it is with
//! a prompt in words, victory-hex control against what the Chinese need, the attack being
//! declared with its odds, the last combat's numbers, and the result. Players and spectators see
//! the same view: Siege at Peking has no hidden information.

use super::combat;
use super::game::names;
use super::hex::Hex;
use super::movement;
use super::pending::Pending;
use super::phases;
use super::report::CombatReport;
use super::scenario::Scenario;
use super::state::{Fortification, GameResult, Group, Loc, State, Step};
use super::units::{Nationality, UnitId, UnitKind};
use super::{civilians, entry, fortifications, setup, victory};
use serde::Serialize;
use siege_protocol::{Phase, Side};

/// One unit as drawn.
#[derive(Clone, Debug, Serialize)]
pub struct UnitView {
    pub id: UnitId,
    pub code: String,
    pub name: String,
    pub side: Side,
    #[serde(rename = "type")]
    pub kind: UnitKind,
    pub nationality: Option<Nationality>,
    /// The hex, when on the map.
    pub hex: Option<Hex>,
    /// `on_map`, `unplaced`, `off_map` or `eliminated`.
    pub status: &'static str,
    /// Strength on the side shown.
    pub strength: u8,
    pub reduced: bool,
    pub steps: u8,
    pub bonus: u8,
    pub moved: bool,
    pub attacked: bool,
    pub out_of_command: bool,
}

/// A victory hex and who holds it (21).
#[derive(Clone, Debug, Serialize)]
pub struct VictoryHexView {
    pub hex: Hex,
    pub kind: super::map::VictoryKind,
    pub side: Side,
}

/// Victory-hex control against what the Chinese need (21, 15).
#[derive(Clone, Debug, Serialize)]
pub struct VictoryView {
    pub hexes: Vec<VictoryHexView>,
    pub chinese_held: usize,
    pub needed_now: usize,
    pub primary_held: usize,
    pub primary_needed: usize,
    pub civilians_lost: bool,
}

/// The stack being moved or formed for a charge.
#[derive(Clone, Debug, Serialize)]
pub struct SelectionView {
    pub units: Vec<UnitId>,
    pub hex: Hex,
    pub mp_left: Option<u8>,
}

/// The attack being declared, with its odds before the roll.
#[derive(Clone, Debug, Serialize)]
pub struct DeclarationView {
    pub defenders: Vec<Hex>,
    pub attackers: Vec<UnitId>,
    pub artillery: Vec<UnitId>,
    pub bayonet: bool,
    pub odds: CombatReport,
}

/// The interruption being settled.
#[derive(Clone, Debug, Serialize)]
pub struct PendingView {
    pub kind: &'static str,
    pub side: Side,
    pub detail: Pending,
}

/// Everything needed to draw the game.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    pub turn: u8,
    pub phase: Phase,
    pub phase_title: &'static str,
    pub step: &'static str,
    /// Whose decision it is; `null` once the game is over.
    pub to_act: Option<Side>,
    /// What the side to act is asked to do, in words.
    pub prompt: String,
    pub units: Vec<UnitView>,
    pub ruins: Vec<Hex>,
    pub fortifications: Vec<Fortification>,
    pub fortifications_left: FortsLeft,
    pub mines_left: u8,
    pub big_guns: Vec<Hex>,
    /// The Big Gun firing the next shot, while the guns fire (10).
    pub firing_gun: Option<Hex>,
    pub victory: VictoryView,
    pub selection: Option<SelectionView>,
    pub declaration: Option<DeclarationView>,
    pub pending: Option<PendingView>,
    pub last_combat: Option<CombatReport>,
    pub result: Option<GameResult>,
    pub custom_start: bool,
}

/// Fortification counters each side still has (13).
#[derive(Clone, Debug, Serialize)]
pub struct FortsLeft {
    pub allied: usize,
    pub chinese: usize,
}

/// Build the view of a state.
pub fn build(scn: &Scenario, st: &State) -> View {
    let units = scn
        .counters
        .counters
        .iter()
        .map(|c| {
            let u = st.unit(c.id);
            UnitView {
                id: c.id,
                code: c.code.clone(),
                name: c.name.clone(),
                side: c.side,
                kind: c.kind,
                nationality: c.nationality,
                hex: u.hex(),
                status: match u.loc {
                    Loc::Eliminated if st.absent.contains(&c.id) => "absent",
                    Loc::Map(_) => "on_map",
                    Loc::Unplaced => "unplaced",
                    Loc::OffMap => "off_map",
                    Loc::Eliminated => "eliminated",
                },
                strength: c.strength_when(u.reduced),
                reduced: u.reduced,
                steps: c.steps(),
                bonus: c.bonus,
                moved: u.marks.moved,
                attacked: u.marks.attacked,
                out_of_command: u.marks.out_of_command,
            }
        })
        .collect();
    let (held, primary) = victory::chinese_held(scn, st);
    let hexes = scn
        .map
        .victory_hexes()
        .iter()
        .zip(&st.control)
        .map(|((hex, kind), side)| VictoryHexView {
            hex: *hex,
            kind: *kind,
            side: *side,
        })
        .collect();
    let selection = match &st.step {
        Step::Move { group: Some(g) } => Some(select_view(scn, st, g, true)),
        Step::Bayonet { group: Some(g) } => Some(select_view(scn, st, g, false)),
        _ => None,
    };
    let declaration = st.declaration.as_ref().map(|d| DeclarationView {
        defenders: d.defenders.clone(),
        attackers: d.attackers.clone(),
        artillery: d.artillery.clone(),
        bayonet: d.charge_from.is_some(),
        odds: super::report::compute(scn, st, d),
    });
    View {
        turn: st.turn,
        phase: st.phase,
        phase_title: st.phase.title(),
        step: phases::step_name(&st.step),
        to_act: phases::to_act(scn, st),
        prompt: prompt(scn, st),
        units,
        ruins: st.ruins.clone(),
        fortifications: st.fortifications.clone(),
        fortifications_left: FortsLeft {
            allied: fortifications::left(scn, st, Side::Allied),
            chinese: fortifications::left(scn, st, Side::Chinese),
        },
        mines_left: st.mines_left,
        big_guns: st.big_guns.clone(),
        firing_gun: match st.step {
            Step::BigGunFire { shot } => st
                .big_guns
                .get(usize::from(shot) / super::big_gun::SHOTS)
                .copied(),
            _ => None,
        },
        victory: VictoryView {
            hexes,
            chinese_held: held,
            needed_now: victory::needed_now(scn, st),
            primary_held: primary,
            primary_needed: victory::primary_needed(scn, st),
            civilians_lost: civilians::all_lost(scn, st),
        },
        selection,
        declaration,
        pending: st.pending.first().map(|p| PendingView {
            kind: p.name(),
            side: p.side(),
            detail: p.clone(),
        }),
        last_combat: st.last_combat.clone(),
        result: st.result.clone(),
        custom_start: st.custom_start,
    }
}

fn select_view(scn: &Scenario, st: &State, g: &Group, moving: bool) -> SelectionView {
    SelectionView {
        units: g.units.clone(),
        hex: g.hex,
        mp_left: if moving {
            movement::budget(scn, st, g, st.phase)
        } else {
            None
        },
    }
}

/// The prompt in words for the side to act.
pub fn prompt(scn: &Scenario, st: &State) -> String {
    if let Some(r) = &st.result {
        return format!("Game over. {}", r.text);
    }
    if let Some(p) = st.pending.first() {
        return pending_prompt(scn, st, p);
    }
    match &st.step {
        Step::AlliedSetup { selected, area } => setup::prompt(scn, st, *selected, *area),
        Step::Entry { selected } => entry::prompt(scn, st, *selected),
        Step::Move { group } => movement::prompt(scn, st, group.as_ref()),
        Step::Recovery { .. } => "Choose which reduced units in the hospital roll for recovery, three at most (8.6).".into(),
        Step::BigGunPlace => format!(
            "Place Big Gun {} within 3 hexes of a map edge, not in an Allied ZOC (10).",
            st.big_guns.len() + 1
        ),
        Step::BigGunFire { shot } => format!(
            "Big Gun {} at {}: choose the direction of shot {} of 4 (10).",
            usize::from(*shot) / super::big_gun::SHOTS + 1,
            st.big_guns.get(usize::from(*shot) / super::big_gun::SHOTS).map_or(String::new(), Hex::to_string),
            usize::from(*shot) % super::big_gun::SHOTS + 1
        ),
        Step::Mines => format!(
            "You may explode a mine ({} left) in a non-clear hex next to a Chinese unit, or pass (16).",
            st.mines_left
        ),
        Step::Restore => format!(
            "The pool is short of Boxers: restore up to {} reduced Boxer units in place, or pass (19).",
            st.restores_left
        ),
        Step::Attrition => "Attrition: choose a combat unit or volunteers to remove from the game (14).".into(),
        Step::Sniper => "Choose an Allied leader for the sniper to fire at, or pass (8.1.4).".into(),
        Step::Fortify => format!(
            "Build fortifications under unmoved stacks in clear or ruined hexes, or pass ({} left) (13).",
            fortifications::left(scn, st, combat::phasing(st))
        ),
        Step::Withdrawal => "Before Chinese combat: roll for a leader's withdrawal, withdraw units allowed to, or pass (12).".into(),
        Step::Bayonet { group } => match group {
            None => "Bayonet charges: select a leader and the unmoved units with him to charge, or pass (8.1.3).".into(),
            Some(g) => format!(
                "Charge with {}: choose the enemy hex, or add units (15 points a turn, {} used) (8.1.3).",
                names(scn, &g.units),
                st.charge_points
            ),
        },
        Step::Combat => combat::prompt(scn, st),
        Step::LiftOff => "End of turn: lift Chinese stacks off the map to re-enter next turn, or end the turn (22).".into(),
        Step::Over => "Game over.".into(),
    }
}

fn pending_prompt(scn: &Scenario, _st: &State, p: &Pending) -> String {
    match p {
        Pending::StepLoss { units, steps, points, cause, .. } => {
            let what = if *points > 0 { format!("at least {points} more strength points") } else { format!("{steps} step") };
            format!("{cause}: choose which of {} loses {what} (8.2, 8.6).", names(scn, units))
        }
        Pending::Retreat(r) => {
            let gone = r.visited.len() - 1;
            let verb = if r.withdrawal { "Withdraw" } else { "Retreat" };
            format!(
                "{verb} {} from {}: {gone} of {} hexes so far; never into enemy ZOC (8.3, 12).",
                names(scn, &r.units),
                r.at,
                r.max
            )
        }
        Pending::Advance { .. } => "You may advance one unit that took part into the vacated hex, or pass (8.4).".into(),
        Pending::PlaceLeader { leader, from } => format!(
            "{}'s stack at {from} is gone: move him to the nearest friendly unit (11.1).",
            scn.counters.get(*leader).name
        ),
        Pending::Overstack { hex, .. } => format!("{hex} is over-stacked after a retreat: choose units to eliminate (7)."),
        Pending::DefenderLeaders => {
            "The Chinese attack your leaders' stack: choose each leader's use (strength 1 or die −1), then roll (11.1).".into()
        }
        Pending::Occupy { .. } => "The chargers take the hex (8.1.3).".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::scenario;
    use crate::{Action, Game};

    #[test]
    fn the_view_shows_every_unit_the_prompt_and_victory_control_4_21() {
        let mut game = Game::new(scenario(), [2; 32]);
        let v = game.view();
        assert_eq!(v.units.len(), game.scenario().counters.len());
        assert_eq!(v.to_act, Some(Side::Allied));
        assert!(v.prompt.contains("setup"), "{}", v.prompt);
        assert_eq!(v.victory.hexes.len(), 11);
        assert!(
            v.victory.hexes.iter().all(|h| h.side == Side::Allied),
            "all Allied at the start (21)"
        );
        game.apply(Side::Allied, &Action::DeployDefault).unwrap();
        let v = game.view();
        assert!(
            v.units
                .iter()
                .filter(|u| u.side == Side::Allied)
                .all(|u| u.hex.is_some())
        );
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["units"][0]["type"], "combat");
        assert_eq!(json["phase"], "allied_setup");
    }
}
