//! The view: everything a person (or a client that knows no rules) needs to draw the game —
//! every unit with its hex and side shown, markers, the turn and phase, whose decision it is with
//! a prompt in words, victory-hex control against what the Chinese need, the attack being
//! declared with its odds, the last combat's numbers, and the result. Players and spectators see
//! the same view: Siege at Peking has no hidden information.

use crate::mechanics::movement;
use crate::position::combat_report::CombatReport;
use crate::position::pending::Pending;
use crate::position::state::{Fortification, GameResult, Group, Loc, State, Step};
use crate::sequence::play;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{Counter, Nationality, UnitId, UnitKind};
use crate::{mechanics::civilians, mechanics::fortifications, mechanics::victory};
use serde::Serialize;
use siege_protocol::{Phase, Side};

/// One unit as drawn. Its code and name are borrowed from the scenario's counter: a view is
/// built after every action, and most of its 247 units are then copied from the frame before
/// (server `games/frames.rs`), so copying their names would be 494 allocations an action for
/// nothing.
#[derive(Clone, Debug, Serialize)]
pub struct UnitView<'s> {
    pub id: UnitId,
    pub code: &'s str,
    pub name: &'s str,
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VictoryHexView {
    pub hex: Hex,
    pub kind: crate::vocabulary::map::VictoryKind,
    pub side: Side,
}

/// Victory-hex control against what the Chinese need (21, 15).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
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
pub struct View<'s> {
    pub turn: u8,
    pub phase: Phase,
    pub phase_title: &'static str,
    pub step: String,
    /// Whose decision it is; `null` once the game is over.
    pub to_act: Option<Side>,
    /// What the side to act is asked to do, in words.
    pub prompt: String,
    pub units: Vec<UnitView<'s>>,
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
    pub last_combat: Option<std::sync::Arc<CombatReport>>,
    pub result: Option<GameResult>,
    pub custom_start: bool,
    /// What the side to act would take back with `undo` (`{seq, text}`), or null.
    pub undo: Option<crate::face::undo::UndoView>,
}

/// Fortification counters each side still has (13).
#[derive(Clone, Debug, Serialize)]
pub struct FortsLeft {
    pub allied: usize,
    pub chinese: usize,
}

/// Build the view of a state.
pub fn build<'s>(scn: &'s Scenario, st: &State) -> View<'s> {
    let mut view = build_without_units(scn, st);
    view.units = scn.counters.counters.iter().map(|c| unit(c, st)).collect();
    view
}

/// One unit of the view of `st`.
pub fn unit<'s>(c: &'s Counter, st: &State) -> UnitView<'s> {
    let u = st.unit(c.id);
    UnitView {
        id: c.id,
        code: &c.code,
        name: &c.name,
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
}

/// The view of a state with its `units` left empty, for a writer that builds only the units it
/// writes ([`unit`]): the server copies most units' bytes from the frame before.
pub fn build_without_units<'s>(scn: &'s Scenario, st: &State) -> View<'s> {
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
        odds: crate::mechanics::report::compute(scn, st, d),
    });
    View {
        turn: st.turn,
        phase: st.phase(),
        phase_title: st.phase().title(),
        step: play::step_name(st),
        to_act: play::to_act(st),
        prompt: play::prompt(scn, st),
        units: Vec::new(),
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
                .get(usize::from(shot) / crate::mechanics::big_gun::SHOTS)
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
        result: st.result().cloned(),
        custom_start: st.custom_start,
        undo: None,
    }
}

fn select_view(scn: &Scenario, st: &State, g: &Group, moving: bool) -> SelectionView {
    SelectionView {
        units: g.units.clone(),
        hex: g.hex,
        mp_left: if moving {
            movement::budget(scn, st, g, st.phase())
        } else {
            None
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::scenario;
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
