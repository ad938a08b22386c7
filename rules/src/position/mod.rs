//! The position: the changing state of a game ([`state::State`]) and everything read off it —
//! the per-hex index of occupants and zones of control, zones of control (6), line of sight
//! (8.5), the walls as they stand (17, 18.4), stacking (7) and command control (11.2) — plus
//! the vocabulary of decisions ([`action::Action`]), of what happened ([`event::Event`]), the
//! context every change is written into ([`ctx::Ctx`]), and the state's fingerprint
//! ([`state_hash`]).

pub mod action;
pub mod combat_report;
pub mod command;
pub mod ctx;
pub mod declaration;
pub mod event;
pub mod hex_index;
pub mod los;
pub mod pending;
pub mod stacking;
pub mod state;
pub mod state_form;
pub mod state_hash;
pub mod step_id;
pub mod walls;
pub mod zoc;
