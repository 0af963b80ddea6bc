//! The contract messages the bingo service consumes, as decider inputs.

use arcade_contracts::activity::{ActivityRecorded, ActivityUndone};
use arcade_contracts::bingo as contract;

use super::spec::spec_in;
use crate::domain::{Action, Command, Input};

arcade_runtime::mapping! {
    /// A message the bingo service always consumes: its commands and `activity.*`. It also
    /// consumes the types its open games map ([`crate::State::mapped_message_types`]), read as
    /// [`Input::Foreign`].
    #[derive(Debug, Clone, PartialEq)]
    pub enum Incoming, of "the bingo service" {
        /// `bingo.game.open.v1`
        OpenGame(contract::OpenGame),
        /// `bingo.card.deal.v1`
        DealCard(contract::DealCard),
        /// `bingo.cards.print.v1`
        PrintCards(contract::PrintCards),
        /// `bingo.square.call.v1`
        CallSquare(contract::CallSquare),
        /// `bingo.square.draw.v1`
        DrawSquare(contract::DrawSquare),
        /// `bingo.card.claim.v1`
        ClaimCard(contract::ClaimCard),
        /// `bingo.card.verify.v1`
        VerifyCard(contract::VerifyCard),
        /// `bingo.game.close.v1`
        CloseGame(contract::CloseGame),
        /// `activity.recorded.v1`
        Recorded(ActivityRecorded),
        /// `activity.undone.v1`
        Undone(ActivityUndone),
    }
}

impl From<Incoming> for Input {
    fn from(message: Incoming) -> Input {
        let (request_id, game_id, action) = match message {
            Incoming::OpenGame(m) => {
                let (sources, patterns) = (&m.activity_sources, &m.patterns);
                let spec = spec_in(m.tick_mode, &m.grid, &m.pool, patterns, sources);
                (m.request_id, m.game_id, Action::Open(spec))
            }
            Incoming::DealCard(m) => (m.request_id, m.game_id, Action::Deal { player: m.player }),
            Incoming::PrintCards(m) => (m.request_id, m.game_id, Action::Print { count: m.count }),
            Incoming::CallSquare(m) => {
                let square = m.square_id;
                (m.request_id, m.game_id, Action::Call { square })
            }
            Incoming::DrawSquare(m) => (m.request_id, m.game_id, Action::Draw),
            Incoming::ClaimCard(m) => {
                let (serial, player) = (m.serial, m.player);
                (m.request_id, m.game_id, Action::Claim { serial, player })
            }
            Incoming::VerifyCard(m) => {
                let (serial, label) = (m.serial, m.label);
                (m.request_id, m.game_id, Action::Verify { serial, label })
            }
            Incoming::CloseGame(m) => (m.request_id, m.game_id, Action::Close),
            Incoming::Recorded(m) => return Input::Recorded(m),
            Incoming::Undone(m) => return Input::Undone(m),
        };
        Input::Command(Command {
            request_id,
            game_id,
            action,
        })
    }
}
