//! The vocabulary of the game: hexes and their geometry (1.2), the map (R1, R2), the terrain
//! chart (R3), the counter mix (2, 5.2, R5), the Combat Results Table (8.2, R4) and the dice.
//! Tables are data files under `rules/scenario/`, loaded and validated together as a
//! [`scenario::Scenario`]; nothing here knows about a game in progress.

pub mod crt;
pub mod deployment;
pub mod dice;
pub mod error;
pub mod hex;
pub mod map;
mod map_check;
pub mod scenario;
pub mod terrain;
pub mod units;
