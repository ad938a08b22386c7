//! The easy player: a short script of sensible priorities and nothing more. The Chinese come
//! on where the default spread puts them and walk every stack straight at the nearest victory
//! hex the Allies hold; the Allies keep the default deployment, walk back into victory hexes the
//! Chinese leave empty, fire at range and attack only when forced. Both take every free shot —
//! the sniper, ranged fire that risks nothing (8.1.1) — and settle losses and retreats as the
//! other levels do.

use crate::choices::to_allied_victory;
use crate::intent::{Intent, PlanItem};
use crate::know::{MapInfo, Pos};
use siege_protocol::{Phase, Side};
use siege_rules::StepId;
use siege_rules::action::Action;
use siege_rules::command;
use siege_rules::hex::{Direction, Hex};
use siege_rules::movement;
use siege_rules::state::Step;
use siege_rules::units::{UnitId, UnitKind};

/// The easy player's plan for the current step (no interruption pending).
pub fn plan(p: &Pos<'_>, info: &MapInfo, side: Side, legal: &[Action]) -> Vec<PlanItem> {
    let step = |a: Action, text: &str| vec![PlanItem::new(Intent::Step { action: a }, text.into())];
    let has = |a: &Action| legal.contains(a);
    match &p.st.step {
        Step::AlliedSetup { .. } | Step::Entry { .. } => {
            if has(&Action::DeployDefault) {
                step(Action::DeployDefault, "Default deployment (22)")
            } else {
                Vec::new()
            }
        }
        Step::Move { group: None } if p.st.slot == StepId::ChineseMove => chinese_move(p, info),
        Step::Move { group: None } if p.st.slot == StepId::AlliedMove => allied_move(p, info),
        Step::Combat => stack_attack(p, side).into_iter().collect(),
        Step::BigGunPlace => legal
            .iter()
            .find(|a| matches!(a, Action::PlaceGun { .. }))
            .map(|a| step(a.clone(), "Place a Big Gun"))
            .unwrap_or_default(),
        Step::BigGunFire { shot } => {
            let gun =
                p.st.big_guns
                    .get(usize::from(*shot) / siege_rules::big_gun::SHOTS)
                    .copied();
            let dir = gun.map_or(Direction::N, |g| towards_allies(p, g));
            step(
                Action::Fire {
                    direction: dir,
                    shots: None,
                },
                "Fire towards the legations",
            )
        }
        Step::Sniper => legal
            .iter()
            .find(|a| matches!(a, Action::Snipe { .. }))
            .map(|a| step(a.clone(), "Snipe (8.1.4)"))
            .unwrap_or_default(),
        Step::Restore | Step::Recovery { .. } | Step::Attrition => legal
            .iter()
            .find(|a| {
                matches!(
                    a,
                    Action::Restore { .. }
                        | Action::AttemptRecovery { .. }
                        | Action::RemoveUnit { .. }
                )
            })
            .map(|a| step(a.clone(), "The first choice offered"))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The direction from `gun` whose line passes nearest the Allied units.
fn towards_allies(p: &Pos<'_>, gun: Hex) -> Direction {
    let allies = p.units(Side::Allied);
    let mut best = (u32::MAX, Direction::N);
    for d in Direction::ALL {
        for k in 1..=24 {
            let Some(h) = gun.ray(d, k) else { break };
            let near = allies
                .iter()
                .map(|(_, a)| a.distance(h))
                .min()
                .unwrap_or(u32::MAX);
            if near < best.0 {
                best = (near, d);
            }
        }
    }
    best.1
}

/// Every Chinese stack walks as far as it can towards the nearest Allied victory hex.
fn chinese_move(p: &Pos<'_>, info: &MapInfo) -> Vec<PlanItem> {
    let field = to_allied_victory(p, info);
    let mut load: Vec<u32> = vec![0; siege_rules::hex::HEX_COUNT];
    for (u, h) in p.units(Side::Chinese) {
        load[h.index()] += p.strength(u);
    }
    let mut items = Vec::new();
    for (u, from) in p.units(Side::Chinese) {
        if !movement::movable(p.scn, p.st, Some(&p.board), u, Phase::ChineseMovement) {
            continue;
        }
        let mp = command::allowance(p.scn, p.st, u, Phase::ChineseMovement);
        let r = movement::reach(&p.board, Side::Chinese, from, mp);
        let s = p.strength(u);
        let best = r
            .hexes()
            .into_iter()
            .filter(|h| load[h.index()] + s <= 30)
            .min_by_key(|h| (field[h.index()], r.cost[h.index()], *h));
        if let Some(to) = best
            && to != from
            && field[to.index()] < field[from.index()]
        {
            load[from.index()] -= s;
            load[to.index()] += s;
            items.push(PlanItem::new(
                Intent::Move {
                    units: vec![u],
                    from,
                    via: None,
                    to,
                },
                format!("{} advance {from} → {to}", p.scn.counters.get(u).name),
            ));
        }
    }
    items
}

/// Walk into victory hexes the Chinese took and left empty, with the nearest unit that can.
fn allied_move(p: &Pos<'_>, info: &MapInfo) -> Vec<PlanItem> {
    let mut items = Vec::new();
    let mut used = Vec::new();
    for (i, (v, _)) in info.victory.iter().enumerate() {
        if p.st.control[i] != Side::Chinese || p.board.at(*v).side.is_some() {
            continue;
        }
        let mut best: Option<(u8, siege_rules::units::UnitId, Hex)> = None;
        for (u, from) in p.units(Side::Allied) {
            if used.contains(&u)
                || !matches!(p.kind(u), UnitKind::Combat | UnitKind::Volunteer)
                || !movement::movable(p.scn, p.st, Some(&p.board), u, Phase::AlliedMovement)
            {
                continue;
            }
            // Leave no civilians behind (15).
            let alone = p
                .at(from)
                .iter()
                .filter(|x| matches!(p.kind(**x), UnitKind::Combat | UnitKind::Volunteer))
                .count()
                == 1;
            if alone && p.civilians().iter().any(|(_, c)| c.distance(from) <= 1) {
                continue;
            }
            if alone && p.at(from).iter().any(|x| p.kind(*x) == UnitKind::Artillery) {
                continue;
            }
            let mp = command::allowance(p.scn, p.st, u, Phase::AlliedMovement);
            let r = movement::reach(&p.board, Side::Allied, from, mp);
            let c = r.cost[v.index()];
            if c != u8::MAX && c <= mp && best.is_none_or(|b| c < b.0) {
                best = Some((c, u, from));
            }
        }
        if let Some((_, u, from)) = best {
            used.push(u);
            items.push(PlanItem::new(
                Intent::Move {
                    units: vec![u],
                    from,
                    via: None,
                    to: *v,
                },
                format!("{} retake {v}", p.scn.counters.get(u).name),
            ));
        }
    }
    items
}

/// The easy player's next attack: one stack at a time, never combining hexes. A stack in an
/// enemy zone of control attacks what holds it there (8.1.2); another attacks a neighbour
/// alone when its own odds are at least 3-1; the Allies also fire at range, a stack at a time,
/// at 1-1 or better (8.1.1).
fn stack_attack(p: &Pos<'_>, side: Side) -> Option<PlanItem> {
    let f = crate::attack::Forces::new(p, side);
    let mut hexes: Vec<Hex> = f.units.iter().map(|(_, h)| *h).collect();
    hexes.sort();
    hexes.dedup();
    let open = |h: Hex| {
        p.board.at(h).side == Some(side.other())
            && !p.at(h).iter().any(|u| p.st.unit(*u).marks.defended)
    };
    let column = |attack: u32, targets: &[Hex]| {
        let defence: u32 = targets.iter().map(|t| p.defence(*t)).sum();
        siege_rules::crt::odds(attack, defence)
    };
    let good = |c: siege_rules::crt::Odds, at: u8| matches!(c, siege_rules::crt::Odds::Column(x) if x >= at);
    for h in hexes {
        let units: Vec<UnitId> = f
            .units
            .iter()
            .filter(|(_, x)| *x == h)
            .map(|(u, _)| *u)
            .collect();
        let must: Vec<Hex> = f
            .units
            .iter()
            .zip(&f.must)
            .filter(|((_, x), _)| *x == h)
            .flat_map(|(_, m)| m.iter().copied())
            .collect();
        let mut must = must;
        must.sort();
        must.dedup();
        let attack = p.attack_strength(&units);
        let targets: Vec<Hex> = if !must.is_empty() {
            must
        } else {
            let best = h
                .neighbours()
                .filter(|n| open(*n))
                .find(|n| good(column(attack, &[*n]), 4));
            match best {
                Some(n) => vec![n],
                None if side == Side::Allied && !p.board.in_zoc_of(Side::Chinese, h) => {
                    let ranged = p
                        .stacks(Side::Chinese)
                        .into_iter()
                        .map(|(t, _)| t)
                        .filter(|t| open(*t) && (2..=3).contains(&h.distance(*t)))
                        .filter(|t| {
                            siege_rules::los::line_of_sight(p.scn, p.st, &p.board, h, *t).clear
                        })
                        .find(|t| good(column(attack, &[*t]), 2));
                    match ranged {
                        Some(t) => vec![t],
                        None => continue,
                    }
                }
                None => continue,
            }
        };
        let (mut fighters, leaders): (Vec<UnitId>, Vec<UnitId>) =
            units.iter().partition(|u| p.kind(**u) != UnitKind::Leader);
        if fighters.is_empty() {
            continue;
        }
        fighters.extend(leaders);
        let text = format!(
            "{} attack {} from {h}",
            siege_rules::ctx::names(p.scn, &fighters),
            targets[0]
        );
        return Some(PlanItem::new(
            Intent::Attack {
                defenders: targets,
                attackers: fighters,
                artillery: Vec::new(),
                modifier: None,
            },
            text,
        ));
    }
    None
}
