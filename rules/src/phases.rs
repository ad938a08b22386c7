//! The sequence of play (4, 20, 22): Allied setup, Chinese entry, then eleven turns of seven
//! phases in order — Big Gun, Chinese movement, Allied reaction, sniper, Chinese combat, Allied
//! movement, Allied combat — and the end of the turn. Each phase is a series of steps (hospital
//! recovery before the guns, mines and entries before Chinese movement, fortifications and the
//! Allied withdrawal before Chinese combat, attrition before Allied movement, fortifications and
//! bayonet charges before Allied combat). A step with nothing to decide is passed over with an
//! event; interruptions (step losses, retreats, advances) are settled before the phase goes on.

use super::action::Action;
use super::event::EventKind;
use super::game::Ctx;
use super::pending;
use super::scenario::Scenario;
use super::state::{Loc, State, Step};
use super::{
    attrition, bayonet, big_gun, combat, command, entry, fortifications, mines, movement, recovery,
    replacements, setup, sniper, victory, withdrawal,
};
use siege_protocol::{Phase, Side};

/// The steps of a turn in order, each with the phase it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Recovery,
    BigGunPlace,
    BigGunFire,
    Mines,
    Restore,
    ChineseEntry,
    ChineseMove,
    Reaction,
    Sniper,
    ChineseFortify,
    Withdrawal,
    ChineseCombat,
    Attrition,
    AlliedMove,
    AlliedFortify,
    Bayonet,
    AlliedCombat,
    LiftOff,
}

const TURN: [Slot; 18] = [
    Slot::Recovery,
    Slot::BigGunPlace,
    Slot::BigGunFire,
    Slot::Mines,
    Slot::Restore,
    Slot::ChineseEntry,
    Slot::ChineseMove,
    Slot::Reaction,
    Slot::Sniper,
    Slot::ChineseFortify,
    Slot::Withdrawal,
    Slot::ChineseCombat,
    Slot::Attrition,
    Slot::AlliedMove,
    Slot::AlliedFortify,
    Slot::Bayonet,
    Slot::AlliedCombat,
    Slot::LiftOff,
];

impl Slot {
    fn phase(self) -> Phase {
        match self {
            Slot::Recovery | Slot::BigGunPlace | Slot::BigGunFire => Phase::BigGun,
            Slot::Mines | Slot::Restore | Slot::ChineseEntry | Slot::ChineseMove => {
                Phase::ChineseMovement
            }
            Slot::Reaction => Phase::AlliedReaction,
            Slot::Sniper => Phase::Sniper,
            Slot::ChineseFortify | Slot::Withdrawal | Slot::ChineseCombat => Phase::ChineseCombat,
            Slot::Attrition | Slot::AlliedMove => Phase::AlliedMovement,
            Slot::AlliedFortify | Slot::Bayonet | Slot::AlliedCombat => Phase::AlliedCombat,
            Slot::LiftOff => Phase::EndOfTurn,
        }
    }

    fn step(self) -> Step {
        match self {
            Slot::Recovery => Step::Recovery { rolled: 0 },
            Slot::BigGunPlace => Step::BigGunPlace,
            Slot::BigGunFire => Step::BigGunFire { shot: 0 },
            Slot::Mines => Step::Mines,
            Slot::Restore => Step::Restore,
            Slot::ChineseEntry => Step::Entry { selected: None },
            Slot::ChineseMove | Slot::Reaction | Slot::AlliedMove => Step::Move { group: None },
            Slot::Sniper => Step::Sniper,
            Slot::ChineseFortify | Slot::AlliedFortify => Step::Fortify,
            Slot::Withdrawal => Step::Withdrawal,
            Slot::ChineseCombat | Slot::AlliedCombat => Step::Combat,
            Slot::Attrition => Step::Attrition,
            Slot::Bayonet => Step::Bayonet { group: None },
            Slot::LiftOff => Step::LiftOff,
        }
    }

    /// The slot the state is in.
    fn of(st: &State) -> Option<Slot> {
        TURN.iter().copied().find(|s| {
            s.phase() == st.phase
                && std::mem::discriminant(&s.step()) == std::mem::discriminant(&st.step)
        })
    }
}

/// The side that decides the main step of a phase.
fn step_side(st: &State) -> Option<Side> {
    Some(match (&st.step, st.phase) {
        (Step::Over, _) => return None,
        (Step::AlliedSetup { .. }, _) => Side::Allied,
        (Step::Recovery { .. } | Step::Attrition | Step::Withdrawal | Step::Bayonet { .. }, _) => {
            Side::Allied
        }
        (Step::Entry { .. } | Step::BigGunPlace | Step::BigGunFire { .. } | Step::Mines, _) => {
            Side::Chinese
        }
        (Step::Restore | Step::Sniper | Step::LiftOff, _) => Side::Chinese,
        (Step::Move { .. }, phase) => movement::mover(phase),
        (Step::Fortify | Step::Combat, Phase::ChineseCombat) => Side::Chinese,
        (Step::Fortify | Step::Combat, _) => Side::Allied,
    })
}

/// The side whose decision it is.
pub fn to_act(_scn: &Scenario, st: &State) -> Option<Side> {
    if st.result.is_some() {
        return None;
    }
    match st.pending.first() {
        Some(p) => Some(p.side()),
        None => step_side(st),
    }
}

/// The legal actions of the side to act.
pub fn legal(scn: &Scenario, st: &State) -> Vec<Action> {
    let mut out = Vec::new();
    if st.result.is_some() {
        return out;
    }
    if let Some(p) = st.pending.first() {
        pending::legal(scn, st, p, &mut out);
        return out;
    }
    match &st.step {
        Step::AlliedSetup { selected, area } => setup::legal(scn, st, *selected, *area, &mut out),
        Step::Entry { selected } => entry::legal(scn, st, *selected, &mut out),
        Step::Move { group } => movement::legal(scn, st, group.as_ref(), &mut out),
        Step::Recovery { .. } => recovery::legal(scn, st, &mut out),
        Step::BigGunPlace | Step::BigGunFire { .. } => big_gun::legal(scn, st, &mut out),
        Step::Mines => mines::legal(scn, st, &mut out),
        Step::Restore => replacements::legal(scn, st, &mut out),
        Step::Attrition => attrition::legal(scn, st, &mut out),
        Step::Sniper => sniper::legal(scn, st, &mut out),
        Step::Fortify => fortifications::legal(scn, st, &mut out),
        Step::Withdrawal => withdrawal::legal(scn, st, &mut out),
        Step::Bayonet { group } => bayonet::legal(scn, st, group.as_ref(), &mut out),
        Step::Combat => combat::legal(scn, st, &mut out),
        Step::LiftOff => entry::lift_legal(scn, st, &mut out),
        Step::Over => {}
    }
    out
}

/// Apply a legal action.
pub fn apply(ctx: &mut Ctx<'_>, action: &Action) {
    if !ctx.st.pending.is_empty() {
        pending::apply(ctx, action);
        return;
    }
    let ends_step = matches!(action, Action::EndPhase | Action::Pass);
    if ends_step {
        if let Step::Combat = ctx.st.step {
            ctx.st.declaration = None;
        }
        next_step(ctx);
        return;
    }
    match ctx.st.step.clone() {
        Step::AlliedSetup { .. } => setup::apply(ctx, action),
        Step::Entry { .. } => entry::apply(ctx, action),
        Step::Move { .. } => movement::apply(ctx, action),
        Step::Recovery { .. } => recovery::apply(ctx, action),
        Step::BigGunPlace | Step::BigGunFire { .. } => big_gun::apply(ctx, action),
        Step::Mines => mines::apply(ctx, action),
        Step::Restore => replacements::apply(ctx, action),
        Step::Attrition => attrition::apply(ctx, action),
        Step::Sniper => sniper::apply(ctx, action),
        Step::Fortify => fortifications::apply(ctx, action),
        Step::Withdrawal => withdrawal::apply(ctx, action),
        Step::Bayonet { .. } => bayonet::apply(ctx, action),
        Step::Combat => combat::apply(ctx, action),
        Step::LiftOff => entry::lift_apply(ctx, action),
        Step::Over => {}
    }
}

/// After an action: check victory, settle interruptions that leave no choice, and pass over
/// steps with nothing to decide, until a real decision is pending or the game is over.
pub fn settle(ctx: &mut Ctx<'_>) {
    loop {
        if ctx.st.result.is_some() {
            return;
        }
        victory::check_instant(ctx);
        if ctx.st.result.is_some() {
            return;
        }
        if !ctx.st.pending.is_empty() {
            if pending::prune(ctx) {
                continue;
            }
            let legal = legal(ctx.scn, ctx.st);
            if legal.len() == 1 {
                pending::apply(ctx, &legal[0]);
                continue;
            }
            return;
        }
        if step_is_finished(ctx) {
            next_step(ctx);
            continue;
        }
        if nothing_to_decide(ctx.scn, ctx.st) {
            let phase = ctx.st.phase;
            let step = step_name(&ctx.st.step).to_string();
            ctx.emit(
                EventKind::Skipped {
                    phase,
                    step: step.clone(),
                },
                format!(
                    "{}: nothing to decide in the {} step",
                    phase.title(),
                    step.replace('_', " ")
                ),
            );
            next_step(ctx);
            continue;
        }
        return;
    }
}

/// Whether the only legal action of the current step is to end it (`end_phase` or `pass`).
/// Answered without building the whole list where that is costly: a movement step with
/// nothing left to move, a combat step with no target and no obligation.
pub fn nothing_to_decide(scn: &Scenario, st: &State) -> bool {
    match &st.step {
        // A selected stack can always stop; a declared attack can always be cancelled or
        // resolved; setup always offers the default deployment; a gun always fires.
        Step::Move { group: Some(_) } | Step::AlliedSetup { .. } | Step::BigGunFire { .. } => false,
        Step::Combat if st.declaration.is_some() => false,
        Step::Move { group: None } => !movement::anyone_movable(scn, st),
        Step::Combat => combat::nothing_to_attack(scn, st),
        Step::Entry { .. } => !entry::any_waiting(scn, st),
        _ => {
            let legal = legal(scn, st);
            legal.len() == 1 && matches!(legal[0], Action::EndPhase | Action::Pass)
        }
    }
}

/// Steps that end by themselves once their work is done (the Big Gun after its eighth shot,
/// attrition after its one removal, recovery after its rolls).
fn step_is_finished(ctx: &Ctx<'_>) -> bool {
    match ctx.st.step {
        Step::BigGunFire { shot } => usize::from(shot) >= big_gun::SHOTS * ctx.st.big_guns.len(),
        Step::Recovery { rolled } => recovery::finished(ctx.scn, ctx.st, rolled),
        _ => false,
    }
}

/// The snake_case name of a step.
pub fn step_name(step: &Step) -> &'static str {
    match step {
        Step::AlliedSetup { .. } => "allied_setup",
        Step::Entry { .. } => "entry",
        Step::Recovery { .. } => "recovery",
        Step::BigGunPlace => "big_gun_place",
        Step::BigGunFire { .. } => "big_gun_fire",
        Step::Mines => "mines",
        Step::Restore => "restore",
        Step::Move { .. } => "move",
        Step::Attrition => "attrition",
        Step::Sniper => "sniper",
        Step::Fortify => "fortify",
        Step::Withdrawal => "withdrawal",
        Step::Bayonet { .. } => "bayonet",
        Step::Combat => "combat",
        Step::LiftOff => "lift_off",
        Step::Over => "over",
    }
}

/// Move on to the next step of the sequence of play.
pub fn next_step(ctx: &mut Ctx<'_>) {
    match ctx.st.phase {
        Phase::AlliedSetup => {
            ctx.st.phase = Phase::ChineseSetup;
            ctx.st.step = Step::Entry { selected: None };
            ctx.emit(
                EventKind::PhaseBegan {
                    turn: 0,
                    phase: Phase::ChineseSetup,
                },
                "The Allies are in position; the Chinese enter at the map edge (22)".into(),
            );
        }
        Phase::ChineseSetup => begin_turn(ctx, 1),
        Phase::GameOver => {}
        _ => {
            let at = Slot::of(ctx.st).and_then(|s| TURN.iter().position(|x| *x == s));
            match at.and_then(|i| TURN.get(i + 1)) {
                Some(&slot) => enter(ctx, slot),
                None => end_turn(ctx),
            }
        }
    }
}

fn enter(ctx: &mut Ctx<'_>, slot: Slot) {
    let phase = slot.phase();
    if phase != ctx.st.phase {
        on_phase_begin(ctx, phase);
    }
    ctx.st.phase = phase;
    ctx.st.step = slot.step();
    match slot {
        Slot::Recovery => recovery::begin(ctx),
        Slot::BigGunPlace => ctx.st.big_guns.clear(),
        _ => {}
    }
}

/// What happens as a phase begins.
fn on_phase_begin(ctx: &mut Ctx<'_>, phase: Phase) {
    let turn = ctx.st.turn;
    ctx.emit(
        EventKind::PhaseBegan { turn, phase },
        format!("Turn {turn}: {}", phase.title()),
    );
    match phase {
        Phase::ChineseMovement | Phase::AlliedReaction | Phase::AlliedMovement => {
            let side = movement::mover(phase);
            for (i, u) in ctx.st.units.iter_mut().enumerate() {
                if ctx.scn.counters.counters[i].side == side {
                    u.marks.moved = false;
                    if phase != Phase::AlliedReaction {
                        u.marks.moved_full = false;
                    }
                }
            }
            if side == Side::Allied {
                command::mark(ctx.scn, ctx.st);
            }
        }
        Phase::ChineseCombat | Phase::AlliedCombat => {
            for u in &mut ctx.st.units {
                u.marks.attacked = false;
                u.marks.defended = false;
            }
        }
        Phase::BigGun => ctx.st.big_guns.clear(),
        _ => {}
    }
}

/// Start game turn `turn` (4, 20): per-turn counters reset, replacements arrive (19).
pub fn begin_turn(ctx: &mut Ctx<'_>, turn: u8) {
    ctx.st.turn = turn;
    ctx.st.sniper_used = false;
    ctx.st.charge_points = 0;
    ctx.st.withdrawal_rolled.clear();
    ctx.st.withdrawal_allowed.clear();
    ctx.st.big_guns.clear();
    for u in &mut ctx.st.units {
        u.marks.recovery_failed = false;
    }
    ctx.emit(
        EventKind::TurnBegan { turn },
        format!("Game turn {turn} of 11 begins (20)"),
    );
    replacements::arrive(ctx);
    enter(ctx, TURN[0]);
}

/// The end of a turn: after turn 11 the game ends (20, 21); otherwise the next turn begins.
fn end_turn(ctx: &mut Ctx<'_>) {
    if ctx.st.turn >= victory::LAST_TURN {
        victory::check_final(ctx);
    } else {
        let next = ctx.st.turn + 1;
        begin_turn(ctx, next);
    }
}

/// Whether a Chinese unit is anywhere on the map (for tests and reports).
pub fn chinese_on_map(scn: &Scenario, st: &State) -> bool {
    scn.counters
        .counters
        .iter()
        .any(|c| c.side == Side::Chinese && matches!(st.unit(c.id).loc, Loc::Map(_)))
}
