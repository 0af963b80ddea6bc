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
    pub enum Incoming, of "the bingo service" {
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

impl From<Incoming> for Input {
    fn from(message: Incoming) -> Input {
        let (request_id, game_id, action) = match message {
            Incoming::OpenGame(m) => {
                let spec = spec_in(
                    m.tick_mode,
                    &m.grid,
                    &m.pool,
                    &m.patterns,
                    &m.activity_sources,
                );
                (m.request_id, m.game_id, Action::Open(spec))
            }
            Incoming::DealCard(m) => (m.request_id, m.game_id, Action::Deal { player: m.player }),
            Incoming::PrintCards(m) => (m.request_id, m.game_id, Action::Print { count: m.count }),
            Incoming::CallSquare(m) => (
                m.request_id,
                m.game_id,
                Action::Call {
                    square: m.square_id,
                },
            ),
            Incoming::DrawSquare(m) => (m.request_id, m.game_id, Action::Draw),
            Incoming::ClaimCard(m) => {
                let action = Action::Claim {
                    serial: m.serial,
                    player: m.player,
                };
                (m.request_id, m.game_id, action)
            }
            Incoming::VerifyCard(m) => {
                let action = Action::Verify {
                    serial: m.serial,
                    label: m.label,
                };
                (m.request_id, m.game_id, action)
            }
            Incoming::CloseGame(m) => (m.request_id, m.game_id, Action::Close),
            Incoming::Recorded(m) => {
                let (entry_id, member, verb, object) = (m.entry_id, m.member, m.verb, m.object);
                return Input::Recorded(Gesture {
                    entry_id,
                    member,
                    verb,
                    object,
                });
            }
            Incoming::Undone(m) => {
                return Input::Undone {
                    entry_id: m.entry_id,
                };
            }
        };
        Input::Command(Command {
            request_id,
            game_id,
            action,
        })
    }
}
