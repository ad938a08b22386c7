//! The hard player: the normal player's planners run with a few different settings give
//! candidate plans for the step at hand (an aggressive and a cautious attack plan, assaults
//! spread or concentrated, a defence that counts the Chinese reach more or less heavily,
//! standing fast); each candidate is played out to the same point of the next turn with the
//! normal player on both sides and the dice re-drawn from the bot's own seed — never the game's
//! dice, which would be knowing the future — and the end position scored by the evaluation
//! ([`crate::eval`]). Playouts go to the most promising candidates first (UCB1, a one-level
//! Monte Carlo tree search over plans); more playouts, a better estimate. With a node budget
//! the choice depends only on the position and the seed.

use crate::intent::{Intent, PlanItem};
use crate::know::{MapInfo, Pos};
use crate::{Bot, Budget, Level, Style, eval, normal_plan};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siege_protocol::Side;
use siege_rules::action::Action;
use siege_rules::dice::Dice;
use siege_rules::game::Game;
use siege_rules::hex::Hex;
use siege_rules::scenario::Scenario;
use siege_rules::state::{Loc, Step};
use std::sync::Arc;
use std::time::Instant;

/// Most actions one playout may take before it is cut off and scored.
const PLAYOUT_ACTIONS: u32 = 4000;

/// What the search needs besides the position: the scenario to rebuild games with re-drawn
/// dice, and the map facts the playout bots share.
pub struct Searcher {
    pub scn: Arc<Scenario>,
    pub info: Arc<MapInfo>,
}

/// The settings tried at a step, the normal one first. An empty list: the step is not searched.
fn styles(p: &Pos<'_>, side: Side) -> Vec<Style> {
    let normal = Style::normal(side);
    let st = p.st;
    let searched = match &st.step {
        Step::Move { group: None } => true,
        Step::Combat => st.declaration.is_none(),
        Step::Bayonet { group: None } | Step::Withdrawal => true,
        Step::AlliedSetup { .. } => !p
            .scn
            .counters
            .counters
            .iter()
            .any(|c| c.side == Side::Allied && st.unit(c.id).loc == Loc::Unplaced),
        _ => false,
    };
    if !searched {
        return Vec::new();
    }
    match (&st.step, side) {
        (Step::Move { .. }, Side::Chinese) => vec![
            normal,
            Style {
                assault_ratio: 3,
                ..normal
            },
            Style {
                assault_ratio: 7,
                assault_bar: 0.1,
                ..normal
            },
        ],
        (Step::Move { .. }, Side::Allied) => vec![
            normal,
            Style {
                threat_share: 35,
                ..normal
            },
            Style {
                threat_share: 100,
                ..normal
            },
            Style {
                stay: true,
                ..normal
            },
        ],
        (Step::Combat, _) => vec![
            normal,
            Style {
                attack_bar: -1.0,
                ..normal
            },
            Style {
                attack_bar: 50.0,
                ..normal
            },
        ],
        _ => vec![
            normal,
            Style {
                stay: true,
                ..normal
            },
        ],
    }
}

/// The hard player's plan for the current step, and the playouts it cost.
#[allow(clippy::too_many_arguments)]
pub fn plan(
    searcher: &Searcher,
    game: &Game,
    p: &Pos<'_>,
    side: Side,
    legal: &[Action],
    skip: &[Hex],
    seed: u64,
    nodes: u32,
    deadline: Option<Instant>,
) -> (Vec<PlanItem>, u32) {
    let info = &searcher.info;
    let tried = styles(p, side);
    let normal = || normal_plan(p, info, side, legal, skip, &Style::normal(side));
    if tried.is_empty() || nodes == 0 {
        return (normal(), 0);
    }
    // Distinct candidate plans.
    let mut candidates: Vec<Vec<PlanItem>> = Vec::new();
    for style in &tried {
        let plan = normal_plan(p, info, side, legal, skip, style);
        let same = |c: &Vec<PlanItem>| {
            c.len() == plan.len() && c.iter().zip(&plan).all(|(a, b)| a.intent == b.intent)
        };
        if !candidates.iter().any(same) {
            candidates.push(plan);
        }
    }
    if candidates.len() == 1 {
        return (candidates.remove(0), 0);
    }
    // The search's own dice: from the bot's seed and where the game stands, never the game's.
    let st = game.state();
    let mix = (u64::from(st.turn) << 40)
        ^ ((st.phase() as u64) << 32)
        ^ (st.units.iter().filter(|u| u.marks.defended).count() as u64) << 16
        ^ (st.units.iter().filter(|u| u.marks.moved).count() as u64);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ mix.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut total = vec![0.0f64; candidates.len()];
    let mut count = vec![0u32; candidates.len()];
    let mut run = 0u32;
    while run < nodes {
        if let Some(d) = deadline
            && Instant::now() >= d
            && run >= candidates.len() as u32
        {
            break;
        }
        // Every candidate once, then UCB1.
        let k = if (run as usize) < candidates.len() {
            run as usize
        } else {
            let ln = f64::from(run).ln();
            (0..candidates.len())
                .max_by(|a, b| {
                    let ucb = |i: usize| {
                        total[i] / f64::from(count[i]) + 0.7 * (ln / f64::from(count[i])).sqrt()
                    };
                    ucb(*a).total_cmp(&ucb(*b)).then(b.cmp(a))
                })
                .unwrap_or(0)
        };
        let mut dice = [0u8; 32];
        rng.fill(&mut dice);
        let playout_seed: u64 = rng.random();
        total[k] += playout(searcher, game, side, &candidates[k], dice, playout_seed);
        count[k] += 1;
        run += 1;
    }
    let best = (0..candidates.len())
        .filter(|i| count[*i] > 0)
        .max_by(|a, b| {
            (total[*a] / f64::from(count[*a]))
                .total_cmp(&(total[*b] / f64::from(count[*b])))
                .then(b.cmp(a))
        })
        .unwrap_or(0);
    let mut chosen = candidates.swap_remove(best);
    if let Some(first) = chosen.first_mut() {
        let mean = total[best] / f64::from(count[best].max(1));
        first.text = format!(
            "{} [{:.0}% in {} playouts]",
            first.text,
            100.0 * mean,
            count[best]
        );
    }
    if chosen.is_empty() {
        chosen = vec![PlanItem::new(
            Intent::Step {
                action: if legal.contains(&Action::Pass) {
                    Action::Pass
                } else {
                    Action::EndPhase
                },
            },
            "Stand fast".into(),
        )];
    }
    (chosen, run)
}

/// Play `plan` out, then the rest of the turn and the next with the normal player on both
/// sides, on dice drawn from `dice`; `side`'s winning chance at the end as the evaluation sees
/// it.
fn playout(
    searcher: &Searcher,
    game: &Game,
    side: Side,
    plan: &[PlanItem],
    dice: [u8; 32],
    seed: u64,
) -> f64 {
    let mut st = game.state().clone();
    st.dice = Dice::from_seed(dice);
    let mut g = Game::from_state(searcher.scn.clone(), st);
    let start_turn = g.state().turn;
    let start_phase = g.state().phase();
    let mut mine = Bot::playout(
        Level::Normal,
        seed,
        searcher.info.clone(),
        &g,
        plan.to_vec(),
    );
    let mut theirs = Bot::playout(
        Level::Normal,
        seed ^ 1,
        searcher.info.clone(),
        &g,
        Vec::new(),
    );
    let mut n = 0;
    while g.result().is_none() && n < PLAYOUT_ACTIONS {
        let st = g.state();
        if st.turn > start_turn && st.phase() == start_phase {
            break;
        }
        let Some(to_act) = g.to_act() else { break };
        let bot = if to_act == side {
            &mut mine
        } else {
            &mut theirs
        };
        let Some(d) = bot.decide(&g, to_act, Budget::Nodes(0)) else {
            break;
        };
        if g.apply(to_act, &d.action).is_err() {
            break;
        }
        n += 1;
    }
    let p = Pos::new(g.scenario(), g.state());
    let reach = p.chinese_reach(&searcher.info);
    let allied = eval::allied_chance(&p, &searcher.info, Some(&reach));
    if side == Side::Allied {
        allied
    } else {
        1.0 - allied
    }
}
