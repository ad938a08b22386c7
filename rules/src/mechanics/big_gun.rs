//! The Chinese Big Gun (10; ruling R6): at the start of each turn the Chinese player places
//! both guns within 3 hexes of any map edge, not in an Allied ZOC; each fires 4 times along one
//! of the six hex directions, a die × 4 hexes; a shot off the map has no effect. Where it falls,
//! a non-clear hex (a fortification counts as non-clear) is ruined on 5–6, removing any
//! fortification; in a clear hex with units, 5–6 costs one step of one unit, the owner choosing
//! (leaders may take it), and kills any civilians there. The Tartar Wall and Allied artillery are
//! never affected; units in non-clear hexes never are. The guns then leave the map.

use crate::mechanics::losses;
use crate::mechanics::ruins;
use crate::position::action::Action;
use crate::position::ctx::Ctx;
use crate::position::event::{Event, EventKind};
use crate::position::hex_index::HexIndex;
use crate::position::pending::Pending;
use crate::position::state::ground;
use crate::position::state::{State, Step};
use crate::vocabulary::hex::{Direction, Hex};
use crate::vocabulary::scenario::Scenario;
use crate::vocabulary::terrain::Ground;
use crate::vocabulary::units::{UnitId, UnitKind};
use siege_protocol::Side;

/// Shots each gun fires a turn (10).
pub const SHOTS: usize = 4;
/// Hexes per pip of the range die (10).
const HEXES_PER_PIP: u32 = 4;

/// Whether a gun may be placed in `hex` (10): within 3 hexes of an edge, not in Allied ZOC, not
/// in the canal or among Allied units.
fn placeable(scn: &Scenario, st: &State, board: &HexIndex, hex: Hex) -> bool {
    hex.edge_depth() < 3
        && !board.in_zoc_of(Side::Allied, hex)
        && board.at(hex).side != Some(Side::Allied)
        && ground(&scn.map, st, hex) != Ground::Canal
}

/// Whether any hex can take the next Big Gun (10): where none can, the placement step has
/// nothing to decide but passing. Stops at the first such hex, where listing them all
/// builds an action for each of hundreds of edge hexes.
pub fn any_placeable(scn: &Scenario, st: &State) -> bool {
    let board = HexIndex::of(scn, st);
    Hex::all().any(|h| placeable(scn, st, &board, h))
}

/// The legal actions of the Big Gun phase.
pub fn legal(scn: &Scenario, st: &State, out: &mut Vec<Action>) {
    match st.step {
        Step::BigGunPlace => {
            let board = HexIndex::of(scn, st);
            out.extend(
                Hex::all()
                    .filter(|h| placeable(scn, st, &board, *h))
                    .map(|hex| Action::PlaceGun { hex }),
            );
            if out.is_empty() {
                out.push(Action::Pass);
            }
        }
        Step::BigGunFire { shot } => {
            out.extend(Direction::ALL.into_iter().map(|direction| Action::Fire {
                direction,
                shots: None,
            }));
            // Every shot the firing gun has left, in one direction, when there are two or more.
            let left = SHOTS - usize::from(shot) % SHOTS;
            if left >= 2 && usize::from(shot) / SHOTS < st.big_guns.len() {
                let shots = u8::try_from(left).ok();
                out.extend(
                    Direction::ALL
                        .into_iter()
                        .map(|direction| Action::Fire { direction, shots }),
                );
            }
        }
        _ => {}
    }
}

/// Apply a Big Gun action.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    match action {
        Action::PlaceGun { hex } => {
            ctx.st.big_guns.push(*hex);
            let n = ctx.st.big_guns.len();
            ctx.emit(
                EventKind::GunPlaced { hex: *hex },
                format!("Big Gun {n} is placed at {hex} (10)"),
            );
        }
        Action::Fire {
            direction,
            shots: None,
        } => fire(ctx, *direction, false),
        Action::Fire {
            direction,
            shots: Some(n),
        } => volley(ctx, *direction, *n),
        _ => {}
    }
}

/// Fire up to `shots` shots of the firing gun in one direction (10). Each shot is rolled and
/// applied as if fired on its own; the volley stops after a shot that costs a step or a unit,
/// because someone must then choose (which unit loses the step) or the checks that follow every
/// action must run (civilians lost) before the next shot, exactly as shot by shot. In the log
/// each shot's event comes before the ruin or destroyed fortification it caused.
fn volley(ctx: &mut Ctx<'_>, direction: Direction, shots: u8) {
    let Step::BigGunFire { shot: first } = ctx.st.step else {
        return;
    };
    let gun = usize::from(first) / SHOTS;
    for _ in 0..shots {
        let Step::BigGunFire { shot } = ctx.st.step else {
            return;
        };
        if usize::from(shot) / SHOTS != gun || usize::from(shot) / SHOTS >= ctx.st.big_guns.len() {
            return;
        }
        let mark = ctx.events.len();
        fire(ctx, direction, true);
        let hurt = ctx.events[mark..]
            .iter()
            .any(|e| matches!(e.kind, EventKind::Eliminated { .. }));
        if hurt || !ctx.st.pending.is_empty() {
            return;
        }
    }
}

/// Fire the next shot in `direction` (10). With `shot_first` the shot's event is logged before
/// the ruin or destroyed fortification it causes; a single shot has always logged them after.
fn fire(ctx: &mut Ctx<'_>, direction: Direction, shot_first: bool) {
    let Step::BigGunFire { shot } = ctx.st.step else {
        return;
    };
    let mark = ctx.events.len();
    let gun = ctx.st.big_guns[usize::from(shot) / SHOTS];
    ctx.st.step = Step::BigGunFire { shot: shot + 1 };
    let die = ctx.roll();
    let distance = u32::from(die) * HEXES_PER_PIP;
    let hit = gun.ray(direction, distance);
    let number = shot + 1;
    let mut damage_die = None;
    let effect = match hit {
        None => "falls off the map: no effect (10)".to_string(),
        Some(h) => {
            let (die2, effect) = damage(ctx, h);
            damage_die = die2;
            effect
        }
    };
    let at = hit.map_or("off the map".to_string(), |h| h.to_string());
    let text = format!(
        "Big Gun shot {number} from {gun} {}: rolled {die} × 4 = {distance} hexes, lands {at}{}: {effect}",
        direction.name(),
        damage_die.map_or(String::new(), |d| format!(", damage die {d}"))
    );
    let event = Event {
        kind: EventKind::Shot {
            gun,
            direction,
            die,
            distance,
            hit,
            damage_die,
            effect,
        },
        text,
    };
    if shot_first {
        ctx.events.insert(mark, event);
    } else {
        ctx.events.push(event);
    }
    if usize::from(shot + 1) >= SHOTS * ctx.st.big_guns.len() {
        ctx.st.big_guns.clear();
    }
}

/// Roll and apply the damage chart where a shot falls (10).
fn damage(ctx: &mut Ctx<'_>, h: Hex) -> (Option<u8>, String) {
    let g = ground(&ctx.scn.map, ctx.st, h);
    let fort = ctx.st.fortification(h).copied();
    if g == Ground::TartarWall {
        return (None, "the Tartar Wall is never affected (10)".into());
    }
    if g == Ground::Canal {
        return (None, "into the dry canal: no effect".into());
    }
    let non_clear = !g.is_clear() || fort.is_some();
    let units: Vec<UnitId> = ctx.st.units_at(h).collect();
    if !non_clear && units.is_empty() {
        return (None, "empty clear ground: no effect (10)".into());
    }
    let die = ctx.roll();
    if die < 5 {
        return (Some(die), "NE, no effect (10)".into());
    }
    if non_clear {
        if let Some(f) = fort {
            ctx.st.fortifications.retain(|x| x.hex != h);
            ctx.emit(
                EventKind::FortificationDestroyed { hex: h, built_by: f.built_by },
                format!("The fortification at {h} is destroyed; the {} player may build it again (10, 13)", f.built_by),
            );
        }
        ruins::place(ctx, h, "the Big Gun");
        return (Some(die), "RUIN (10)".into());
    }
    // Clear hex with units: civilians die, one step lost at the owner's choice.
    for &u in &units {
        if ctx.scn.counters.get(u).kind == UnitKind::Civilian {
            losses::eliminate(ctx, u, "Big Gun SL in clear terrain (10)");
        }
    }
    let takers: Vec<UnitId> = units
        .iter()
        .copied()
        .filter(|u| {
            !matches!(
                ctx.scn.counters.get(*u).kind,
                UnitKind::Artillery | UnitKind::Civilian
            )
        })
        .collect();
    if let Some(&first) = takers.first() {
        let side = ctx.scn.counters.get(first).side;
        ctx.st.pending.push(Pending::StepLoss {
            side,
            units: takers,
            steps: 1,
            points: 0,
            cause: "Big Gun SL (10)".into(),
            free: true,
        });
    }
    (Some(die), "SL: one step lost (10)".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::testkit::{Kit, hex};

    #[test]
    fn guns_go_within_3_hexes_of_an_edge_and_not_in_allied_zoc_10() {
        let mut kit = Kit::new();
        let board = kit.board();
        assert!(placeable(&kit.scn, &kit.st, &board, hex("0101")));
        assert!(placeable(&kit.scn, &kit.st, &board, hex("0303")));
        assert!(!placeable(&kit.scn, &kit.st, &board, hex("0404")));
        kit.put("gb1", hex("0302"));
        let board = kit.board();
        assert!(
            !placeable(&kit.scn, &kit.st, &board, hex("0303"))
                || kit.ground(hex("0303")) == Ground::Building
        );
    }

    #[test]
    fn a_ruin_result_removes_a_fortification_and_returns_the_counter_10_13_r6() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        kit.st
            .fortifications
            .push(crate::position::state::Fortification {
                hex: h,
                built_by: Side::Allied,
            });
        // Roll the damage until a 5 or 6 comes up; the dice are seeded so this is repeatable.
        loop {
            let (die, _) = kit.run_value(|ctx| damage(ctx, h));
            if die.is_some_and(|d| d >= 5) {
                break;
            }
        }
        assert!(kit.st.fortification(h).is_none());
        assert!(kit.st.is_ruin(h));
    }

    #[test]
    fn the_tartar_wall_is_never_affected_10() {
        let mut kit = Kit::new();
        let w = hex("1236");
        for _ in 0..20 {
            let (die, effect) = kit.run_value(|ctx| damage(ctx, w));
            assert!(die.is_none());
            assert!(effect.contains("never"));
        }
        assert!(!kit.st.is_ruin(w));
    }

    #[test]
    fn an_sl_in_clear_terrain_kills_civilians_and_spares_artillery_10() {
        let mut kit = Kit::new();
        let h = kit.some_clear_hex();
        let civ = kit.put("civ1", h);
        let betsy = kit.put("betsy", h);
        let gb = kit.put("gb1", h);
        loop {
            let (die, _) = kit.run_value(|ctx| damage(ctx, h));
            if die.is_some_and(|d| d >= 5) {
                break;
            }
        }
        assert_eq!(
            kit.st.unit(civ).loc,
            crate::position::state::Loc::Eliminated
        );
        let Some(Pending::StepLoss { units, free, .. }) = kit.st.pending.first() else {
            panic!()
        };
        assert!(*free);
        assert_eq!(units, &vec![gb]);
        assert!(!units.contains(&betsy));
    }

    #[test]
    fn units_in_non_clear_hexes_are_never_affected_10() {
        let mut kit = Kit::new();
        let (b, _) = kit.building_next_to_clear();
        let gb = kit.put("gb1", b);
        for _ in 0..30 {
            kit.run_value(|ctx| damage(ctx, b));
        }
        assert!(!kit.st.unit(gb).reduced);
        assert!(kit.st.pending.is_empty());
    }

    /// A Big Gun phase about to fire its first shot, the dice advanced `k` rolls.
    fn about_to_fire(k: usize) -> Kit {
        let mut kit = Kit::new();
        for _ in 0..k {
            kit.run_value(|ctx| ctx.roll());
        }
        kit.set(siege_protocol::Phase::BigGun, Step::BigGunFire { shot: 0 });
        kit.st.big_guns = vec![hex("1801"), hex("0120")];
        kit
    }

    #[test]
    fn a_volley_is_the_gun_s_shots_fired_one_by_one_each_logged_before_its_ruin_10() {
        let mut ruins_seen = 0;
        for k in 0..24 {
            let kit = about_to_fire(k);
            let mut volley = kit.game();
            let all = Action::Fire {
                direction: Direction::S,
                shots: Some(4),
            };
            assert!(volley.legal_actions(Side::Chinese).contains(&all));
            let events = volley.apply(Side::Chinese, &all).unwrap();
            let shots = events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Shot { .. }))
                .count();
            let mut single = kit.game();
            for _ in 0..shots {
                let one = Action::Fire {
                    direction: Direction::S,
                    shots: None,
                };
                single.apply(Side::Chinese, &one).unwrap();
            }
            assert_eq!(volley.state_hash(), single.state_hash(), "dice {k}");
            // Every ruin follows the shot that landed on its hex.
            let mut last_hit = None;
            for e in &events {
                match &e.kind {
                    EventKind::Shot { hit, .. } => last_hit = *hit,
                    EventKind::Ruined { hex } => {
                        assert_eq!(last_hit, Some(*hex), "dice {k}: {}", e.text);
                        ruins_seen += 1;
                    }
                    _ => {}
                }
            }
            // The first gun's shots are all fired; the second gun has its four left.
            if shots == 4 {
                assert_eq!(volley.state().step, Step::BigGunFire { shot: 4 });
            }
        }
        assert!(ruins_seen > 0, "some volley ruined a building");
    }
}
