//! The decisions a combat leaves behind (8.2–8.4, 7, 11.1): which unit takes a step loss, where
//! a retreating stack goes hex by hex, whether to advance into the emptied hex, where a leader
//! whose stack fell goes, which unit an over-stacked hex gives up, and how defending leaders
//! lend their strength. The same choices serve every level above random: they are what any
//! player would do, and a bad one here costs units for nothing.

use crate::know::{FAR, MapInfo, Pos};
use crate::odds::{self, step_worth, worth};
use siege_protocol::Side;
use siege_rules::action::Action;
use siege_rules::crt;
use siege_rules::hex::Hex;
use siege_rules::pending::{Pending, Retreat};
use siege_rules::report;
use siege_rules::stacking;
use siege_rules::terrain::Ground;
use siege_rules::units::{UnitId, UnitKind};

/// Distance from each hex to the nearest victory hex the Allies still control: the Chinese
/// press towards it, the Allies fall back on it.
pub fn to_allied_victory(p: &Pos<'_>, info: &MapInfo) -> Vec<u16> {
    let mut best = vec![FAR; info.from_edge.len()];
    for (i, field) in info.to_victory.iter().enumerate() {
        if p.st.control[i] != Side::Allied {
            continue;
        }
        for (b, d) in best.iter_mut().zip(field) {
            *b = (*b).min(*d);
        }
    }
    best
}

/// The choice for the first pending interruption, among `legal`.
pub fn choose(p: &Pos<'_>, info: &MapInfo, pending: &Pending, legal: &[Action]) -> Option<Action> {
    match pending {
        Pending::StepLoss { points, .. } => step_loss(p, *points, legal),
        Pending::Retreat(r) => retreat(p, info, r, legal),
        Pending::Advance { side, .. } => advance(p, info, *side, legal),
        Pending::PlaceLeader { .. } => place_leader(p, legal),
        Pending::Overstack { .. } => overstack(p, legal),
        Pending::DefenderLeaders => defender_leaders(p, legal),
        Pending::Occupy { .. } => None,
    }
}

/// The cheapest loss: the step worth least, per point when a number of points is owed (EX).
fn step_loss(p: &Pos<'_>, points: u8, legal: &[Action]) -> Option<Action> {
    let cost = |u: UnitId| -> f64 {
        let reduced = p.st.unit(u).reduced;
        let mut c = step_worth(p.scn, u, reduced);
        if points > 0 {
            let c0 = p.scn.counters.get(u);
            let gone = match c0.reduced {
                Some(back) if !reduced => c0.strength - back,
                _ => c0.strength_when(reduced),
            };
            c /= f64::from(gone.clamp(1, points));
        }
        // An Allied unit that alone escorts civilians (15) or holds a victory hex is dearer.
        if p.side(u) == Side::Allied
            && let Some(h) = p.hex(u)
        {
            let fighters = p
                .at(h)
                .into_iter()
                .filter(|x| matches!(p.kind(*x), UnitKind::Combat | UnitKind::Volunteer))
                .count();
            let alone = fighters <= 1 && (reduced || p.scn.counters.get(u).reduced.is_none());
            if alone && p.scn.map.victory(h).is_some() {
                c += 1.0;
            }
        }
        c
    };
    legal
        .iter()
        .filter_map(|a| match a {
            Action::LoseStep { unit } => Some((cost(*unit), a)),
            _ => None,
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, a)| a.clone())
}

/// How good a hex is to end a retreat in for `side` bringing `points`.
fn refuge(p: &Pos<'_>, info: &MapInfo, side: Side, h: Hex, points: u32) -> f64 {
    let g = p.ground(h);
    let mut s = match g {
        Ground::Building => 3.0,
        Ground::Wall | Ground::TartarWall => 2.5,
        Ground::Ruin => 1.5,
        _ if p.st.fortification(h).is_some() => 2.5,
        _ => 0.0,
    };
    let enemies = h
        .neighbours()
        .filter(|n| p.board.at(*n).side == Some(side.other()))
        .count();
    s -= 1.5 * enemies as f64;
    let info_h = p.board.at(h);
    let have = if info_h.side == Some(side) {
        u32::from(info_h.points)
    } else {
        0
    };
    if have + points > u32::from(stacking::limit(side)) {
        s -= 20.0;
    }
    // A retreat that passes through a victory hex takes it (21).
    s += crate::eval::capture_value(p, info, side, h);
    let home = to_allied_victory(p, info);
    let d = f64::from(home[h.index()].min(60));
    match side {
        Side::Allied => {
            s -= 0.15 * d;
            if p.scn.map.victory(h).is_some() {
                s += 2.0;
            }
            if p.civilians().iter().any(|(_, c)| c.distance(h) <= 1) {
                s += 1.0;
            }
            if info_h.manned {
                s += 0.5;
            }
        }
        Side::Chinese => {
            s -= 0.25 * d;
        }
    }
    s
}

/// Retreat towards cover and friends, away from the enemy (8.3); stop early in a good
/// building when allowed (8.3 note 2).
fn retreat(p: &Pos<'_>, info: &MapInfo, r: &Retreat, legal: &[Action]) -> Option<Action> {
    let points: u32 = stacking::load(p.scn, p.st, &r.units).0.into();
    let gone = r.visited.len().saturating_sub(1);
    let mut best: Option<(f64, Action)> = None;
    for a in legal {
        let s = match a {
            Action::Retreat { to } => {
                // Prefer hexes from which the walk can go on when more hexes are owed.
                let owed = usize::from(r.min).saturating_sub(gone + 1);
                let onward = if owed > 0 {
                    to.neighbours()
                        .filter(|n| {
                            !r.visited.contains(n) && !p.board.in_zoc_of(r.side.other(), *n)
                        })
                        .count() as f64
                        * 0.2
                } else {
                    0.0
                };
                refuge(p, info, r.side, *to, points) + onward
            }
            Action::StopRetreat => refuge(p, info, r.side, r.at, 0) + 0.3,
            Action::LeaveMap => -8.0,
            _ => continue,
        };
        if best.as_ref().is_none_or(|(b, _)| s > *b) {
            best = Some((s, a.clone()));
        }
    }
    best.map(|(_, a)| a)
}

/// The Chinese almost always advance (designer's notes); the Allies advance into a victory
/// hex, or into cover, never out of it into the open (8.4).
fn advance(p: &Pos<'_>, info: &MapInfo, side: Side, legal: &[Action]) -> Option<Action> {
    let mut best: Option<(f64, Action)> = None;
    for a in legal {
        let Action::Advance { unit, to } = a else {
            continue;
        };
        let from = p.hex(*unit);
        let mut s = 0.0;
        if let Some(i) = info.victory_index(*to) {
            if p.st.control[i] != side {
                s += if info.is_primary(i) { 10.0 } else { 7.0 };
            } else {
                s += 1.0;
            }
        }
        let cover = |h: Hex| match p.ground(h) {
            Ground::Building | Ground::Wall | Ground::TartarWall => 2.0,
            Ground::Ruin => 1.0,
            _ => 0.0,
        };
        s += cover(*to) - from.map_or(0.0, cover);
        let kind = p.kind(*unit);
        match side {
            Side::Chinese => {
                s += 1.0;
                // Send the weaker unit: a reduced Boxer before a whole one.
                s -= f64::from(p.strength(*unit)) * 0.02;
            }
            Side::Allied => {
                if kind == UnitKind::Leader {
                    s -= 3.0;
                }
                // Leaving civilians unescorted or a victory hex empty is out of the question.
                if let Some(f) = from
                    && (p.scn.map.victory(f).is_some()
                        || p.civilians().iter().any(|(_, c)| c.distance(f) <= 1))
                {
                    let others = p
                        .at(f)
                        .into_iter()
                        .filter(|x| {
                            *x != *unit
                                && matches!(p.kind(*x), UnitKind::Combat | UnitKind::Volunteer)
                        })
                        .count();
                    if others == 0 {
                        s -= 12.0;
                    }
                }
                s -= 0.5;
            }
        }
        if best.as_ref().is_none_or(|(b, _)| s > *b) {
            best = Some((s, a.clone()));
        }
    }
    match best {
        Some((s, a)) if s > 0.0 => Some(a),
        _ => legal.iter().find(|a| **a == Action::Pass).cloned(),
    }
}

/// A leader whose stack fell joins the strongest nearby stack, in cover if possible (11.1).
fn place_leader(p: &Pos<'_>, legal: &[Action]) -> Option<Action> {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::PlaceLeader { hex, .. } => {
                let mut s = f64::from(p.board.at(*hex).points);
                if p.manned(*hex) {
                    s += 5.0;
                }
                if p.ground(*hex) == Ground::Building {
                    s += 2.0;
                }
                Some((s, a))
            }
            _ => None,
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, a)| a.clone())
}

/// Give up the unit worth least from an over-stacked hex (7).
fn overstack(p: &Pos<'_>, legal: &[Action]) -> Option<Action> {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Eliminate { unit } => Some((worth(p.scn, *unit, p.st.unit(*unit).reduced), a)),
            _ => None,
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, a)| a.clone())
}

/// The defending leaders' choice before a Chinese attack is rolled (11.1): whichever use makes
/// the attacker's success least likely.
fn defender_leaders(p: &Pos<'_>, legal: &[Action]) -> Option<Action> {
    let d = p.st.declaration.as_ref()?;
    let score = |d: &siege_rules::declaration::Declaration| -> f64 {
        let rep = report::compute(p.scn, p.st, d);
        let column = crt::shift(crt::odds(rep.attack, rep.defence), rep.shift);
        let dist = odds::distribution(p.scn, column, rep.modifier);
        odds::p_defender_out(&dist)
    };
    let now = score(d);
    let mut best: Option<(f64, Action)> = None;
    for a in legal {
        let Action::SetLeaderUse { leader, leader_use } = a else {
            continue;
        };
        let mut alt = d.clone();
        alt.leader_use.retain(|(l, _)| l != leader);
        alt.leader_use.push((*leader, *leader_use));
        let s = score(&alt);
        if s + 1e-9 < now && best.as_ref().is_none_or(|(b, _)| s < *b) {
            best = Some((s, a.clone()));
        }
    }
    match best {
        Some((_, a)) => Some(a),
        None => legal.iter().find(|a| **a == Action::Resolve).cloned(),
    }
}
