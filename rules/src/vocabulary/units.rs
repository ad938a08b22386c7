//! The counters (rules 2, 5.2; ruling R5): every unit with its id, side, type, nationality,
//! name, strength front and back, steps, movement allowance and artillery bonus, read from the
//! data file `scenario/counters.toml` and checked when it is loaded.

use serde::{Deserialize, Serialize};
use siege_protocol::Side;
use std::collections::BTreeMap;
use std::fmt;

/// A unit's index in the counter mix. Units are numbered in the order of the counters file,
/// so the same file always gives the same ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UnitId(pub u16);

impl UnitId {
    /// Index into per-unit vectors.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// The types of counter (2, 5.2, R5), named as in the analysis board's positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    /// Allied combat unit (4 / 2).
    Combat,
    /// Allied volunteers (6, one step).
    Volunteer,
    /// Allied leader (1, one step; 11).
    Leader,
    /// Allied artillery (odds bonus; 9).
    Artillery,
    /// Civilians (defence 1 when stacked with a combat unit; 15).
    Civilian,
    /// Doctors Velde and Poole (8.6, 15).
    Doctor,
    /// Boxers (10 / 5).
    Boxer,
    /// Imperial troops (10, one step).
    Imperial,
}

impl UnitKind {
    /// The side that owns counters of this kind.
    pub fn side(self) -> Side {
        match self {
            UnitKind::Boxer | UnitKind::Imperial => Side::Chinese,
            _ => Side::Allied,
        }
    }

    /// Combat units in the sense of sections 7, 8.1.2 and 15: units that fight and exert a zone
    /// of control. Leaders fight only beside such a unit (7, 11.1).
    pub fn is_combat_unit(self) -> bool {
        matches!(
            self,
            UnitKind::Combat | UnitKind::Volunteer | UnitKind::Boxer | UnitKind::Imperial
        )
    }

    /// Units that exert a ZOC into adjacent hexes (6): combat units and leaders (11.1).
    /// Civilians and doctors exert it only in their own hex (15); artillery not at all.
    pub fn exerts_zoc(self) -> bool {
        self.is_combat_unit() || self == UnitKind::Leader
    }

    /// Units that move only as part of a stack with an Allied combat unit (5.2, 9, 15; R6).
    pub fn is_passenger(self) -> bool {
        matches!(self, UnitKind::Artillery | UnitKind::Civilian)
    }

    /// Whether the unit counts toward the stacking limit of section 7.
    pub fn counts_for_stacking(self) -> bool {
        !matches!(
            self,
            UnitKind::Artillery | UnitKind::Civilian | UnitKind::Doctor
        )
    }

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            UnitKind::Combat => "combat",
            UnitKind::Volunteer => "volunteer",
            UnitKind::Leader => "leader",
            UnitKind::Artillery => "artillery",
            UnitKind::Civilian => "civilian",
            UnitKind::Doctor => "doctor",
            UnitKind::Boxer => "boxer",
            UnitKind::Imperial => "imperial",
        }
    }
}

/// Nationality of an Allied counter, for command control (11.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Nationality {
    British,
    Russian,
    American,
    German,
    French,
    Austrian,
    Italian,
    Japanese,
}

impl fmt::Display for Nationality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Nationality::British => "British",
            Nationality::Russian => "Russian",
            Nationality::American => "American",
            Nationality::German => "German",
            Nationality::French => "French",
            Nationality::Austrian => "Austrian",
            Nationality::Italian => "Italian",
            Nationality::Japanese => "Japanese",
        })
    }
}

/// One counter of the mix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counter {
    pub id: UnitId,
    /// Stable short code, e.g. `gb1`, `myers`, `bx07`.
    pub code: String,
    /// The name printed in event text, e.g. `British 1`, `Myers`, `Boxers 7`.
    pub name: String,
    pub side: Side,
    pub kind: UnitKind,
    pub nationality: Option<Nationality>,
    /// Strength of the front (full) side; defence for civilians.
    pub strength: u8,
    /// Strength of the back (reduced) side of a two-step counter.
    pub reduced: Option<u8>,
    /// Movement allowance of section 5.2.
    pub movement: u8,
    /// Artillery odds bonus in CRT columns (9).
    pub bonus: u8,
}

impl Counter {
    /// Number of steps: two for a counter with a reduced side, otherwise one (8.6).
    pub fn steps(&self) -> u8 {
        if self.reduced.is_some() { 2 } else { 1 }
    }

    /// Current strength on the side shown.
    pub fn strength_when(&self, reduced: bool) -> u8 {
        if reduced {
            self.reduced.unwrap_or(0)
        } else {
            self.strength
        }
    }
}

/// Markers that are not units (R5).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct Markers {
    pub ruins: u8,
    pub fortifications_allied: u8,
    pub fortifications_chinese: u8,
    pub mines: u8,
    pub big_guns: u8,
}

/// The whole counter mix, indexed by [`UnitId`].
#[derive(Clone, Debug)]
pub struct CounterMix {
    pub counters: Vec<Counter>,
    pub markers: Markers,
    /// The civilian counters (15), listed once: whether all are lost is asked after every
    /// action (21), and finding four among every counter each time read the whole mix.
    civilians: Vec<UnitId>,
    /// The leaders (11), listed once for the same reason: command control (11.2) looks for
    /// them for every Allied unit at the start of each Allied movement phase.
    leaders: Vec<UnitId>,
}

/// Why the counters file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CounterError {
    #[error("counters.toml: {0}")]
    Syntax(String),
    #[error("counters.toml: counter `{code}`: {message}")]
    Bad { code: String, message: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    movement: BTreeMap<UnitKind, u8>,
    markers: Markers,
    counter: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    code: String,
    name: String,
    side: Side,
    kind: UnitKind,
    nationality: Option<Nationality>,
    #[serde(default = "one")]
    count: u16,
    #[serde(default)]
    pad: bool,
    #[serde(default)]
    strength: u8,
    reduced: Option<u8>,
    #[serde(default)]
    bonus: u8,
}

fn one() -> u16 {
    1
}

impl CounterMix {
    /// The counter mix shipped with the game.
    pub const DEFAULT_TEXT: &'static str = include_str!("../../scenario/counters.toml");

    /// Parse and check a counters file.
    pub fn parse(text: &str) -> Result<CounterMix, CounterError> {
        let file: File = toml::from_str(text).map_err(|e| CounterError::Syntax(e.to_string()))?;
        let mut counters: Vec<Counter> = Vec::new();
        for e in &file.counter {
            let bad = |message: &str| CounterError::Bad {
                code: e.code.clone(),
                message: message.to_string(),
            };
            if e.kind.side() != e.side {
                return Err(bad("side does not match the kind of counter"));
            }
            let movement = *file
                .movement
                .get(&e.kind)
                .ok_or_else(|| bad("no movement allowance for this kind in [movement]"))?;
            if e.kind.is_combat_unit() && e.strength == 0 {
                return Err(bad("a combat unit needs a strength"));
            }
            if e.reduced.is_some_and(|r| r == 0 || r >= e.strength) {
                return Err(bad("the reduced side must be weaker than the front"));
            }
            if (e.kind == UnitKind::Artillery) != (e.bonus > 0) {
                return Err(bad("artillery, and only artillery, has a bonus"));
            }
            if matches!(e.kind, UnitKind::Combat | UnitKind::Leader) && e.nationality.is_none() {
                return Err(bad("combat units and leaders need a nationality (11.2)"));
            }
            for i in 1..=e.count {
                let id =
                    UnitId(u16::try_from(counters.len()).map_err(|_| bad("too many counters"))?);
                // Troops are numbered even when there is one counter (`at1`); named
                // counters (leaders, guns, doctors) keep their code.
                let numbered = matches!(
                    e.kind,
                    UnitKind::Combat
                        | UnitKind::Volunteer
                        | UnitKind::Civilian
                        | UnitKind::Boxer
                        | UnitKind::Imperial
                );
                let (code, name) = match (numbered, e.pad) {
                    (false, _) => (e.code.clone(), e.name.clone()),
                    (true, true) => (format!("{}{i:02}", e.code), format!("{} {i}", e.name)),
                    (true, false) => (format!("{}{i}", e.code), format!("{} {i}", e.name)),
                };
                if counters.iter().any(|c| c.code == code) {
                    return Err(bad("duplicate counter code"));
                }
                counters.push(Counter {
                    id,
                    code,
                    name,
                    side: e.side,
                    kind: e.kind,
                    nationality: e.nationality,
                    strength: e.strength,
                    reduced: e.reduced,
                    movement,
                    bonus: e.bonus,
                });
            }
        }
        let leaders = counters
            .iter()
            .filter(|c| c.kind == UnitKind::Leader)
            .count();
        if leaders == 0 {
            return Err(CounterError::Syntax("the Allies need leaders (11)".into()));
        }
        let of_kind = |kind: UnitKind| -> Vec<UnitId> {
            counters
                .iter()
                .filter(|c| c.kind == kind)
                .map(|c| c.id)
                .collect()
        };
        let (civilians, leaders) = (of_kind(UnitKind::Civilian), of_kind(UnitKind::Leader));
        Ok(CounterMix {
            counters,
            markers: file.markers,
            civilians,
            leaders,
        })
    }

    /// The civilian counters, in id order (15).
    pub fn civilians(&self) -> &[UnitId] {
        &self.civilians
    }

    /// The leaders, in id order (11).
    pub fn leaders(&self) -> &[UnitId] {
        &self.leaders
    }

    /// The counter with this id.
    pub fn get(&self, id: UnitId) -> &Counter {
        &self.counters[id.index()]
    }

    /// The counter with this code.
    pub fn by_code(&self, code: &str) -> Option<&Counter> {
        self.counters.iter().find(|c| c.code == code)
    }

    /// Number of counters.
    pub fn len(&self) -> usize {
        self.counters.len()
    }

    /// Whether the mix is empty (never, for a loaded mix).
    pub fn is_empty(&self) -> bool {
        self.counters.is_empty()
    }

    /// Every unit id.
    pub fn ids(&self) -> impl Iterator<Item = UnitId> + '_ {
        self.counters.iter().map(|c| c.id)
    }
}

/// The stacking limit of a side in strength points (7).
pub fn stacking_limit(side: Side) -> u8 {
    match side {
        Side::Allied => 10,
        Side::Chinese => 30,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix() -> CounterMix {
        CounterMix::parse(CounterMix::DEFAULT_TEXT).unwrap()
    }

    fn count(kind: UnitKind) -> usize {
        mix().counters.iter().filter(|c| c.kind == kind).count()
    }

    /// The civilians and the leaders listed once are every civilian and every leader counter
    /// of the mix, in id order (15, 11).
    #[test]
    fn the_civilians_and_leaders_listed_are_those_counters_15_11() {
        let mix = mix();
        for (kind, listed) in [
            (UnitKind::Civilian, mix.civilians()),
            (UnitKind::Leader, mix.leaders()),
        ] {
            let all: Vec<UnitId> = mix
                .counters
                .iter()
                .filter(|c| c.kind == kind)
                .map(|c| c.id)
                .collect();
            assert_eq!(listed, all.as_slice(), "{kind:?}");
            assert_eq!(all.len(), count(kind));
            assert!(!all.is_empty(), "{kind:?}");
        }
    }

    #[test]
    fn the_counter_mix_matches_r5() {
        assert_eq!(count(UnitKind::Combat), 15);
        assert_eq!(count(UnitKind::Volunteer), 3);
        assert_eq!(count(UnitKind::Leader), 10);
        assert_eq!(count(UnitKind::Artillery), 5);
        assert_eq!(count(UnitKind::Civilian), 4);
        assert_eq!(count(UnitKind::Doctor), 2);
        assert_eq!(count(UnitKind::Boxer), 40);
        assert_eq!(count(UnitKind::Imperial), 24);
        let m = mix();
        assert_eq!(m.markers.ruins, 40);
        assert_eq!(m.markers.fortifications_allied, 12);
        assert_eq!(m.markers.mines, 2);
    }

    #[test]
    fn strengths_and_steps_follow_section_2_and_r5() {
        let m = mix();
        let gb1 = m.by_code("gb1").unwrap();
        assert_eq!((gb1.strength, gb1.reduced, gb1.steps()), (4, Some(2), 2));
        assert_eq!(m.by_code("at1").unwrap().name, "Austrian 1");
        let vol = m.by_code("vol2").unwrap();
        assert_eq!((vol.strength, vol.steps()), (6, 1));
        let bx = m.by_code("bx07").unwrap();
        assert_eq!(
            (bx.strength, bx.reduced, bx.name.as_str()),
            (10, Some(5), "Boxers 7")
        );
        let im = m.by_code("im24").unwrap();
        assert_eq!((im.strength, im.steps()), (10, 1));
        assert_eq!(m.by_code("betsy").unwrap().bonus, 2);
        assert_eq!(m.by_code("us_colt").unwrap().bonus, 1);
        assert_eq!(
            m.by_code("myers").unwrap().nationality,
            Some(Nationality::American)
        );
    }

    #[test]
    fn movement_allowances_follow_5_2() {
        let m = mix();
        assert_eq!(m.by_code("bx01").unwrap().movement, 8);
        assert_eq!(m.by_code("im01").unwrap().movement, 10);
        assert_eq!(m.by_code("gb1").unwrap().movement, 6);
        assert_eq!(m.by_code("myers").unwrap().movement, 6);
        assert_eq!(m.by_code("civ1").unwrap().movement, 6);
    }

    #[test]
    fn a_bad_counter_is_named_r5() {
        let text = CounterMix::DEFAULT_TEXT
            .replace("strength = 4\nreduced = 2", "strength = 4\nreduced = 5");
        let err = CounterMix::parse(&text).unwrap_err();
        assert!(
            matches!(err, CounterError::Bad { ref code, .. } if code == "gb"),
            "{err}"
        );
    }
}
