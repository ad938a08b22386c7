//! The default Allied deployment (22) as data: `rules/scenario/deployment.txt` gives a hex for
//! every Allied counter, checked against the map and the counter mix when the scenario loads.
//! The setup rules themselves (where a unit may be placed) are in `mechanics/setup.rs`.

use crate::vocabulary::hex::Hex;
use crate::vocabulary::map::Map;
use crate::vocabulary::units::{CounterMix, UnitId, UnitKind, stacking_limit};
use siege_protocol::Side;

/// The default Allied deployment: one hex per Allied counter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deployment {
    pub hexes: Vec<(UnitId, Hex)>,
}

/// Why the deployment file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("deployment.txt: {0}")]
pub struct DeploymentError(pub String);

impl Deployment {
    /// The default deployment shipped with the game.
    pub const DEFAULT_TEXT: &'static str = include_str!("../../scenario/deployment.txt");

    /// Parse a deployment and check it against section 22, 7, 9 and 15.
    pub fn parse(
        text: &str,
        map: &Map,
        counters: &CounterMix,
    ) -> Result<Deployment, DeploymentError> {
        let mut hexes: Vec<(UnitId, Hex)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = |m: String| DeploymentError(format!("line {}: {m}", i + 1));
            let mut words = line.split_whitespace();
            let (Some(code), Some(hex), None) = (words.next(), words.next(), words.next()) else {
                return Err(bad("expected `code hex`".into()));
            };
            let c = counters
                .by_code(code)
                .ok_or_else(|| bad(format!("unknown counter `{code}`")))?;
            if c.side != Side::Allied {
                return Err(bad(format!("`{code}` is not an Allied counter")));
            }
            let hex: Hex = hex
                .parse()
                .map_err(|e: crate::vocabulary::hex::BadHex| bad(e.to_string()))?;
            if !map.in_setup_area(hex) {
                return Err(bad(format!(
                    "{code} at {hex} is outside the Allied setup area (22)"
                )));
            }
            if hexes.iter().any(|(u, _)| *u == c.id) {
                return Err(bad(format!("`{code}` is placed twice")));
            }
            hexes.push((c.id, hex));
        }
        for c in counters.counters.iter().filter(|c| c.side == Side::Allied) {
            if !hexes.iter().any(|(u, _)| *u == c.id) {
                return Err(DeploymentError(format!("`{}` has no hex", c.code)));
            }
        }
        hexes.sort();
        let dep = Deployment { hexes };
        dep.check(map, counters)?;
        Ok(dep)
    }

    /// Stacking, manned artillery and escorted civilians (7, 9, 15).
    fn check(&self, map: &Map, counters: &CounterMix) -> Result<(), DeploymentError> {
        let _ = map;
        let mut hexes: Vec<Hex> = self.hexes.iter().map(|(_, h)| *h).collect();
        hexes.sort();
        hexes.dedup();
        let at = |h: Hex| {
            self.hexes
                .iter()
                .filter(move |(_, x)| *x == h)
                .map(|(u, _)| counters.get(*u))
        };
        let manned =
            |h: Hex| at(h).any(|c| matches!(c.kind, UnitKind::Combat | UnitKind::Volunteer));
        for &h in &hexes {
            let points: u32 = at(h)
                .filter(|c| c.kind.counts_for_stacking())
                .map(|c| u32::from(c.strength))
                .sum();
            if points > u32::from(stacking_limit(Side::Allied)) {
                return Err(DeploymentError(format!(
                    "{h} holds {points} strength points; the limit is 10 (7)"
                )));
            }
            let guns = at(h).filter(|c| c.kind == UnitKind::Artillery).count();
            if guns > 1 {
                return Err(DeploymentError(format!(
                    "{h} holds {guns} artillery pieces; one is the limit (7)"
                )));
            }
            if guns == 1 && !manned(h) {
                return Err(DeploymentError(format!(
                    "the artillery at {h} has no combat unit with it (9)"
                )));
            }
            if at(h).any(|c| c.kind == UnitKind::Civilian)
                && !manned(h)
                && !h.neighbours().any(manned)
            {
                return Err(DeploymentError(format!(
                    "the civilians at {h} have no combat unit with or beside them (15)"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::scenario::Scenario;

    #[test]
    fn the_default_deployment_is_inside_the_setup_line_and_legal_22() {
        let scn = Scenario::load_default().unwrap();
        assert_eq!(scn.deployment.hexes.len(), 39);
        for (_, h) in &scn.deployment.hexes {
            assert!(scn.map.in_setup_area(*h));
        }
    }

    #[test]
    fn a_deployment_outside_the_line_is_refused_22() {
        let scn = Scenario::load_default().unwrap();
        let text = Deployment::DEFAULT_TEXT.replacen("gb1 ", "gb1 0101 #", 1);
        let err = Deployment::parse(&text, &scn.map, &scn.counters).unwrap_err();
        assert!(
            err.to_string().contains("outside the Allied setup area"),
            "{err}"
        );
    }
}
