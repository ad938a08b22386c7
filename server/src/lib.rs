//! `siege`: the rules engine, game server and tools for *Siege at Peking*.
//!
//! The data path is one straight line: socket → game task → rules → store → broadcast.
//! [`rules`] is the pure core; everything else is the edge around it.

pub mod bot;
pub mod games;
pub mod map_svg;
pub mod replay;
pub mod rules;
pub mod server;
pub mod sim;
pub mod store;
