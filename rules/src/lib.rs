//! The rules of *Siege at Peking* as a pure, deterministic engine: no I/O, no clock, no global
//! randomness. The dice are a ChaCha generator seeded per game and carried in the state, so the
//! same seed and the same actions always give the same states, byte for byte.
//!
//! The engine is built in five layers, each using only the ones below it (a test,
//! `tests/layers.rs`, fails if a `use` reaches up):
//!
//! 1. [`vocabulary`] — hex geometry, the map, terrain chart, counter mix, CRT and dice: the
//!    tables of the game, loaded from data files and checked at start-up.
//! 2. [`position`] — the state of a game and what can be read off it: the per-hex index, zones
//!    of control, line of sight, stacking, command control; and the context ([`position::ctx`])
//!    that every change is written into.
//! 3. [`mechanics`] — one file per rule that changes the position: movement, combat and its
//!    resolution, retreat, advance, step losses, the Big Gun, mines, fortifications, …
//! 4. [`sequence`] — the sequence of play: which step comes next, who decides it, the
//!    interruptions a result leaves, and the checks that follow every action.
//! 5. [`face`] — the game as the world sees it: [`Game`], the view, explanations of refusals, the
//!    analysis board, custom positions and the random player.
//!
//! Each rule lives in the file named after it; `docs/rules-reference.md` maps every section of
//! the rulebook and every ruling to its file and tests, and `docs/architecture.md` draws the
//! layers. The modules are also re-exported here by name (`siege_rules::combat`, …) so that
//! code outside the crate need not know which layer a rule sits in.

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctest;

pub mod face;
pub mod mechanics;
pub mod position;
pub mod sequence;
pub mod vocabulary;

pub use face::{analysis, custom, game, random, undo, view, warnings};
pub use mechanics::{
    advance, attrition, bayonet, big_gun, civilians, combat, defence, entry, fortifications,
    leaders, losses, mines, movement, recovery, replacements, report, resolution, retreat, ruins,
    setup, sniper, victory, withdrawal,
};
pub use position::pending;
pub use position::{
    action, combat_report, command, ctx, declaration, event, hex_index, los, stacking, state,
    state_form, state_hash, step_id, walls, zoc,
};
pub use sequence::{after_action, interruptions, play, steps};
pub use vocabulary::{crt, dice, error, hex, map, scenario, terrain, units};

pub use action::Action;
pub use error::RuleError;
pub use event::{Event, EventKind};
pub use game::Game;
pub use scenario::{Scenario, ScenarioError};
pub use state::{GameResult, State};
pub use state_hash::HashVersion;
pub use step_id::StepId;
pub use view::View;
