//! Computer players for *Siege at Peking*, on top of the rules engine and nothing else: no I/O,
//! and for a given seed and a node budget the same position always gets the same answer.
//!
//! A bot plans as a wargamer does — whole stack moves, whole attacks, a bayonet charge, where
//! the Big Guns fire — and carries each plan out in the engine's small steps, always choosing
//! from the legal list, so it can never be refused. Levels:
//! - `random`: the engine's weighted random player (`siege_rules::random`);
//! - `easy`: a short script of sensible priorities ([`easy`]);
//! - `normal`: evaluation and one-step lookahead over candidate plans per stack — odds and the
//!   CRT's expected outcome, threats to victory hexes, civilians and leaders ([`chinese`],
//!   [`allied`], [`attack`]);
//! - `hard`: the normal player's candidate plans weighed by Monte Carlo playouts of the rest of
//!   the turn with determinised dice, cut off by the evaluation ([`search`]); more time, more
//!   playouts, better choices.
//!
//! `docs/bots.md` describes how each level thinks and what the arena measured.

pub mod allied;
pub mod attack;
pub mod chinese;
pub mod choices;
pub mod easy;
pub mod eval;
pub mod intent;
pub mod know;
pub mod odds;
pub mod search;

use intent::{Next, PlanItem};
use know::{MapInfo, Pos};
use serde::{Deserialize, Serialize};
use siege_protocol::{Phase, Side};
use siege_rules::StepId;
use siege_rules::action::Action;
use siege_rules::game::Game;
use siege_rules::hex::Hex;
use siege_rules::play::step_name;
use siege_rules::scenario::Scenario;
use siege_rules::state::Step;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How strong a computer player is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Random,
    Easy,
    Normal,
    Hard,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Random, Level::Easy, Level::Normal, Level::Hard];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Random => "random",
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Hard => "hard",
        }
    }
}

impl FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Level, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| format!("no bot level `{s}`: random, easy, normal or hard"))
    }
}

/// How much thinking a decision may take. Only the hard level searches; the others answer at
/// once whatever the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// A fixed number of playouts per searched decision: the same answer every time (tests,
    /// the arena).
    Nodes(u32),
    /// Wall-clock time per searched decision, for live play: more time, more playouts, and
    /// answers that depend on the machine's speed.
    Time(Duration),
}

impl Budget {
    /// The budget the hard level uses unless told otherwise.
    pub const DEFAULT_NODES: Budget = Budget::Nodes(48);
}

/// A bot's answer: the action to send, the plan it belongs to, and how the bot rates its
/// side's chances.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    pub action: Action,
    /// What the bot means to do for the rest of this step, first item first.
    pub plan: Vec<PlanItem>,
    /// The bot's estimate of its own side's winning chance, 0 to 1.
    pub evaluation: f64,
    /// Playouts the search ran for this decision (0 below the hard level).
    pub nodes: u32,
}

/// The knobs of the normal player's planners. The normal level plays [`Style::normal`]; the
/// hard level weighs variants of it against each other by playouts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    /// An attack that risks adverse results is made only above this expected gain (8.2).
    pub attack_bar: f64,
    /// Chinese: strength gathered against a garrison, as a multiple of its defence (8.2).
    pub assault_ratio: u32,
    /// Chinese: the expected gain an assault must promise before units are sent to it.
    pub assault_bar: f64,
    /// Allies: the share, in percent, of the Chinese reach counted against each hex.
    pub threat_share: u32,
    /// Make no moves this step (keep the position, end the phase).
    pub stay: bool,
}

impl Style {
    /// The normal player's settings for `side`.
    pub fn normal(side: Side) -> Style {
        Style {
            attack_bar: if side == Side::Chinese { 0.15 } else { 0.6 },
            assault_ratio: 5,
            assault_bar: 0.4,
            threat_share: 70,
            stay: false,
        }
    }
}

/// What a bot remembers between decisions: the plan of the current step, attacks it gave up
/// on this phase, and how many actions it has taken in the step (a guard against loops).
#[derive(Clone, Debug, Default)]
struct Memory {
    key: Option<Key>,
    plan: Vec<PlanItem>,
    plans_made: u32,
    actions: u32,
    skip: Vec<(u8, Phase, Hex)>,
}

/// The step a plan was made for: a plan lives as long as its step.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    turn: u8,
    phase: Phase,
    step: String,
    /// Combats resolved so far this phase: every roll changes the picture.
    fought: usize,
}

impl Key {
    fn of(game: &Game) -> Key {
        let st = game.state();
        Key {
            turn: st.turn,
            phase: st.phase(),
            step: step_name(st),
            fought: st.units.iter().filter(|u| u.marks.defended).count(),
        }
    }
}

/// Most actions one step may take before the bot winds it up, whatever its plan says.
const STEP_ACTIONS: u32 = 600;

/// A computer player for one seat.
pub struct Bot {
    level: Level,
    seed: u64,
    random: siege_rules::random::Bot,
    info: Option<Arc<MapInfo>>,
    /// The scenario, for the hard level's playouts (games rebuilt with their own dice).
    scenario: Option<Arc<Scenario>>,
    memory: Memory,
}

impl Bot {
    /// A bot of `level` whose choices depend only on `seed` and the positions it is shown.
    pub fn new(level: Level, seed: u64) -> Bot {
        Bot {
            level,
            seed,
            random: siege_rules::random::Bot::new(seed, Vec::new()),
            info: None,
            scenario: None,
            memory: Memory::default(),
        }
    }

    /// A bot for a playout: it shares the map facts and starts out following `plan` for the
    /// step `game` stands at.
    pub(crate) fn playout(
        level: Level,
        seed: u64,
        info: Arc<MapInfo>,
        game: &Game,
        plan: Vec<PlanItem>,
    ) -> Bot {
        let mut bot = Bot::new(level, seed);
        bot.info = Some(info);
        if !plan.is_empty() {
            bot.memory = Memory {
                key: Some(Key::of(game)),
                plan,
                plans_made: 2,
                ..Memory::default()
            };
        }
        bot
    }

    /// The level.
    pub fn level(&self) -> Level {
        self.level
    }

    fn info(&mut self, scn: &Scenario) -> Arc<MapInfo> {
        if self.info.is_none() {
            self.info = Some(Arc::new(MapInfo::new(scn)));
            self.random = siege_rules::random::Bot::new(self.seed, scn.map.hospital().to_vec());
        }
        self.info
            .clone()
            .unwrap_or_else(|| Arc::new(MapInfo::new(scn)))
    }

    /// The bot's decision for `side` in `game`, or `None` when `side` is not to act.
    pub fn decide(&mut self, game: &Game, side: Side, budget: Budget) -> Option<Decision> {
        if game.to_act() != Some(side) {
            return None;
        }
        let legal = game.legal_actions(side);
        if legal.is_empty() {
            return None;
        }
        let info = self.info(game.scenario());
        if self.level == Level::Random {
            let action = self.random.choose(game, &legal)?.clone();
            return Some(Decision {
                action,
                plan: Vec::new(),
                evaluation: 0.5,
                nodes: 0,
            });
        }
        let key = Key::of(game);
        if self.memory.key.as_ref() != Some(&key) {
            let skip = std::mem::take(&mut self.memory.skip)
                .into_iter()
                .filter(|(t, ph, _)| *t == key.turn && *ph == key.phase)
                .collect();
            self.memory = Memory {
                key: Some(key),
                skip,
                ..Memory::default()
            };
        }
        self.memory.actions += 1;
        let (action, nodes) = self.choose(game, side, &legal, &info, budget);
        let p = Pos::new(game.scenario(), game.state());
        let allied = eval::allied_chance(&p, &info, None);
        Some(Decision {
            action,
            plan: self.memory.plan.clone(),
            evaluation: if side == Side::Allied {
                allied
            } else {
                1.0 - allied
            },
            nodes,
        })
    }

    fn choose(
        &mut self,
        game: &Game,
        side: Side,
        legal: &[Action],
        info: &MapInfo,
        budget: Budget,
    ) -> (Action, u32) {
        let st = game.state();
        if legal.len() == 1 {
            return (legal[0].clone(), 0);
        }
        let p = Pos::new(game.scenario(), st);
        if let Some(pending) = st.pending.first() {
            let a = choices::choose(&p, info, pending, legal);
            return (checked(a, legal), 0);
        }
        if self.memory.actions > STEP_ACTIONS {
            return (finish(st, legal), 0);
        }
        let persistent = matches!(
            st.step,
            Step::Move { .. } | Step::Entry { .. } | Step::AlliedSetup { .. }
        );
        let mut nodes = 0;
        for _ in 0..3 {
            if self.memory.plan.is_empty() {
                if persistent && self.memory.plans_made >= 3 {
                    break;
                }
                let (plan, n) = self.make_plan(game, &p, info, side, legal, budget);
                nodes += n;
                self.memory.plan = plan;
                self.memory.plans_made += 1;
                if self.memory.plan.is_empty() {
                    break;
                }
            }
            while let Some(item) = self.memory.plan.first() {
                match item.intent.next(st, legal) {
                    Next::Emit(a) => return (a, nodes),
                    Next::Last(a) => {
                        if a == Action::CancelAttack
                            && let intent::Intent::Attack { defenders, .. } = &item.intent
                        {
                            self.memory.skip.push((st.turn, st.phase(), defenders[0]));
                        }
                        self.memory.plan.remove(0);
                        if !persistent {
                            self.memory.plan.clear();
                        }
                        return (a, nodes);
                    }
                    Next::Done => {
                        self.memory.plan.remove(0);
                    }
                    Next::Stuck => {
                        if let intent::Intent::Attack { defenders, .. } = &item.intent {
                            self.memory.skip.push((st.turn, st.phase(), defenders[0]));
                        }
                        self.memory.plan.remove(0);
                        if let Some(a) = tidy(st, legal) {
                            return (a, nodes);
                        }
                    }
                }
            }
            if !persistent {
                self.memory.plan.clear();
            }
        }
        (finish(st, legal), nodes)
    }

    /// A fresh plan for the current step.
    fn make_plan(
        &mut self,
        game: &Game,
        p: &Pos<'_>,
        info: &MapInfo,
        side: Side,
        legal: &[Action],
        budget: Budget,
    ) -> (Vec<PlanItem>, u32) {
        match self.level {
            Level::Random => (Vec::new(), 0),
            Level::Easy => (easy::plan(p, info, side, legal), 0),
            Level::Normal => (
                normal_plan(
                    p,
                    info,
                    side,
                    legal,
                    &self.skip_now(p),
                    &Style::normal(side),
                ),
                0,
            ),
            Level::Hard => {
                let deadline = match budget {
                    Budget::Time(d) => Some(Instant::now() + d),
                    Budget::Nodes(_) => None,
                };
                let nodes = match budget {
                    Budget::Nodes(n) => n,
                    Budget::Time(_) => u32::MAX,
                };
                let scn = self
                    .scenario
                    .get_or_insert_with(|| Arc::new(game.scenario().clone()))
                    .clone();
                let searcher = search::Searcher {
                    scn,
                    info: self.info.clone().unwrap_or_else(|| Arc::new(info.clone())),
                };
                let skip = self.skip_now(p);
                let (plan, n) = search::plan(
                    &searcher, game, p, side, legal, &skip, self.seed, nodes, deadline,
                );
                if n > 0 {
                    // The chosen plan stands for the step: no normal re-planning on top of it.
                    self.memory.plans_made = self.memory.plans_made.max(2);
                }
                (plan, n)
            }
        }
    }

    fn skip_now(&self, p: &Pos<'_>) -> Vec<Hex> {
        self.memory
            .skip
            .iter()
            .filter(|(t, ph, _)| *t == p.st.turn && *ph == p.st.phase())
            .map(|(_, _, h)| *h)
            .collect()
    }
}

/// The normal player's plan for the current step (no interruption pending).
pub fn normal_plan(
    p: &Pos<'_>,
    info: &MapInfo,
    side: Side,
    legal: &[Action],
    skip: &[Hex],
    style: &Style,
) -> Vec<PlanItem> {
    let one = |x: Option<PlanItem>| x.into_iter().collect::<Vec<_>>();
    match p.st.slot {
        StepId::AlliedSetup => {
            let unplaced = p.scn.counters.counters.iter().any(|c| {
                c.side == Side::Allied && p.st.unit(c.id).loc == siege_rules::state::Loc::Unplaced
            });
            if unplaced {
                vec![PlanItem::new(
                    intent::Intent::Step {
                        action: Action::DeployDefault,
                    },
                    "Deploy as on 20 June 1900 (22)".into(),
                )]
            } else if style.stay {
                vec![PlanItem::new(
                    intent::Intent::Step {
                        action: Action::EndPhase,
                    },
                    "Keep the deployment of 20 June 1900 (22)".into(),
                )]
            } else {
                allied::plan_setup(p, info, style)
            }
        }
        StepId::ChineseSetup | StepId::ChineseEntry => chinese::entry(p, info),
        StepId::Recovery => one(allied::recovery(p, legal)),
        StepId::BigGunPlace => one(chinese::place_gun(p, info, legal)),
        StepId::BigGunFire => one(chinese::fire(p, info)),
        StepId::Mines => one(chinese::mine(p, info, legal)),
        StepId::Restore => one(chinese::restore(p, info, legal)),
        StepId::ChineseMove | StepId::Reaction | StepId::AlliedMove if style.stay => Vec::new(),
        StepId::ChineseMove => chinese::plan_move(p, info, style),
        StepId::Reaction | StepId::AlliedMove => allied::plan_move(p, info, style),
        StepId::Attrition => one(allied::attrition(p, info, legal)),
        StepId::Sniper => one(chinese::snipe(p, legal)),
        StepId::ChineseFortify => one(chinese::fortify(p, legal)),
        StepId::AlliedFortify => one(allied::fortify(p, legal)),
        StepId::Withdrawal if style.stay => Vec::new(),
        StepId::Withdrawal => one(allied::withdrawal(p, info, legal)),
        StepId::Bayonet if style.stay => Vec::new(),
        StepId::Bayonet => one(allied::bayonet(p, info, legal)),
        StepId::ChineseCombat | StepId::AlliedCombat => {
            attack::plan(p, info, side, style.attack_bar, skip)
                .iter()
                .map(|c| c.item(p))
                .collect()
        }
        StepId::LiftOff => one(chinese::lift(p, info, legal)),
        StepId::Over => Vec::new(),
    }
}

/// `a` if it is legal, else the step's way out.
fn checked(a: Option<Action>, legal: &[Action]) -> Action {
    match a {
        Some(a) if legal.contains(&a) => a,
        _ => legal[0].clone(),
    }
}

/// The action that undoes a half-made selection or declaration when its plan is stuck.
fn tidy(st: &siege_rules::state::State, legal: &[Action]) -> Option<Action> {
    let open = match &st.step {
        Step::Move { group: Some(_) } | Step::Bayonet { group: Some(_) } => true,
        Step::Combat => st.declaration.is_some(),
        Step::Entry { selected: Some(_) } => false,
        _ => false,
    };
    if !open {
        return None;
    }
    [Action::Stop, Action::CancelAttack, Action::Pass]
        .into_iter()
        .find(|a| legal.contains(a))
}

/// The way out of the current step: stop, cancel, end the phase or pass.
fn finish(st: &siege_rules::state::State, legal: &[Action]) -> Action {
    if let Some(a) = tidy(st, legal) {
        return a;
    }
    for a in [Action::EndPhase, Action::Pass, Action::Resolve] {
        if legal.contains(&a) {
            return a;
        }
    }
    legal[0].clone()
}

/// A one-off decision from a fresh bot: the same position, level, seed and node budget always
/// give the same answer.
pub fn decide(
    game: &Game,
    side: Side,
    level: Level,
    seed: u64,
    budget: Budget,
) -> Option<Decision> {
    Bot::new(level, seed).decide(game, side, budget)
}

/// What a bot of `level` would do for `side` in this position, as a plan, and how it rates
/// the position for that side — the engine hint of the analysis board.
#[derive(Clone, Debug, Serialize)]
pub struct Suggestion {
    pub side: Side,
    pub level: Level,
    /// The side whose decision it is; the plan is empty when it is not `side`.
    pub to_act: Option<Side>,
    pub plan: Vec<PlanItem>,
    /// The first action the bot would send.
    pub action: Option<Action>,
    /// `side`'s winning chance as the bot estimates it, 0 to 1.
    pub evaluation: f64,
}

/// The bot's plan and evaluation for `side` in `game`.
pub fn suggest(game: &Game, side: Side, level: Level, seed: u64, budget: Budget) -> Suggestion {
    let info = Arc::new(MapInfo::new(game.scenario()));
    let p = Pos::new(game.scenario(), game.state());
    let reach = p.chinese_reach(&info);
    let allied = eval::allied_chance(&p, &info, Some(&reach));
    let evaluation = if side == Side::Allied {
        allied
    } else {
        1.0 - allied
    };
    let mut bot = Bot::new(level, seed);
    bot.info = Some(info.clone());
    let mut plan = Vec::new();
    let mut action = None;
    if game.to_act() == Some(side) && level != Level::Random {
        let legal = game.legal_actions(side);
        if game.state().pending.is_empty() {
            let (p_plan, _) = bot.make_plan(game, &p, &info, side, &legal, budget);
            plan = p_plan;
        }
    }
    if let Some(d) = bot.decide(game, side, budget) {
        if plan.is_empty() {
            plan = vec![PlanItem::new(
                intent::Intent::Step {
                    action: d.action.clone(),
                },
                describe(game, &d.action),
            )];
        }
        action = Some(d.action);
    }
    Suggestion {
        side,
        level,
        to_act: game.to_act(),
        plan,
        action,
        evaluation,
    }
}

/// A single action in words, for a plan of one step.
fn describe(game: &Game, a: &Action) -> String {
    let name = |u: siege_rules::units::UnitId| game.scenario().counters.get(u).name.clone();
    match a {
        Action::EndPhase => "End the phase".into(),
        Action::Pass => "Pass".into(),
        Action::LoseStep { unit } => format!("{} take the step loss", name(*unit)),
        Action::Retreat { to } => format!("Retreat to {to}"),
        Action::StopRetreat => "End the retreat here".into(),
        Action::Advance { unit, to } => format!("{} advance into {to}", name(*unit)),
        Action::Resolve => "Roll the die".into(),
        other => other.kind().replace('_', " "),
    }
}
