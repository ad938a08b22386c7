//! Plans as a player thinks of them — a whole stack move, a whole attack, a bayonet charge, a
//! unit entering at the edge — and the engine's small steps that carry each one out (select,
//! move, add attackers, resolve...). The next step of an intent is read from the state and the
//! legal list every time, so an intent overtaken by events (a unit lost, a hex taken) is seen
//! as stuck and dropped rather than forced.

use serde::Serialize;
use siege_rules::action::Action;
use siege_rules::action::LeaderUse;
use siege_rules::hex::Hex;
use siege_rules::state::{EntryKind, State, Step};
use siege_rules::units::UnitId;

/// One thing a bot means to do.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Intent {
    /// Move `units` (all standing in `from`) to `to`, through `via` first when set (to take a
    /// victory hex on the way, 21).
    Move {
        units: Vec<UnitId>,
        from: Hex,
        #[serde(skip_serializing_if = "Option::is_none")]
        via: Option<Hex>,
        to: Hex,
    },
    /// Attack the units in `defenders` with `attackers` (leaders last), these artillery pieces,
    /// and `modifier` lending his die modifier (8, 9, 11.1).
    Attack {
        defenders: Vec<Hex>,
        attackers: Vec<UnitId>,
        artillery: Vec<UnitId>,
        #[serde(skip_serializing_if = "Option::is_none")]
        modifier: Option<UnitId>,
    },
    /// Charge with the bayonet from `from` into `target` (8.1.3).
    Charge {
        units: Vec<UnitId>,
        from: Hex,
        target: Hex,
    },
    /// Bring one off-map unit of `unit_kind` on at `hex` (19, 22).
    Enter { unit_kind: EntryKind, hex: Hex },
    /// Place an Allied unit at setup (22), choosing the setup area `area` first.
    Place {
        unit: UnitId,
        area: String,
        hex: Hex,
    },
    /// A single engine action (fire a gun, explode a mine, fortify, snipe, pass...).
    Step { action: Action },
}

/// One step of a plan with what it is for, in words.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanItem {
    #[serde(flatten)]
    pub intent: Intent,
    /// The step in words, e.g. "Boxers 3 and Boxers 4 move 0102 → 0612 to attack 0713".
    pub text: String,
    /// The hexes the page should mark: where units come from and go to, or the target.
    pub hexes: Vec<Hex>,
}

impl PlanItem {
    pub fn new(intent: Intent, text: String) -> PlanItem {
        let hexes = match &intent {
            Intent::Move { from, via, to, .. } => {
                let mut v = vec![*from];
                v.extend(via);
                v.push(*to);
                v
            }
            Intent::Attack { defenders, .. } => defenders.clone(),
            Intent::Charge { from, target, .. } => vec![*from, *target],
            Intent::Enter { hex, .. } | Intent::Place { hex, .. } => vec![*hex],
            Intent::Step { action } => action_hexes(action),
        };
        PlanItem {
            intent,
            text,
            hexes,
        }
    }
}

fn action_hexes(a: &Action) -> Vec<Hex> {
    match a {
        Action::PlaceGun { hex }
        | Action::Detonate { hex }
        | Action::Fortify { hex }
        | Action::Lift { hex }
        | Action::Place { hex }
        | Action::Enter { hex, .. } => vec![*hex],
        Action::Retreat { to } => vec![*to],
        Action::Advance { to, .. } => vec![*to],
        _ => Vec::new(),
    }
}

/// What an intent asks for next.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// This action, and the intent goes on.
    Emit(Action),
    /// This action, and the intent is then complete.
    Last(Action),
    /// The intent is complete.
    Done,
    /// The intent can no longer be carried out as planned.
    Stuck,
}

fn same_set(a: &[UnitId], b: &[UnitId]) -> bool {
    a.len() == b.len() && a.iter().all(|u| b.contains(u))
}

fn find_move(legal: &[Action], to: Hex) -> Option<Action> {
    legal
        .iter()
        .find(|a| matches!(a, Action::Move { to: t, .. } if *t == to))
        .cloned()
}

impl Intent {
    /// The next engine action this intent needs in `st`, given the legal list.
    pub fn next(&self, st: &State, legal: &[Action]) -> Next {
        let ok = |a: Action| -> Option<Action> { legal.contains(&a).then_some(a) };
        match self {
            Intent::Move {
                units,
                from,
                via,
                to,
            } => {
                let Step::Move { group } = &st.step else {
                    return Next::Stuck;
                };
                match group {
                    None => {
                        // A walk out and back (through `via`) ends where it began: done once
                        // the units have moved.
                        let there = units.iter().all(|u| st.unit(*u).hex() == Some(*to));
                        if there && (to != from || units.iter().all(|u| st.unit(*u).marks.moved)) {
                            return Next::Done;
                        }
                        if units.iter().any(|u| st.unit(*u).hex() != Some(*from)) {
                            return Next::Stuck;
                        }
                        let movable: Vec<UnitId> = st
                            .units_at(*from)
                            .filter(|u| legal.contains(&Action::SelectUnit { unit: *u }))
                            .collect();
                        if units.len() > 1
                            && same_set(&movable, units)
                            && let Some(a) = ok(Action::SelectStack { hex: *from })
                        {
                            return Next::Emit(a);
                        }
                        ok(Action::SelectUnit { unit: units[0] }).map_or(Next::Stuck, Next::Emit)
                    }
                    Some(g) if !g.started => {
                        if g.hex != *from {
                            return Next::Stuck;
                        }
                        if let Some(u) = units.iter().find(|u| !g.units.contains(u)) {
                            return ok(Action::SelectUnit { unit: *u })
                                .map_or(Next::Stuck, Next::Emit);
                        }
                        if let Some(u) = g.units.iter().find(|u| !units.contains(u)) {
                            return ok(Action::UnselectUnit { unit: *u })
                                .map_or(Next::Stuck, Next::Emit);
                        }
                        find_move(legal, via.unwrap_or(*to)).map_or(Next::Stuck, Next::Emit)
                    }
                    Some(g) => {
                        if !same_set(&g.units, units) {
                            return Next::Stuck;
                        }
                        if g.hex == *to {
                            return ok(Action::Stop).map_or(Next::Stuck, Next::Last);
                        }
                        if Some(g.hex) == *via {
                            return match find_move(legal, *to) {
                                Some(a) => Next::Emit(a),
                                None => ok(Action::Stop).map_or(Next::Stuck, Next::Last),
                            };
                        }
                        Next::Stuck
                    }
                }
            }
            Intent::Attack {
                defenders,
                attackers,
                artillery,
                modifier,
            } => {
                if !matches!(st.step, Step::Combat) {
                    return Next::Stuck;
                }
                match &st.declaration {
                    None => {
                        if attackers.iter().any(|u| st.unit(*u).marks.attacked) {
                            return Next::Done;
                        }
                        ok(Action::Attack { hex: defenders[0] }).map_or(Next::Stuck, Next::Emit)
                    }
                    Some(d) => {
                        if d.defenders.first() != defenders.first() {
                            return Next::Stuck;
                        }
                        for h in defenders.iter().skip(1) {
                            if !d.defenders.contains(h) {
                                return ok(Action::AddDefender { hex: *h })
                                    .map_or(Next::Stuck, Next::Emit);
                            }
                        }
                        for u in attackers {
                            if !d.attackers.contains(u)
                                && let Some(a) = ok(Action::AddAttacker { unit: *u })
                            {
                                return Next::Emit(a);
                            }
                        }
                        for g in artillery {
                            if !d.artillery.contains(g)
                                && let Some(a) = ok(Action::AddArtillery { unit: *g })
                            {
                                return Next::Emit(a);
                            }
                        }
                        if let Some(l) = modifier
                            && d.attackers.contains(l)
                            && d.use_of(*l) != LeaderUse::Modifier
                            && let Some(a) = ok(Action::SetLeaderUse {
                                leader: *l,
                                leader_use: LeaderUse::Modifier,
                            })
                        {
                            return Next::Emit(a);
                        }
                        if let Some(a) = ok(Action::Resolve) {
                            return Next::Last(a);
                        }
                        ok(Action::CancelAttack).map_or(Next::Stuck, Next::Last)
                    }
                }
            }
            Intent::Charge {
                units,
                from,
                target,
            } => {
                let Step::Bayonet { group } = &st.step else {
                    return Next::Stuck;
                };
                match group {
                    None => {
                        if units.iter().any(|u| st.unit(*u).hex() != Some(*from)) {
                            return Next::Stuck;
                        }
                        ok(Action::SelectUnit { unit: units[0] }).map_or(Next::Stuck, Next::Emit)
                    }
                    Some(g) => {
                        if g.hex != *from {
                            return Next::Stuck;
                        }
                        if let Some(u) = units.iter().find(|u| !g.units.contains(u)) {
                            return ok(Action::SelectUnit { unit: *u })
                                .map_or(Next::Stuck, Next::Emit);
                        }
                        if let Some(u) = g.units.iter().find(|u| !units.contains(u)) {
                            return ok(Action::UnselectUnit { unit: *u })
                                .map_or(Next::Stuck, Next::Emit);
                        }
                        legal
                            .iter()
                            .find(|a| matches!(a, Action::Charge { hex, .. } if hex == target))
                            .cloned()
                            .map_or(Next::Stuck, Next::Last)
                    }
                }
            }
            Intent::Enter { unit_kind, hex } => {
                let Step::Entry { selected } = &st.step else {
                    return Next::Stuck;
                };
                if *selected != Some(*unit_kind) {
                    return ok(Action::SelectEntry { kind: *unit_kind })
                        .map_or(Next::Stuck, Next::Emit);
                }
                ok(Action::Enter {
                    hex: *hex,
                    units: vec![],
                })
                .map_or(Next::Stuck, Next::Last)
            }
            Intent::Place { unit, area, hex } => {
                let Step::AlliedSetup { selected, .. } = &st.step else {
                    return Next::Stuck;
                };
                if st.unit(*unit).hex() == Some(*hex) {
                    return Next::Done;
                }
                if *selected != Some(*unit) {
                    return ok(Action::SelectUnit { unit: *unit }).map_or(Next::Stuck, Next::Emit);
                }
                if let Some(a) = ok(Action::Place { hex: *hex }) {
                    return Next::Last(a);
                }
                ok(Action::ChooseArea { area: area.clone() }).map_or(Next::Stuck, Next::Emit)
            }
            Intent::Step { action } => ok(action.clone()).map_or(Next::Stuck, Next::Last),
        }
    }
}
