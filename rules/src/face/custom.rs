//! A position for the analysis board and custom starts: units placed by type, nationality or
//! name from the counter mix (R5), ruins, fortifications, victory-hex control, the turn and one
//! of the seven phases of section 4. Checked like the board itself would be: every unit on the
//! map, never in the canal, never two sides in a hex, stacking within the limits of section 7,
//! no more counters of a kind than the mix holds. The error names the unit and the rule.

use crate::face::game::Game;
use crate::position::command;
use crate::position::state::{Fortification, Loc, State};
use crate::position::step_id::StepId;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::map::Terrain;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{Nationality, UnitId, UnitKind};
use serde::{Deserialize, Serialize};
use siege_protocol::{Phase, Side};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One unit of a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacedUnit {
    /// The name the position gives the unit, used by queries (`"a"`, `"L"`).
    #[serde(rename = "ref")]
    pub reference: String,
    pub side: Side,
    #[serde(rename = "type")]
    pub kind: UnitKind,
    #[serde(default)]
    pub nationality: Option<Nationality>,
    /// A leader's, gun's or doctor's name (or counter code), e.g. `Myers`, `betsy`.
    #[serde(default)]
    pub name: Option<String>,
    /// Where the unit stands (a string so that a hex off the map can be named in the error).
    pub hex: String,
    #[serde(default)]
    pub reduced: bool,
}

/// A custom position as JSON: the analysis board's, and the start of a custom game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    #[serde(default = "first_turn")]
    pub turn: u8,
    pub phase: Phase,
    pub units: Vec<PlacedUnit>,
    #[serde(default)]
    pub ruins: Vec<Hex>,
    #[serde(default)]
    pub fortifications: Vec<Fortification>,
    /// Who controls each victory hex; unlisted ones are Allied (21).
    #[serde(default)]
    pub control: BTreeMap<Hex, Side>,
    /// All four civilian counters have been lost (15, 21). Otherwise civilians left out of the
    /// position are simply not on the board and do not lower the Chinese thresholds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub civilians_lost: bool,
}

fn first_turn() -> u8 {
    1
}

/// Why a position was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PositionError {
    /// The unit's `ref`, when one unit is at fault.
    pub unit: Option<String>,
    /// The rules section or ruling that decided.
    pub rule: &'static str,
    pub message: String,
}

fn refuse(unit: &PlacedUnit, rule: &'static str, message: String) -> PositionError {
    PositionError {
        unit: Some(unit.reference.clone()),
        rule,
        message,
    }
}

/// A checked position: the state it stands for and the unit each `ref` names.
#[derive(Clone, Debug)]
pub struct Built {
    pub state: State,
    pub refs: BTreeMap<String, UnitId>,
}

/// The main step of a phase, where a position starts.
fn main_step(phase: Phase) -> Option<StepId> {
    Some(match phase {
        Phase::BigGun => StepId::BigGunPlace,
        Phase::ChineseMovement => StepId::ChineseMove,
        Phase::AlliedReaction => StepId::Reaction,
        Phase::AlliedMovement => StepId::AlliedMove,
        Phase::Sniper => StepId::Sniper,
        Phase::ChineseCombat => StepId::ChineseCombat,
        Phase::AlliedCombat => StepId::AlliedCombat,
        _ => return None,
    })
}

impl Position {
    /// Check the position and build the state it stands for.
    pub fn build(&self, scn: &Arc<Scenario>, seed: [u8; 32]) -> Result<Built, PositionError> {
        let Some(slot) = main_step(self.phase) else {
            return Err(PositionError {
                unit: None,
                rule: "4",
                message: format!(
                    "phase `{}` is not one of the seven phases of a turn (4): big_gun, chinese_movement, allied_reaction, sniper, chinese_combat, allied_movement, allied_combat",
                    self.phase.as_str()
                ),
            });
        };
        if !(1..=11).contains(&self.turn) {
            return Err(PositionError {
                unit: None,
                rule: "20",
                message: format!("turn {} is not between 1 and 11 (20)", self.turn),
            });
        }
        let mut state = Game::new(scn.clone(), seed).state().clone();
        for u in &mut state.units {
            u.loc = Loc::Eliminated;
        }
        state.turn = self.turn;
        state.go_to(slot, slot.fresh());
        state.custom_start = true;
        let mut refs: BTreeMap<String, UnitId> = BTreeMap::new();
        for p in &self.units {
            if refs.contains_key(&p.reference) {
                return Err(refuse(
                    p,
                    "",
                    format!("two units are called `{}`", p.reference),
                ));
            }
            let hex: Hex = p.hex.parse().map_err(|_| {
                refuse(
                    p,
                    "R1",
                    format!(
                        "unit `{}` is off the map: `{}` is not a hex of the 39 × 40 grid (R1)",
                        p.reference, p.hex
                    ),
                )
            })?;
            if scn.map.terrain(hex) == Terrain::Canal {
                return Err(refuse(
                    p,
                    "5.1",
                    format!(
                        "unit `{}` stands in the canal at {hex}: no unit may be there (5.1)",
                        p.reference
                    ),
                ));
            }
            let id = pick(scn, &state, p)?;
            state.unit_mut(id).loc = Loc::Map(hex);
            let two_step = scn.counters.get(id).reduced.is_some();
            if p.reduced && !two_step {
                return Err(refuse(
                    p,
                    "8.6",
                    format!("unit `{}` has no reduced side (8.6)", p.reference),
                ));
            }
            state.unit_mut(id).reduced = p.reduced;
            refs.insert(p.reference.clone(), id);
        }
        check_hexes(scn, &state, self, &refs)?;
        state.absent = scn
            .counters
            .counters
            .iter()
            .filter(|c| state.unit(c.id).loc == Loc::Eliminated)
            .filter(|c| !(self.civilians_lost && c.kind == UnitKind::Civilian))
            .map(|c| c.id)
            .collect();
        let mut ruins = self.ruins.clone();
        ruins.sort();
        ruins.dedup();
        for h in &ruins {
            if matches!(scn.map.terrain(*h), Terrain::TartarWall | Terrain::Canal) {
                return Err(PositionError {
                    unit: None,
                    rule: "17",
                    message: format!(
                        "{h}: the Tartar Wall and the canal are never ruined (10, 16, 17)"
                    ),
                });
            }
        }
        state.ruins = ruins;
        let mut forts = self.fortifications.clone();
        forts.sort();
        for f in &forts {
            if !crate::position::state::ground(&scn.map, &state, f.hex).takes_fortification() {
                return Err(PositionError {
                    unit: None,
                    rule: "13",
                    message: format!(
                        "{}: fortifications stand only in clear or ruined hexes (13)",
                        f.hex
                    ),
                });
            }
        }
        if forts.windows(2).any(|w| w[0].hex == w[1].hex) {
            return Err(PositionError {
                unit: None,
                rule: "13",
                message: "two fortifications in one hex".into(),
            });
        }
        state.fortifications = forts;
        for (hex, side) in &self.control {
            let Some(i) = scn.map.victory_hexes().iter().position(|(h, _)| h == hex) else {
                return Err(PositionError {
                    unit: None,
                    rule: "21",
                    message: format!("{hex} is not a victory hex (21)"),
                });
            };
            state.control[i] = *side;
        }
        if matches!(self.phase, Phase::AlliedReaction | Phase::AlliedMovement) {
            command::mark(scn, &mut state);
        }
        Ok(Built { state, refs })
    }
}

impl Position {
    /// The position of a game state: every unit on the map named by its counter code, with the
    /// markers and victory-hex control (for sharing a game's position on the analysis board).
    pub fn from_state(scn: &Scenario, st: &State) -> Position {
        let units = scn
            .counters
            .counters
            .iter()
            .filter_map(|c| {
                let u = st.unit(c.id);
                u.hex().map(|h| PlacedUnit {
                    reference: c.code.clone(),
                    side: c.side,
                    kind: c.kind,
                    nationality: c.nationality,
                    name: Some(c.code.clone()),
                    hex: h.to_string(),
                    reduced: u.reduced,
                })
            })
            .collect();
        let control = scn
            .map
            .victory_hexes()
            .iter()
            .zip(&st.control)
            .filter(|(_, s)| **s != Side::Allied)
            .map(|((h, _), s)| (*h, *s))
            .collect();
        Position {
            turn: st.turn.clamp(1, 11),
            phase: st.phase(),
            units,
            ruins: st.ruins.clone(),
            fortifications: st.fortifications.clone(),
            control,
            civilians_lost: crate::mechanics::civilians::all_lost(scn, st),
        }
    }
}

/// The counter a placed unit stands for: the first unused one of its side and type that matches
/// its nationality and name.
fn pick(scn: &Scenario, st: &State, p: &PlacedUnit) -> Result<UnitId, PositionError> {
    if p.kind.side() != p.side {
        return Err(refuse(
            p,
            "R5",
            format!(
                "unit `{}`: {} counters belong to the other side (R5)",
                p.reference,
                p.kind.as_str()
            ),
        ));
    }
    let wanted = |name: &str, code: &str| {
        p.name
            .as_ref()
            .is_none_or(|n| n.eq_ignore_ascii_case(name) || n.eq_ignore_ascii_case(code))
    };
    let matching: Vec<UnitId> = scn
        .counters
        .counters
        .iter()
        .filter(|c| c.kind == p.kind && c.side == p.side)
        .filter(|c| p.nationality.is_none() || c.nationality == p.nationality)
        .filter(|c| wanted(&c.name, &c.code))
        .map(|c| c.id)
        .collect();
    if matching.is_empty() {
        let what = match (&p.name, p.nationality) {
            (Some(n), _) => format!("no {} called `{n}`", p.kind.as_str()),
            (None, Some(nat)) => format!("no {nat} {} counter", p.kind.as_str()),
            (None, None) => format!("no {} counter", p.kind.as_str()),
        };
        return Err(refuse(
            p,
            "R5",
            format!("unit `{}`: the counter mix has {what} (R5)", p.reference),
        ));
    }
    matching
        .into_iter()
        .find(|id| st.unit(*id).loc == Loc::Eliminated)
        .ok_or_else(|| {
            refuse(
                p,
                "R5",
                format!(
                    "unit `{}`: every such counter is already on the board (R5)",
                    p.reference
                ),
            )
        })
}

/// Never two sides in a hex; stacking within section 7.
fn check_hexes(
    scn: &Scenario,
    st: &State,
    pos: &Position,
    refs: &BTreeMap<String, UnitId>,
) -> Result<(), PositionError> {
    let board = crate::position::hex_index::HexIndex::of(scn, st);
    for p in &pos.units {
        let id = refs[&p.reference];
        let Some(hex) = st.unit(id).hex() else {
            continue;
        };
        let sides: Vec<Side> = st.units_at(hex).map(|u| scn.counters.get(u).side).collect();
        if sides.iter().any(|s| *s != p.side) {
            return Err(refuse(
                p,
                "5.1",
                format!(
                    "unit `{}` shares {hex} with enemy units: never two sides in a hex (5.1)",
                    p.reference
                ),
            ));
        }
        if !crate::position::stacking::is_legal(&board, hex) {
            return Err(refuse(
                p,
                "7",
                format!(
                    "unit `{}`: {hex} is over-stacked with {} strength points or two guns (7: 10 Allied, 30 Chinese, one gun)",
                    p.reference,
                    board.at(hex).points
                ),
            ));
        }
    }
    Ok(())
}

/// The unit kind names a position may use, in words (for errors and docs).
pub fn kinds() -> [UnitKind; 8] {
    [
        UnitKind::Combat,
        UnitKind::Volunteer,
        UnitKind::Leader,
        UnitKind::Artillery,
        UnitKind::Civilian,
        UnitKind::Doctor,
        UnitKind::Boxer,
        UnitKind::Imperial,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::scenario;
    use crate::position::state::Step;

    fn parse(json: &str) -> Position {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn the_example_position_builds_with_units_from_the_mix_r5() {
        let p = parse(
            r#"{"turn":3,"phase":"chinese_combat","units":[
                {"ref":"a","side":"chinese","type":"boxer","hex":"1510","reduced":false},
                {"ref":"b","side":"allied","type":"combat","nationality":"british","hex":"1512"},
                {"ref":"L","side":"allied","type":"leader","name":"Myers","hex":"1512"}],
              "ruins":["1219"],"fortifications":[{"hex":"1220","built_by":"allied"}]}"#,
        );
        let built = p.build(&scenario(), [0; 32]).unwrap();
        let scn = scenario();
        assert_eq!(scn.counters.get(built.refs["L"]).code, "myers");
        assert_eq!(
            scn.counters.get(built.refs["b"]).nationality,
            Some(Nationality::British)
        );
        assert_eq!(built.state.step, Step::Combat);
        assert!(built.state.is_ruin("1219".parse().unwrap()));
        assert!(built.state.custom_start);
    }

    fn error_of(json: &str) -> PositionError {
        parse(json).build(&scenario(), [0; 32]).unwrap_err()
    }

    #[test]
    fn an_unknown_leader_or_too_many_units_of_a_kind_are_refused_r5() {
        let e = error_of(
            r#"{"phase":"big_gun","units":[{"ref":"X","side":"allied","type":"leader","name":"Gordon","hex":"1512"}]}"#,
        );
        assert_eq!((e.unit.as_deref(), e.rule), (Some("X"), "R5"));
        assert!(e.message.contains("Gordon"));
        let units: Vec<String> = (0..4)
            .map(|i| format!(r#"{{"ref":"j{i}","side":"allied","type":"combat","nationality":"japanese","hex":"15{:02}"}}"#, 10 + i))
            .collect();
        let e = error_of(&format!(
            r#"{{"phase":"big_gun","units":[{}]}}"#,
            units.join(",")
        ));
        assert_eq!(
            e.unit.as_deref(),
            Some("j1"),
            "only one Japanese combat unit exists"
        );
    }

    #[test]
    fn a_unit_in_the_canal_off_the_map_beside_enemies_or_overstacked_is_refused_5_1_7() {
        let e = error_of(
            r#"{"phase":"big_gun","units":[{"ref":"c","side":"chinese","type":"boxer","hex":"2110"}]}"#,
        );
        assert_eq!((e.unit.as_deref(), e.rule), (Some("c"), "5.1"));
        let e = error_of(
            r#"{"phase":"big_gun","units":[{"ref":"o","side":"chinese","type":"boxer","hex":"4001"}]}"#,
        );
        assert_eq!(e.rule, "R1");
        let e = error_of(
            r#"{"phase":"big_gun","units":[{"ref":"a","side":"chinese","type":"boxer","hex":"1510"},{"ref":"b","side":"allied","type":"volunteer","hex":"1510"}]}"#,
        );
        assert_eq!(e.rule, "5.1");
        let e = error_of(
            r#"{"phase":"big_gun","units":[{"ref":"a","side":"allied","type":"volunteer","hex":"1510"},{"ref":"b","side":"allied","type":"combat","hex":"1510"},{"ref":"c","side":"allied","type":"leader","hex":"1510"}]}"#,
        );
        assert_eq!((e.unit.as_deref(), e.rule), (Some("a"), "7"));
    }

    #[test]
    fn units_left_out_are_absent_not_lost_civilians_or_replacements_15_19() {
        let p = parse(
            r#"{"turn":3,"phase":"big_gun","units":[{"ref":"b","side":"allied","type":"combat","hex":"1512"}]}"#,
        );
        let scn = scenario();
        let built = p.build(&scn, [0; 32]).unwrap();
        assert!(!crate::mechanics::civilians::all_lost(&scn, &built.state));
        let bx = scn.counters.by_code("bx01").unwrap().id;
        assert!(
            built.state.absent.contains(&bx),
            "not in the pool of section 19"
        );
        let lost = Position {
            civilians_lost: true,
            ..p
        };
        let built = lost.build(&scn, [0; 32]).unwrap();
        assert!(crate::mechanics::civilians::all_lost(&scn, &built.state));
    }

    #[test]
    fn only_the_seven_phases_of_a_turn_start_a_position_4() {
        let e = error_of(r#"{"phase":"allied_setup","units":[]}"#);
        assert_eq!(e.rule, "4");
    }
}
