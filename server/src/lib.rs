//! `siege`: the rules engine, game server and tools for *Siege at Peking*.
//!
//! The data path is one straight line: socket → game task → rules → store → broadcast.
//! The rules are the pure core in their own crate, `siege-rules` (re-exported here as
//! [`rules`]); everything in this crate is the edge around it.

pub mod accounts;
pub mod analysis;
pub mod arena;
pub mod audit;
pub mod games;
pub mod load;
pub mod map_svg;
pub mod notify;
pub mod observe;
pub mod probe;
pub mod replay;
pub mod server;
pub mod sim;
pub mod store;
pub mod tables;
pub mod transcript;

pub use siege_rules as rules;
