//! The Chinese player's plans: where to bring units on at the edge (19, 22), where the Big Guns
//! stand and fire (10), when to explode a mine (16), which Boxers to restore (19), whom to snipe
//! (8.1.4), where to fortify (13), which stacks to lift off (22), and the movement of every
//! stack (5, 6, 7). The movement follows the designer's model of the siege — the attackers press
//! from the edge of the quarter towards the legations, concentrating where the garrison is weak —
//! as stack moves: empty victory hexes are walked into (21), garrisons are surrounded by enough
//! strength for good odds (8.2), and the rest close in without stumbling into a zone of control
//! they would be forced to attack out of (6, 8.1.2).

use crate::Style;
use crate::attack;
use crate::choices::to_allied_victory;
use crate::eval::capture_value;
use crate::intent::{Intent, PlanItem};
use crate::know::{FAR, MapInfo, Pos};
use crate::odds::{step_worth, worth};
use siege_protocol::{Phase, Side};
use siege_rules::action::Action;
use siege_rules::command;
use siege_rules::crt;
use siege_rules::defence;
use siege_rules::hex::{Direction, HEX_COUNT, Hex};
use siege_rules::movement;
use siege_rules::state::{EntryKind, Step};
use siege_rules::terrain::Ground;
use siege_rules::units::{UnitId, UnitKind};
use siege_rules::zoc;

/// Chinese stacking limit in points (7).
const STACK: u32 = 30;

/// A pressure field: for every hex, how far it is from the legations worth attacking, the
/// weakly held ones counting as nearer (the solitaire game's arrows towards the legations).
pub fn pressure(p: &Pos<'_>, info: &MapInfo) -> Vec<u16> {
    let mut best = vec![FAR; HEX_COUNT];
    for (i, (h, _)) in info.victory.iter().enumerate() {
        if p.st.control[i] != Side::Allied {
            continue;
        }
        let d = p.defence(*h);
        let bias: u16 = (d / 6).min(8) as u16 + if info.is_primary(i) { 0 } else { 2 };
        for (b, x) in best.iter_mut().zip(&info.to_victory[i]) {
            *b = (*b).min(x.saturating_add(bias));
        }
    }
    // With every victory hex taken, press on the Allied stacks themselves.
    if best.iter().all(|b| *b == FAR) {
        return to_allied_victory(p, info);
    }
    best
}

/// Where to bring the waiting units on (19, 22): each goes to the edge hex nearest the
/// victory hex it is sent against, the weakest garrisons drawing the most strength.
pub fn entry(p: &Pos<'_>, info: &MapInfo) -> Vec<PlanItem> {
    let waiting = p.chinese_off_map();
    if waiting.is_empty() {
        return Vec::new();
    }
    // Targets: Allied-held victory hexes, with the strength wanted against each.
    let mut targets: Vec<(usize, f64, u32)> = Vec::new();
    for (i, (h, _)) in info.victory.iter().enumerate() {
        if p.st.control[i] != Side::Allied {
            continue;
        }
        let d = p.defence(*h);
        let near: u32 = p
            .units(Side::Chinese)
            .iter()
            .filter(|(_, x)| info.to_victory[i][x.index()] <= 12)
            .map(|(u, _)| p.strength(*u))
            .sum();
        let want = (5 * d + 30).min(150).saturating_sub(near);
        let edge_cost = info
            .edge
            .iter()
            .map(|e| info.to_victory[i][e.index()])
            .min()
            .unwrap_or(FAR);
        let value = if info.is_primary(i) { 1.5 } else { 1.0 };
        let score = value * 100.0 / (f64::from(d) + 10.0) / (f64::from(edge_cost) + 4.0);
        targets.push((i, score, want));
    }
    targets.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    if targets.is_empty() {
        return Vec::new();
    }
    let mut load: Vec<u32> = vec![0; HEX_COUNT];
    for (u, h) in p.units(Side::Chinese) {
        load[h.index()] += p.strength(u);
    }
    let kind_of = |u: UnitId| match p.kind(u) {
        UnitKind::Imperial => EntryKind::Imperial,
        _ if p.st.unit(u).reduced => EntryKind::ReducedBoxer,
        _ => EntryKind::Boxer,
    };
    // Fastest units first: they reach the farther targets.
    let mut order = waiting.clone();
    order.sort_by_key(|u| (kind_of(*u) != EntryKind::Imperial, *u));
    let mut given: Vec<u32> = vec![0; targets.len()];
    let mut items = Vec::new();
    for u in order {
        let s = p.strength(u);
        // The first target still short of strength, else the best one.
        let t = (0..targets.len())
            .find(|k| given[*k] < targets[*k].2)
            .unwrap_or(items.len() % targets.len().min(3));
        let (i, _, _) = targets[t];
        let mut edges: Vec<Hex> = info
            .edge
            .iter()
            .copied()
            .filter(|e| p.board.at(*e).side != Some(Side::Allied) && load[e.index()] + s <= STACK)
            .collect();
        edges.sort_by_key(|e| (info.to_victory[i][e.index()], *e));
        let Some(&e) = edges.first() else { continue };
        load[e.index()] += s;
        given[t] += s;
        let name = p.scn.counters.get(u).name.clone();
        items.push(PlanItem::new(
            Intent::Enter {
                unit_kind: kind_of(u),
                hex: e,
            },
            format!(
                "{name} enter at {e}, against victory hex {}",
                info.victory[i].0
            ),
        ));
    }
    items
}

/// What a Big Gun shot landing in `h` is worth to the Chinese (10): a ruin opens a garrison's
/// building (×3 becomes ×2, and zones of control reach into it), a step loss in the open.
fn shot_value(p: &Pos<'_>, info: &MapInfo, h: Hex) -> f64 {
    let g = p.ground(h);
    if matches!(g, Ground::TartarWall | Ground::Canal) {
        return 0.0;
    }
    let side = p.board.at(h).side;
    let fort = p.st.fortification(h).is_some();
    let clear = g.is_clear() && !fort;
    let p56 = 1.0 / 3.0;
    if clear {
        return match side {
            Some(Side::Allied) => {
                let units = p.at(h);
                let step = units
                    .iter()
                    .filter(|u| p.kind(**u) != UnitKind::Artillery)
                    .map(|u| step_worth(p.scn, *u, p.st.unit(*u).reduced))
                    .fold(f64::INFINITY, f64::min);
                let civilians: f64 = units
                    .iter()
                    .filter(|u| p.kind(**u) == UnitKind::Civilian)
                    .map(|u| worth(p.scn, *u, false))
                    .sum();
                p56 * (if step.is_finite() { step } else { 0.0 } + civilians)
            }
            Some(Side::Chinese) => -p56 * 0.15,
            None => 0.0,
        };
    }
    if g == Ground::Ruin && !fort {
        return 0.0;
    }
    match side {
        Some(Side::Allied) => {
            let garrison: f64 = p
                .at(h)
                .iter()
                .map(|u| worth(p.scn, *u, p.st.unit(*u).reduced))
                .sum();
            p56 * (0.25 * garrison + 0.3 * capture_value(p, info, Side::Chinese, h).min(5.0) + 0.1)
        }
        Some(Side::Chinese) => -p56 * 0.1,
        None => {
            p56 * if p.scn.map.victory(h).is_some() {
                0.15
            } else {
                0.03
            }
        }
    }
}

/// The expected value of one shot from `gun` in `dir` (the die times 4 hexes, 10).
fn direction_value(p: &Pos<'_>, info: &MapInfo, gun: Hex, dir: Direction) -> f64 {
    (1..=6u32)
        .map(|die| {
            gun.ray(dir, die * 4)
                .map_or(0.0, |h| shot_value(p, info, h))
        })
        .sum::<f64>()
        / 6.0
}

/// Place a Big Gun where its best direction promises most (10).
pub fn place_gun(p: &Pos<'_>, info: &MapInfo, legal: &[Action]) -> Option<PlanItem> {
    let mut best: Option<(f64, Hex)> = None;
    for a in legal {
        let Action::PlaceGun { hex } = a else {
            continue;
        };
        let v = Direction::ALL
            .iter()
            .map(|d| direction_value(p, info, *hex, *d))
            .fold(f64::MIN, f64::max);
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, *hex));
        }
    }
    let (v, hex) = best?;
    Some(PlanItem::new(
        Intent::Step {
            action: Action::PlaceGun { hex },
        },
        format!("Place a Big Gun at {hex} (expected {v:.2} a shot)"),
    ))
}

/// Fire the current Big Gun in its best direction (10).
pub fn fire(p: &Pos<'_>, info: &MapInfo) -> Option<PlanItem> {
    let Step::BigGunFire { shot } = p.st.step else {
        return None;
    };
    let gun = *p
        .st
        .big_guns
        .get(usize::from(shot) / siege_rules::big_gun::SHOTS)?;
    let (v, dir) = Direction::ALL
        .iter()
        .map(|d| (direction_value(p, info, gun, *d), *d))
        .fold(
            (f64::MIN, Direction::N),
            |b, x| if x.0 > b.0 { x } else { b },
        );
    Some(PlanItem::new(
        Intent::Step {
            action: Action::Fire {
                direction: dir,
                shots: None,
            },
        },
        format!(
            "The Big Gun at {gun} fires {} (expected {v:.2})",
            dir.name()
        ),
    ))
}

/// Explode a mine under the garrison where it hurts most, when it is worth a mine (16).
pub fn mine(p: &Pos<'_>, info: &MapInfo, legal: &[Action]) -> Option<PlanItem> {
    let mut best: Option<(f64, Hex)> = None;
    for a in legal {
        let Action::Detonate { hex } = a else {
            continue;
        };
        let units = p.at(*hex);
        let steps: f64 = units
            .iter()
            .filter(|u| p.kind(**u) != UnitKind::Artillery)
            .map(|u| 0.5 * step_worth(p.scn, *u, p.st.unit(*u).reduced))
            .sum();
        let open = if p.board.at(*hex).side == Some(Side::Allied) {
            0.5 + 0.4 * capture_value(p, info, Side::Chinese, *hex).min(6.0)
        } else {
            0.0
        };
        let v = steps + open;
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, *hex));
        }
    }
    let (v, hex) = best?;
    let bar = if p.st.turn >= 9 { 0.8 } else { 2.0 };
    (v >= bar).then(|| {
        PlanItem::new(
            Intent::Step {
                action: Action::Detonate { hex },
            },
            format!("Explode a mine under {hex} (worth {v:.1})"),
        )
    })
}

/// Restore the reduced Boxers nearest the legations (19).
pub fn restore(p: &Pos<'_>, info: &MapInfo, legal: &[Action]) -> Option<PlanItem> {
    let field = pressure(p, info);
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Restore { unit } => p.hex(*unit).map(|h| (field[h.index()], *unit)),
            _ => None,
        })
        .min()
        .map(|(_, unit)| {
            PlanItem::new(
                Intent::Step {
                    action: Action::Restore { unit },
                },
                format!(
                    "Restore {} to full strength (19)",
                    p.scn.counters.get(unit).name
                ),
            )
        })
}

/// Snipe at the leader who matters most: the one leading the most strength (8.1.4).
pub fn snipe(p: &Pos<'_>, legal: &[Action]) -> Option<PlanItem> {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Snipe { leader } => {
                let pts = p.hex(*leader).map_or(0, |h| p.board.at(h).points);
                Some((pts, *leader))
            }
            _ => None,
        })
        .max_by_key(|(pts, l)| (*pts, std::cmp::Reverse(*l)))
        .map(|(_, leader)| {
            PlanItem::new(
                Intent::Step {
                    action: Action::Snipe { leader },
                },
                format!("Snipe at {} (8.1.4)", p.scn.counters.get(leader).name),
            )
        })
}

/// Fortify stacks that stand close to the Allied lines (13).
pub fn fortify(p: &Pos<'_>, legal: &[Action]) -> Option<PlanItem> {
    let allied = p.units(Side::Allied);
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Fortify { hex } => {
                let d = allied
                    .iter()
                    .map(|(_, h)| h.distance(*hex))
                    .min()
                    .unwrap_or(99);
                (d <= 3).then_some((d, *hex))
            }
            _ => None,
        })
        .min()
        .map(|(_, hex)| {
            PlanItem::new(
                Intent::Step {
                    action: Action::Fortify { hex },
                },
                format!("Fortify {hex} (13)"),
            )
        })
}

/// Lift off stacks stranded far from the fight, to re-enter nearer next turn (22).
pub fn lift(p: &Pos<'_>, info: &MapInfo, legal: &[Action]) -> Option<PlanItem> {
    let field = pressure(p, info);
    let best_edge = info
        .edge
        .iter()
        .map(|e| field[e.index()])
        .min()
        .unwrap_or(FAR);
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Lift { hex } => {
                let here = field[hex.index()];
                let holds = p.scn.map.victory(*hex).is_some();
                let near_enemy = hex
                    .neighbours()
                    .chain(std::iter::once(*hex))
                    .any(|n| p.board.at(n).side == Some(Side::Allied));
                (!holds && !near_enemy && here != FAR && here > best_edge.saturating_add(10))
                    .then_some((std::cmp::Reverse(here), *hex))
            }
            _ => None,
        })
        .min()
        .map(|(_, hex)| {
            PlanItem::new(
                Intent::Step {
                    action: Action::Lift { hex },
                },
                format!("Lift the stack at {hex} off the map, to re-enter nearer (22)"),
            )
        })
}

/// One Chinese unit that may move this phase.
struct Mover {
    unit: UnitId,
    from: Hex,
    strength: u32,
    cost: Vec<u8>,
    mp: u8,
}

impl Mover {
    fn reaches(&self, h: Hex) -> bool {
        let c = self.cost[h.index()];
        c != u8::MAX && c <= self.mp
    }
}

/// The Allied hexes whose zone of control covers `n` and that a unit there must attack
/// (6, 8.1.2).
fn forced_at(p: &Pos<'_>, n: Hex) -> Vec<Hex> {
    if !p.board.in_zoc_of(Side::Allied, n) {
        return Vec::new();
    }
    n.neighbours()
        .filter(|e| {
            p.board.at(*e).side == Some(Side::Allied)
                && p.at(*e).iter().any(|u| p.kind(*u).exerts_zoc())
                && zoc::projects(p.scn, p.st, *e, n)
        })
        .collect()
}

/// The Chinese movement phase as stack moves (5, 6, 7, 21).
pub fn plan_move(p: &Pos<'_>, info: &MapInfo, style: &Style) -> Vec<PlanItem> {
    let phase = Phase::ChineseMovement;
    let mut movers: Vec<Mover> = Vec::new();
    for (u, h) in p.units(Side::Chinese) {
        if !movement::movable(p.scn, p.st, Some(&p.board), u, phase) {
            continue;
        }
        let mp = command::allowance(p.scn, p.st, u, phase);
        let r = movement::reach(&p.board, Side::Chinese, h, mp);
        movers.push(Mover {
            unit: u,
            from: h,
            strength: p.strength(u),
            cost: r.cost,
            mp,
        });
    }
    if movers.is_empty() {
        return Vec::new();
    }
    let mut load: Vec<u32> = vec![0; HEX_COUNT];
    for (u, h) in p.units(Side::Chinese) {
        load[h.index()] += p.strength(u);
    }
    // dest[i]: where mover i is sent (None: stays), and why.
    let mut dest: Vec<Option<(Hex, String)>> = vec![None; movers.len()];
    let mut assigned = vec![false; movers.len()];
    let send = |i: usize,
                to: Hex,
                why: String,
                load: &mut Vec<u32>,
                dest: &mut Vec<Option<(Hex, String)>>,
                assigned: &mut Vec<bool>,
                movers: &[Mover]| {
        let m = &movers[i];
        load[m.from.index()] -= m.strength;
        load[to.index()] += m.strength;
        if to != m.from {
            dest[i] = Some((to, why));
        }
        assigned[i] = true;
    };
    // 1. Walk into empty victory hexes the Allies still control (21).
    let mut empty: Vec<(f64, Hex)> = info
        .victory
        .iter()
        .enumerate()
        .filter(|(i, (h, _))| p.st.control[*i] == Side::Allied && p.board.at(*h).side.is_none())
        .map(|(_, (h, _))| (capture_value(p, info, Side::Chinese, *h), *h))
        .collect();
    empty.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, v) in empty {
        let pick = movers
            .iter()
            .enumerate()
            .filter(|(i, m)| !assigned[*i] && m.reaches(v) && load[v.index()] + m.strength <= STACK)
            .min_by_key(|(_, m)| (m.strength, m.cost[v.index()], m.unit))
            .map(|(i, _)| i);
        if let Some(i) = pick {
            send(
                i,
                v,
                format!("take victory hex {v}"),
                &mut load,
                &mut dest,
                &mut assigned,
                &movers,
            );
        }
    }
    // 2. Assaults on Allied stacks: enough strength next to each for good odds.
    let mut targets: Vec<(f64, Hex)> = Vec::new();
    for (h, units) in p.stacks(Side::Allied) {
        let worth_here: f64 = units
            .iter()
            .map(|u| worth(p.scn, *u, p.st.unit(*u).reduced))
            .sum();
        let v = worth_here + capture_value(p, info, Side::Chinese, h);
        targets.push((v / f64::from(p.defence(h).max(1)).sqrt(), h));
    }
    targets.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, h) in targets {
        assault(
            p,
            info,
            style,
            h,
            &movers,
            &mut assigned,
            &mut dest,
            &mut load,
        );
    }
    // 3. Everyone else closes in, out of Allied zones of control, towards the weak points.
    let field = pressure(p, info);
    for i in 0..movers.len() {
        if assigned[i] {
            continue;
        }
        let m = &movers[i];
        let here_forced = !forced_at(p, m.from).is_empty();
        let score = |h: Hex| -> f64 {
            let d = f64::from(field[h.index()].min(200));
            let cover = match p.ground(h) {
                Ground::Building | Ground::Wall => 0.6,
                Ground::Ruin => 0.3,
                _ => 0.0,
            };
            -d + cover
        };
        let mut best = if here_forced { f64::MIN } else { score(m.from) };
        let mut to = None;
        for h in Hex::all() {
            if h == m.from || !m.reaches(h) || load[h.index()] + m.strength > STACK {
                continue;
            }
            if p.board.in_zoc_of(Side::Allied, h) {
                continue;
            }
            let s = score(h);
            if s > best + 0.01 {
                best = s;
                to = Some(h);
            }
        }
        if let Some(to) = to {
            send(
                i,
                to,
                "close in".into(),
                &mut load,
                &mut dest,
                &mut assigned,
                &movers,
            );
        }
    }
    // Group moves by (from, to), and order them so that a hex is left before it is filled.
    let mut moves: Vec<(Hex, Hex, Vec<UnitId>, String)> = Vec::new();
    for (i, d) in dest.iter().enumerate() {
        let Some((to, why)) = d else { continue };
        let m = &movers[i];
        match moves
            .iter_mut()
            .find(|(f, t, _, _)| *f == m.from && *t == *to)
        {
            Some(e) => e.2.push(m.unit),
            None => moves.push((m.from, *to, vec![m.unit], why.clone())),
        }
    }
    order_moves(p, &mut moves);
    moves
        .into_iter()
        .map(|(from, to, units, why)| {
            let names = siege_rules::ctx::names(p.scn, &units);
            PlanItem::new(
                Intent::Move {
                    units,
                    from,
                    via: None,
                    to,
                },
                format!("{names} move {from} → {to}: {why}"),
            )
        })
        .collect()
}

/// Order moves so that each one finds room where it stops (7): moves out of a hex come before
/// moves into it whenever they can.
fn order_moves(p: &Pos<'_>, moves: &mut Vec<(Hex, Hex, Vec<UnitId>, String)>) {
    let mut load: Vec<u32> = vec![0; HEX_COUNT];
    for (u, h) in p.units(Side::Chinese) {
        load[h.index()] += p.strength(u);
    }
    let pts = |units: &[UnitId]| -> u32 { units.iter().map(|u| p.strength(*u)).sum() };
    let mut left: Vec<(Hex, Hex, Vec<UnitId>, String)> = std::mem::take(moves);
    while !left.is_empty() {
        let pos = left
            .iter()
            .position(|(_, to, units, _)| load[to.index()] + pts(units) <= STACK);
        let i = pos.unwrap_or(0);
        let m = left.remove(i);
        let s = pts(&m.2);
        load[m.0.index()] -= s;
        load[m.1.index()] += s;
        moves.push(m);
    }
}

/// Gather strength next to the Allied stack in `h` for an attack at good odds; commit it only
/// if the expected result pays (8.2).
#[allow(clippy::too_many_arguments)]
fn assault(
    p: &Pos<'_>,
    info: &MapInfo,
    style: &Style,
    h: Hex,
    movers: &[Mover],
    assigned: &mut [bool],
    dest: &mut [Option<(Hex, String)>],
    load: &mut [u32],
) {
    let defence_base = p.defence_base(h);
    if defence_base == 0 {
        return;
    }
    // Slots: hexes next to the stack where a Chinese unit may stand and is forced to attack
    // nothing but this stack.
    let slots: Vec<Hex> = h
        .neighbours()
        .filter(|n| p.ground(*n) != Ground::Canal && p.board.at(*n).side != Some(Side::Allied))
        .filter(|n| forced_at(p, *n).iter().all(|x| *x == h))
        .collect();
    if slots.is_empty() {
        return;
    }
    // Strength already in the slots, staying put.
    let mut room: Vec<u32> = slots
        .iter()
        .map(|s| STACK.saturating_sub(load[s.index()]))
        .collect();
    let present: u32 = slots
        .iter()
        .flat_map(|s| p.at(*s))
        .filter(|u| p.side(*u) == Side::Chinese)
        .map(|u| p.strength(u))
        .sum();
    // Who can reach a slot, nearest first.
    let mut offers: Vec<(u8, usize, usize)> = Vec::new();
    for (i, m) in movers.iter().enumerate() {
        if assigned[i] || slots.contains(&m.from) {
            continue;
        }
        for (k, s) in slots.iter().enumerate() {
            if m.reaches(*s) {
                offers.push((m.cost[s.index()], i, k));
            }
        }
    }
    offers.sort_by_key(|(c, i, k)| (*c, std::cmp::Reverse(movers[*i].strength), *i, *k));
    let mut chosen: Vec<(usize, usize)> = Vec::new();
    let mut total = present;
    let mut used: Vec<bool> = vec![false; movers.len()];
    // Enough for 5-1 against the defence with the whole multiplier, plus the reaction's
    // reinforcements the Allies may bring.
    let mult = p.multiplier(h);
    let reinforce = if p.board.at(h).points < 8 { 4 } else { 0 };
    let want = style.assault_ratio * (defence_base + reinforce) * mult;
    for (_, i, k) in offers {
        if total >= want {
            break;
        }
        if used[i] || room[k] < movers[i].strength {
            continue;
        }
        used[i] = true;
        room[k] -= movers[i].strength;
        total += movers[i].strength;
        chosen.push((i, k));
    }
    if chosen.is_empty() {
        return;
    }
    // Odds with the slots chosen (a wall or the Tartar Wall may lose its multiplier, 18).
    let mut from: Vec<Hex> = chosen.iter().map(|(_, k)| slots[*k]).collect();
    from.extend(
        slots
            .iter()
            .filter(|s| p.board.at(**s).side == Some(Side::Chinese)),
    );
    from.sort();
    from.dedup();
    let m = defence::effect(p.scn, p.st, h, &from).multiplier;
    let defence = (defence_base + reinforce) * m;
    let column = crt::odds(total, defence);
    let leader = p.at(h).iter().any(|u| p.kind(*u) == UnitKind::Leader);
    let (value, _) = attack::expected(
        p,
        info,
        Side::Chinese,
        &[h],
        &[],
        column,
        if leader { -1 } else { 0 },
        true,
    );
    // Attackers given as none above: count the Chinese losses from the odds directly.
    let risk = match column {
        crt::Odds::BelowOneToThree => 10.0,
        crt::Odds::Column(c) if c < 2 => 2.0,
        crt::Odds::Column(2) => 0.4,
        _ => 0.0,
    };
    if value - risk < style.assault_bar {
        return;
    }
    let col = p.scn.crt.column_name(column).to_string();
    for (i, k) in chosen {
        let to = slots[k];
        let mv = &movers[i];
        load[mv.from.index()] -= mv.strength;
        load[to.index()] += mv.strength;
        dest[i] = Some((to, format!("attack {h} at about {col}")));
        assigned[i] = true;
    }
}
