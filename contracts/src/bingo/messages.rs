//! What makes each bingo contract type a message: its versioned type name, its kind, where it
//! goes (a command to the bingo queue, an event on the topic) and its example payload (the
//! requests' here, the facts' from [`examples`](super::examples)).

use super::QUEUE;
use super::commands::{
    CallSquare, ClaimCard, CloseGame, DealCard, OpenGame, PrintCards, VerifyCard,
};
use super::events::{
    CardDealt, CardWon, CardsPrinted, ClaimAnswered, GameClosed, GameOpened, GestureUndone,
    RequestRejected, SquareCalled, SquareTicked,
};
use super::examples;
use crate::{Message, MessageKind, Route};

macro_rules! command {
    ($type:ty, $name:literal, $example:expr) => {
        impl Message for $type {
            const TYPE: &'static str = $name;
            const KIND: MessageKind = MessageKind::Command;
            fn example() -> Self {
                $example
            }
            fn route(&self) -> Route {
                Route::Queue(QUEUE.to_string())
            }
        }
    };
}

command!(OpenGame, "bingo.game.open.v1", examples::open_game());
command!(
    DealCard,
    "bingo.card.deal.v1",
    DealCard {
        request_id: Some("req-17".into()),
        game_id: "friday-quiz".into(),
        player: "alice".into(),
    }
);
command!(
    PrintCards,
    "bingo.cards.print.v1",
    PrintCards {
        request_id: None,
        game_id: "friday-quiz".into(),
        count: 50
    }
);
command!(
    CallSquare,
    "bingo.square.call.v1",
    CallSquare {
        request_id: None,
        game_id: "friday-quiz".into(),
        square_id: 42
    }
);
command!(
    ClaimCard,
    "bingo.card.claim.v1",
    ClaimCard {
        request_id: Some("req-18".into()),
        game_id: "friday-quiz".into(),
        serial: 3,
        player: "alice".into(),
    }
);
command!(
    VerifyCard,
    "bingo.card.verify.v1",
    VerifyCard {
        request_id: None,
        game_id: "friday-quiz".into(),
        serial: 12,
        label: Some("3f2a-9c01-77be-4d10".into()),
    }
);
command!(
    CloseGame,
    "bingo.game.close.v1",
    CloseGame {
        request_id: None,
        game_id: "friday-quiz".into()
    }
);

macro_rules! event {
    ($type:ty, $name:literal, $example:expr) => {
        impl Message for $type {
            const TYPE: &'static str = $name;
            const KIND: MessageKind = MessageKind::Event;
            fn example() -> Self {
                $example
            }
        }
    };
}

event!(GameOpened, "bingo.game.opened.v1", examples::game_opened());
event!(CardDealt, "bingo.card.dealt.v1", examples::card_dealt());
event!(
    CardsPrinted,
    "bingo.cards.printed.v1",
    examples::cards_printed()
);
event!(
    SquareCalled,
    "bingo.square.called.v1",
    examples::square_called()
);
event!(
    SquareTicked,
    "bingo.square.ticked.v1",
    examples::square_ticked()
);
event!(
    GestureUndone,
    "bingo.gesture.undone.v1",
    examples::gesture_undone()
);
event!(
    ClaimAnswered,
    "bingo.claim.answered.v1",
    examples::claim_answered()
);
event!(CardWon, "bingo.card.won.v1", examples::card_won());
event!(GameClosed, "bingo.game.closed.v1", examples::game_closed());
event!(
    RequestRejected,
    "bingo.request.rejected.v1",
    examples::request_rejected()
);
