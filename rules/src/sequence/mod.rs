//! The sequence of play (4, 20, 22): the steps of a turn in order with who decides each
//! ([`steps`]), playing them ([`play`]), the interruptions a result leaves — step losses,
//! retreats, advances … ([`interruptions`]) — and the checks that follow every action whatever
//! caused it ([`after_action`]).

pub mod after_action;
pub mod interruptions;
pub mod play;
pub mod steps;
