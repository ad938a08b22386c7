//! The game's face: [`game::Game`] (new, legal actions, apply, view, state hash), the view for
//! players and spectators, explanations of refused actions, the analysis board, custom
//! positions, and the random player used by simulations and tests.

pub mod analysis;
pub mod custom;
mod explain;
pub mod game;
pub mod random;
#[cfg(test)]
pub(crate) mod testkit;
pub mod view;
