//! Choosing attacks (8.1, 8.2, 9, 11.1; rulings R4 and R6, docs/rulings.md): every enemy hex
//! that can be attacked, the units that can join (adjacent, or firing from range with a clear
//! line of sight), the artillery that can add its shift, the odds and the CRT's expected outcome
//! for both sides; then a set of attacks that honours every obligation of units in an enemy zone of control and
//! spends each unit on the attack where it does most. Ranged fire alone risks nothing (8.1.1),
//! so it is taken at any odds that can hurt; close combat only where the odds pay.

use crate::eval::capture_value;
use crate::intent::{Intent, PlanItem};
use crate::know::{MapInfo, Pos};
use crate::odds::{self, step_worth, worth};
use siege_protocol::Side;
use siege_rules::combat::{self, Mode};
use siege_rules::crt::{self, Odds};
use siege_rules::defence;
use siege_rules::hex::Hex;
use siege_rules::los;
use siege_rules::units::{UnitId, UnitKind};

/// One attack considered.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub defenders: Vec<Hex>,
    /// Fighting units first, leaders after them.
    pub attackers: Vec<UnitId>,
    pub artillery: Vec<UnitId>,
    /// The leader lending his die modifier (Allied attacks with a unit adjacent, 11.1).
    pub modifier: Option<UnitId>,
    pub attack: u32,
    pub defence: u32,
    pub column: Odds,
    pub die_modifier: i8,
    /// Expected gain for the attacker, in Allied-step units (see [`crate::odds::worth`]).
    pub value: f64,
    /// Chance the defenders leave or lose the hex.
    pub p_out: f64,
    /// Whether some attacker stands next to the defenders (adverse results apply, 8.1.1).
    pub close: bool,
}

impl Candidate {
    /// The attack as a plan step, in words.
    pub fn item(&self, p: &Pos<'_>) -> PlanItem {
        let names = siege_rules::ctx::names(p.scn, &self.attackers);
        let targets: Vec<String> = self.defenders.iter().map(Hex::to_string).collect();
        let verb = if self.close { "attack" } else { "fire on" };
        let mut text = format!(
            "{names} {verb} {} at {} ({} against {})",
            targets.join(" and "),
            p.scn.crt.column_name(self.column),
            self.attack,
            self.defence
        );
        if !self.artillery.is_empty() {
            text.push_str(&format!(
                ", with {}",
                siege_rules::ctx::names(p.scn, &self.artillery)
            ));
        }
        if self.die_modifier != 0 {
            text.push_str(&format!(", die {:+}", self.die_modifier));
        }
        PlanItem::new(
            Intent::Attack {
                defenders: self.defenders.clone(),
                attackers: self.attackers.clone(),
                artillery: self.artillery.clone(),
                modifier: self.modifier,
            },
            text,
        )
    }
}

/// Units of the phasing side that may still attack this phase, and the hexes each must attack
/// because their zone of control holds it (8.1.2).
pub struct Forces {
    pub side: Side,
    pub units: Vec<(UnitId, Hex)>,
    /// Per unit (same order): the enemy hexes it must attack, empty if none.
    pub must: Vec<Vec<Hex>>,
}

impl Forces {
    pub fn new(p: &Pos<'_>, side: Side) -> Forces {
        let units: Vec<(UnitId, Hex)> = p
            .units(side)
            .into_iter()
            .filter(|(u, _)| {
                let k = p.kind(*u);
                let m = p.st.unit(*u).marks;
                (k.is_combat_unit() || k == UnitKind::Leader) && !m.attacked && !m.recovery_failed
            })
            .collect();
        let must = units
            .iter()
            .map(|(u, h)| {
                if p.kind(*u).is_combat_unit() {
                    combat::zoc_targets(p.scn, p.st, &p.board, side, *h)
                } else {
                    Vec::new()
                }
            })
            .collect();
        Forces { side, units, must }
    }

    /// Whether some unit still has to attack.
    pub fn obliged(&self) -> bool {
        self.must.iter().any(|m| !m.is_empty())
    }
}

/// Enemy hexes not yet attacked this phase (8.1.2).
fn open_targets(p: &Pos<'_>, side: Side) -> Vec<Hex> {
    p.stacks(side.other())
        .into_iter()
        .filter(|(_, us)| !us.iter().any(|u| p.st.unit(*u).marks.defended))
        .map(|(h, _)| h)
        .collect()
}

/// Artillery that could add its shift against `defenders` (9, R7): manned, not yet used,
/// within 4 hexes and in sight of every defending hex, not in an enemy zone of control.
fn artillery_for(p: &Pos<'_>, side: Side, defenders: &[Hex], taken: &[UnitId]) -> Vec<UnitId> {
    if side != Side::Allied {
        return Vec::new();
    }
    p.units(Side::Allied)
        .into_iter()
        .filter(|(u, h)| {
            p.kind(*u) == UnitKind::Artillery
                && !taken.contains(u)
                && !p.st.unit(*u).marks.attacked
                && p.manned(*h)
                && !p.board.in_zoc_of(Side::Chinese, *h)
                && defenders.iter().all(|t| {
                    h.distance(*t) <= combat::ARTILLERY_RANGE
                        && los::line_of_sight(p.scn, p.st, &p.board, *h, *t).clear
                })
        })
        .map(|(u, _)| u)
        .collect()
}

/// The units of `forces` able to join an attack on `defenders` (8.1.1, 8.1.2, 11.1).
fn eligible(p: &Pos<'_>, f: &Forces, defenders: &[Hex], taken: &[UnitId]) -> Vec<UnitId> {
    let mut fighters: Vec<UnitId> = Vec::new();
    let mut leaders: Vec<(UnitId, Hex)> = Vec::new();
    for (i, (u, h)) in f.units.iter().enumerate() {
        if taken.contains(u) {
            continue;
        }
        let Some(mode) = combat::mode(p.scn, p.st, &p.board, f.side, *u, defenders) else {
            continue;
        };
        if mode == Mode::Adjacent && !f.must[i].iter().all(|m| defenders.contains(m)) {
            continue;
        }
        if p.kind(*u) == UnitKind::Leader {
            leaders.push((*u, *h));
        } else {
            fighters.push(*u);
        }
    }
    for (l, h) in leaders {
        if fighters.iter().any(|u| p.hex(*u) == Some(h)) {
            fighters.push(l);
        }
    }
    fighters
}

/// The numbers of an attack: strength, defence, column and die modifier (8.2, 9, 11.1, 18).
fn numbers(
    p: &Pos<'_>,
    side: Side,
    defenders: &[Hex],
    attackers: &[UnitId],
    artillery: &[UnitId],
    modifier: Option<UnitId>,
) -> (u32, u32, Odds, i8, bool) {
    let mut hexes: Vec<Hex> = attackers.iter().filter_map(|u| p.hex(*u)).collect();
    hexes.sort();
    hexes.dedup();
    let close = attackers.iter().any(|u| {
        p.kind(*u) != UnitKind::Leader
            && p.hex(*u)
                .is_some_and(|h| defenders.iter().all(|d| h.is_adjacent(*d)))
    });
    let attack: u32 = attackers
        .iter()
        .map(|u| match p.kind(*u) {
            UnitKind::Leader if Some(*u) == modifier => 0,
            UnitKind::Leader => 1,
            _ => p.strength(*u),
        })
        .sum();
    let defence: u32 = defenders
        .iter()
        .map(|h| p.defence_base(*h) * defence::effect(p.scn, p.st, *h, &hexes).multiplier)
        .sum();
    let raw = crt::odds(attack, defence);
    let shift: u8 = artillery.iter().map(|a| p.scn.counters.get(*a).bonus).sum();
    let column = crt::shift(raw, shift);
    let mut m: i8 = if side == Side::Allied && close && modifier.is_some() {
        1
    } else {
        0
    };
    // The defending Allied leaders will take the −1 when it helps them (11.1).
    if side == Side::Chinese
        && defenders
            .iter()
            .any(|h| p.at(*h).iter().any(|u| p.kind(*u) == UnitKind::Leader))
    {
        m = -1;
    }
    (attack, defence, column, m, close)
}

/// Whether the units in `h` could retreat at all (8.3): some neighbour that is not the canal,
/// not held by `enemy` and not in its zone of control.
pub fn can_retreat(p: &Pos<'_>, h: Hex, owner: Side) -> bool {
    let enemy = owner.other();
    h.neighbours().any(|n| {
        p.ground(n) != siege_rules::terrain::Ground::Canal
            && p.board.at(n).side != Some(enemy)
            && !p.board.in_zoc_of(enemy, n)
    })
}

/// The expected gain of an attack for the attacker (8.2; R6 for EX), and the chance the
/// defenders leave the hex.
#[allow(clippy::too_many_arguments)]
pub fn expected(
    p: &Pos<'_>,
    info: &MapInfo,
    side: Side,
    defenders: &[Hex],
    attackers: &[UnitId],
    column: Odds,
    die_modifier: i8,
    close: bool,
) -> (f64, f64) {
    let fighters: Vec<UnitId> = attackers
        .iter()
        .copied()
        .filter(|u| {
            p.kind(*u) != UnitKind::Leader
                && p.hex(*u)
                    .is_some_and(|h| defenders.iter().all(|d| h.is_adjacent(*d)))
        })
        .collect();
    let can_advance = close
        && (side == Side::Chinese || attackers.iter().any(|u| p.kind(*u) == UnitKind::Leader));
    outcome(
        p,
        info,
        side,
        defenders,
        &fighters,
        column,
        die_modifier,
        close,
        can_advance,
    )
}

/// The expected gain of an attack whose adverse results fall on `fighters` (none for ranged
/// fire alone), with the hex taken on a retreat when `can_advance` (8.4) — or on any result
/// that empties it, for a bayonet charge (8.1.3).
#[allow(clippy::too_many_arguments)]
pub fn outcome(
    p: &Pos<'_>,
    info: &MapInfo,
    side: Side,
    defenders: &[Hex],
    fighters: &[UnitId],
    column: Odds,
    die_modifier: i8,
    close: bool,
    can_advance: bool,
) -> (f64, f64) {
    let dist = odds::distribution(p.scn, column, die_modifier);
    let defending: Vec<UnitId> = defenders.iter().flat_map(|h| p.at(*h)).collect();
    let all_def: f64 = defending
        .iter()
        .map(|u| worth(p.scn, *u, p.st.unit(*u).reduced))
        .sum();
    let cheapest_def = defending
        .iter()
        .filter(|u| {
            let k = p.kind(**u);
            k.is_combat_unit()
        })
        .map(|u| step_worth(p.scn, *u, p.st.unit(*u).reduced))
        .fold(f64::INFINITY, f64::min);
    let cheapest_def = if cheapest_def.is_finite() {
        cheapest_def
    } else {
        all_def
    };
    let trapped = defenders.iter().all(|h| !can_retreat(p, *h, side.other()));
    let retreat_gain = if trapped { all_def } else { 0.08 * all_def };
    // Capture: an attacker next to the hex may advance into it (8.4; the Allies only with a
    // leader in the attack).
    let capture: f64 = if can_advance {
        defenders
            .iter()
            .map(|h| capture_value(p, info, side, *h))
            .fold(0.0, f64::max)
    } else {
        0.0
    };
    // A hex emptied by elimination is open to the same advance (8.4, R7), or else to the
    // next move.
    let emptied: f64 = if can_advance {
        capture
    } else {
        defenders
            .iter()
            .map(|h| capture_value(p, info, side, *h))
            .fold(0.0, f64::max)
            * 0.35
    };
    let all_att: f64 = fighters
        .iter()
        .map(|u| worth(p.scn, *u, p.st.unit(*u).reduced))
        .sum();
    let cheapest_att = fighters
        .iter()
        .map(|u| step_worth(p.scn, *u, p.st.unit(*u).reduced))
        .fold(f64::INFINITY, f64::min);
    let cheapest_att = if cheapest_att.is_finite() {
        cheapest_att
    } else {
        0.0
    };
    let att_points: u32 = fighters.iter().map(|u| p.strength(*u)).sum();
    let def_points: u32 = defenders.iter().map(|h| p.defence_base(*h)).sum();
    let ex_cost = if att_points == 0 {
        0.0
    } else {
        all_att * (f64::from(def_points) / f64::from(att_points)).min(1.0)
    };
    let attacker_trapped = close
        && fighters
            .iter()
            .filter_map(|u| p.hex(*u))
            .any(|h| !can_retreat(p, h, side));
    let back = if attacker_trapped {
        all_att
    } else {
        0.1 * all_att
    };
    let adverse = if close { 1.0 } else { 0.0 };
    let values = [
        -all_att * adverse,                    // AE
        -(cheapest_att + back) * adverse,      // AL1
        -back * adverse,                       // AR
        retreat_gain + capture,                // DR
        cheapest_def + retreat_gain + capture, // DL1
        all_def + emptied - ex_cost * adverse, // EX
        all_def + emptied,                     // DE
    ];
    let v: f64 = dist.iter().zip(values).map(|(p, v)| p * v).sum();
    (v, odds::p_defender_out(&dist))
}

/// Build the best version of an attack on `defenders` from the units not yet `taken`: every
/// eligible unit and gun, then trimmed of units the odds column does not need.
fn candidate(
    p: &Pos<'_>,
    info: &MapInfo,
    f: &Forces,
    defenders: &[Hex],
    taken: &[UnitId],
) -> Option<Candidate> {
    let mut attackers = eligible(p, f, defenders, taken);
    if !attackers.iter().any(|u| p.kind(*u) != UnitKind::Leader) {
        return None;
    }
    let artillery = artillery_for(p, f.side, defenders, taken);
    // Units under an obligation toward these hexes must be in (8.1.2).
    let required: Vec<UnitId> = f
        .units
        .iter()
        .zip(&f.must)
        .filter(|((u, _), m)| {
            !m.is_empty() && attackers.contains(u) && m.iter().all(|h| defenders.contains(h))
        })
        .map(|((u, _), _)| *u)
        .collect();
    let leader = if f.side == Side::Allied {
        attackers
            .iter()
            .copied()
            .find(|u| p.kind(*u) == UnitKind::Leader)
    } else {
        None
    };
    let eval = |att: &[UnitId], guns: &[UnitId], m: Option<UnitId>| -> Candidate {
        let (attack, defence, column, die_modifier, close) =
            numbers(p, f.side, defenders, att, guns, m);
        let (value, p_out) = expected(p, info, f.side, defenders, att, column, die_modifier, close);
        Candidate {
            defenders: defenders.to_vec(),
            attackers: att.to_vec(),
            artillery: guns.to_vec(),
            modifier: m,
            attack,
            defence,
            column,
            die_modifier,
            value,
            p_out,
            close,
        }
    };
    // The leader's choice: his point or his modifier, whichever is worth more.
    let mut best = eval(&attackers, &artillery, None);
    if let Some(l) = leader {
        let alt = eval(&attackers, &artillery, Some(l));
        if alt.value > best.value {
            best = alt;
        }
    }
    // Trim: drop units (weakest ranged first, then weakest adjacent) whose absence leaves the
    // expected value no worse, so they can serve elsewhere.
    let mut order: Vec<UnitId> = attackers
        .iter()
        .copied()
        .filter(|u| !required.contains(u) && p.kind(*u) != UnitKind::Leader)
        .collect();
    order.sort_by_key(|u| {
        let ranged = p
            .hex(*u)
            .is_some_and(|h| !defenders.iter().all(|d| h.is_adjacent(*d)));
        (!ranged, p.strength(*u), *u)
    });
    for u in order {
        let mut fewer: Vec<UnitId> = best.attackers.clone();
        fewer.retain(|x| *x != u);
        // Leaders leave with the last fighter of their hex.
        let h = p.hex(u);
        if !fewer
            .iter()
            .any(|x| p.kind(*x) != UnitKind::Leader && p.hex(*x) == h)
        {
            fewer.retain(|x| !(p.kind(*x) == UnitKind::Leader && p.hex(*x) == h));
        }
        if !fewer.iter().any(|x| p.kind(*x) != UnitKind::Leader) {
            continue;
        }
        let m = best.modifier.filter(|l| fewer.contains(l));
        let c = eval(&fewer, &best.artillery, m);
        if c.value >= best.value - 1e-9 && c.column == best.column {
            best = c;
        }
    }
    attackers.clear();
    // Keep fighting units ahead of leaders, as the engine needs a unit of the leader's hex in
    // the attack before the leader (11.1).
    let (mut fighters, leaders): (Vec<UnitId>, Vec<UnitId>) = best
        .attackers
        .iter()
        .partition(|u| p.kind(**u) != UnitKind::Leader);
    fighters.extend(leaders);
    best.attackers = fighters;
    // Guns not needed for the column stay free.
    let mut guns = best.artillery.clone();
    guns.sort_by_key(|g| p.scn.counters.get(*g).bonus);
    for g in guns {
        let mut fewer = best.artillery.clone();
        fewer.retain(|x| *x != g);
        let c = eval(&best.attackers, &fewer, best.modifier);
        if c.value >= best.value - 1e-9 {
            best.artillery = fewer;
            best.value = c.value;
            best.column = c.column;
        }
    }
    Some(best)
}

/// The attacks to make this combat phase, best first: obligations of units in an enemy zone of
/// control always (8.1.2), other attacks when their expected value clears `threshold` (ranged
/// fire alone clears any positive value).
pub fn plan(
    p: &Pos<'_>,
    info: &MapInfo,
    side: Side,
    threshold: f64,
    skip: &[Hex],
) -> Vec<Candidate> {
    let f = Forces::new(p, side);
    let mut taken: Vec<UnitId> = Vec::new();
    let mut out: Vec<Candidate> = Vec::new();
    let mut targets: Vec<Vec<Hex>> = open_targets(p, side)
        .into_iter()
        .filter(|h| !skip.contains(h))
        .map(|h| vec![h])
        .collect();
    // Obligations naming several hexes form multi-hex attacks (8.1.2).
    for m in &f.must {
        if m.len() > 1 && !targets.contains(m) {
            let mut m = m.clone();
            m.sort();
            if !targets.contains(&m) {
                targets.push(m);
            }
        }
    }
    let mut used_hexes: Vec<Hex> = Vec::new();
    loop {
        let mut best: Option<Candidate> = None;
        for t in &targets {
            if t.iter().any(|h| used_hexes.contains(h)) {
                continue;
            }
            let Some(c) = candidate(p, info, &f, t, &taken) else {
                continue;
            };
            // An obligation must be met whatever the odds.
            let obliged =
                f.units.iter().zip(&f.must).any(|((u, _), m)| {
                    !m.is_empty() && !taken.contains(u) && c.attackers.contains(u)
                });
            let worth_it = obliged || c.value > if c.close { threshold } else { 0.0 };
            if !worth_it {
                continue;
            }
            let key = c.value + if obliged { 1000.0 } else { 0.0 };
            let better = best.as_ref().is_none_or(|b| {
                let bk = b.value
                    + if f.units.iter().zip(&f.must).any(|((u, _), m)| {
                        !m.is_empty() && !taken.contains(u) && b.attackers.contains(u)
                    }) {
                        1000.0
                    } else {
                        0.0
                    };
                key > bk
            });
            if better {
                best = Some(c);
            }
        }
        let Some(c) = best else { break };
        taken.extend(c.attackers.iter().copied());
        taken.extend(c.artillery.iter().copied());
        used_hexes.extend(c.defenders.iter().copied());
        out.push(c);
    }
    out
}
