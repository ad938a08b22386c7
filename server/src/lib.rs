//! `siege`: the rules engine, game server and tools for *Siege at Peking*.
//!
//! The data path is one straight line: socket → game task → rules → store → broadcast.
//! [`rules`] is the pure core; everything else is the edge around it.

pub mod bot;
pub mod map_svg;
pub mod rules;
pub mod sim;
