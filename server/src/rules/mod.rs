//! The rules of *Siege at Peking* as a pure, deterministic engine: no I/O, no clock, no global
//! randomness. The dice are a ChaCha generator seeded per game and carried in the state, so the
//! same seed and the same actions always give the same states, byte for byte.

pub mod hex;
pub mod map;
mod map_check;
