//! The numbers of one combat (8.2, 9, 11.1, 18): attack and defence strengths, the terrain and
//! multiplier that applied and why, the odds before and after artillery shifts, the die and its
//! modifier, the result. The same report previews the odds before the die is rolled, so a
//! wargamer can check every number from the text alone.

use crate::mechanics::combat::{defending_leaders, zoc_targets};
use crate::mechanics::defence;
use crate::position::action::LeaderUse;
use crate::position::combat_report::CombatReport;
use crate::position::ctx::names;
use crate::position::declaration::Declaration;
use crate::position::hex_index::HexIndex;
use crate::position::state::State;
use crate::vocabulary::crt::{self, Odds};
use crate::vocabulary::hex::Hex;
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::UnitKind;
use siege_protocol::Side;

/// What a forced attack below 1-3 is, shown with its odds (8.1.2).
pub const AUTOMATIC_AE: &str = "automatic AE (8.1.2)";

/// Every number of the declared combat, before the roll (8.2, 9, 11.1, 18).
pub fn compute(scn: &Scenario, st: &State, d: &Declaration) -> CombatReport {
    let board = HexIndex::of(scn, st);
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
    if d.attackers.is_empty() && !charge {
        why_not = Some("no unit attacks yet: add the units that attack (8.2)".to_string());
    } else if !has_unit {
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
        automatic: (raw == Odds::BelowOneToThree).then(|| AUTOMATIC_AE.to_string()),
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
    if let Some(auto) = &r.automatic {
        s.push_str(&format!(" — below 1-3: {auto}"));
    }
    s
}
