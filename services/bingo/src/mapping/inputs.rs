//! The contract messages the bingo service consumes, as decider inputs.

use arcade_contracts::activity::{ActivityRecorded, ActivityUndone};
use arcade_contracts::bingo as wire;

use super::spec::spec_in;
use crate::domain::{Action, Command, Gesture, Input};

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
