//! The numbers of one combat (8.2, 9, 11.1, 18): attack and defence strengths, the terrain and
//! multiplier that applied and why, the odds before and after artillery shifts, the die and its
//! modifier, the result. The same report previews the odds before the die is rolled, so a
//! wargamer can check every number from the text alone.

use super::board::Board;
use super::combat::{Declaration, defending_leaders, zoc_targets};
use super::crt::{self, CrtResult, Odds};
use super::defence;
use super::game::names;
use super::hex::Hex;
use super::leaders::LeaderUse;
use super::scenario::Scenario;
use super::state::State;
use super::units::{UnitId, UnitKind};
use serde::{Deserialize, Serialize};
use siege_protocol::Side;

/// Every number of a combat, before or after the roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CombatReport {
    /// The side attacking.
    pub attacker: Side,
    pub defenders: Vec<Hex>,
    /// Units attacking from adjacent hexes (normal combat).
    pub adjacent: Vec<UnitId>,
    /// Units firing from two or more hexes away (ranged fire, 8.1.1).
    pub ranged: Vec<UnitId>,
    pub artillery: Vec<UnitId>,
    pub bayonet: bool,
    /// Total attack strength (quadrupled in a bayonet charge).
    pub attack: u32,
    /// How the attack strength adds up, in words.
    pub attack_detail: String,
    /// Defence strength before the terrain multiplier.
    pub defence_base: u32,
    /// The terrain that gave the best defence (18.4, last paragraph).
    pub terrain: String,
    pub multiplier: u32,
    /// Why that multiplier applied (or did not), in words.
    pub terrain_reason: String,
    /// Defence strength after the multiplier.
    pub defence: u32,
    /// Odds column before artillery, e.g. `2-1`.
    pub odds: String,
    /// Artillery column shifts (9).
    pub shift: u8,
    /// The column read, e.g. `4-1`.
    pub column: String,
    /// Die modifier from a leader (11.1, R4).
    pub modifier: i8,
    /// Whether this attack may be resolved now, and if not why (8.1.2).
    pub legal: bool,
    pub why_not: Option<String>,
    /// The die rolled, once resolved.
    pub die: Option<u8>,
    /// The die after the modifier, read between 1 and 6.
    pub modified: Option<u8>,
    pub result: Option<CrtResult>,
}

/// Every number of the declared combat, before the roll (8.2, 9, 11.1, 18).
pub fn compute(scn: &Scenario, st: &State, d: &Declaration) -> CombatReport {
    let board = Board::new(scn, st);
    let mut adjacent = Vec::new();
    let mut ranged = Vec::new();
    let mut attack: u32 = 0;
    let mut parts: Vec<String> = Vec::new();
    let charge = d.charge_from.is_some();
    for &u in &d.attackers {
        let c = scn.counters.get(u);
        let us = st.unit(u);
        let at = if charge { d.charge_from } else { us.hex() };
        let is_adjacent =
            charge || at.is_some_and(|h| d.defenders.iter().all(|t| h.is_adjacent(*t)));
        if is_adjacent {
            adjacent.push(u)
        } else {
            ranged.push(u)
        }
        let base = if c.kind == UnitKind::Leader {
            if d.use_of(u) == LeaderUse::Strength || charge {
                1
            } else {
                0
            }
        } else {
            u32::from(c.strength_when(us.reduced))
        };
        let s = if charge { base * 4 } else { base };
        if s > 0 {
            let how = if !is_adjacent { " ranged" } else { "" };
            parts.push(format!("{} {s}{how}", c.name));
        }
        attack += s;
    }
    let attack_detail = if charge {
        format!(
            "{} (quadrupled in a bayonet charge, 8.1.3)",
            parts.join(" + ")
        )
    } else {
        parts.join(" + ")
    };
    let attacker_hexes: Vec<Hex> = match d.charge_from {
        Some(h) => vec![h],
        None => {
            let mut v: Vec<Hex> = d
                .attackers
                .iter()
                .filter_map(|u| st.unit(*u).hex())
                .collect();
            v.sort();
            v.dedup();
            v
        }
    };
    let mut defence_base: u32 = 0;
    let mut defence: u32 = 0;
    let mut terrains = Vec::new();
    let mut reasons = Vec::new();
    let mut best_mult = 1;
    for &h in &d.defenders {
        let mut base: u32 = 0;
        for u in st.units_at(h) {
            let c = scn.counters.get(u);
            base += match c.kind {
                UnitKind::Leader if d.use_of(u) == LeaderUse::Strength => 1,
                UnitKind::Leader | UnitKind::Artillery | UnitKind::Doctor => 0,
                UnitKind::Civilian if board.at(h).manned => 1,
                UnitKind::Civilian => 0,
                _ => u32::from(c.strength_when(st.unit(u).reduced)),
            };
        }
        let effect = defence::effect(scn, st, h, &attacker_hexes);
        defence_base += base;
        defence += base * effect.multiplier;
        best_mult = best_mult.max(effect.multiplier);
        terrains.push(format!("{h} {} ×{}", effect.terrain, effect.multiplier));
        reasons.push(effect.reason);
    }
    let raw = crt::odds(attack, defence);
    let shift: u8 = d.artillery.iter().map(|a| scn.counters.get(*a).bonus).sum();
    let column = crt::shift(raw, shift);
    let allied_attack_mod = d.side == Side::Allied
        && !charge
        && !adjacent.is_empty()
        && d.attackers.iter().any(|u| {
            scn.counters.get(*u).kind == UnitKind::Leader && d.use_of(*u) == LeaderUse::Modifier
        });
    let allied_defence_mod = d.side == Side::Chinese
        && defending_leaders(scn, st, d)
            .iter()
            .any(|l| d.use_of(*l) == LeaderUse::Modifier);
    let modifier: i8 = if allied_attack_mod {
        1
    } else if allied_defence_mod {
        -1
    } else {
        0
    };
    let mut why_not = None;
    let has_unit = d
        .attackers
        .iter()
        .any(|u| scn.counters.get(*u).kind != UnitKind::Leader);
    let forced = d.attackers.iter().any(|u| {
        st.unit(*u)
            .hex()
            .is_some_and(|h| !zoc_targets(scn, st, &board, d.side, h).is_empty())
    });
    if !has_unit {
        why_not = Some("add an attacking unit: leaders never attack alone (7, 11.1)".to_string());
    } else if raw == Odds::BelowOneToThree && !forced {
        why_not = Some(format!(
            "{attack} against {defence} is below 1-3: no attack may be made at such odds unless forced (8.1.2)"
        ));
    }
    CombatReport {
        attacker: d.side,
        defenders: d.defenders.clone(),
        adjacent,
        ranged,
        artillery: d.artillery.clone(),
        bayonet: charge,
        attack,
        attack_detail,
        defence_base,
        terrain: terrains.join(", "),
        multiplier: best_mult,
        terrain_reason: reasons.join("; "),
        defence,
        odds: scn.crt.column_name(raw).to_string(),
        shift,
        column: scn.crt.column_name(column).to_string(),
        modifier,
        legal: why_not.is_none(),
        why_not,
        die: None,
        modified: None,
        result: None,
    }
}

/// The combat in words, every number checkable (8.2).
pub fn describe(scn: &Scenario, r: &CombatReport, d: &Declaration) -> String {
    let who = names(scn, &d.attackers);
    let targets: Vec<String> = d.defenders.iter().map(Hex::to_string).collect();
    let verb = if r.bayonet {
        "charge with the bayonet into"
    } else if r.adjacent.is_empty() {
        "fire on"
    } else {
        "attack"
    };
    let mut s = format!(
        "{who} {verb} {}: attack {} ({}) against defence {} ({}; {}) = {}",
        targets.join(" and "),
        r.attack,
        r.attack_detail,
        r.defence,
        r.terrain,
        r.terrain_reason,
        r.odds
    );
    if r.shift > 0 {
        let guns = names(scn, &r.artillery);
        s.push_str(&format!(", artillery {guns} +{} → {}", r.shift, r.column));
    }
    if let (Some(die), Some(m), Some(res)) = (r.die, r.modified, r.result) {
        match r.modifier {
            0 => s.push_str(&format!(", rolled {die}: {res}")),
            k => s.push_str(&format!(", rolled {die} {k:+} (leader, 11.1) = {m}: {res}")),
        }
    }
    if r.odds == "below 1-3" {
        s.push_str(" (automatic AE below 1-3, 8.1.2)");
    }
    s
}
