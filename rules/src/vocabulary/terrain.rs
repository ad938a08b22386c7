//! The Terrain Effects Chart (ruling R3; rules 5.1, 17, 18): what a hex costs to enter, how it
//! multiplies a defender, whether it blocks line of sight and takes a zone of control. The
//! numbers come from the data file `scenario/terrain.toml`; a ruin marker replaces the printed
//! terrain (17), a fortification adds its own line on top (13).

use crate::vocabulary::map::Terrain;
use serde::{Deserialize, Serialize};

/// The terrain that counts in play: the printed terrain, or a ruin that replaced it (17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ground {
    Clear,
    Outside,
    Bridge,
    StoneBridge,
    Building,
    Wall,
    TartarWall,
    Canal,
    Ruin,
}

impl Ground {
    /// The name used on the chart and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Ground::Clear => "clear",
            Ground::Outside => "outside ground",
            Ground::Bridge => "bridge",
            Ground::StoneBridge => "stone bridge",
            Ground::Building => "building",
            Ground::Wall => "wall",
            Ground::TartarWall => "Tartar Wall",
            Ground::Canal => "canal",
            Ground::Ruin => "ruin",
        }
    }

    /// Clear terrain for fortifications (13): clear and outside ground; ruins count too (17).
    pub fn takes_fortification(self) -> bool {
        matches!(self, Ground::Clear | Ground::Outside | Ground::Ruin)
    }

    /// Clear terrain for the Big Gun damage chart (10): clear and outside ground.
    pub fn is_clear(self) -> bool {
        matches!(self, Ground::Clear | Ground::Outside)
    }
}

/// The chart line of a printed terrain.
pub fn printed_ground(t: Terrain) -> Ground {
    match t {
        Terrain::Clear => Ground::Clear,
        Terrain::Outside => Ground::Outside,
        Terrain::Bridge => Ground::Bridge,
        Terrain::StoneBridge => Ground::StoneBridge,
        Terrain::Building => Ground::Building,
        Terrain::Wall => Ground::Wall,
        Terrain::TartarWall => Ground::TartarWall,
        Terrain::Canal => Ground::Canal,
    }
}

/// How far a zone of control reaches into a terrain (6, 18.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZocInto {
    Yes,
    No,
    /// Only from a unit already on the Tartar Wall (6).
    FromWall,
}

/// One line of the chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainLine {
    /// Cost to enter; `None` for prohibited terrain.
    pub mp: Option<u8>,
    /// Tartar Wall only: cost to enter from outside ground (18.1).
    pub mp_from_outside: Option<u8>,
    /// Tartar Wall only: cost to move along the wall (18.1).
    pub mp_along: Option<u8>,
    pub defence: u8,
    pub blocks_los: bool,
    pub zoc: ZocInto,
}

/// The whole chart.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainChart {
    pub clear: TerrainLine,
    pub outside: TerrainLine,
    pub bridge: TerrainLine,
    pub stone_bridge: TerrainLine,
    pub building: TerrainLine,
    pub wall: TerrainLine,
    pub tartar_wall: TerrainLine,
    pub canal: TerrainLine,
    pub ruin: TerrainLine,
    pub fortification: TerrainLine,
}

/// Why the terrain chart was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("terrain.toml: {0}")]
pub struct TerrainError(pub String);

/// The highest movement cost a chart may give: the largest allowance in the counter mix is
/// far below it, and a cost and a fortification's together stay below the board's marker for
/// a prohibited step (`position/hex_index.rs`).
pub const MAX_MP: u8 = 99;

impl TerrainChart {
    /// The chart shipped with the game.
    pub const DEFAULT_TEXT: &'static str = include_str!("../../scenario/terrain.toml");

    /// Parse and check a chart.
    pub fn parse(text: &str) -> Result<TerrainChart, TerrainError> {
        let chart: TerrainChart = toml::from_str(text).map_err(|e| TerrainError(e.to_string()))?;
        if chart.canal.mp.is_some() {
            return Err(TerrainError(
                "[canal] must have no mp: the canal is prohibited (5.1)".into(),
            ));
        }
        let w = &chart.tartar_wall;
        if w.mp.is_none() || w.mp_from_outside.is_none() || w.mp_along.is_none() {
            return Err(TerrainError(
                "[tartar_wall] needs mp, mp_from_outside and mp_along (18.1)".into(),
            ));
        }
        for (name, line) in chart.lines() {
            if line.defence == 0 {
                return Err(TerrainError(format!("[{name}] defence must be at least 1")));
            }
            if name != "canal" && line.mp.is_none() {
                return Err(TerrainError(format!("[{name}] needs an mp cost")));
            }
            // Entering ground costs at least 1 MP (the searches rely on it, mechanics/
            // movement.rs); a fortification only adds to that, so it may add nothing.
            let least = if name == "fortification" { 0 } else { 1 };
            for mp in [line.mp, line.mp_from_outside, line.mp_along]
                .into_iter()
                .flatten()
            {
                if !(least..=MAX_MP).contains(&mp) {
                    return Err(TerrainError(format!(
                        "[{name}] has an mp cost of {mp}: costs run from {least} to {MAX_MP} (5.1)"
                    )));
                }
            }
        }
        Ok(chart)
    }

    fn lines(&self) -> [(&'static str, &TerrainLine); 10] {
        [
            ("clear", &self.clear),
            ("outside", &self.outside),
            ("bridge", &self.bridge),
            ("stone_bridge", &self.stone_bridge),
            ("building", &self.building),
            ("wall", &self.wall),
            ("tartar_wall", &self.tartar_wall),
            ("canal", &self.canal),
            ("ruin", &self.ruin),
            ("fortification", &self.fortification),
        ]
    }

    /// The chart line of a ground.
    pub fn line(&self, g: Ground) -> &TerrainLine {
        match g {
            Ground::Clear => &self.clear,
            Ground::Outside => &self.outside,
            Ground::Bridge => &self.bridge,
            Ground::StoneBridge => &self.stone_bridge,
            Ground::Building => &self.building,
            Ground::Wall => &self.wall,
            Ground::TartarWall => &self.tartar_wall,
            Ground::Canal => &self.canal,
            Ground::Ruin => &self.ruin,
        }
    }

    /// Movement points to move from a hex of ground `from` into one of ground `to`
    /// (5.1, 18.1), or `None` where entry is prohibited. A fortification adds its own cost.
    pub fn entry_cost(&self, from: Ground, to: Ground, fortified: bool) -> Option<u8> {
        let base = match (from, to) {
            (_, Ground::Canal) => return None,
            (Ground::TartarWall, Ground::TartarWall) => self.tartar_wall.mp_along?,
            (Ground::Outside, Ground::TartarWall) => self.tartar_wall.mp_from_outside?,
            (_, g) => self.line(g).mp?,
        };
        let extra = if fortified {
            self.fortification.mp.unwrap_or(0)
        } else {
            0
        };
        Some(base + extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> TerrainChart {
        TerrainChart::parse(TerrainChart::DEFAULT_TEXT).unwrap()
    }

    #[test]
    fn movement_costs_follow_the_terrain_chart_r3() {
        let c = chart();
        assert_eq!(c.entry_cost(Ground::Clear, Ground::Clear, false), Some(1));
        assert_eq!(
            c.entry_cost(Ground::Clear, Ground::Building, false),
            Some(2)
        );
        assert_eq!(c.entry_cost(Ground::Clear, Ground::Wall, false), Some(2));
        assert_eq!(c.entry_cost(Ground::Clear, Ground::Ruin, false), Some(2));
        assert_eq!(c.entry_cost(Ground::Clear, Ground::Bridge, false), Some(1));
        assert_eq!(c.entry_cost(Ground::Ruin, Ground::Clear, true), Some(1));
    }

    #[test]
    fn the_tartar_wall_costs_8_from_outside_6_from_the_legations_1_along_18_1() {
        let c = chart();
        assert_eq!(
            c.entry_cost(Ground::Outside, Ground::TartarWall, false),
            Some(8)
        );
        assert_eq!(
            c.entry_cost(Ground::Clear, Ground::TartarWall, false),
            Some(6)
        );
        assert_eq!(
            c.entry_cost(Ground::Building, Ground::TartarWall, false),
            Some(6)
        );
        assert_eq!(
            c.entry_cost(Ground::TartarWall, Ground::TartarWall, false),
            Some(1)
        );
        assert_eq!(
            c.entry_cost(Ground::TartarWall, Ground::Clear, false),
            Some(1)
        );
    }

    #[test]
    fn the_canal_is_prohibited_5_1() {
        let c = chart();
        assert_eq!(c.entry_cost(Ground::Clear, Ground::Canal, false), None);
        assert_eq!(c.entry_cost(Ground::Bridge, Ground::Canal, false), None);
    }

    #[test]
    fn a_chart_giving_the_canal_a_cost_is_refused_r3() {
        let text = TerrainChart::DEFAULT_TEXT.replace("[canal]\n", "[canal]\nmp = 3\n");
        assert!(TerrainChart::parse(&text).is_err());
    }

    /// A chart with a cost of 0 to enter ground, or past the highest, is refused at start-up,
    /// naming the line and the cost (5.1).
    #[test]
    fn a_chart_with_a_cost_out_of_range_is_refused_5_1() {
        for bad in ["0", "100", "255"] {
            let text = TerrainChart::DEFAULT_TEXT.replacen("mp = 1", &format!("mp = {bad}"), 1);
            let e = TerrainChart::parse(&text).expect_err("refused");
            assert!(e.0.contains(&format!("mp cost of {bad}")), "{e}");
        }
    }

    #[test]
    fn defence_multipliers_follow_r3() {
        let c = chart();
        assert_eq!(c.line(Ground::Building).defence, 3);
        assert_eq!(c.line(Ground::Wall).defence, 3);
        assert_eq!(c.line(Ground::TartarWall).defence, 4);
        assert_eq!(c.line(Ground::Ruin).defence, 2);
        assert_eq!(c.fortification.defence, 3);
        assert_eq!(c.line(Ground::Clear).defence, 1);
    }
}
