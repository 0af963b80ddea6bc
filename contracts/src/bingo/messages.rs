//! What makes each bingo contract type a message: its kind, its versioned type name, where it
//! goes (a command to the bingo queue, an event on the topic) and its example payload (the
//! requests' here, the facts' from [`examples`](super::examples)); and the list of them all.

use super::QUEUE;
use super::commands::{
    CallSquare, ClaimCard, CloseGame, DealCard, OpenGame, PrintCards, VerifyCard,
};
use super::events::{
    CardDealt, CardWon, CardsPrinted, ClaimAnswered, GameClosed, GameOpened, GestureUndone,
    RequestRejected, SquareCalled, SquareTicked,
};
use super::examples;
use crate::Route;

messages! {
    Command OpenGame: "bingo.game.open.v1"
        to |_| Route::Queue(QUEUE.to_string()) => examples::open_game();
    Command DealCard: "bingo.card.deal.v1"
        to |_| Route::Queue(QUEUE.to_string()) => DealCard {
        request_id: Some("req-17".into()),
        game_id: "friday-quiz".into(),
        player: "alice".into(),
    };
    Command PrintCards: "bingo.cards.print.v1"
        to |_| Route::Queue(QUEUE.to_string()) => PrintCards {
        request_id: None,
        game_id: "friday-quiz".into(),
        count: 50
    };
    Command CallSquare: "bingo.square.call.v1"
        to |_| Route::Queue(QUEUE.to_string()) => CallSquare {
        request_id: None,
        game_id: "friday-quiz".into(),
        square_id: 42
    };
    Command ClaimCard: "bingo.card.claim.v1"
        to |_| Route::Queue(QUEUE.to_string()) => ClaimCard {
        request_id: Some("req-18".into()),
        game_id: "friday-quiz".into(),
        serial: 3,
        player: "alice".into(),
    };
    Command VerifyCard: "bingo.card.verify.v1"
        to |_| Route::Queue(QUEUE.to_string()) => VerifyCard {
        request_id: None,
        game_id: "friday-quiz".into(),
        serial: 12,
        label: Some("3f2a-9c01-77be-4d10".into()),
    };
    Command CloseGame: "bingo.game.close.v1"
        to |_| Route::Queue(QUEUE.to_string()) => CloseGame {
        request_id: None,
        game_id: "friday-quiz".into()
    };
    Event GameOpened: "bingo.game.opened.v1" => examples::game_opened();
    Event CardDealt: "bingo.card.dealt.v1" => examples::card_dealt();
    Event CardsPrinted: "bingo.cards.printed.v1" => examples::cards_printed();
    Event SquareCalled: "bingo.square.called.v1" => examples::square_called();
    Event SquareTicked: "bingo.square.ticked.v1" => examples::square_ticked();
    Event GestureUndone: "bingo.gesture.undone.v1" => examples::gesture_undone();
    Event ClaimAnswered: "bingo.claim.answered.v1" => examples::claim_answered();
    Event CardWon: "bingo.card.won.v1" => examples::card_won();
    Event GameClosed: "bingo.game.closed.v1" => examples::game_closed();
    Event RequestRejected: "bingo.request.rejected.v1" => examples::request_rejected();
}
