//! What makes each bingo fact a message: its versioned type name and its example payload (from
//! [`examples`](super::examples), one story); and the list of them. The requests are messages
//! where they are declared, in [`commands`](super::commands).

use super::events::{
    CardDealt, CardWon, CardsPrinted, ClaimAnswered, GameClosed, GameOpened, GestureUndone,
    RequestRejected, SquareCalled, SquareTicked,
};
use super::examples;

messages! {
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
