//! The Allied player's plans. The garrison is small and shrinks every turn (14), so every move
//! is weighed against what the Chinese can bring next: each victory hex held by enough strength
//! in cover that the odds against it stay low (21, 18), empty victory hexes the Chinese took
//! walked back into, civilians never left without an escort (15), leaders with the stacks that
//! need their die modifier (11.1), the wounded sent to the hospital (8.6), no stack left where a
//! Chinese zone of control would force it into a hopeless attack (6, 8.1.2). Then the bayonet
//! charges that pay (8.1.3), fortifications where the line stands in the open (13), which unit
//! attrition takes (14), and withdrawal when a stack would be lost for nothing (12).

use crate::Style;
use crate::attack::{self, can_retreat};
use crate::eval::capture_value;
use crate::intent::{Intent, PlanItem};
use crate::know::{ChineseReach, MapInfo, Pos};
use crate::odds::{self, step_worth, worth};
use siege_protocol::Side;
use siege_rules::StepId;
use siege_rules::action::Action;
use siege_rules::bayonet;
use siege_rules::command;
use siege_rules::crt;
use siege_rules::declaration::Declaration;
use siege_rules::hex::{HEX_COUNT, Hex};
use siege_rules::los;
use siege_rules::movement;
use siege_rules::report;
use siege_rules::state::Group;
use siege_rules::terrain::Ground;
use siege_rules::units::{UnitId, UnitKind};

/// Allied stacking limit in points (7).
const STACK: u32 = 10;

/// The Chinese strength that will strike each hex: next turn's reach in the Allied movement
/// phase, the stacks already next to it (and in range of fire) in the reaction phase.
struct Threat {
    by_hex: Vec<u32>,
    /// Hexes some Chinese unit could walk into next turn (21).
    walk: Vec<bool>,
}

impl Threat {
    fn next_turn(
        p: &Pos<'_>,
        info: &MapInfo,
        reach: &[ChineseReach],
        hexes: &[Hex],
        share: u32,
    ) -> Threat {
        let mut by_hex = vec![0; HEX_COUNT];
        for h in hexes {
            // The Chinese cannot strike everywhere at once: discount the raw reach (percent).
            by_hex[h.index()] = p.threat(reach, *h) * share / 100;
        }
        Threat {
            by_hex,
            walk: p.walkable(info),
        }
    }

    fn now(p: &Pos<'_>, hexes: &[Hex]) -> Threat {
        let mut by_hex = vec![0; HEX_COUNT];
        let chinese = p.units(Side::Chinese);
        for h in hexes {
            let mut t = 0;
            for (u, at) in &chinese {
                let d = at.distance(*h);
                let ok = d == 1
                    || (d == 2
                        && !p.board.in_zoc_of(Side::Allied, *at)
                        && los::line_of_sight(p.scn, p.st, &p.board, *at, *h).clear);
                if ok {
                    t += p.strength(*u);
                }
            }
            by_hex[h.index()] = t;
        }
        Threat {
            by_hex,
            walk: vec![false; HEX_COUNT],
        }
    }

    fn at(&self, h: Hex) -> u32 {
        self.by_hex[h.index()]
    }
}

/// What losing the game is worth against material, in Allied-step units.
const GAME: f64 = 60.0;

/// A movement plan being built: where each Allied unit will stand, scored by what the Chinese
/// can take from it — the chance that their next turn wins the race of the victory hexes
/// (21), the hexes they take towards the turns after, and the units they destroy.
struct Layout<'a> {
    p: &'a Pos<'a>,
    info: &'a MapInfo,
    /// Planned hex of each unit on the map, by unit index (None: not on the map).
    at: Vec<Option<Hex>>,
    threat: Threat,
    /// Whether a doctor is in the hospital (8.6).
    doctor: bool,
    /// Chinese units within three hexes of each hex: a retreat or advance after combat could
    /// still carry one into an empty victory hex this turn (8.3, 8.4, 21).
    near: Vec<bool>,
    /// The turn of the Chinese moves the layout must weather: this turn in the reaction phase,
    /// the next one otherwise.
    turn: u8,
    /// The Chinese are about to attack (reaction): no more Chinese movement before that.
    reaction: bool,
    /// Victory hexes the plan has walked back into (21).
    retaken: Vec<usize>,
    /// At setup: an emptied victory hex safe on turn 1 must be re-garrisoned on turn 1's
    /// movement, so a garrison should wait near it.
    setup: bool,
}

impl Layout<'_> {
    fn units_in(&self, h: Hex) -> Vec<UnitId> {
        self.at
            .iter()
            .enumerate()
            .filter(|(_, x)| **x == Some(h))
            .map(|(i, _)| UnitId(i as u16))
            .collect()
    }

    fn fighters_in(&self, h: Hex) -> usize {
        self.units_in(h)
            .iter()
            .filter(|u| matches!(self.p.kind(**u), UnitKind::Combat | UnitKind::Volunteer))
            .count()
    }

    fn points(&self, units: &[UnitId]) -> u32 {
        units
            .iter()
            .filter(|u| self.p.kind(**u).counts_for_stacking())
            .map(|u| self.p.strength(*u))
            .sum()
    }

    /// Civilians and artillery stay where they are, so the hexes around them must keep an
    /// Allied combat unit (15), and a gun's own hex must stay manned (9).
    fn escorts_ok(&self, leaving: Hex) -> bool {
        let p = self.p;
        for (i, at) in self.at.iter().enumerate() {
            let u = UnitId(i as u16);
            let Some(c) = *at else { continue };
            if p.side(u) != Side::Allied {
                continue;
            }
            match p.kind(u) {
                UnitKind::Civilian if c.distance(leaving) <= 1 => {
                    let ok = std::iter::once(c)
                        .chain(c.neighbours())
                        .any(|n| self.fighters_in(n) > 0);
                    if !ok {
                        return false;
                    }
                }
                UnitKind::Artillery if c == leaving && self.fighters_in(c) == 0 => return false,
                _ => {}
            }
        }
        true
    }

    /// Whether an Allied unit of the layout holds `h` in its zone of control: no Chinese
    /// retreat may enter it (8.3).
    fn covered(&self, h: Hex) -> bool {
        let p = self.p;
        h.neighbours().any(|n| {
            self.units_in(n).iter().any(|u| p.kind(*u).exerts_zoc())
                && siege_rules::zoc::reaches(p.scn, p.ground(n), p.ground(h))
        })
    }

    /// Whether a Chinese stack could retreat (or be pushed) into the empty hex `v` this turn:
    /// a walk of at most three hexes from a Chinese unit, never into an Allied zone of control
    /// or an Allied hex (8.3).
    fn retreat_path(&self, v: Hex) -> bool {
        let p = self.p;
        if self.covered(v) {
            return false;
        }
        let mut frontier = vec![v];
        let mut seen = vec![v];
        for _ in 0..3 {
            let mut next = Vec::new();
            for h in frontier {
                for n in h.neighbours() {
                    if seen.contains(&n) {
                        continue;
                    }
                    seen.push(n);
                    if p.board.at(n).side == Some(Side::Chinese) {
                        // It retreats only after a failed attack: on an Allied unit next to it.
                        let target = n.neighbours().any(|x| {
                            self.units_in(x).iter().any(|u| {
                                p.side(*u) == Side::Allied && p.kind(*u) != UnitKind::Artillery
                            })
                        });
                        if target {
                            return true;
                        }
                        // A retreat passes through its own side's stacks.
                        next.push(n);
                        continue;
                    }
                    if p.ground(n) == Ground::Canal
                        || !self.units_in(n).is_empty()
                        || self.covered(n)
                    {
                        continue;
                    }
                    next.push(n);
                }
            }
            frontier = next;
        }
        false
    }

    /// The defence strength of `units` in `h` (8.2, 15, 18) and whether a leader is there.
    fn defence_of(&self, h: Hex, units: &[UnitId]) -> (u32, bool) {
        let p = self.p;
        let base: u32 = units
            .iter()
            .map(|u| match p.kind(*u) {
                UnitKind::Leader | UnitKind::Civilian => 1,
                UnitKind::Artillery | UnitKind::Doctor => 0,
                _ => p.strength(*u),
            })
            .sum();
        let leader = units.iter().any(|u| p.kind(*u) == UnitKind::Leader);
        (base * p.multiplier(h), leader)
    }

    /// The chance the Chinese take the victory hex `h` (index `i`) in the turn the layout
    /// must weather: walking into it empty, or attacking its garrison and advancing (8.4).
    fn p_lose(&self, i: usize, h: Hex) -> f64 {
        let p = self.p;
        if self.p.st.control[i] != Side::Allied && !self.retaken.contains(&i) {
            return 0.0;
        }
        let units = self.units_in(h);
        let fighters = units
            .iter()
            .any(|u| matches!(p.kind(*u), UnitKind::Combat | UnitKind::Volunteer));
        if !fighters {
            if self.reaction {
                return if self.near[h.index()] && self.retreat_path(h) {
                    0.15
                } else {
                    0.0
                };
            }
            return if self.threat.walk[h.index()] {
                0.95
            } else {
                0.0
            };
        }
        // A garrison in a Chinese zone of control must attack out of it in the Allied combat
        // phase (8.1.2): on AR, AL1 or AE the Chinese may advance into the hex (8.4).
        let forced = if self.reaction || !p.board.in_zoc_of(Side::Chinese, h) {
            0.0
        } else {
            self.forced_loss(h, &units)
        };
        let threat = self.threat.at(h);
        if threat == 0 {
            return forced;
        }
        let (defence, leader) = self.defence_of(h, &units);
        let column = crt::odds(threat, defence);
        let dist = odds::distribution(p.scn, column, if leader { -1 } else { 0 });
        let out = odds::p_defender_out(&dist);
        // A garrison in a building may slip out in the reaction phase (6, 18.2).
        let out = if !self.reaction && p.ground(h) == Ground::Building {
            out * 0.6
        } else {
            out
        };
        forced + (1.0 - forced) * out
    }

    /// The chance that the attack `units` in `h` are forced to make (8.1.2) throws them back:
    /// AR, AL1 or AE, at the odds they can reach with their leader's modifier (11.1).
    fn forced_loss(&self, h: Hex, units: &[UnitId]) -> f64 {
        let p = self.p;
        let att: u32 = units
            .iter()
            .map(|u| match p.kind(*u) {
                UnitKind::Combat | UnitKind::Volunteer => p.strength(*u),
                _ => 0,
            })
            .sum();
        let mut sources: Vec<Hex> = h
            .neighbours()
            .filter(|n| {
                p.board.at(*n).side == Some(Side::Chinese)
                    && siege_rules::zoc::projects(p.scn, p.st, *n, h)
            })
            .collect();
        sources.sort();
        let def: u32 = sources
            .iter()
            .map(|n| {
                p.defence_base(*n) * siege_rules::defence::effect(p.scn, p.st, *n, &[h]).multiplier
            })
            .sum();
        if def == 0 {
            return 0.0;
        }
        let leader = units.iter().any(|u| p.kind(*u) == UnitKind::Leader);
        let dist = odds::distribution(p.scn, crt::odds(att, def), if leader { 1 } else { 0 });
        dist[0] + dist[1] + dist[2]
    }

    /// The victory-hex race: the chance the Chinese reach the count they need in the turn to
    /// come (21), weighted as the game, plus each hex they take weighted for the turns after.
    fn race(&self) -> f64 {
        let p = self.p;
        let info = self.info;
        let held = p.chinese_held().saturating_sub(self.retaken.len());
        let mut lose: Vec<(f64, bool)> = Vec::new();
        let mut future = 0.0;
        for (i, (h, _)) in info.victory.iter().enumerate() {
            let pl = self.p_lose(i, *h);
            if pl > 0.0 {
                lose.push((pl, info.is_primary(i)));
                future += pl * if info.is_primary(i) { 3.0 } else { 2.0 };
            }
        }
        // At setup, look one turn further: by turn 2 the Chinese stand next to every hex they
        // could reach, and an empty hex with no garrison near to walk back in is lost.
        let mut second = 0.0;
        if self.setup {
            let mut lose2: Vec<f64> = Vec::new();
            for (i, (h, _)) in info.victory.iter().enumerate() {
                let p1 = self.p_lose(i, *h);
                let threatened = self.threat.at(*h) > 0 || self.threat.walk[h.index()];
                let q = if !threatened {
                    0.0
                } else if self.fighters_in(*h) > 0 {
                    p1
                } else {
                    let near = self.at.iter().enumerate().any(|(u, x)| {
                        let u = UnitId(u as u16);
                        x.is_some_and(|x| x.distance(*h) <= 2)
                            && matches!(p.kind(u), UnitKind::Combat | UnitKind::Volunteer)
                            && p.side(u) == Side::Allied
                    });
                    if near { 0.3 } else { 0.9 }
                };
                lose2.push(p1 + (1.0 - p1) * q);
            }
            second = 0.8 * GAME * at_least(&lose2, p.needed_in(2));
        }
        // Every hex the Chinese hold brings the count they need closer in the turns after.
        future += 2.5 * held as f64;
        let need = p.needed_in(self.turn).saturating_sub(held);
        let mut win = at_least(&lose.iter().map(|(x, _)| *x).collect::<Vec<_>>(), need);
        if self.turn >= siege_rules::scenario::LAST_TURN {
            let (_, primary_held) = siege_rules::victory::chinese_held(p.scn, p.st);
            let retaken_primary = self.retaken.iter().filter(|i| info.is_primary(**i)).count();
            let need_p = siege_rules::victory::primary_needed(p.scn, p.st)
                .saturating_sub(primary_held.saturating_sub(retaken_primary));
            let prim: Vec<f64> = lose.iter().filter(|(_, pr)| *pr).map(|(x, _)| *x).collect();
            win = win.max(at_least(&prim, need_p));
        }
        GAME * win + future + second
    }

    /// Material the Allies stand to lose in `h` with `units` there: the Chinese attack, a
    /// forced attack out of a Chinese zone of control (8.1.2), leaders left alone; less the
    /// hospital's help to the wounded (8.6).
    fn material(&self, h: Hex, units: &[UnitId]) -> f64 {
        let p = self.p;
        let threat = self.threat.at(h);
        let mut r = 0.0;
        let fighters: Vec<UnitId> = units
            .iter()
            .copied()
            .filter(|u| matches!(p.kind(*u), UnitKind::Combat | UnitKind::Volunteer))
            .collect();
        if fighters.is_empty() {
            for u in units {
                if p.kind(*u) == UnitKind::Leader {
                    r += 0.6 + if threat > 0 { 1.0 } else { 0.0 };
                }
            }
            return r;
        }
        let leader = units.iter().any(|u| p.kind(*u) == UnitKind::Leader);
        if threat > 0 {
            let (defence, _) = self.defence_of(h, units);
            let column = crt::odds(threat, defence);
            let dist = odds::distribution(p.scn, column, if leader { -1 } else { 0 });
            let all: f64 = units
                .iter()
                .map(|u| worth(p.scn, *u, p.st.unit(*u).reduced))
                .sum();
            let cheapest = fighters
                .iter()
                .map(|u| step_worth(p.scn, *u, p.st.unit(*u).reduced))
                .fold(f64::INFINITY, f64::min);
            let trapped = !can_retreat(p, h, Side::Allied);
            let retreat = if trapped { all } else { 0.1 * all };
            let slip = if !self.reaction && p.ground(h) == Ground::Building {
                0.6
            } else {
                1.0
            };
            r += slip
                * (dist[3] * retreat
                    + dist[4] * (cheapest + retreat)
                    + dist[5] * all
                    + dist[6] * all);
        }
        if p.board.in_zoc_of(Side::Chinese, h) && !self.forced_ok(h, &fighters) {
            let all: f64 = fighters
                .iter()
                .map(|u| worth(p.scn, *u, p.st.unit(*u).reduced))
                .sum();
            r += all;
        }
        if self.doctor && p.scn.map.is_hospital(h) {
            for u in &fighters {
                if p.st.unit(*u).reduced && p.scn.counters.get(*u).steps() == 2 {
                    r -= 0.5;
                }
            }
        }
        if leader && threat > 0 {
            r -= 0.2;
        }
        r
    }

    /// Whether the attack a Chinese zone of control would force from `h` (8.1.2) is at
    /// tolerable odds: at least 1-1 against every Chinese stack exerting it.
    fn forced_ok(&self, h: Hex, fighters: &[UnitId]) -> bool {
        let p = self.p;
        let att: u32 = fighters.iter().map(|u| p.strength(*u)).sum();
        let def: u32 = h
            .neighbours()
            .filter(|n| {
                p.board.at(*n).side == Some(Side::Chinese)
                    && siege_rules::zoc::projects(p.scn, p.st, *n, h)
            })
            .map(|n| p.defence_base(n) * p.multiplier(n))
            .sum();
        def == 0 || att >= def
    }

    /// The material part of hexes `a` and `b`.
    fn material_pair(&self, a: Hex, b: Hex) -> f64 {
        self.material(a, &self.units_in(a)) + self.material(b, &self.units_in(b))
    }

    /// What moving `units` from `from` to `to` gains (positive: the layout is safer).
    fn gain(&mut self, units: &[UnitId], from: Hex, to: Hex, retake: Option<usize>) -> f64 {
        // (The race term looks at every victory hex, so screens moving away count.)
        let before = self.material_pair(from, to) + self.race();
        for u in units {
            self.at[u.index()] = Some(to);
        }
        if let Some(i) = retake {
            self.retaken.push(i);
        }
        let after = self.material_pair(from, to) + self.race();
        if retake.is_some() {
            self.retaken.pop();
        }
        for u in units {
            self.at[u.index()] = Some(from);
        }
        before - after
    }
}

/// The chance that at least `k` of independent events with chances `ps` happen.
fn at_least(ps: &[f64], k: usize) -> f64 {
    if k == 0 {
        return 1.0;
    }
    // dist[j]: chance of exactly j so far.
    let mut dist = vec![0.0; ps.len() + 1];
    dist[0] = 1.0;
    for (n, &q) in ps.iter().enumerate() {
        for j in (0..=n + 1).rev() {
            let stay = dist[j] * (1.0 - q);
            let came = if j > 0 { dist[j - 1] * q } else { 0.0 };
            dist[j] = stay + came;
        }
    }
    dist.iter().skip(k).sum()
}

/// The Allied movement or reaction phase as stack moves (5, 6, 7, 11.2, 15, 21).
pub fn plan_move(p: &Pos<'_>, info: &MapInfo, style: &Style) -> Vec<PlanItem> {
    let phase = p.st.phase();
    let reaction = p.st.slot == StepId::Reaction;
    // Movers: combat units, volunteers and leaders that may still move. Doctors stay in the
    // hospital; civilians and guns stay with the units around them.
    let mut movers: Vec<(UnitId, Hex, Vec<u8>, u8)> = Vec::new();
    for (u, h) in p.units(Side::Allied) {
        if !matches!(
            p.kind(u),
            UnitKind::Combat | UnitKind::Volunteer | UnitKind::Leader
        ) {
            continue;
        }
        if !movement::movable(p.scn, p.st, Some(&p.board), u, phase) {
            continue;
        }
        let mp = command::allowance(p.scn, p.st, u, phase);
        let r = movement::reach(&p.board, Side::Allied, h, mp);
        movers.push((u, h, r.cost, mp));
    }
    if movers.is_empty() {
        return Vec::new();
    }
    // Hexes worth considering: victory hexes, hexes the Allies stand in, the hospital, and
    // cover next to victory hexes and civilians.
    let mut interesting: Vec<Hex> = info.victory.iter().map(|(h, _)| *h).collect();
    for (_, h) in p.units(Side::Allied) {
        interesting.push(h);
    }
    interesting.extend(p.scn.map.hospital().iter().copied());
    let anchors: Vec<Hex> = interesting.clone();
    for a in anchors {
        for n in a.neighbours() {
            if matches!(p.ground(n), Ground::Building | Ground::TartarWall) {
                interesting.push(n);
            }
        }
    }
    interesting.sort();
    interesting.dedup();
    interesting.retain(|h| p.board.at(*h).side != Some(Side::Chinese));
    let threat = if reaction {
        Threat::now(p, &interesting)
    } else {
        let reach = p.chinese_reach(info);
        Threat::next_turn(p, info, &reach, &interesting, style.threat_share)
    };
    let doctor = siege_rules::recovery::doctor_present(p.scn, p.st);
    let mut layout = Layout {
        p,
        info,
        at: p.st.units.iter().map(|u| u.hex()).collect(),
        threat,
        doctor,
        near: near_chinese(p),
        turn: if reaction { p.st.turn } else { p.st.turn + 1 },
        reaction,
        retaken: Vec::new(),
        setup: false,
    };
    let mut items: Vec<PlanItem> = Vec::new();
    let mut done = vec![false; movers.len()];
    // 1. Walk back into empty victory hexes the Chinese took (21), out of their ZOC when the
    //    walk can go on, else to stand there.
    for (i, (v, _)) in info.victory.iter().enumerate() {
        if p.st.control[i] != Side::Chinese || p.board.at(*v).side.is_some() {
            continue;
        }
        let mut best: Option<(f64, usize, Option<Hex>, Hex)> = None;
        for (k, (u, from, cost, mp)) in movers.iter().enumerate() {
            if done[k] || p.kind(*u) == UnitKind::Leader {
                continue;
            }
            let c = cost[v.index()];
            if c == u8::MAX || c > *mp {
                continue;
            }
            if !layout.escorts_ok_without(*u, *from) {
                continue;
            }
            // Through the hex and on, or to stay there.
            let halted = p.board.in_zoc_of(Side::Chinese, *v);
            let mut ends: Vec<(Option<Hex>, Hex)> = vec![(None, *v)];
            if !halted && c < *mp {
                let on = movement::reach(&p.board, Side::Allied, *v, *mp - c);
                for h in &interesting {
                    if *h != *v && on.cost[h.index()] != u8::MAX {
                        ends.push((Some(*v), *h));
                    }
                }
            }
            for (via, to) in ends {
                let (pts, _) = siege_rules::stacking::load(p.scn, p.st, &[*u]);
                if layout.points(&layout.units_in(to)) + u32::from(pts) > STACK && to != *from {
                    continue;
                }
                let gain = layout.gain(&[*u], *from, to, Some(i)) + 0.5;
                if best.as_ref().is_none_or(|b| gain > b.0) {
                    best = Some((gain, k, via, to));
                }
            }
        }
        if let Some((gain, k, via, to)) = best
            && gain > 0.5
        {
            let (u, from, _, _) = &movers[k];
            layout.at[u.index()] = Some(to);
            layout.retaken.push(i);
            done[k] = true;
            if to != *from || via.is_some() {
                let name = p.scn.counters.get(*u).name.clone();
                let text = match via {
                    Some(v) => format!("{name} retake victory hex {v} on the way {from} → {to}"),
                    None => format!("{name} retake victory hex {to}"),
                };
                items.push(PlanItem::new(
                    Intent::Move {
                        units: vec![*u],
                        from: *from,
                        via,
                        to,
                    },
                    text,
                ));
            }
        }
    }
    // 2. Improve the layout a unit or a whole stack at a time, best gain first.
    let mut ms: Vec<Mover> = movers
        .iter()
        .enumerate()
        .filter(|(k, _)| !done[*k])
        .map(|(_, (u, from, cost, mp))| Mover {
            unit: *u,
            from: *from,
            cost: Some(cost.clone()),
            mp: *mp,
            passenger: false,
            done: false,
        })
        .collect();
    // Guns ride with the stack they stand in (9).
    for (u, h) in p.units(Side::Allied) {
        if p.kind(u) == UnitKind::Artillery
            && movement::movable(p.scn, p.st, Some(&p.board), u, phase)
            && ms.iter().any(|m| m.from == h)
        {
            ms.push(Mover {
                unit: u,
                from: h,
                cost: None,
                mp: 0,
                passenger: true,
                done: false,
            });
        }
    }
    for (units, from, to, gain) in improve(&mut layout, &mut ms, &interesting, false, 0.05) {
        let names = siege_rules::ctx::names(p.scn, &units);
        items.push(PlanItem::new(
            Intent::Move {
                units,
                from,
                via: None,
                to,
            },
            format!("{names} move {from} → {to} (risk down by {gain:.2})"),
        ));
    }
    merge_moves(p, items)
}

/// A unit the layout may move.
struct Mover {
    unit: UnitId,
    from: Hex,
    /// MP to each hex (None: anywhere, at setup).
    cost: Option<Vec<u8>>,
    mp: u8,
    /// Moves only with a combat unit (artillery, 9).
    passenger: bool,
    done: bool,
}

impl Mover {
    fn reaches(&self, h: Hex) -> bool {
        match &self.cost {
            None => true,
            Some(c) => c[h.index()] != u8::MAX && c[h.index()] <= self.mp,
        }
    }
}

/// Hill-climb the layout: move a unit, or every unit of a stack, to the target hex that
/// lowers the risk most, until no move gains more than `margin`. Each mover moves once.
/// At `setup`, guns may also be moved on their own to a manned hex (22, 9).
fn improve(
    layout: &mut Layout<'_>,
    movers: &mut [Mover],
    targets: &[Hex],
    setup: bool,
    margin: f64,
) -> Vec<(Vec<UnitId>, Hex, Hex, f64)> {
    let p = layout.p;
    let mut out: Vec<(Vec<UnitId>, Hex, Hex, f64)> = Vec::new();
    let gun_in = |layout: &Layout<'_>, h: Hex| {
        layout
            .units_in(h)
            .iter()
            .any(|x| p.kind(*x) == UnitKind::Artillery)
    };
    for _ in 0..80 {
        let mut best: Option<(f64, Vec<usize>, Hex)> = None;
        // Candidate groups: each free mover alone, and each hex's free movers together.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (k, m) in movers.iter().enumerate() {
            if m.done || (m.passenger && !setup) {
                continue;
            }
            groups.push(vec![k]);
        }
        let mut hexes: Vec<Hex> = movers.iter().filter(|m| !m.done).map(|m| m.from).collect();
        hexes.sort();
        hexes.dedup();
        for h in hexes {
            let g: Vec<usize> = (0..movers.len())
                .filter(|k| !movers[*k].done && movers[*k].from == h)
                .collect();
            let carriers = g.iter().filter(|k| !movers[**k].passenger).count();
            if g.len() > 1 && carriers > 0 {
                groups.push(g);
            }
        }
        for g in groups {
            let from = movers[g[0]].from;
            let units: Vec<UnitId> = g.iter().map(|k| movers[*k].unit).collect();
            let lone_gun = g.len() == 1 && movers[g[0]].passenger;
            let has_fighter = units
                .iter()
                .any(|u| matches!(p.kind(*u), UnitKind::Combat | UnitKind::Volunteer));
            let guns = units
                .iter()
                .filter(|u| p.kind(**u) == UnitKind::Artillery)
                .count();
            if guns > 0 && !has_fighter && !lone_gun {
                continue;
            }
            let carriers: Vec<usize> = g
                .iter()
                .copied()
                .filter(|k| !movers[*k].passenger)
                .collect();
            // Leaving must not strand civilians or a gun (15, 9).
            for u in &units {
                layout.at[u.index()] = None;
            }
            let mut ok = lone_gun || layout.escorts_ok(from);
            // At setup every victory hex keeps a garrison: an emptied one is walked into on
            // turn 2 before the garrison can come back.
            if setup && layout.info.victory_index(from).is_some() && layout.fighters_in(from) == 0 {
                ok = false;
            }
            for u in &units {
                layout.at[u.index()] = Some(from);
            }
            if !ok {
                continue;
            }
            let pts = layout.points(&units);
            for &h in targets {
                if h == from {
                    continue;
                }
                if !carriers.iter().all(|k| movers[*k].reaches(h)) {
                    continue;
                }
                let here = layout.units_in(h);
                if layout.points(&here) + pts > STACK {
                    continue;
                }
                if guns > 0 && gun_in(layout, h) {
                    continue;
                }
                if lone_gun && layout.fighters_in(h) == 0 {
                    continue;
                }
                let gain = layout.gain(&units, from, h, None) - margin;
                if gain > 0.0 && best.as_ref().is_none_or(|b| gain > b.0) {
                    best = Some((gain, g.clone(), h));
                }
            }
        }
        let Some((gain, g, to)) = best else { break };
        let from = movers[g[0]].from;
        let units: Vec<UnitId> = g.iter().map(|k| movers[*k].unit).collect();
        for k in &g {
            movers[*k].done = true;
            layout.at[movers[*k].unit.index()] = Some(to);
        }
        out.push((units, from, to, gain + margin));
    }
    out
}

impl Layout<'_> {
    /// Whether unit `u` may leave `from` without stranding civilians or a gun.
    fn escorts_ok_without(&mut self, u: UnitId, from: Hex) -> bool {
        if !matches!(self.p.kind(u), UnitKind::Combat | UnitKind::Volunteer) {
            return true;
        }
        let keep = self.at[u.index()];
        self.at[u.index()] = None;
        let ok = self.escorts_ok(from);
        self.at[u.index()] = keep;
        ok
    }
}

/// Join single-unit moves with the same start and end into one stack move, and put moves into
/// a hex after the moves out of it (7).
fn merge_moves(p: &Pos<'_>, items: Vec<PlanItem>) -> Vec<PlanItem> {
    let mut out: Vec<PlanItem> = Vec::new();
    for it in items {
        if let Intent::Move {
            units,
            from,
            via: None,
            to,
        } = &it.intent
            && let Some(prev) = out.iter_mut().find(|o| {
                matches!(&o.intent, Intent::Move { from: f, via: None, to: t, .. } if f == from && t == to)
            })
            && let Intent::Move { units: pu, .. } = &mut prev.intent
        {
            pu.extend(units.iter().copied());
            let names = siege_rules::ctx::names(p.scn, pu);
            prev.text = format!("{names} move {from} → {to}");
            continue;
        }
        out.push(it);
    }
    // Leaving moves first: a move whose destination some later move leaves goes after it.
    let mut ordered: Vec<PlanItem> = Vec::new();
    let mut rest = out;
    while !rest.is_empty() {
        let i = rest
            .iter()
            .position(|it| match &it.intent {
                Intent::Move { to, .. } => !rest.iter().any(|o| {
                    !std::ptr::eq(o, it)
                        && matches!(&o.intent, Intent::Move { from, .. } if from == to)
                }),
                _ => true,
            })
            .unwrap_or(0);
        ordered.push(rest.remove(i));
    }
    ordered
}

/// The unit attrition takes (14): the one the defence misses least.
pub fn attrition(p: &Pos<'_>, info: &MapInfo, legal: &[Action]) -> Option<PlanItem> {
    let civilians = p.civilians();
    let cost = |u: UnitId| -> f64 {
        let mut c = worth(p.scn, u, p.st.unit(u).reduced);
        let Some(h) = p.hex(u) else { return c };
        let fighters = p
            .at(h)
            .into_iter()
            .filter(|x| matches!(p.kind(*x), UnitKind::Combat | UnitKind::Volunteer))
            .count();
        if fighters == 1 {
            if info.victory_index(h).is_some() {
                c += 2.0;
            }
            if civilians.iter().any(|(_, ch)| ch.distance(h) <= 1) {
                let other = civilians.iter().all(|(_, ch)| {
                    std::iter::once(*ch)
                        .chain(ch.neighbours())
                        .filter(|n| *n != h)
                        .any(|n| p.manned(n))
                });
                if !other {
                    c += 5.0;
                }
            }
            if p.at(h).iter().any(|x| p.kind(*x) == UnitKind::Artillery) {
                c += 0.8;
            }
        }
        c
    };
    legal
        .iter()
        .filter_map(|a| match a {
            Action::RemoveUnit { unit } => Some((cost(*unit), *unit)),
            _ => None,
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, unit)| {
            PlanItem::new(
                Intent::Step {
                    action: Action::RemoveUnit { unit },
                },
                format!("Attrition takes {} (14)", p.scn.counters.get(unit).name),
            )
        })
}

/// Bayonet charges that pay (8.1.3): a leader and the units stacked with him, at most 15
/// points a turn, quadrupled against the Chinese in the charged hex.
pub fn bayonet(p: &Pos<'_>, info: &MapInfo, legal: &[Action]) -> Option<PlanItem> {
    let mut starts: Vec<Hex> = legal
        .iter()
        .filter_map(|a| match a {
            Action::SelectUnit { unit } => p.hex(*unit),
            _ => None,
        })
        .collect();
    starts.sort();
    starts.dedup();
    let left = 15u32.saturating_sub(u32::from(p.st.charge_points));
    let mut best: Option<(f64, PlanItem)> = None;
    for from in starts {
        let here: Vec<UnitId> = p
            .at(from)
            .into_iter()
            .filter(|u| legal.contains(&Action::SelectUnit { unit: *u }) || can_join(p, *u))
            .filter(|u| {
                matches!(
                    p.kind(*u),
                    UnitKind::Combat | UnitKind::Volunteer | UnitKind::Leader
                )
            })
            .collect();
        let leaders: Vec<UnitId> = here
            .iter()
            .copied()
            .filter(|u| p.kind(*u) == UnitKind::Leader)
            .collect();
        let Some(&leader) = leaders.first() else {
            continue;
        };
        // The strongest group within the points left: the leader and fighters, strongest first.
        let mut fighters: Vec<UnitId> = here
            .iter()
            .copied()
            .filter(|u| p.kind(*u) != UnitKind::Leader)
            .collect();
        fighters.sort_by_key(|u| (std::cmp::Reverse(p.strength(*u)), *u));
        let mut group = vec![leader];
        let mut pts = 1;
        for f in fighters {
            if pts + p.strength(f) <= left {
                pts += p.strength(f);
                group.push(f);
            }
        }
        if group.len() < 2 {
            continue;
        }
        // Keep civilians and guns escorted: the chargers come back only if the charge fails.
        let g = Group {
            units: group.clone(),
            hex: from,
            spent: 0,
            started: false,
            halted: false,
        };
        for (target, _, charge_from) in bayonet::charges(p.scn, p.st, &g) {
            let d = Declaration {
                attackers: group.clone(),
                charge_from: Some(charge_from),
                ..Declaration::new(Side::Allied, target)
            };
            let rep = report::compute(p.scn, p.st, &d);
            if !rep.legal {
                continue;
            }
            let column = crt::odds(rep.attack, rep.defence);
            let fighters: Vec<UnitId> = group
                .iter()
                .copied()
                .filter(|u| p.kind(*u) != UnitKind::Leader)
                .collect();
            let (mut value, p_out) = attack::outcome(
                p,
                info,
                Side::Allied,
                &[target],
                &fighters,
                column,
                0,
                true,
                false,
            );
            // The chargers occupy the hex if its defenders are gone (R6).
            value += p_out * capture_value(p, info, Side::Allied, target);
            if value > 0.6 && best.as_ref().is_none_or(|b| value > b.0) {
                let names = siege_rules::ctx::names(p.scn, &group);
                let text = format!(
                    "{names} charge with the bayonet from {charge_from} into {target} at {} ({} against {}, 8.1.3)",
                    p.scn.crt.column_name(column),
                    rep.attack,
                    rep.defence
                );
                best = Some((
                    value,
                    PlanItem::new(
                        Intent::Charge {
                            units: group.clone(),
                            from,
                            target,
                        },
                        text,
                    ),
                ));
            }
        }
    }
    best.map(|(_, it)| it)
}

/// Whether a unit could join a charge being formed in its hex (it has not moved this turn).
fn can_join(p: &Pos<'_>, u: UnitId) -> bool {
    let m = p.st.unit(u).marks;
    !m.moved_full && !m.attacked && !m.recovery_failed
}

/// Fortify stacks in the open near the Chinese (13).
pub fn fortify(p: &Pos<'_>, legal: &[Action]) -> Option<PlanItem> {
    let chinese = p.units(Side::Chinese);
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Fortify { hex } => {
                let d = chinese
                    .iter()
                    .map(|(_, h)| h.distance(*hex))
                    .min()
                    .unwrap_or(99);
                (d <= 6).then_some((d, *hex))
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

/// Withdraw before the Chinese attack (12) when a stack that holds no victory hex faces
/// odds that would destroy it; then move the withdrawing stacks back to cover.
pub fn withdrawal(p: &Pos<'_>, info: &MapInfo, legal: &[Action]) -> Option<PlanItem> {
    // Stacks allowed to go: pick the most endangered and start its withdrawal.
    for a in legal {
        if let Action::SelectStack { hex } = a
            && in_danger(p, info, *hex)
        {
            return Some(PlanItem::new(
                Intent::Step { action: a.clone() },
                format!("The stack at {hex} withdraws (12)"),
            ));
        }
    }
    // Leaders covering an endangered stack roll.
    for a in legal {
        let Action::AttemptWithdrawal { leader } = a else {
            continue;
        };
        let Some(lh) = p.hex(*leader) else { continue };
        let endangered = std::iter::once(lh)
            .chain(lh.neighbours())
            .any(|h| p.board.at(h).side == Some(Side::Allied) && in_danger(p, info, h));
        if endangered {
            return Some(PlanItem::new(
                Intent::Step { action: a.clone() },
                format!(
                    "{} rolls for withdrawal (12)",
                    p.scn.counters.get(*leader).name
                ),
            ));
        }
    }
    None
}

/// Whether the Allied stack in `h` faces an attack it would not survive, while holding nothing
/// that matters: no victory hex, no civilians to escort.
fn in_danger(p: &Pos<'_>, info: &MapInfo, h: Hex) -> bool {
    if info.victory_index(h).is_some() {
        return false;
    }
    if p.civilians().iter().any(|(_, c)| c.distance(h) <= 1) {
        return false;
    }
    let t = Threat::now(p, &[h]).at(h);
    let d = p.defence(h).max(1);
    t >= 5 * d && !can_retreat(p, h, Side::Allied) || t >= 6 * d
}

/// Which reduced units try to recover (8.6): all of them, the strongest first.
pub fn recovery(p: &Pos<'_>, legal: &[Action]) -> Option<PlanItem> {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::AttemptRecovery { unit } => Some((p.scn.counters.get(*unit).strength, *unit)),
            _ => None,
        })
        .max_by_key(|(s, u)| (*s, std::cmp::Reverse(*u)))
        .map(|(_, unit)| {
            PlanItem::new(
                Intent::Step {
                    action: Action::AttemptRecovery { unit },
                },
                format!(
                    "{} try to recover in the hospital (8.6)",
                    p.scn.counters.get(unit).name
                ),
            )
        })
}

/// The Allied setup (22): the default deployment, then each unit moved where it lowers the
/// risk the turn-1 assault poses — a garrison the Chinese can reach with overwhelming odds may
/// hand them a victory hex by advance after combat (8.4), while an empty hex they cannot walk
/// into on turn 1 is safe for now (21).
pub fn plan_setup(p: &Pos<'_>, info: &MapInfo, style: &Style) -> Vec<PlanItem> {
    let mut interesting: Vec<Hex> = info.victory.iter().map(|(h, _)| *h).collect();
    for (_, h) in p.units(Side::Allied) {
        interesting.push(h);
    }
    let anchors = interesting.clone();
    for a in anchors {
        for n in a.neighbours() {
            if matches!(
                p.ground(n),
                Ground::Building | Ground::Wall | Ground::TartarWall
            ) {
                interesting.push(n);
            }
        }
    }
    interesting.sort();
    interesting.dedup();
    interesting.retain(|h| p.scn.map.in_setup_area(*h));
    let reach = p.chinese_reach(info);
    let threat = Threat::next_turn(p, info, &reach, &interesting, style.threat_share);
    let doctor = siege_rules::recovery::doctor_present(p.scn, p.st);
    let mut layout = Layout {
        p,
        info,
        at: p.st.units.iter().map(|u| u.hex()).collect(),
        threat,
        doctor,
        near: near_chinese(p),
        turn: 1,
        reaction: false,
        retaken: Vec::new(),
        setup: true,
    };
    let mut placed: Vec<(UnitId, Hex)> = Vec::new();
    let mut ms: Vec<Mover> = p
        .units(Side::Allied)
        .into_iter()
        .filter(|(u, _)| {
            matches!(
                p.kind(*u),
                UnitKind::Combat | UnitKind::Volunteer | UnitKind::Leader | UnitKind::Artillery
            )
        })
        .map(|(u, h)| Mover {
            unit: u,
            from: layout.at[u.index()].unwrap_or(h),
            cost: None,
            mp: 0,
            passenger: p.kind(u) == UnitKind::Artillery,
            done: false,
        })
        .collect();
    for _ in 0..2 {
        for m in ms.iter_mut() {
            m.done = false;
            if let Some(h) = layout.at[m.unit.index()] {
                m.from = h;
            }
        }
        for (units, _, to, _) in improve(&mut layout, &mut ms, &interesting, true, 0.02) {
            for u in units {
                placed.retain(|(x, _)| *x != u);
                placed.push((u, to));
            }
        }
    }
    let mut items: Vec<PlanItem> = placed
        .into_iter()
        .map(|(unit, hex)| {
            PlanItem::new(
                Intent::Place {
                    unit,
                    area: siege_rules::setup::area_key(&p.scn.map, hex).to_string(),
                    hex,
                },
                format!("Place {} at {hex} (22)", p.scn.counters.get(unit).name),
            )
        })
        .collect();
    items.push(PlanItem::new(
        Intent::Step {
            action: Action::EndPhase,
        },
        "The Allies are in position (22)".into(),
    ));
    items
}

/// Hexes within three of a Chinese unit on the map.
fn near_chinese(p: &Pos<'_>) -> Vec<bool> {
    let mut near = vec![false; HEX_COUNT];
    let chinese: Vec<Hex> = p.units(Side::Chinese).into_iter().map(|(_, h)| h).collect();
    if chinese.is_empty() {
        return near;
    }
    for h in Hex::all() {
        near[h.index()] = chinese.iter().any(|c| c.distance(h) <= 3);
    }
    near
}
