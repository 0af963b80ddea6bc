//! The pure referee: no I/O, no clock, no randomness. Time comes in as values.
//!
//! - [`terms`]: sides, ball kinds, phases, scores and ball-lock states.
//! - [`rules`]: the JSON rules document, parsed and checked once into a compact program.
//! - [`game`]: the game itself (one ball, the timeout, the winner, the IBR decision).
//! - [`referee`]: the decider hosted by the runtime (inputs, events, state, rejections).

pub mod game;
pub mod referee;
pub mod rules;
pub mod terms;

pub use game::Play;
pub use referee::{
    AbortGame, AbortRefusal, BallSeen, Event, FinishReason, GameRefusal, GameState, GoalReport,
    Input, Players, Referee, Rejection, ReportRefusal, StartGame, StartRefusal, TableState,
};
pub use rules::{Conditions, RuleRef, Rules, RulesError};
pub use terms::{BallKind, Ibr, IbrLock, Phase, Score, Side};
