//! The contract messages the bingo service consumes, as decider inputs.

use arcade_contracts::activity::{ActivityRecorded, ActivityUndone};
use arcade_contracts::bingo as wire;

use super::spec::spec_in;
use crate::domain::{Action, Command, Gesture, Input};

arcade_runtime::mapping! {
    /// A message the bingo service always consumes: its commands and `activity.*`. It also
    /// consumes the types its open games map ([`crate::State::mapped_message_types`]), read as
    /// [`Input::Foreign`].
    #[derive(Debug, Clone, PartialEq)]
    pub enum Incoming for Input, of "the bingo service" {
        /// `bingo.game.open.v1`
        OpenGame(wire::OpenGame),
        /// `bingo.card.deal.v1`
        DealCard(wire::DealCard),
        /// `bingo.cards.print.v1`
        PrintCards(wire::PrintCards),
        /// `bingo.square.call.v1`
        CallSquare(wire::CallSquare),
        /// `bingo.square.draw.v1`
        DrawSquare(wire::DrawSquare),
        /// `bingo.card.claim.v1`
        ClaimCard(wire::ClaimCard),
        /// `bingo.card.verify.v1`
        VerifyCard(wire::VerifyCard),
        /// `bingo.game.close.v1`
        CloseGame(wire::CloseGame),
        /// `activity.recorded.v1`
        Recorded(ActivityRecorded),
        /// `activity.undone.v1`
        Undone(ActivityUndone),
    }
}

/// `From<wire::Type> for Input` for each command: its action, from the message `m`, and the
/// request id and game every command carries.
macro_rules! commands {
    ($($contract:ident($m:ident) => $action:expr;)+) => {$(
        impl From<wire::$contract> for Input {
            fn from($m: wire::$contract) -> Input {
                let action = $action;
                Input::Command(Command {
                    request_id: $m.request_id,
                    game_id: $m.game_id,
                    action,
                })
            }
        }
    )+};
}

commands! {
    OpenGame(m) =>
        Action::Open(spec_in(m.tick_mode, &m.grid, &m.pool, &m.patterns, &m.activity_sources));
    DealCard(m) => Action::Deal { player: m.player };
    PrintCards(m) => Action::Print { count: m.count };
    CallSquare(m) => Action::Call { square: m.square_id };
    DrawSquare(m) => Action::Draw;
    ClaimCard(m) => Action::Claim { serial: m.serial, player: m.player };
    VerifyCard(m) => Action::Verify { serial: m.serial, label: m.label };
    CloseGame(m) => Action::Close;
}

impl From<ActivityRecorded> for Input {
    fn from(m: ActivityRecorded) -> Input {
        Input::Recorded(Gesture {
            entry_id: m.entry_id,
            member: m.member,
            verb: m.verb,
            object: m.object,
        })
    }
}

impl From<ActivityUndone> for Input {
    fn from(m: ActivityUndone) -> Input {
        Input::Undone {
            entry_id: m.entry_id,
        }
    }
}
