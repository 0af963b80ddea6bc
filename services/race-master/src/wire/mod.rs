//! The race master on the wire: each domain fact becomes one `race.*` contract message
//! ([`encode`]) and comes back from the log unchanged ([`decode`]); commands become inputs
//! ([`input`]). [`RaceMessage`] holds any message the master publishes, with its type, payload
//! and route, so hosts and built-in cars handle them without knowing every type.

mod account;
mod decode;
mod encode;
mod enums;
mod inputs;
mod steps;

use arcade_contracts::race as c;
use arcade_contracts::{Message, Route};
use serde::Serialize;
use serde_json::Value;

pub use decode::decode;
pub use encode::encode;
pub use inputs::{input, input_of_answer, input_of_register};

/// A payload that does not make a valid domain fact or input; names what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WireError(pub String);

macro_rules! race_messages {
    ($($variant:ident),+ $(,)?) => {
        /// Any message the race master publishes (or a car sends it).
        #[derive(Debug, Clone, PartialEq)]
        #[allow(missing_docs)] // each variant is its contract type
        pub enum RaceMessage {
            $($variant(c::$variant)),+
        }

        impl RaceMessage {
            /// Its versioned type.
            pub fn message_type(&self) -> &'static str {
                match self { $(RaceMessage::$variant(_) => <c::$variant as Message>::TYPE),+ }
            }

            /// Its JSON payload.
            pub fn payload(&self) -> Value {
                // A contract type is plain data: it always serializes.
                match self { $(RaceMessage::$variant(m) => serde_json::to_value(m).unwrap_or(Value::Null)),+ }
            }

            /// Where it is delivered: the topic, or a team's or the master's queue.
            pub fn route(&self) -> Route {
                match self { $(RaceMessage::$variant(m) => m.route()),+ }
            }

            /// Reads a payload of a `race.*` type; `Ok(None)` for a type that is not one.
            pub fn from_payload(message_type: &str, payload: &Value) -> Result<Option<RaceMessage>, WireError> {
                $(
                    if message_type == <c::$variant as Message>::TYPE {
                        return serde_json::from_value(payload.clone())
                            .map(|m| Some(RaceMessage::$variant(m)))
                            .map_err(|e| WireError(format!("{message_type}: {e}")));
                    }
                )+
                Ok(None)
            }
        }
    };
}

race_messages!(
    RaceStart,
    DistributionSet,
    CarRegister,
    BudgetQuery,
    StateQuery,
    BudgetGrant,
    HintPublish,
    StateReported,
    BudgetGranted,
    HintPublished,
    RaceStarted,
    DistributionChanged,
    CarRegistered,
    RegistrationRejected,
    CommandRejected,
    BudgetReported,
    TurnStarted,
    PhaseStarted,
    CarMoved,
    CarStopped,
    ModuleChanged,
    PenaltyGiven,
    EventDrawn,
    EventResolved,
    CombatPaired,
    CombatResolved,
    DuelStarted,
    DuelPlayed,
    DuelResolved,
    AchievementAwarded,
    StandingsUpdated,
    RaceFinished,
    DecisionRequested,
    DecisionMade,
    DecisionClosed,
);

#[derive(Serialize)]
struct Line<'a> {
    #[serde(rename = "type")]
    message_type: &'a str,
    payload: Value,
}

impl RaceMessage {
    /// One JSON line: `{"type":"race.…","payload":{…}}`.
    pub fn json_line(&self) -> String {
        let line = Line {
            message_type: self.message_type(),
            payload: self.payload(),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }
}
