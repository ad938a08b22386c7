//! Combat (8.1.1, 8.1.2, 8.2, 9, 11.1; rulings R4, R6): attacks are declared in small steps —
//! defending hex(es), attacking units adjacent (normal combat) or 2 to 3 (Allied) / 2 (Chinese)
//! hexes away with line of sight (ranged fire), Allied artillery within 4 hexes with line of
//! sight, each leader's use — with the odds shown before the die is rolled. Units in an enemy ZOC
//! must attack every enemy unit exerting it and may not use ranged fire; the phase cannot end
//! while such an obligation is open; no unit attacks or is attacked twice in a combat phase;
//! attacks below 1-3 are allowed only when forced, and are an automatic AE; ranged fire alone
//! takes no adverse result.

use crate::position::action::Action;
use crate::position::action::LeaderUse;
use crate::position::ctx::{Ctx, names};
use crate::position::declaration::Declaration;
use crate::position::hex_index::HexIndex;
use crate::position::los;
use crate::position::pending::Pending;
use crate::position::state::State;
use crate::position::state::phasing_side;
use crate::position::zoc;
use crate::vocabulary::hex::{Axial, Hex};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// Range of ranged fire in hexes (8.1.1).
pub fn range(side: Side) -> u32 {
    match side {
        Side::Allied => 3,
        Side::Chinese => 2,
    }
}

/// How far Allied artillery reaches (9).
pub const ARTILLERY_RANGE: u32 = 4;

/// Normal combat from an adjacent hex, or ranged fire (8.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Adjacent,
    Ranged,
}

/// Whether any unit in `hex` has already been attacked this phase (8.1.2, R6).
fn defended(st: &State, hex: Hex) -> bool {
    st.units_at(hex).any(|u| st.unit(u).marks.defended)
}

/// The enemy hexes next to `at` whose units exert a ZOC on it and that can still be attacked:
/// a unit in `at` must attack all of them (8.1.2).
pub fn zoc_targets(scn: &Scenario, st: &State, board: &HexIndex, side: Side, at: Hex) -> Vec<Hex> {
    at.neighbours()
        .filter(|e| board.enemy_in(side, *e) && !defended(st, *e))
        .filter(|e| {
            st.units_at(*e)
                .any(|u| scn.counters.get(u).kind.exerts_zoc())
                && zoc::projects(scn, st, *e, at)
        })
        .collect()
}

/// Units of `side` that still must attack this phase (8.1.2).
pub fn obligations(scn: &Scenario, st: &State, board: &HexIndex, side: Side) -> Vec<UnitId> {
    scn.counters
        .counters
        .iter()
        .filter(|c| c.side == side && c.kind.is_combat_unit())
        .filter(|c| {
            let u = st.unit(c.id);
            !u.marks.attacked && !u.marks.recovery_failed
        })
        .filter(|c| {
            st.unit(c.id)
                .hex()
                .is_some_and(|h| !zoc_targets(scn, st, board, side, h).is_empty())
        })
        .map(|c| c.id)
        .collect()
}

/// How unit `u` could take part against every hex of `defenders`, if at all (8.1.1, 8.1.2).
pub fn mode(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    side: Side,
    u: UnitId,
    defenders: &[Hex],
) -> Option<Mode> {
    let c = scn.counters.get(u);
    let us = st.unit(u);
    if c.side != side || us.marks.attacked || us.marks.recovery_failed {
        return None;
    }
    if !(c.kind.is_combat_unit() || c.kind == UnitKind::Leader) {
        return None;
    }
    let at = us.hex()?;
    if defenders.iter().all(|d| at.is_adjacent(*d)) {
        return Some(Mode::Adjacent);
    }
    if board.in_zoc_of(side.other(), at) {
        return None; // no ranged fire from an enemy ZOC (8.2)
    }
    let r = range(side);
    let ok = defenders.iter().all(|d| {
        let dist = at.distance(*d);
        (2..=r).contains(&dist) && los::line_of_sight(scn, st, board, at, *d).clear
    });
    ok.then_some(Mode::Ranged)
}

/// Whether `u` may be added to the declaration `d` now.
fn can_add(scn: &Scenario, st: &State, board: &HexIndex, d: &Declaration, u: UnitId) -> bool {
    if d.attackers.contains(&u) {
        return false;
    }
    let Some(m) = mode(scn, st, board, d.side, u, &d.defenders) else {
        return false;
    };
    let c = scn.counters.get(u);
    let at = st.unit(u).hex();
    if c.kind == UnitKind::Leader {
        // Leaders help only the combat of a unit they are stacked with (11.1).
        return d
            .attackers
            .iter()
            .any(|a| scn.counters.get(*a).kind != UnitKind::Leader && st.unit(*a).hex() == at);
    }
    if m == Mode::Adjacent {
        // A unit in enemy ZOC must attack every enemy unit exerting it (8.1.2).
        let must = at
            .map(|h| zoc_targets(scn, st, board, d.side, h))
            .unwrap_or_default();
        return must.iter().all(|h| d.defenders.contains(h));
    }
    true
}

/// Every unit that may still join `d` from a hex adjacent to all its defending hexes (normal
/// combat, 8.1.2), with the leaders stacked with those units or with attackers already in it
/// (11.1): "add every adjacent unit" in one decision. In counter order.
pub fn adjacent_group(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    d: &Declaration,
) -> Vec<UnitId> {
    let adjacent =
        |u: UnitId| mode(scn, st, board, d.side, u, &d.defenders) == Some(Mode::Adjacent);
    let mut units: Vec<UnitId> = scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == d.side && c.kind != UnitKind::Leader)
        .map(|c| c.id)
        .filter(|u| adjacent(*u) && can_add(scn, st, board, d, *u))
        .collect();
    let hexes: Vec<Hex> = units
        .iter()
        .chain(d.attackers.iter())
        .filter(|u| scn.counters.get(**u).kind != UnitKind::Leader)
        .filter_map(|u| st.unit(*u).hex())
        .collect();
    units.extend(
        scn.counters
            .counters
            .iter()
            .filter(|c| c.side == d.side && c.kind == UnitKind::Leader)
            .map(|c| c.id)
            .filter(|l| !d.attackers.contains(l) && adjacent(*l))
            .filter(|l| st.unit(*l).hex().is_some_and(|h| hexes.contains(&h))),
    );
    units.sort();
    units
}

/// Whether artillery piece `a` may add its bonus to `d` (9).
pub fn artillery_ok(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    d: &Declaration,
    a: UnitId,
) -> bool {
    artillery_refusal(scn, st, board, d, a).is_none()
}

/// Why artillery piece `a` may not add its bonus to `d`, if it may not: it must be Allied
/// artillery in an Allied attack that is not a bayonet charge (8.1.3), not yet used this phase,
/// manned (9), out of enemy ZOC — its bonus is ranged fire, which no unit in an enemy ZOC may use
/// (8.1.1, 8.2, R7) — and within 4 hexes of and in line of sight of every defending hex (9).
pub fn artillery_refusal(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    d: &Declaration,
    a: UnitId,
) -> Option<String> {
    let c = scn.counters.get(a);
    if c.kind != UnitKind::Artillery || d.side != Side::Allied {
        return Some(format!(
            "{} is not Allied artillery in an Allied attack (9)",
            c.name
        ));
    }
    if d.charge_from.is_some() {
        return Some(format!(
            "{}: artillery never joins a bayonet charge (8.1.3)",
            c.name
        ));
    }
    let us = st.unit(a);
    let Some(at) = us.hex() else {
        return Some(format!("{} is not on the map", c.name));
    };
    if us.marks.attacked {
        return Some(format!("{} has already fired this phase (8.1.2)", c.name));
    }
    if !board.at(at).manned {
        return Some(format!(
            "{} at {at} is unmanned: no Allied combat unit is with it (9)",
            c.name
        ));
    }
    if board.in_zoc_of(Side::Chinese, at) {
        return Some(format!(
            "{} at {at} is in an enemy ZOC: artillery is ranged fire and gives no bonus from there (8.1.1, 8.2, R7)",
            c.name
        ));
    }
    for t in &d.defenders {
        if at.distance(*t) > ARTILLERY_RANGE {
            return Some(format!(
                "{} at {at} is more than {ARTILLERY_RANGE} hexes from {t} (9)",
                c.name
            ));
        }
        if !los::line_of_sight(scn, st, board, at, *t).clear {
            return Some(format!(
                "{} at {at} has no line of sight to {t} (8.5, 9)",
                c.name
            ));
        }
    }
    None
}

/// The hexes holding a unit of `side` that could still attack (a combat unit that has not
/// attacked this phase and did not fail a recovery roll), each with whether it lies in an
/// enemy ZOC (no ranged fire from there, 8.2).
fn attacker_hexes(scn: &Scenario, st: &State, board: &HexIndex, side: Side) -> Vec<Placed> {
    let mut out: Vec<Placed> = Vec::new();
    for c in scn.counters.counters.iter() {
        if c.side != side || c.kind == UnitKind::Leader || !c.kind.is_combat_unit() {
            continue;
        }
        let u = st.unit(c.id);
        let Some(h) = u.hex() else { continue };
        if u.marks.attacked || u.marks.recovery_failed || out.iter().any(|p| p.hex == h) {
            continue;
        }
        out.push(Placed {
            hex: h,
            at: h.axial(),
            in_zoc: board.in_zoc_of(side.other(), h),
        });
    }
    out
}

/// A hex from which units may attack: its axial coordinates worked out once, since every
/// enemy hex is measured against every such hex, and whether it lies in an enemy ZOC.
struct Placed {
    hex: Hex,
    at: Axial,
    in_zoc: bool,
}

/// Whether a unit in one of `from` is placed to attack `defenders` as a group (adjacent to all,
/// or in range and sight of all). A unit in enemy ZOC may need more defending hexes added
/// before it can join (8.1.2), so this does not ask that.
fn anyone_can_attack(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    side: Side,
    from: &[Placed],
    defenders: &[Hex],
) -> bool {
    let r = range(side);
    let first = match defenders {
        [only] => Some(only.axial()),
        _ => None,
    };
    from.iter().any(|a| {
        // Each distance once: adjacent to every defender, or (out of enemy ZOC) within range
        // of every one — and only then is any line of sight traced.
        let mut adjacent = true;
        let mut in_range = !a.in_zoc;
        for d in defenders {
            let dist = a.at.distance(first.unwrap_or_else(|| d.axial()));
            adjacent &= dist == 1;
            in_range &= (2..=r).contains(&dist);
            if !adjacent && !in_range {
                return false;
            }
        }
        adjacent
            || defenders
                .iter()
                .all(|d| los::line_of_sight(scn, st, board, a.hex, *d).clear)
    })
}

/// The hexes of `side`'s enemies not yet attacked this phase, in hex order (8.1.2).
fn open_enemy_hexes(scn: &Scenario, st: &State, side: Side) -> Vec<Hex> {
    let mut hexes: Vec<Hex> = Vec::new();
    let mut defended: Vec<Hex> = Vec::new();
    for c in scn
        .counters
        .counters
        .iter()
        .filter(|c| c.side == side.other())
    {
        let u = st.unit(c.id);
        if let Some(h) = u.hex() {
            hexes.push(h);
            if u.marks.defended {
                defended.push(h);
            }
        }
    }
    hexes.sort();
    hexes.dedup();
    hexes.retain(|h| !defended.contains(h));
    hexes
}

/// Enemy hexes that can be attacked now: not yet attacked this phase, with an attacker placed.
fn targets(scn: &Scenario, st: &State, board: &HexIndex, side: Side, from: &[Placed]) -> Vec<Hex> {
    let mut hexes = open_enemy_hexes(scn, st, side);
    hexes.retain(|h| anyone_can_attack(scn, st, board, side, from, &[*h]));
    hexes
}

/// Whether the combat step offers only `end_phase`: no enemy hex can be attacked and no unit
/// must attack (stops at the first target found).
pub fn nothing_to_attack(scn: &Scenario, st: &State) -> bool {
    let board = HexIndex::of(scn, st);
    let side = phasing_side(st.phase());
    if !obligations(scn, st, &board, side).is_empty() {
        return false;
    }
    let from = attacker_hexes(scn, st, &board, side);
    !open_enemy_hexes(scn, st, side)
        .into_iter()
        .any(|h| anyone_can_attack(scn, st, &board, side, &from, &[h]))
}

/// The legal actions of the combat step.
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    let board = HexIndex::of(scn, st);
    let side = phasing_side(st.phase());
    let Some(d) = &st.declaration else {
        let from = attacker_hexes(scn, st, &board, side);
        for hex in targets(scn, st, &board, side, &from) {
            out.push(Action::Attack { hex });
        }
        if obligations(scn, st, &board, side).is_empty() {
            out.push(Action::EndPhase);
        }
        return;
    };
    declaration_legal(scn, st, &board, d, out);
}

fn declaration_legal(
    scn: &Scenario,
    st: &State,
    board: &HexIndex,
    d: &Declaration,
    out: &mut Vec<Action>,
) {
    if d.attackers.is_empty() && d.charge_from.is_none() {
        let from = attacker_hexes(scn, st, board, d.side);
        for hex in targets(scn, st, board, d.side, &from) {
            let mut more = d.defenders.clone();
            if !more.contains(&hex) {
                more.push(hex);
                if anyone_can_attack(scn, st, board, d.side, &from, &more) {
                    out.push(Action::AddDefender { hex });
                }
            }
        }
    }
    if d.charge_from.is_none() {
        for c in scn.counters.counters.iter().filter(|c| c.side == d.side) {
            if can_add(scn, st, board, d, c.id) {
                out.push(Action::AddAttacker { unit: c.id });
            }
        }
        let every = adjacent_group(scn, st, board, d);
        if every.len() >= 2 {
            out.push(Action::AddAttackers { units: every });
        }
        for &unit in &d.attackers {
            out.push(Action::RemoveAttacker { unit });
        }
        for c in scn
            .counters
            .counters
            .iter()
            .filter(|c| c.kind == UnitKind::Artillery)
        {
            if d.artillery.contains(&c.id) {
                out.push(Action::RemoveArtillery { unit: c.id });
            } else if artillery_ok(scn, st, board, d, c.id) {
                out.push(Action::AddArtillery { unit: c.id });
            }
        }
        leader_use_legal(scn, d, &d.attackers, out);
    }
    if crate::mechanics::report::compute(scn, st, d).legal {
        out.push(Action::Resolve);
    }
    if d.charge_from.is_none() {
        out.push(Action::CancelAttack);
    }
}

/// Offer each leader of `leaders` the use he is not making (one die modifier a combat, R4).
fn leader_use_legal(scn: &Scenario, d: &Declaration, leaders: &[UnitId], out: &mut Vec<Action>) {
    let modifier_taken = d.leader_use.iter().any(|(_, u)| *u == LeaderUse::Modifier);
    for &l in leaders
        .iter()
        .filter(|l| scn.counters.get(**l).kind == UnitKind::Leader)
    {
        match d.use_of(l) {
            LeaderUse::Modifier => out.push(Action::SetLeaderUse {
                leader: l,
                leader_use: LeaderUse::Strength,
            }),
            LeaderUse::Strength if !modifier_taken => out.push(Action::SetLeaderUse {
                leader: l,
                leader_use: LeaderUse::Modifier,
            }),
            LeaderUse::Strength => {}
        }
    }
}

/// The defending units of a declaration: everything in the defending hexes.
pub fn defending_units(st: &State, d: &Declaration) -> Vec<UnitId> {
    d.defenders
        .iter()
        .flat_map(|h| st.units_at(*h).collect::<Vec<_>>())
        .collect()
}

pub(crate) fn defending_leaders(scn: &Scenario, st: &State, d: &Declaration) -> Vec<UnitId> {
    defending_units(st, d)
        .into_iter()
        .filter(|u| scn.counters.get(*u).kind == UnitKind::Leader)
        .collect()
}

/// Apply a combat-step action (already known to be legal).
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    let side = phasing_side(ctx.st.phase());
    match action {
        Action::Attack { hex } => ctx.st.declaration = Some(Declaration::new(side, *hex)),
        Action::CancelAttack => ctx.st.declaration = None,
        Action::Resolve => request_resolution(ctx),
        _ => {
            let Some(mut d) = ctx.st.declaration.take() else {
                return;
            };
            edit(ctx.scn, ctx.st, &mut d, action);
            ctx.st.declaration = Some(d);
        }
    }
}

/// Change a declaration.
fn edit(scn: &Scenario, st: &State, d: &mut Declaration, action: &Action) {
    match action {
        Action::AddDefender { hex } => d.defenders.push(*hex),
        Action::AddAttacker { unit } => d.attackers.push(*unit),
        Action::AddAttackers { units } => {
            for u in units {
                if !d.attackers.contains(u) {
                    d.attackers.push(*u);
                }
            }
        }
        Action::RemoveAttacker { unit } => {
            d.attackers.retain(|u| u != unit);
            d.leader_use.retain(|(l, _)| l != unit);
            // Leaders left without a unit of their hex in the attack drop out too (11.1).
            let keep: Vec<UnitId> = d
                .attackers
                .iter()
                .copied()
                .filter(|u| {
                    scn.counters.get(*u).kind != UnitKind::Leader
                        || d.attackers.iter().any(|a| {
                            scn.counters.get(*a).kind != UnitKind::Leader
                                && st.unit(*a).hex() == st.unit(*u).hex()
                        })
                })
                .collect();
            d.attackers = keep;
        }
        Action::AddArtillery { unit } => d.artillery.push(*unit),
        Action::RemoveArtillery { unit } => d.artillery.retain(|u| u != unit),
        Action::SetLeaderUse { leader, leader_use } => {
            d.leader_use.retain(|(l, _)| l != leader);
            d.leader_use.push((*leader, *leader_use));
        }
        _ => {}
    }
}

/// The attacker asks for the roll: the Allied defender first chooses his leaders' use (11.1).
fn request_resolution(ctx: &mut Ctx<'_>) {
    let Some(d) = ctx.st.declaration.clone() else {
        return;
    };
    if d.side == Side::Chinese
        && !d.defender_leaders_chosen
        && !defending_leaders(ctx.scn, ctx.st, &d).is_empty()
    {
        ctx.st.pending.push(Pending::DefenderLeaders);
        return;
    }
    crate::mechanics::resolution::resolve(ctx);
}

/// The Allied defender's choices for his leaders before a Chinese attack is rolled.
pub fn defender_leaders_legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    let Some(d) = &st.declaration else { return };
    leader_use_legal(scn, d, &defending_leaders(scn, st, d), out);
    out.push(Action::Resolve);
}

/// Apply the Allied defender's choice.
pub fn defender_leaders_apply(ctx: &mut Ctx<'_>, action: &Action) {
    let Some(mut d) = ctx.st.declaration.take() else {
        return;
    };
    match action {
        Action::SetLeaderUse { .. } => {
            edit(ctx.scn, ctx.st, &mut d, action);
            ctx.st.declaration = Some(d);
        }
        Action::Resolve => {
            d.defender_leaders_chosen = true;
            ctx.st.declaration = Some(d);
            ctx.st.pending.remove(0);
            crate::mechanics::resolution::resolve(ctx);
        }
        _ => ctx.st.declaration = Some(d),
    }
}

/// The prompt of the combat step.
pub fn prompt(scn: &Scenario, st: &State) -> String {
    let side = phasing_side(st.phase());
    let board = HexIndex::of(scn, st);
    match &st.declaration {
        None => {
            let must = obligations(scn, st, &board, side);
            if must.is_empty() {
                format!("{side} combat: choose a hex to attack, or end the phase (8).")
            } else {
                format!(
                    "{side} combat: {} must still attack the enemy units whose ZOC they are in (8.1.2).",
                    names(scn, &must)
                )
            }
        }
        Some(d) => {
            let r = crate::mechanics::report::compute(scn, st, d);
            let hexes = d
                .defenders
                .iter()
                .map(Hex::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let mut s = if d.attackers.is_empty() {
                format!("Attack on {hexes}, defence {}", r.defence)
            } else {
                format!(
                    "Attack on {hexes}: {} against {} = {}",
                    r.attack, r.defence, r.odds
                )
            };
            if !d.attackers.is_empty() && r.shift > 0 && r.column != r.odds {
                s.push_str(&format!(", shifted to {} by artillery (9)", r.column));
            }
            if let Some(auto) = &r.automatic {
                s.push_str(&format!(": {auto}"));
            }
            match r.why_not {
                Some(why) => s.push_str(&format!(". {why}.")),
                None => s.push_str(". Add units, artillery or leaders, or resolve."),
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};
    use crate::position::state::Loc;
    use crate::vocabulary::crt::{self, CrtResult, Odds};
    use crate::vocabulary::map::Terrain;
    use siege_protocol::Phase;

    fn legal_now(kit: &Kit) -> Vec<Action> {
        let mut out = Vec::new();
        legal(&kit.scn, &kit.st, &mut out);
        out
    }

    #[test]
    fn adjacent_and_ranged_strengths_add_up_as_in_the_worked_example_8_2() {
        // 8.2: a 6-point unit adjacent and 10 points firing from 3 hexes away make 16.
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let vol1 = kit.put("vol1", hex("1015"));
        let vol2 = kit.put("vol2", hex("1011"));
        let gb = kit.put("gb1", hex("1011"));
        kit.place(UnitKind::Imperial, Side::Chinese, hex("1014"));
        let board = kit.board();
        let mode_of = |u| mode(&kit.scn, &kit.st, &board, Side::Allied, u, &[hex("1014")]);
        assert_eq!(mode_of(vol1), Some(Mode::Adjacent));
        assert_eq!(mode_of(vol2), Some(Mode::Ranged));
        let d = kit.declare(Side::Allied, &["1014"], &[vol1, vol2, gb]);
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert_eq!((r.attack, r.defence), (16, 10));
        assert_eq!(r.odds, "1-1");
        assert_eq!(crt::odds(16, 8), Odds::Column(3), "16:8 reads on 2-1");
        assert_eq!(r.ranged, vec![vol2, gb]);
    }

    #[test]
    fn allied_fire_reaches_3_hexes_chinese_fire_2_8_1_1() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1010"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let board = kit.board();
        assert_eq!(
            mode(&kit.scn, &kit.st, &board, Side::Allied, gb, &[hex("1013")]),
            Some(Mode::Ranged)
        );
        assert_eq!(
            mode(&kit.scn, &kit.st, &board, Side::Chinese, bx, &[hex("1010")]),
            None
        );
        kit.st.unit_mut(bx).loc = Loc::Map(hex("1012"));
        let board = kit.board();
        assert_eq!(
            mode(&kit.scn, &kit.st, &board, Side::Chinese, bx, &[hex("1010")]),
            Some(Mode::Ranged)
        );
    }

    #[test]
    fn ranged_fire_needs_a_clear_line_of_sight_8_1_1_8_5() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1010"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        kit.paint(hex("1011"), Terrain::Building);
        let board = kit.board();
        assert_eq!(
            mode(&kit.scn, &kit.st, &board, Side::Allied, gb, &[hex("1013")]),
            None
        );
    }

    #[test]
    fn units_in_an_enemy_zoc_must_attack_and_may_not_fire_at_range_8_1_2_8_2() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1013"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1210"));
        let out = legal_now(&kit);
        assert!(!out.contains(&Action::EndPhase), "an obligation is open");
        assert!(out.contains(&Action::Attack { hex: hex("1014") }));
        let board = kit.board();
        assert_eq!(
            mode(&kit.scn, &kit.st, &board, Side::Allied, gb, &[hex("1210")]),
            None,
            "no ranged fire from an enemy ZOC"
        );
        let err = kit
            .game()
            .apply(Side::Allied, &Action::EndPhase)
            .unwrap_err();
        assert_eq!(err.code(), "not_legal_now");
    }

    #[test]
    fn a_unit_in_a_building_need_not_attack_but_the_enemy_beside_it_must_6_8_1_2() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        kit.paint(hex("1013"), Terrain::Building);
        kit.put("gb1", hex("1013"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        assert!(
            legal_now(&kit).contains(&Action::EndPhase),
            "no ZOC reaches into the building"
        );
        kit.set(Phase::ChineseCombat, crate::position::state::Step::Combat);
        assert!(
            !legal_now(&kit).contains(&Action::EndPhase),
            "the Boxers in the open are in the Allied ZOC"
        );
    }

    #[test]
    fn a_unit_must_attack_every_enemy_hex_whose_zoc_it_is_in_8_1_2() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1013"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1113"));
        let board = kit.board();
        let d = kit.declare(Side::Allied, &["1014"], &[]);
        assert!(
            !can_add(&kit.scn, &kit.st, &board, &d, gb),
            "1113 must be attacked too"
        );
        let d = kit.declare(Side::Allied, &["1014", "1113"], &[]);
        assert!(can_add(&kit.scn, &kit.st, &board, &d, gb));
    }

    #[test]
    fn multi_hex_attackers_must_be_adjacent_to_every_defending_hex_8_1_2() {
        let mut kit = Kit::combat(Phase::ChineseCombat);
        kit.put("gb1", hex("1014"));
        kit.put("gb2", hex("1114"));
        let a = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let b = kit.place(UnitKind::Boxer, Side::Chinese, hex("1012"));
        let board = kit.board();
        let both = [hex("1014"), hex("1114")];
        assert_eq!(
            mode(&kit.scn, &kit.st, &board, Side::Chinese, a, &both),
            Some(Mode::Adjacent)
        );
        assert_ne!(
            mode(&kit.scn, &kit.st, &board, Side::Chinese, b, &both),
            Some(Mode::Adjacent)
        );
    }

    #[test]
    fn no_unit_is_attacked_twice_in_a_phase_8_1_2_r6() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        kit.put("vol1", hex("1013"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        assert!(legal_now(&kit).contains(&Action::Attack { hex: hex("1014") }));
        kit.st.unit_mut(bx).marks.defended = true;
        assert!(!legal_now(&kit).contains(&Action::Attack { hex: hex("1014") }));
    }

    #[test]
    fn attacks_below_1_to_3_are_refused_unless_forced_then_an_automatic_ae_8_1_2() {
        let mut kit = Kit::combat(Phase::ChineseCombat);
        kit.paint(hex("1014"), Terrain::Building);
        kit.put("vol1", hex("1014"));
        kit.put("gb1", hex("1014"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1012"));
        kit.st.unit_mut(bx).reduced = true;
        // 5 ranged against 10 × 3 = 30 is below 1-3 and nobody forces it.
        let d = kit.declare(Side::Chinese, &["1014"], &[bx]);
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert_eq!(r.odds, "below 1-3");
        assert!(!r.legal);
        assert!(r.why_not.unwrap().contains("8.1.2"));
        // Adjacent in the open the Boxers are in the Allied ZOC and must attack: allowed, AE.
        kit.st.unit_mut(bx).loc = Loc::Map(hex("1013"));
        let d = kit.declare(Side::Chinese, &["1014"], &[bx]);
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert!(r.legal, "{:?}", r.why_not);
        assert_eq!(kit.scn.crt.result(Odds::BelowOneToThree, 6), CrtResult::AE);
    }

    #[test]
    fn a_forced_attack_below_1_to_3_is_shown_as_an_automatic_ae_8_1_2() {
        let mut kit = Kit::combat(Phase::ChineseCombat);
        kit.paint(hex("1014"), Terrain::Building);
        kit.put("vol1", hex("1014"));
        kit.put("gb1", hex("1014"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        kit.st.unit_mut(bx).reduced = true;
        let d = kit.declare(Side::Chinese, &["1014"], &[bx]);
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert!(r.legal);
        assert_eq!(r.automatic.as_deref(), Some("automatic AE (8.1.2)"));
        // The prompt and the log say so too, and the roll gives AE whatever the die.
        assert!(prompt(&kit.scn, &kit.st).contains("automatic AE (8.1.2)"));
        let mut game = kit.game();
        let events = game.apply(Side::Chinese, &Action::Resolve).unwrap();
        let combat = events
            .iter()
            .find(|e| matches!(e.kind, crate::position::event::EventKind::Combat { .. }))
            .unwrap();
        assert!(
            combat.text.contains("automatic AE (8.1.2)"),
            "{}",
            combat.text
        );
        assert_eq!(game.state().unit(bx).loc, Loc::Eliminated);
        // At 1-3 or better there is a roll to read.
        let mut kit = Kit::combat(Phase::ChineseCombat);
        kit.put("gb1", hex("1014"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1013"));
        let d = kit.declare(Side::Chinese, &["1014"], &[bx]);
        assert_eq!(
            crate::mechanics::report::compute(&kit.scn, &kit.st, &d).automatic,
            None
        );
    }

    #[test]
    fn artillery_shifts_the_column_when_manned_in_range_and_sight_9() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1015"));
        let betsy = kit.put("betsy", hex("1010"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let board = kit.board();
        let d = kit.declare(Side::Allied, &["1014"], &[gb]);
        assert!(
            !artillery_ok(&kit.scn, &kit.st, &board, &d, betsy),
            "unmanned"
        );
        kit.put("gb2", hex("1010"));
        let board = kit.board();
        assert!(artillery_ok(&kit.scn, &kit.st, &board, &d, betsy));
        let mut d = d;
        d.artillery.push(betsy);
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert_eq!(
            (r.odds.as_str(), r.shift, r.column.as_str()),
            ("1-3", 2, "1-1")
        );
        kit.st.unit_mut(betsy).loc = Loc::Map(hex("1009"));
        kit.put("gb3", hex("1009"));
        let board = kit.board();
        assert!(
            !artillery_ok(&kit.scn, &kit.st, &board, &d, betsy),
            "5 hexes is out of range"
        );
    }

    #[test]
    fn artillery_in_an_enemy_zoc_gives_no_bonus_8_1_1_8_2_r7() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1015"));
        let betsy = kit.put("betsy", hex("1010"));
        kit.put("gb2", hex("1010"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let d = kit.declare(Side::Allied, &["1014"], &[gb]);
        assert!(artillery_ok(&kit.scn, &kit.st, &kit.board(), &d, betsy));
        assert!(legal_now(&kit).contains(&Action::AddArtillery { unit: betsy }));
        // Boxers beside the gun put it in their ZOC: no ranged fire from there, so no bonus.
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1009"));
        let why = artillery_refusal(&kit.scn, &kit.st, &kit.board(), &d, betsy).unwrap();
        assert!(why.contains("enemy ZOC") && why.contains("R7"), "{why}");
        assert!(!legal_now(&kit).contains(&Action::AddArtillery { unit: betsy }));
    }

    #[test]
    fn a_leader_gives_plus_1_attacking_but_never_on_ranged_fire_alone_11_1_r4() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1013"));
        let myers = kit.put("myers", hex("1013"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let mut d = kit.declare(Side::Allied, &["1014"], &[gb, myers]);
        assert_eq!(
            crate::mechanics::report::compute(&kit.scn, &kit.st, &d).attack,
            5
        );
        d.leader_use.push((myers, LeaderUse::Modifier));
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert_eq!((r.attack, r.modifier), (4, 1));
        kit.st.unit_mut(gb).loc = Loc::Map(hex("1011"));
        kit.st.unit_mut(myers).loc = Loc::Map(hex("1011"));
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert_eq!(r.modifier, 0, "ranged fire alone gets no leader modifier");
    }

    #[test]
    fn defending_leaders_give_minus_1_or_their_strength_11_1() {
        let mut kit = Kit::combat(Phase::ChineseCombat);
        kit.put("gb1", hex("1013"));
        let myers = kit.put("myers", hex("1013"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let mut d = kit.declare(Side::Chinese, &["1013"], &[bx]);
        assert_eq!(
            crate::mechanics::report::compute(&kit.scn, &kit.st, &d).defence,
            5
        );
        d.leader_use.push((myers, LeaderUse::Modifier));
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert_eq!((r.defence, r.modifier), (4, -1));
        // The Allied player is asked before the Chinese roll.
        kit.st.declaration = Some(Declaration {
            leader_use: vec![],
            ..d
        });
        let mut game = kit.game();
        game.apply(Side::Chinese, &Action::Resolve).unwrap();
        assert_eq!(game.to_act(), Some(Side::Allied));
        assert!(game.legal_actions(Side::Allied).contains(&Action::Resolve));
    }

    #[test]
    fn terrain_multiplies_the_defence_and_the_report_says_why_18() {
        let mut kit = Kit::combat(Phase::ChineseCombat);
        kit.paint(hex("1013"), Terrain::Building);
        kit.put("gb1", hex("1013"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1014"));
        let d = kit.declare(Side::Chinese, &["1013"], &[bx]);
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert_eq!((r.defence_base, r.multiplier, r.defence), (4, 3, 12));
        assert!(r.terrain_reason.contains("18.2"));
        assert_eq!(r.odds, "1-2");
    }

    #[test]
    fn add_every_adjacent_unit_brings_in_the_units_beside_the_defender_and_their_leaders_8_1_2_11_1()
     {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let a = kit.put("gb1", hex("1015"));
        let b = kit.put("gb2", hex("1013"));
        let leader = kit.put("strouts", hex("1015"));
        let far = kit.put("vol1", hex("1011"));
        kit.place(UnitKind::Imperial, Side::Chinese, hex("1014"));
        kit.declare(Side::Allied, &["1014"], &[]);
        let every = legal_now(&kit)
            .into_iter()
            .find_map(|x| match x {
                Action::AddAttackers { units } => Some(units),
                _ => None,
            })
            .expect("offered with two or more adjacent units");
        assert_eq!(every, {
            let mut v = vec![a, b, leader];
            v.sort();
            v
        });
        assert!(
            !every.contains(&far),
            "ranged fire is added unit by unit (8.1.1)"
        );
        let mut game = kit.game();
        game.apply(
            Side::Allied,
            &Action::AddAttackers {
                units: every.clone(),
            },
        )
        .unwrap();
        let d = game.state().declaration.clone().expect("still declaring");
        for u in &every {
            assert!(d.attackers.contains(u));
        }
        // Nothing adjacent is left to add: the shortcut is no longer offered.
        assert!(
            !game
                .legal_actions(Side::Allied)
                .iter()
                .any(|x| matches!(x, Action::AddAttackers { .. }))
        );
    }

    #[test]
    fn an_attack_with_no_unit_yet_asks_for_units_not_for_a_leader_8_2() {
        let mut kit = Kit::combat(Phase::ChineseCombat);
        kit.put("gb1", hex("1014"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1015"));
        kit.declare(Side::Chinese, &["1014"], &[]);
        let p = prompt(&kit.scn, &kit.st);
        assert!(p.contains("no unit attacks yet"), "{p}");
        assert!(!p.contains("leaders never attack alone"), "{p}");
        assert!(!p.contains(" against "), "no odds before an attacker: {p}");
    }

    #[test]
    fn the_prompt_gives_the_odds_and_the_column_artillery_shifts_them_to_9() {
        let mut kit = Kit::combat(Phase::AlliedCombat);
        let gb = kit.put("gb1", hex("1015"));
        let gun = kit.put("it_gun", hex("1012"));
        kit.put("gb2", hex("1012"));
        kit.place(UnitKind::Imperial, Side::Chinese, hex("1014"));
        let mut d = kit.declare(Side::Allied, &["1014"], &[gb]);
        d.artillery = vec![gun];
        kit.st.declaration = Some(d.clone());
        let r = crate::mechanics::report::compute(&kit.scn, &kit.st, &d);
        assert_eq!((r.attack, r.defence, r.shift), (4, 10, 1));
        assert_eq!((r.odds.as_str(), r.column.as_str()), ("1-3", "1-2"));
        let p = prompt(&kit.scn, &kit.st);
        assert!(
            p.contains("4 against 10 = 1-3, shifted to 1-2 by artillery (9)"),
            "{p}"
        );
    }
}
