//! The scenario: the static tables a game is played on — map (R2), counter mix (R5), terrain
//! chart (R3), CRT (R4) and the default Allied deployment (22) — loaded from the data files in
//! `rules/scenario/` and validated together at start-up. Also the JSON form of the map and
//! counters that the web page and the analysis board draw from.

use crate::vocabulary::crt::{Crt, CrtError};
use crate::vocabulary::deployment::{Deployment, DeploymentError};
use crate::vocabulary::hex::{COLUMNS, Hex, ROWS};
use crate::vocabulary::map::{Map, MapError};
use crate::vocabulary::terrain::{TerrainChart, TerrainError};
use crate::vocabulary::units::{CounterError, CounterMix};
use serde_json::{Value, json};
use std::sync::{Arc, OnceLock};

/// The game lasts eleven turns (20).
pub const LAST_TURN: u8 = 11;

/// Everything static about a game.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub map: Map,
    pub counters: CounterMix,
    pub terrain: TerrainChart,
    pub crt: Crt,
    pub deployment: Deployment,
}

/// Why a scenario could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    #[error(transparent)]
    Map(#[from] MapError),
    #[error(transparent)]
    Counters(#[from] CounterError),
    #[error(transparent)]
    Terrain(#[from] TerrainError),
    #[error(transparent)]
    Crt(#[from] CrtError),
    #[error(transparent)]
    Deployment(#[from] DeploymentError),
}

/// The texts of the scenario's data files.
#[derive(Clone, Copy, Debug)]
pub struct ScenarioTexts<'a> {
    pub map: &'a str,
    pub counters: &'a str,
    pub terrain: &'a str,
    pub crt: &'a str,
    pub deployment: &'a str,
}

impl ScenarioTexts<'static> {
    /// The data files compiled into the binary.
    pub const DEFAULT: ScenarioTexts<'static> = ScenarioTexts {
        map: Map::DEFAULT_TEXT,
        counters: CounterMix::DEFAULT_TEXT,
        terrain: TerrainChart::DEFAULT_TEXT,
        crt: Crt::DEFAULT_TEXT,
        deployment: Deployment::DEFAULT_TEXT,
    };
}

impl Scenario {
    /// Load and validate a scenario from the texts of its files.
    pub fn load(texts: ScenarioTexts<'_>) -> Result<Scenario, ScenarioError> {
        let map = Map::parse(texts.map)?;
        let counters = CounterMix::parse(texts.counters)?;
        let terrain = TerrainChart::parse(texts.terrain)?;
        let crt = Crt::parse(texts.crt)?;
        let deployment = Deployment::parse(texts.deployment, &map, &counters)?;
        Ok(Scenario {
            map,
            counters,
            terrain,
            crt,
            deployment,
        })
    }

    /// The scenario shipped with the game.
    pub fn load_default() -> Result<Scenario, ScenarioError> {
        Scenario::load(ScenarioTexts::DEFAULT)
    }

    /// The shipped scenario, loaded and checked once per process and shared: for tools and
    /// tests that play many games on it.
    pub fn shipped() -> Result<Arc<Scenario>, ScenarioError> {
        static SHIPPED: OnceLock<Result<Arc<Scenario>, ScenarioError>> = OnceLock::new();
        SHIPPED
            .get_or_init(|| Scenario::load_default().map(Arc::new))
            .clone()
    }

    /// The map and counter mix as JSON (`siege map --json`, `GET /api/scenario`).
    pub fn to_json(&self) -> Value {
        let map = &self.map;
        let key =
            |a: Option<crate::vocabulary::map::AreaId>| a.map(|a| map.area_info(a).key.clone());
        let hexes: Vec<Value> = Hex::all()
            .map(|h| {
                json!({
                    "id": h,
                    "terrain": map.terrain(h).name(),
                    "building": key(map.building(h)),
                    "area": key(map.area(h)),
                    "victory": map.victory(h),
                    "edge": h.is_edge(),
                    "setup": map.in_setup_area(h),
                    "hospital": map.is_hospital(h),
                })
            })
            .collect();
        let areas: Vec<Value> = map
            .areas()
            .iter()
            .map(|a| json!({"key": a.key, "name": a.name, "hexes": a.hexes}))
            .collect();
        let counters: Vec<Value> = self
            .counters
            .counters
            .iter()
            .map(|c| {
                json!({
                    "id": c.id, "code": c.code, "name": c.name, "side": c.side,
                    "type": c.kind, "nationality": c.nationality, "strength": c.strength,
                    "reduced": c.reduced, "steps": c.steps(), "movement": c.movement,
                    "bonus": c.bonus,
                })
            })
            .collect();
        json!({
            "columns": COLUMNS,
            "rows": ROWS,
            "hexes": hexes,
            "areas": areas,
            "labels": map.labels(),
            "turns": LAST_TURN,
            "phases": siege_protocol::Phase::TURN,
            "setup_line": map.setup_line(),
            "victory_hexes": map.victory_hexes().iter().map(|(h, k)| json!({"hex": h, "kind": k})).collect::<Vec<_>>(),
            "counters": counters,
            "markers": self.counters.markers,
            "terrain_chart": self.terrain,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_scenario_loads_and_exports_every_hex() {
        let scn = Scenario::load_default().unwrap();
        let json = scn.to_json();
        assert_eq!(json["columns"], 39);
        assert_eq!(json["rows"], 40);
        let hexes = json["hexes"].as_array().unwrap();
        assert_eq!(hexes.len(), 1560);
        let h2019 = hexes.iter().find(|h| h["id"] == "2019").unwrap();
        assert_eq!(h2019["victory"], "primary");
        assert_eq!(h2019["area"], "british");
        assert_eq!(
            json["counters"].as_array().unwrap().len(),
            15 + 3 + 10 + 5 + 4 + 2 + 40 + 24
        );
    }
}
