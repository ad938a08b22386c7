//! The rules of *Siege at Peking* as a pure, deterministic engine: no I/O, no clock, no global
//! randomness. The dice are a ChaCha generator seeded per game and carried in the state, so the
//! same seed and the same actions always give the same states, byte for byte.
//!
//! Each rule lives in the file named after it; `docs/rules-reference.md` maps every section of
//! the rulebook and every ruling to its file and tests.

pub mod action;
pub mod advance;
pub mod analysis;
pub mod attrition;
pub mod bayonet;
pub mod big_gun;
pub mod board;
pub mod civilians;
pub mod combat;
pub mod command;
pub mod crt;
pub mod defence;
pub mod dice;
pub mod entry;
pub mod error;
pub mod event;
mod explain;
pub mod fortifications;
pub mod game;
pub mod hex;
pub mod leaders;
pub mod los;
pub mod map;
mod map_check;
pub mod mines;
pub mod movement;
pub mod pending;
pub mod phases;
pub mod position;
pub mod random;
pub mod recovery;
pub mod replacements;
pub mod report;
pub mod resolution;
pub mod retreat;
pub mod ruins;
pub mod scenario;
pub mod setup;
pub mod sniper;
pub mod stacking;
mod stacking_loss;
pub mod state;
pub mod state_hash;
pub mod steps;
pub mod terrain;
#[cfg(test)]
pub(crate) mod testkit;
pub mod units;
pub mod victory;
pub mod view;
pub mod withdrawal;
pub mod zoc;

pub use action::Action;
pub use error::RuleError;
pub use event::{Event, EventKind};
pub use game::Game;
pub use scenario::{Scenario, ScenarioError};
pub use state::{GameResult, State};
pub use state_hash::HashVersion;
pub use view::View;
