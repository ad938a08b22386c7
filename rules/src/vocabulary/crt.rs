//! The Combat Results Table (ruling R4; rules 8.1.2, 8.2, 9) as data from `scenario/crt.toml`,
//! and the odds: strengths compared with fractions dropped in the defender's favour, attacks
//! below 1-3 an automatic AE, artillery shifting columns right, the modified die read between
//! 1 and 6.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A combat result (8.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CrtResult {
    /// Attacker retreats all units 3 hexes.
    AR,
    /// Defender retreats all units 3 hexes.
    DR,
    /// Defender loses one step of one unit and retreats.
    DL1,
    /// Attacker loses one step of one unit and retreats.
    AL1,
    /// Attacker eliminated.
    AE,
    /// Defender eliminated.
    DE,
    /// Exchange: defender eliminated, attacker loses at least as many strength points.
    EX,
}

impl fmt::Display for CrtResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// The odds of an attack before and after artillery shifts (8.2, 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "odds", content = "column")]
pub enum Odds {
    /// Below 1-3: an automatic AE (8.1.2).
    BelowOneToThree,
    /// A column of the table, 0 = "1-3" … 7 = "6-1".
    Column(u8),
}

/// The table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crt {
    columns: Vec<String>,
    rows: [[CrtResult; 8]; 6],
}

/// Why the table file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("crt.toml: {0}")]
pub struct CrtError(pub String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    columns: Vec<String>,
    die: BTreeMap<String, Vec<CrtResult>>,
}

/// The column names the rules expect, in order.
const COLUMNS: [&str; 8] = ["1-3", "1-2", "1-1", "2-1", "3-1", "4-1", "5-1", "6-1"];

impl Crt {
    /// The table shipped with the game.
    pub const DEFAULT_TEXT: &'static str = include_str!("../../scenario/crt.toml");

    /// Parse and check a table.
    pub fn parse(text: &str) -> Result<Crt, CrtError> {
        let file: File = toml::from_str(text).map_err(|e| CrtError(e.to_string()))?;
        if file.columns != COLUMNS {
            return Err(CrtError(format!(
                "columns must be {COLUMNS:?} (R4), found {:?}",
                file.columns
            )));
        }
        let mut rows = [[CrtResult::AE; 8]; 6];
        for die in 1..=6u8 {
            let row = file
                .die
                .get(&die.to_string())
                .ok_or_else(|| CrtError(format!("no row for die roll {die}")))?;
            if row.len() != 8 {
                return Err(CrtError(format!(
                    "row {die} has {} results, expected 8",
                    row.len()
                )));
            }
            rows[usize::from(die - 1)].copy_from_slice(row);
        }
        if file.die.len() != 6 {
            return Err(CrtError("rows must be exactly the die rolls 1 to 6".into()));
        }
        Ok(Crt {
            columns: file.columns,
            rows,
        })
    }

    /// The result for a column and a modified die (read between 1 and 6, R4).
    pub fn result(&self, odds: Odds, modified_die: i8) -> CrtResult {
        match odds {
            Odds::BelowOneToThree => CrtResult::AE,
            Odds::Column(c) => {
                let die = modified_die.clamp(1, 6) as usize;
                self.rows[die - 1][usize::from(c.min(7))]
            }
        }
    }

    /// The printed name of an odds column, e.g. `2-1`.
    pub fn column_name(&self, odds: Odds) -> &str {
        match odds {
            Odds::BelowOneToThree => "below 1-3",
            Odds::Column(c) => &self.columns[usize::from(c.min(7))],
        }
    }
}

/// The odds of `attack` against `defence`, rounded in the defender's favour (8.2).
pub fn odds(attack: u32, defence: u32) -> Odds {
    if defence == 0 {
        return Odds::Column(7);
    }
    if attack == 0 {
        return Odds::BelowOneToThree;
    }
    if attack >= defence {
        let n = (attack / defence).min(6);
        Odds::Column(u8::try_from(n + 1).unwrap_or(7))
    } else {
        match defence.div_ceil(attack) {
            2 => Odds::Column(1),
            3 => Odds::Column(0),
            _ => Odds::BelowOneToThree,
        }
    }
}

/// The odds after `shift` columns to the right for artillery (9). Attacks below 1-3 stay an
/// automatic AE: the bonus improves odds, it does not make a forbidden attack legal (8.1.2).
pub fn shift(odds: Odds, shift: u8) -> Odds {
    match odds {
        Odds::BelowOneToThree => Odds::BelowOneToThree,
        Odds::Column(c) => Odds::Column((c + shift).min(7)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crt() -> Crt {
        Crt::parse(Crt::DEFAULT_TEXT).unwrap()
    }

    #[test]
    fn the_worked_example_16_against_8_is_2_to_1_8_2() {
        let o = odds(6 + 10, 8);
        assert_eq!(crt().column_name(o), "2-1");
    }

    #[test]
    fn odds_round_in_the_defenders_favour_8_2() {
        let c = crt();
        assert_eq!(c.column_name(odds(11, 4)), "2-1");
        assert_eq!(c.column_name(odds(12, 4)), "3-1");
        assert_eq!(c.column_name(odds(5, 8)), "1-2");
        assert_eq!(c.column_name(odds(5, 10)), "1-2");
        assert_eq!(c.column_name(odds(5, 11)), "1-3");
        assert_eq!(c.column_name(odds(5, 15)), "1-3");
        assert_eq!(c.column_name(odds(40, 4)), "6-1");
        assert_eq!(c.column_name(odds(4, 4)), "1-1");
    }

    #[test]
    fn below_1_to_3_is_an_automatic_ae_8_1_2() {
        let o = odds(4, 13);
        assert_eq!(o, Odds::BelowOneToThree);
        for die in 1..=6 {
            assert_eq!(crt().result(o, die), CrtResult::AE);
        }
        assert_eq!(shift(o, 2), Odds::BelowOneToThree);
    }

    #[test]
    fn artillery_shifts_columns_right_2_to_1_plus_2_reads_4_to_1_9() {
        let c = crt();
        assert_eq!(c.column_name(shift(odds(8, 4), 2)), "4-1");
        assert_eq!(c.column_name(shift(odds(8, 4), 1 + 2)), "5-1");
        assert_eq!(c.column_name(shift(odds(30, 4), 2)), "6-1");
    }

    #[test]
    fn the_table_reads_as_printed_in_r4() {
        let c = crt();
        assert_eq!(c.result(Odds::Column(0), 1), CrtResult::AE);
        assert_eq!(c.result(Odds::Column(3), 6), CrtResult::EX);
        assert_eq!(c.result(Odds::Column(7), 2), CrtResult::DE);
        assert_eq!(c.result(Odds::Column(2), 4), CrtResult::DR);
        assert_eq!(c.result(Odds::Column(6), 3), CrtResult::EX);
    }

    #[test]
    fn a_modified_die_reads_between_1_and_6_r4() {
        let c = crt();
        assert_eq!(c.result(Odds::Column(3), 0), c.result(Odds::Column(3), 1));
        assert_eq!(c.result(Odds::Column(3), 7), c.result(Odds::Column(3), 6));
    }

    #[test]
    fn a_table_with_a_missing_row_is_refused_r4() {
        let text = Crt::DEFAULT_TEXT.replace("6 = [", "7 = [");
        assert!(Crt::parse(&text).is_err());
    }
}
