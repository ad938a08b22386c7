//! What follows every action, whatever caused it: the checks that hold after any change to the
//! position, run by the sequence of play after every applied action and every automatic step,
//! in a fixed order, until nothing changes. Mechanics change the position and say what happened
//! (their events); they never call these checks, so no cause — combat, retreat, withdrawal,
//! advance, the Big Gun, a mine, attrition, a stacking loss — can forget one.
//!
//! In order:
//! 1. civilians with no Allied combat unit in or next to their hex are lost (15, R7);
//! 2. a leader whose stack's last combat unit was eliminated goes to the nearest friendly unit
//!    (11.1);
//! 3. a hex over the stacking limit where no stack is in motion is thinned by its owner (7);
//! 4. victory hexes change hands as units pass through or stand in them (21);
//! 5. the instant Chinese victories: as many victory hexes as the turn, or no Allied combat unit
//!    or leader left (21).

use crate::mechanics::{civilians, leaders, victory};
use crate::position::ctx::Ctx;
use crate::position::event::EventKind;
use crate::position::hex_index::HexIndex;
use crate::position::pending::Pending;
use crate::position::state::Step;
use crate::vocabulary::hex::Hex;
use crate::vocabulary::units::UnitKind;
use siege_protocol::Side;

/// Rounds of checks after one change before giving up on a fixed point; each round that
/// changes something removes a unit or settles a hex, so a few always suffice.
pub const ROUNDS: usize = 16;

/// Run the checks in order until a round changes nothing. Checks still changing the position
/// after [`ROUNDS`] rounds set [`Ctx::unsettled`], and the sequence of play refuses the action
/// ([`RuleError::Runaway`](crate::vocabulary::error::RuleError::Runaway)): no check is ever
/// skipped in silence.
pub fn run(ctx: &mut Ctx<'_>) {
    run_within(ctx, ROUNDS);
}

/// [`run`] with the bound given.
fn run_within(ctx: &mut Ctx<'_>, rounds: usize) {
    for _ in 0..rounds {
        let events = ctx.events.len();
        let pending = ctx.st.pending.len();
        let from = ctx.checked;
        ctx.checked = ctx.events.len();
        civilians::check(ctx);
        leaders_left_alone(ctx, from);
        over_stacking(ctx);
        victory_hexes(ctx, from);
        victory::check_instant(ctx);
        if ctx.events.len() == events && ctx.st.pending.len() == pending {
            return;
        }
    }
    ctx.unsettled = true;
}

/// Leaders in hexes where a combat unit or volunteers were eliminated since event `from`, and
/// no Allied combat unit is left, go to the nearest friendly unit (11.1).
fn leaders_left_alone(ctx: &mut Ctx<'_>, from: usize) {
    let mut hexes: Vec<Hex> = Vec::new();
    for e in &ctx.events[from..] {
        let (unit, hex) = match &e.kind {
            EventKind::Eliminated { unit, hex, .. } => (*unit, *hex),
            EventKind::Attrition { unit, hex } => (*unit, *hex),
            _ => continue,
        };
        let kind = ctx.scn.counters.get(unit).kind;
        if let Some(h) = hex
            && matches!(kind, UnitKind::Combat | UnitKind::Volunteer)
            && !hexes.contains(&h)
        {
            hexes.push(h);
        }
    }
    for h in hexes {
        leaders::displace_if_alone(ctx, h);
    }
}

/// The hexes where a stack is still on its way: the stack being moved and the stack
/// retreating. Stacking counts only where a move or retreat ends (7).
fn in_motion(ctx: &Ctx<'_>) -> Vec<Hex> {
    let mut out = Vec::new();
    if let Step::Move { group: Some(g) } | Step::Bayonet { group: Some(g) } = &ctx.st.step {
        out.push(g.hex);
    }
    if let Some(Pending::Retreat(r)) = ctx.st.pending.first() {
        out.push(r.at);
    }
    out
}

/// A hex over the stacking limit where nothing is in motion: its owner eliminates units until
/// it is within the limit (7, 8.3). Settled before anything else waiting.
fn over_stacking(ctx: &mut Ctx<'_>) {
    let board = HexIndex::of(ctx.scn, ctx.st);
    // Almost always no hex is over the limit: the board keeps the list, and this runs after
    // every action.
    let hexes = board.over_limit();
    if hexes.is_empty() {
        return;
    }
    let moving = in_motion(ctx);
    for &hex in hexes {
        let waiting = ctx
            .st
            .pending
            .iter()
            .any(|p| matches!(p, Pending::Overstack { hex: h, .. } if *h == hex));
        if moving.contains(&hex) || waiting {
            continue;
        }
        if let Some(side) = board.at(hex).side {
            ctx.st.pending.insert(0, Pending::Overstack { side, hex });
        }
    }
}

/// Victory hexes change hands (21): every hex a stack passed through since event `from`, in
/// order, then every victory hex where units stand.
fn victory_hexes(ctx: &mut Ctx<'_>, from: usize) {
    let mut passed: Vec<(Side, Hex)> = Vec::new();
    for e in &ctx.events[from..] {
        if let EventKind::Moved { units, path, .. } = &e.kind
            && let Some(u) = units.first()
        {
            let side = ctx.scn.counters.get(*u).side;
            passed.extend(path.iter().skip(1).map(|h| (side, *h)));
        }
    }
    for (side, hex) in passed {
        victory::enter(ctx, side, hex);
    }
    let board = HexIndex::of(ctx.scn, ctx.st);
    let standing: Vec<(Side, Hex)> = ctx
        .scn
        .map
        .victory_hexes()
        .iter()
        .filter_map(|(hex, _)| board.at(*hex).side.map(|s| (s, *hex)))
        .collect();
    for (side, hex) in standing {
        victory::enter(ctx, side, hex);
    }
}

#[cfg(test)]
mod tests {
    //! Each check fires after each kind of change that can call for it, through the public
    //! [`Game::apply`] with the game's own dice rigged: nothing here calls a check directly.

    use super::*;
    use crate::face::game::Game;
    use crate::face::testkit::{Kit, hex};
    use crate::position::action::Action;
    use crate::position::event::Event;
    use crate::position::state::{Loc, Step};
    use crate::vocabulary::crt::CrtResult;
    use crate::vocabulary::hex::Direction;
    use crate::vocabulary::map::Terrain;
    use crate::vocabulary::units::UnitId;
    use siege_protocol::Phase;

    fn act(game: &mut Game, side: Side, action: Action) -> Vec<Event> {
        game.apply(side, &action)
            .unwrap_or_else(|e| panic!("{action:?} refused: {e}"))
    }

    /// Whether `events` say the civilians `civ` were lost for want of an escort (15).
    fn lost_unescorted(events: &[Event], civ: UnitId) -> bool {
        events.iter().any(|e| {
            matches!(&e.kind, EventKind::Eliminated { unit, cause, .. }
                if *unit == civ && cause == "unescorted")
        })
    }

    /// Whether `events` say `leader` went to the nearest friendly unit (11.1).
    fn leader_moved(events: &[Event], leader: UnitId) -> bool {
        events
            .iter()
            .any(|e| matches!(e.kind, EventKind::LeaderMoved { leader: l, .. } if l == leader))
    }

    /// The result of the combat in `events`.
    fn result(events: &[Event]) -> Option<CrtResult> {
        events.iter().find_map(|e| match &e.kind {
            EventKind::Combat { report } => report.result,
            _ => None,
        })
    }

    /// Declare and resolve a Chinese attack with `attackers` on `target`; the Allied player
    /// rolls at once when asked about his leaders (11.1). Returns the events of the roll.
    fn chinese_attack(game: &mut Game, target: Hex, attackers: &[UnitId]) -> Vec<Event> {
        act(game, Side::Chinese, Action::Attack { hex: target });
        for &unit in attackers {
            act(game, Side::Chinese, Action::AddAttacker { unit });
        }
        let events = act(game, Side::Chinese, Action::Resolve);
        if game.state().pending.first() == Some(&Pending::DefenderLeaders) {
            return act(game, Side::Allied, Action::Resolve);
        }
        events
    }

    /// Retreat or withdraw the stack hex by hex as far as it may from `away`, collecting events.
    fn retreat_away(game: &mut Game, side: Side, away: Hex) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(Pending::Retreat(_)) = game.state().pending.first() {
            let legal = game.legal_actions(side);
            let far = legal
                .iter()
                .filter_map(|a| match a {
                    Action::Retreat { to } => Some((to.distance(away), *to)),
                    _ => None,
                })
                .max();
            let choice = match far {
                Some((_, to)) => Action::Retreat { to },
                None => Action::StopRetreat,
            };
            events.extend(act(game, side, choice));
        }
        events
    }

    /// A Big Gun at 1001 about to fire its first shot south (10).
    fn big_gun(kit: &mut Kit) {
        kit.at(3, Phase::BigGun, Step::BigGunFire { shot: 0 });
        kit.st.big_guns = vec![hex("1001")];
    }

    /// The gun of [`big_gun`] fires its shot south.
    fn fire_south(game: &mut Game) -> Vec<Event> {
        act(
            game,
            Side::Chinese,
            Action::Fire {
                direction: Direction::S,
                shots: None,
            },
        )
    }

    /// The Chinese about to explode their mines, under the building hex 1010 (16).
    fn mine_under_1010(kit: &mut Kit) {
        kit.at(4, Phase::ChineseMovement, Step::Mines);
        kit.paint(hex("1010"), Terrain::Building);
    }

    /// The mine under 1010 goes off.
    fn detonate_1010(game: &mut Game) -> Vec<Event> {
        act(game, Side::Chinese, Action::Detonate { hex: hex("1010") })
    }

    // --- Civilians (15, R7) ---------------------------------------------------------------

    #[test]
    fn civilians_are_lost_in_the_same_action_as_their_escort_in_combat_15_r7() {
        // Turn 5, Chinese combat: British at 0607, civilians at 0608, three Boxers at 0606.
        // 30 against 4 is 6-1; the die rolls 2: DE.
        let mut kit = Kit::new();
        kit.at(5, Phase::ChineseCombat, Step::Combat);
        let gb = kit.put("gb1", hex("0607"));
        let civ = kit.put("civ1", hex("0608"));
        let boxers: Vec<UnitId> = (0..3)
            .map(|_| kit.place(UnitKind::Boxer, Side::Chinese, hex("0606")))
            .collect();
        kit.rig(&[2]);
        let mut game = kit.game();
        let events = chinese_attack(&mut game, hex("0607"), &boxers);
        assert_eq!(result(&events), Some(CrtResult::DE));
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert!(lost_unescorted(&events, civ), "lost in the same action");
        assert_eq!(game.state().unit(civ).loc, Loc::Eliminated);
    }

    #[test]
    fn civilians_are_lost_when_their_escort_retreats_away_8_3_15_r7() {
        // 10 against 4 is 2-1; the die rolls 3: DR. The British go three hexes away.
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseCombat, Step::Combat);
        kit.put("gb1", hex("0607"));
        let civ = kit.put("civ1", hex("0608"));
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("0606"));
        kit.rig(&[3]);
        let mut game = kit.game();
        let mut events = chinese_attack(&mut game, hex("0607"), &[bx]);
        assert_eq!(result(&events), Some(CrtResult::DR));
        events.extend(retreat_away(&mut game, Side::Allied, hex("0608")));
        // Lost as the retreat took the British out of reach, not before.
        let moved = events
            .iter()
            .position(|e| matches!(e.kind, EventKind::Retreated { .. }));
        let lost = events
            .iter()
            .position(|e| lost_unescorted(std::slice::from_ref(e), civ));
        assert!(moved.is_some() && lost > moved, "{moved:?} {lost:?}");
    }

    #[test]
    fn civilians_are_lost_when_the_big_gun_kills_their_escort_10_15_r7() {
        // The shot rolls 2 (8 hexes south: 1009) and 5 on the damage chart: SL. The reduced
        // British there take it and are eliminated; the civilians beside them at 1010 are lost.
        let mut kit = Kit::open();
        big_gun(&mut kit);
        let gb = kit.put("gb1", hex("1009"));
        kit.st.unit_mut(gb).reduced = true;
        let civ = kit.put("civ1", hex("1010"));
        kit.rig(&[2, 5]);
        let mut game = kit.game();
        let events = fire_south(&mut game);
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert!(lost_unescorted(&events, civ));
    }

    #[test]
    fn checks_that_run_out_of_rounds_say_so_and_the_action_is_refused_15_r7() {
        // The escort is eliminated: the first round loses the civilians (15, R7), and only a
        // second round can show that nothing more changes.
        let mut kit = Kit::open();
        let gb = kit.put("gb1", hex("1010"));
        let civ = kit.put("civ1", hex("1011"));
        kit.put("gb2", hex("2020"));
        let (unsettled, events) = kit.run_value(|ctx| {
            crate::mechanics::losses::eliminate(ctx, gb, "test");
            run_within(ctx, 1);
            (ctx.unsettled, std::mem::take(&mut ctx.events))
        });
        assert!(lost_unescorted(&events, civ));
        assert!(unsettled, "one round cannot show the checks are done");
        // With the rounds the engine allows, the same change settles.
        let mut kit = Kit::open();
        let gb = kit.put("gb1", hex("1010"));
        kit.put("civ1", hex("1011"));
        kit.put("gb2", hex("2020"));
        let unsettled = kit.run_value(|ctx| {
            crate::mechanics::losses::eliminate(ctx, gb, "test");
            run(ctx);
            ctx.unsettled
        });
        assert!(!unsettled);
        // The sequence of play turns an unsettled check into a refusal, whatever step it is.
        let mut kit = Kit::open();
        let settled = kit.run_value(|ctx| {
            ctx.unsettled = true;
            crate::sequence::play::settle(ctx)
        });
        assert_eq!(
            settled,
            Err(crate::vocabulary::error::RuleError::Runaway { rounds: ROUNDS })
        );
    }

    #[test]
    fn civilians_are_lost_when_a_mine_kills_their_escort_16_15_r7() {
        let mut kit = Kit::open();
        mine_under_1010(&mut kit);
        let gb = kit.put("gb1", hex("1010"));
        kit.st.unit_mut(gb).reduced = true;
        let civ = kit.put("civ1", hex("1011"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1009"));
        kit.rig(&[1]);
        let mut game = kit.game();
        let events = detonate_1010(&mut game);
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert!(lost_unescorted(&events, civ));
    }

    #[test]
    fn civilians_are_lost_when_attrition_takes_their_escort_14_15_r7() {
        let mut kit = Kit::open();
        kit.at(3, Phase::AlliedMovement, Step::Attrition);
        let gb = kit.put("gb1", hex("1010"));
        kit.put("gb2", hex("2020"));
        let civ = kit.put("civ1", hex("1011"));
        let mut game = kit.game();
        let events = act(&mut game, Side::Allied, Action::RemoveUnit { unit: gb });
        assert!(lost_unescorted(&events, civ));
    }

    #[test]
    fn civilians_are_lost_when_their_escort_withdraws_away_12_15_r7() {
        // Myers rolls 1 and the British beside the Boxers at 1011 withdraw, away from the
        // civilians at 1009.
        let mut kit = Kit::open();
        kit.at(3, Phase::ChineseCombat, Step::Withdrawal);
        kit.put("gb1", hex("1010"));
        let myers = kit.put("myers", hex("1010"));
        let civ = kit.put("civ1", hex("1009"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1011"));
        kit.rig(&[1]);
        let mut game = kit.game();
        act(
            &mut game,
            Side::Allied,
            Action::AttemptWithdrawal { leader: myers },
        );
        let mut events = act(
            &mut game,
            Side::Allied,
            Action::SelectStack { hex: hex("1010") },
        );
        events.extend(retreat_away(&mut game, Side::Allied, hex("1009")));
        assert!(lost_unescorted(&events, civ));
    }

    #[test]
    fn civilians_are_lost_when_their_escort_advances_after_combat_away_8_4_15_r7() {
        // Allied combat: British 1 and Myers at 1010 with the civilians beside them at 1011;
        // volunteers and British 2 join the attack on the reduced Boxers at 1009 from hexes out
        // of the civilians' reach. 15 against 5 is 3-1; the die rolls 6: DE. British 1 take
        // 1009 (Myers took part, so the Allies may advance): two hexes from the civilians,
        // with only a leader left beside them — no escort (15).
        let mut kit = Kit::open();
        kit.at(5, Phase::AlliedCombat, Step::Combat);
        let target = hex("1009");
        let gb = kit.put("gb1", hex("1010"));
        let myers = kit.put("myers", hex("1010"));
        let civ = kit.put("civ1", hex("1011"));
        let vol = kit.put("vol1", target.neighbour(Direction::Ne).unwrap());
        let gb2 = kit.put("gb2", target.neighbour(Direction::Nw).unwrap());
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, target);
        kit.st.unit_mut(bx).reduced = true;
        kit.rig(&[6]);
        let mut game = kit.game();
        act(&mut game, Side::Allied, Action::Attack { hex: target });
        for unit in [gb, myers, vol, gb2] {
            act(&mut game, Side::Allied, Action::AddAttacker { unit });
        }
        let events = act(&mut game, Side::Allied, Action::Resolve);
        assert_eq!(result(&events), Some(CrtResult::DE));
        assert!(!lost_unescorted(&events, civ), "escorted until the advance");
        let events = act(
            &mut game,
            Side::Allied,
            Action::Advance {
                unit: gb,
                to: target,
            },
        );
        assert!(
            lost_unescorted(&events, civ),
            "lost in the advance's own action"
        );
        assert_eq!(game.state().unit(civ).loc, Loc::Eliminated);
    }

    #[test]
    fn a_stacking_loss_is_followed_by_the_civilian_and_leader_checks_7_15_11_1_r7() {
        // Reduced British (2) and nine leaders (9) over-stacked at 1010, as a retreat could
        // leave them: the owner may choose to lose the British, leaving the civilians beside
        // them with leaders only — not enough (15) — and the leaders alone (11.1).
        let mut kit = Kit::open();
        kit.at(3, Phase::ChineseCombat, Step::Combat);
        let gb = kit.put("gb1", hex("1010"));
        kit.st.unit_mut(gb).reduced = true;
        let leaders: Vec<UnitId> = (0..9)
            .map(|_| kit.place(UnitKind::Leader, Side::Allied, hex("1010")))
            .collect();
        let civ = kit.put("civ1", hex("1011"));
        kit.put("gb2", hex("2020"));
        kit.st.pending.push(Pending::Overstack {
            side: Side::Allied,
            hex: hex("1010"),
        });
        let mut game = kit.game();
        assert!(
            game.legal_actions(Side::Allied)
                .contains(&Action::Eliminate { unit: gb })
        );
        let events = act(&mut game, Side::Allied, Action::Eliminate { unit: gb });
        assert!(lost_unescorted(&events, civ));
        // The leaders join British 2 while there is room, and the rest, with no friendly unit
        // left to join, are eliminated: none stays alone at 1010.
        assert!(leaders.iter().any(|l| leader_moved(&events, *l)));
        assert!(
            leaders
                .iter()
                .all(|l| game.state().unit(*l).hex() != Some(hex("1010")))
        );
    }

    // --- Leaders left alone (11.1) --------------------------------------------------------

    /// Reduced British 1 and Myers in `at`, British 2 three hexes south for him to join.
    fn leader_with_a_unit(kit: &mut Kit, at: Hex) -> (UnitId, UnitId) {
        let gb = kit.put("gb1", at);
        kit.st.unit_mut(gb).reduced = true;
        let myers = kit.put("myers", at);
        kit.put("gb2", at.ray(Direction::S, 3).expect("on the map"));
        (gb, myers)
    }

    #[test]
    fn a_leader_whose_stack_dies_in_combat_joins_the_nearest_unit_11_1() {
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseCombat, Step::Combat);
        let (gb, myers) = leader_with_a_unit(&mut kit, hex("0607"));
        let boxers: Vec<UnitId> = (0..3)
            .map(|_| kit.place(UnitKind::Boxer, Side::Chinese, hex("0606")))
            .collect();
        kit.rig(&[2]);
        let mut game = kit.game();
        let events = chinese_attack(&mut game, hex("0607"), &boxers);
        assert_eq!(result(&events), Some(CrtResult::DE));
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert!(leader_moved(&events, myers));
        assert_eq!(game.state().unit(myers).loc, Loc::Map(hex("0610")));
    }

    #[test]
    fn a_leader_whose_stack_dies_to_the_big_gun_joins_the_nearest_unit_10_11_1() {
        let mut kit = Kit::open();
        big_gun(&mut kit);
        let (gb, myers) = leader_with_a_unit(&mut kit, hex("1009"));
        kit.rig(&[2, 6]);
        let mut game = kit.game();
        fire_south(&mut game);
        // The SL is the Allied player's to place, leaders included (10): he gives it to the
        // British.
        let events = act(&mut game, Side::Allied, Action::LoseStep { unit: gb });
        assert!(leader_moved(&events, myers));
    }

    #[test]
    fn a_leader_whose_stack_dies_to_a_mine_joins_the_nearest_unit_16_11_1() {
        let mut kit = Kit::open();
        mine_under_1010(&mut kit);
        let (gb, myers) = leader_with_a_unit(&mut kit, hex("1010"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1009"));
        // One roll per unit, British first: 1 loses the step, Myers rolls 6 and is unhurt.
        kit.rig(&[1, 6]);
        let mut game = kit.game();
        let events = detonate_1010(&mut game);
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert!(leader_moved(&events, myers));
    }

    #[test]
    fn a_leader_whose_stack_goes_to_attrition_joins_the_nearest_unit_14_11_1() {
        let mut kit = Kit::open();
        kit.at(3, Phase::AlliedMovement, Step::Attrition);
        let (gb, myers) = leader_with_a_unit(&mut kit, hex("1010"));
        let mut game = kit.game();
        let events = act(&mut game, Side::Allied, Action::RemoveUnit { unit: gb });
        assert!(leader_moved(&events, myers));
    }

    #[test]
    fn a_leader_whose_stack_cannot_retreat_joins_the_nearest_unit_8_3_11_1() {
        // Reduced British 1 (2) and Myers (1) at 1010, every neighbour canal but the Boxers'
        // hex. 10 against 3 is 3-1; the die rolls 2: DR. The stack has nowhere to go: the
        // British are eliminated, Myers is not (8.3, 11.1) and joins British 2 at 1013.
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseCombat, Step::Combat);
        let at = hex("1010");
        let (gb, myers) = leader_with_a_unit(&mut kit, at);
        let north = at.neighbour(Direction::N).unwrap();
        for n in at.neighbours().filter(|n| *n != north).collect::<Vec<_>>() {
            kit.paint(n, Terrain::Canal);
        }
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, north);
        kit.rig(&[2]);
        let mut game = kit.game();
        let events = chinese_attack(&mut game, at, &[bx]);
        assert_eq!(result(&events), Some(CrtResult::DR));
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert!(leader_moved(&events, myers), "moved in the same action");
        assert_eq!(game.state().unit(myers).loc, Loc::Map(hex("1013")));
    }

    #[test]
    fn a_withdrawal_eliminates_no_one_so_moves_no_leader_12_11_1() {
        // A withdrawal cannot leave a leader alone in the sense of 11.1: a leader moves to the
        // nearest friendly unit only when the combat units stacked with him are eliminated,
        // and a withdrawal eliminates nobody — the units "may" retreat (12), and a stack with
        // nowhere to go simply stays. The nearest case: British 1 withdraw on their own and
        // leave Myers in 1010. He stays where he is; he is alone by choice, not by loss.
        // (A withdrawal that ends over-stacked and costs the leader's last unit is the
        // stacking-loss case above.)
        let mut kit = Kit::open();
        kit.at(3, Phase::ChineseCombat, Step::Withdrawal);
        let (gb, myers) = leader_with_a_unit(&mut kit, hex("1010"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1009"));
        kit.rig(&[1]);
        let mut game = kit.game();
        act(
            &mut game,
            Side::Allied,
            Action::AttemptWithdrawal { leader: myers },
        );
        let mut events = act(&mut game, Side::Allied, Action::SelectUnit { unit: gb });
        events.extend(retreat_away(&mut game, Side::Allied, hex("1009")));
        assert_ne!(game.state().unit(gb).hex(), Some(hex("1010")));
        assert!(!leader_moved(&events, myers));
        assert_eq!(game.state().unit(myers).loc, Loc::Map(hex("1010")));
    }

    // --- Over-stacking (7) ------------------------------------------------------------------

    /// British 1 in the building 1010 whose only way out is 1011, already holding 10 points;
    /// every other neighbour of both is canal.
    fn cornered(kit: &mut Kit) {
        kit.paint(hex("1010"), Terrain::Building);
        for h in ["1110", "1111", "0911", "0910", "1012", "1112", "0912"] {
            kit.paint(hex(h), Terrain::Canal);
        }
        kit.put("gb1", hex("1010"));
        kit.put("gb2", hex("1011"));
        kit.put("vol1", hex("1011"));
    }

    #[test]
    fn a_retreat_that_can_only_end_over_stacked_loses_the_excess_7_8_3() {
        // 10 against 12 is 1-2; the die rolls 5: DR. From the building the British may stop
        // after one hex, and the only one is full: 14 points.
        let mut kit = Kit::open();
        kit.at(3, Phase::ChineseCombat, Step::Combat);
        cornered(&mut kit);
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, hex("1009"));
        kit.rig(&[5]);
        let mut game = kit.game();
        let events = chinese_attack(&mut game, hex("1010"), &[bx]);
        assert_eq!(result(&events), Some(CrtResult::DR));
        assert_eq!(
            game.state().pending.first(),
            Some(&Pending::Overstack {
                side: Side::Allied,
                hex: hex("1011")
            })
        );
        assert_eq!(game.to_act(), Some(Side::Allied));
    }

    #[test]
    fn a_withdrawal_that_ends_over_stacked_loses_the_excess_7_12() {
        let mut kit = Kit::open();
        kit.at(3, Phase::ChineseCombat, Step::Withdrawal);
        cornered(&mut kit);
        let myers = kit.put("myers", hex("1010"));
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1009"));
        kit.rig(&[1]);
        let mut game = kit.game();
        act(
            &mut game,
            Side::Allied,
            Action::AttemptWithdrawal { leader: myers },
        );
        act(
            &mut game,
            Side::Allied,
            Action::SelectStack { hex: hex("1010") },
        );
        retreat_away(&mut game, Side::Allied, hex("1009"));
        assert_eq!(
            game.state().pending.first(),
            Some(&Pending::Overstack {
                side: Side::Allied,
                hex: hex("1011")
            })
        );
    }

    // --- Victory hexes (21) -----------------------------------------------------------------

    /// A primary victory hex in open ground away from the edge, and its index.
    fn victory_hex(kit: &Kit) -> (usize, Hex) {
        kit.scn
            .map
            .victory_hexes()
            .iter()
            .enumerate()
            .find(|(_, (h, _))| h.edge_depth() > 4)
            .map(|(i, (h, _))| (i, *h))
            .expect("a victory hex inland")
    }

    fn took_control(events: &[Event], hex: Hex, side: Side) -> bool {
        events.iter().any(
            |e| matches!(e.kind, EventKind::ControlChanged { hex: h, side: s } if h == hex && s == side),
        )
    }

    #[test]
    fn a_move_through_a_victory_hex_takes_it_21() {
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseMovement, Step::Move { group: None });
        let (i, v) = victory_hex(&kit);
        let from = v.neighbour(Direction::N).unwrap();
        let to = v.neighbour(Direction::S).unwrap();
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, from);
        kit.put("gb1", hex("0303"));
        let mut game = kit.game();
        act(&mut game, Side::Chinese, Action::SelectUnit { unit: bx });
        let events = act(&mut game, Side::Chinese, Action::Move { to, mp: 2 });
        assert!(took_control(&events, v, Side::Chinese), "passing is enough");
        assert_eq!(game.state().control[i], Side::Chinese);
    }

    #[test]
    fn a_retreat_into_a_victory_hex_takes_it_8_3_21() {
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseCombat, Step::Combat);
        let (i, v) = victory_hex(&kit);
        kit.st.control[i] = Side::Chinese;
        let at = v.neighbour(Direction::N).unwrap();
        kit.put("gb1", at);
        let bx = kit.place(
            UnitKind::Boxer,
            Side::Chinese,
            at.neighbour(Direction::N).unwrap(),
        );
        kit.rig(&[3]);
        let mut game = kit.game();
        let events = chinese_attack(&mut game, at, &[bx]);
        assert_eq!(result(&events), Some(CrtResult::DR));
        let events = act(&mut game, Side::Allied, Action::Retreat { to: v });
        assert!(took_control(&events, v, Side::Allied));
        assert_eq!(game.state().control[i], Side::Allied);
    }

    #[test]
    fn an_advance_into_a_victory_hex_takes_it_8_4_21() {
        // Three Boxers eliminate the British holding the hex (6-1, die 2: DE) and advance.
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseCombat, Step::Combat);
        let (i, v) = victory_hex(&kit);
        kit.put("gb1", v);
        kit.put("gb2", hex("0303"));
        let north = v.neighbour(Direction::N).unwrap();
        let boxers: Vec<UnitId> = (0..3)
            .map(|_| kit.place(UnitKind::Boxer, Side::Chinese, north))
            .collect();
        kit.rig(&[2]);
        let mut game = kit.game();
        let events = chinese_attack(&mut game, v, &boxers);
        assert_eq!(result(&events), Some(CrtResult::DE));
        assert_eq!(game.state().control[i], Side::Allied, "not yet entered");
        let events = act(
            &mut game,
            Side::Chinese,
            Action::Advance {
                unit: boxers[0],
                to: v,
            },
        );
        assert!(took_control(&events, v, Side::Chinese));
    }

    #[test]
    fn a_withdrawal_through_a_victory_hex_takes_it_12_21() {
        // The Chinese hold the hex; British 1 and Myers beside the Boxers north of it
        // withdraw through it and on: passing is enough (21).
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseCombat, Step::Withdrawal);
        let (i, v) = victory_hex(&kit);
        kit.st.control[i] = Side::Chinese;
        let at = v.neighbour(Direction::N).unwrap();
        kit.put("gb1", at);
        let myers = kit.put("myers", at);
        kit.place(
            UnitKind::Boxer,
            Side::Chinese,
            at.neighbour(Direction::N).unwrap(),
        );
        kit.rig(&[1]);
        let mut game = kit.game();
        act(
            &mut game,
            Side::Allied,
            Action::AttemptWithdrawal { leader: myers },
        );
        act(&mut game, Side::Allied, Action::SelectStack { hex: at });
        let mut events = act(&mut game, Side::Allied, Action::Retreat { to: v });
        let beyond = v.neighbour(Direction::S).unwrap();
        events.extend(act(&mut game, Side::Allied, Action::Retreat { to: beyond }));
        assert!(took_control(&events, v, Side::Allied));
        assert_ne!(game.state().unit(myers).hex(), Some(v), "passed through");
        assert_eq!(game.state().control[i], Side::Allied);
    }

    // --- Instant wins (21) ------------------------------------------------------------------

    /// Give the Chinese every victory hex but `v`'s index `keep`, up to `n` of them.
    fn chinese_hold(kit: &mut Kit, keep: usize, n: usize) {
        let others: Vec<usize> = (0..kit.st.control.len()).filter(|j| *j != keep).collect();
        for j in others.into_iter().take(n) {
            kit.st.control[j] = Side::Chinese;
        }
    }

    fn won(game: &Game, events: &[Event], reason: &str) -> bool {
        let over = events.iter().any(|e| {
            matches!(&e.kind, EventKind::GameOver { winner, reason: r }
                if *winner == Side::Chinese && r == reason)
        });
        over && game
            .state()
            .result()
            .as_ref()
            .is_some_and(|r| r.winner == Side::Chinese && r.reason == reason)
    }

    #[test]
    fn an_advance_that_takes_the_turns_last_victory_hex_wins_at_once_8_4_21() {
        // Turn 5, the Chinese hold four victory hexes: the advance into the fifth ends the game
        // in that same action.
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseCombat, Step::Combat);
        let (i, v) = victory_hex(&kit);
        chinese_hold(&mut kit, i, 4);
        kit.put("gb1", v);
        kit.put("gb2", hex("0303"));
        let north = v.neighbour(Direction::N).unwrap();
        let boxers: Vec<UnitId> = (0..3)
            .map(|_| kit.place(UnitKind::Boxer, Side::Chinese, north))
            .collect();
        kit.rig(&[2]);
        let mut game = kit.game();
        let events = chinese_attack(&mut game, v, &boxers);
        assert_eq!(result(&events), Some(CrtResult::DE));
        assert_eq!(game.state().result(), None, "four are not enough in turn 5");
        let events = act(
            &mut game,
            Side::Chinese,
            Action::Advance {
                unit: boxers[0],
                to: v,
            },
        );
        assert!(won(&game, &events, "victory_hexes"), "{events:?}");
    }

    #[test]
    fn a_chinese_retreat_into_the_turns_last_victory_hex_wins_at_once_8_3_21() {
        // Turn 5, the Chinese hold four: British 1 and the volunteers (10) attack the Boxers
        // (10) north of the fifth; 1-1, the die rolls 4: DR. Their first step back, into the
        // victory hex, ends the game.
        let mut kit = Kit::open();
        kit.at(5, Phase::AlliedCombat, Step::Combat);
        let (i, v) = victory_hex(&kit);
        chinese_hold(&mut kit, i, 4);
        let at = v.neighbour(Direction::N).unwrap();
        let bx = kit.place(UnitKind::Boxer, Side::Chinese, at);
        let from = at.neighbour(Direction::N).unwrap();
        let gb = kit.put("gb1", from);
        let vol = kit.put("vol1", from);
        kit.rig(&[4]);
        let mut game = kit.game();
        act(&mut game, Side::Allied, Action::Attack { hex: at });
        for unit in [gb, vol] {
            act(&mut game, Side::Allied, Action::AddAttacker { unit });
        }
        let events = act(&mut game, Side::Allied, Action::Resolve);
        assert_eq!(result(&events), Some(CrtResult::DR));
        assert_eq!(game.state().result(), None);
        let events = act(&mut game, Side::Chinese, Action::Retreat { to: v });
        assert_eq!(game.state().unit(bx).loc, Loc::Map(v));
        assert!(won(&game, &events, "victory_hexes"), "{events:?}");
    }

    #[test]
    fn the_last_allied_unit_lost_in_combat_ends_the_game_8_2_21() {
        // British 1 are the last Allied unit on the map: 30 against 4 is 6-1, the die rolls 2.
        let mut kit = Kit::open();
        kit.at(5, Phase::ChineseCombat, Step::Combat);
        kit.put("gb1", hex("0607"));
        let boxers: Vec<UnitId> = (0..3)
            .map(|_| kit.place(UnitKind::Boxer, Side::Chinese, hex("0606")))
            .collect();
        kit.rig(&[2]);
        let mut game = kit.game();
        let events = chinese_attack(&mut game, hex("0607"), &boxers);
        assert_eq!(result(&events), Some(CrtResult::DE));
        assert!(won(&game, &events, "annihilation"), "{events:?}");
    }

    #[test]
    fn the_last_allied_unit_lost_to_the_big_gun_ends_the_game_10_21() {
        let mut kit = Kit::open();
        big_gun(&mut kit);
        let gb = kit.put("gb1", hex("1009"));
        kit.st.unit_mut(gb).reduced = true;
        kit.rig(&[2, 5]);
        let mut game = kit.game();
        let events = fire_south(&mut game);
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert!(won(&game, &events, "annihilation"), "{events:?}");
    }

    #[test]
    fn the_last_allied_unit_lost_to_a_mine_ends_the_game_16_21() {
        let mut kit = Kit::open();
        mine_under_1010(&mut kit);
        let gb = kit.put("gb1", hex("1010"));
        kit.st.unit_mut(gb).reduced = true;
        kit.place(UnitKind::Boxer, Side::Chinese, hex("1009"));
        kit.rig(&[1]);
        let mut game = kit.game();
        let events = detonate_1010(&mut game);
        assert_eq!(game.state().unit(gb).loc, Loc::Eliminated);
        assert!(won(&game, &events, "annihilation"), "{events:?}");
    }

    #[test]
    fn the_last_allied_unit_lost_to_attrition_ends_the_game_14_21() {
        // Attrition may take the last combat unit (14, R6: any combat unit on the map).
        let mut kit = Kit::open();
        kit.at(3, Phase::AlliedMovement, Step::Attrition);
        let gb = kit.put("gb1", hex("1010"));
        let mut game = kit.game();
        let events = act(&mut game, Side::Allied, Action::RemoveUnit { unit: gb });
        assert!(won(&game, &events, "annihilation"), "{events:?}");
    }
}
