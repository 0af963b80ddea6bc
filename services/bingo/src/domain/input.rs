//! What the bingo decider reacts to: the organiser's and players' requests, members' gestures
//! (recorded and undone), and other services' events a game maps to gestures.

use serde_json::Value;

use arcade_contracts::Message;
use arcade_contracts::activity::ActivityUndone;
use arcade_contracts::bingo::VerifyCard;
use arcade_contracts::bingo::{
    CallSquare, ClaimCard, CloseGame, DealCard, DrawSquare, OpenGame, PrintCards,
};

use super::config::GameSpec;
use super::pool::SquareId;
use super::sources::Gesture;

/// One input of the decider.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A request addressed to the bingo service.
    Command(Command),
    /// `activity.recorded.v1`: a gesture, for every open activity game where the member holds
    /// a card.
    Recorded(Gesture),
    /// `activity.undone.v1`: a gesture undone (by its idempotency key).
    Undone(ActivityUndone),
    /// Another service's event, which the games that map its type count as a gesture.
    Foreign {
        /// Its message type.
        message_type: String,
        /// Its payload.
        payload: Value,
        /// Its message id: the gesture's idempotency key.
        message_id: String,
    },
}

/// A request: which game, what to do, and the sender's optional id for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The sender's own id for the request, echoed in the answer.
    pub request_id: Option<String>,
    /// The game.
    pub game_id: String,
    /// What to do.
    pub action: Action,
}

/// What a request asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Open the game.
    Open(GameSpec),
    /// Deal the player their card.
    Deal {
        /// The player.
        player: String,
    },
    /// Print a batch of cards no player owns.
    Print {
        /// How many.
        count: u32,
    },
    /// Call a square.
    Call {
        /// The square.
        square: SquareId,
    },
    /// Draw the next square, from the game's secret draw order, and call it.
    Draw,
    /// A player claims their card.
    Claim {
        /// The card.
        serial: u32,
        /// The claiming player.
        player: String,
    },
    /// The organiser verifies a card by serial, or a printed card by label too.
    Verify {
        /// The card.
        serial: u32,
        /// The printed label, for `verifyLabel`.
        label: Option<String>,
    },
    /// Close the game.
    Close,
}

impl Action {
    /// The message type of the request, as a rejection names it.
    pub fn request_type(&self) -> &'static str {
        match self {
            Action::Open(_) => OpenGame::TYPE,
            Action::Deal { .. } => DealCard::TYPE,
            Action::Print { .. } => PrintCards::TYPE,
            Action::Call { .. } => CallSquare::TYPE,
            Action::Draw => DrawSquare::TYPE,
            Action::Claim { .. } => ClaimCard::TYPE,
            Action::Verify { .. } => VerifyCard::TYPE,
            Action::Close => CloseGame::TYPE,
        }
    }
}

impl Input {
    /// The game an input is about, when it names one (for the runtime's correlation).
    pub fn game_id(&self) -> Option<&str> {
        match self {
            Input::Command(command) => Some(&command.game_id),
            _ => None,
        }
    }
}
