//! The race master as a running service: the thin shell around [`RaceMaster`] that the runtime
//! hosts. It consumes the commands on its queue `race-master` (`race.start.v1`,
//! `race.distribution.set.v1`, `race.car.register.v1`, `race.budget.query.v1`,
//! `race.state.query.v1`, `race.budget.grant.v1`, `race.hint.publish.v1`,
//! `race.decision.made.v1`), publishes every fact on the topic and each question and a team's
//! own account (`race.state.reported.v1`, `race.budget.reported.v1`) to its team's queue
//! `race.team.<team>`, and is woken by the runtime's clock at [`RaceMaster::next_deadline`]
//! (answer deadlines, turn starts, the race's end). Its state is a fold of its own log. A
//! team's queue is declared before the team's first registration or account is published.
//!
//! Who may command it: a registration, an answer, a budget or state query for team T only
//! from the sender `race-team-T` or an operator principal; starting the race, setting the
//! distribution, granting budget and publishing a hint only from an operator. Anything else is refused (dead-
//! lettered with the reason, counted): the sender is the principal the transport vouches for
//! (the admin endpoint's bearer token, RabbitMQ's `user_id`), never a payload field.

use arcade_contracts::principal::{Operators, race_team};
use arcade_contracts::race::{BudgetReported, CarRegistered, RACE_MASTER_QUEUE, StateReported};
use arcade_contracts::{Envelope, Message};
use arcade_runtime::{
    Context, Decided, Decider, Decoded, MappingError, Outbound, Service, ServiceSpec,
    SubscriptionSpec,
};

use crate::car::team_subscription;

use crate::domain::{Event, Input, RaceMaster, RaceState, Rejection};
use crate::mapping::{self, RaceMessage};

/// The instance name of the race master (its data directory and the producer of its events).
pub const SERVICE_NAME: &str = "race-master";

/// Every event of the race belongs to one flow: the race.
const FLOW: &str = "race";

/// The race master hosted on the runtime.
#[derive(Debug, Clone)]
pub struct RaceService {
    master: RaceMaster,
    operators: Operators,
}

impl RaceService {
    /// A race master drawing from `seed` (restart it with the same seed: a master with another
    /// seed refuses every command of a race already started).
    pub fn new(seed: u64) -> RaceService {
        RaceService {
            master: RaceMaster::new(seed),
            operators: Operators::default(),
        }
    }

    /// Treats exactly `operators` as the operator's principals (default: `operator`,
    /// `arcade-admin`).
    pub fn with_operators(mut self, operators: Operators) -> RaceService {
        self.operators = operators;
        self
    }

    /// The rules it applies.
    pub fn master(&self) -> &RaceMaster {
        &self.master
    }
}

/// Whether `sender` may send `message`: a team's own commands from the team or an operator,
/// the race's settings from an operator only. The refusal names the sender and the team.
fn authorize(
    operators: &Operators,
    sender: Option<&str>,
    message: &RaceMessage,
) -> Result<(), MappingError> {
    let team = match message {
        RaceMessage::CarRegister(m) => &m.team,
        RaceMessage::DecisionMade(m) => &m.team,
        RaceMessage::BudgetQuery(m) => &m.team,
        RaceMessage::StateQuery(m) => &m.team,
        RaceMessage::RaceStart(_)
        | RaceMessage::DistributionSet(_)
        | RaceMessage::HintPublish(_)
        | RaceMessage::BudgetGrant(_) => {
            return if operators.contains(sender) {
                Ok(())
            } else {
                Err(MappingError::refused(
                    message.message_type(),
                    format_args!(
                        "sender {} is not an operator: only an operator may send {}",
                        sender.unwrap_or("(none)"),
                        message.message_type()
                    ),
                ))
            };
        }
        _ => return Ok(()),
    };
    if operators.may_act_for(sender, &race_team(team)) {
        Ok(())
    } else {
        Err(MappingError::refused(
            message.message_type(),
            format_args!(
                "sender {} may not act for team {team}: only race-team-{team} or an operator",
                sender.unwrap_or("(none)")
            ),
        ))
    }
}

impl Decider for RaceService {
    type State = RaceState;
    type Input = Input;
    type Event = Event;
    type Rejection = Rejection;

    fn decide(&self, state: &RaceState, input: &Input, ctx: &Context) -> Decided<Self> {
        self.master.decide(state, input, ctx.now_ms)
    }

    fn evolve(state: &mut RaceState, event: &Event) {
        RaceMaster::evolve(state, event);
    }

    fn next_deadline(&self, state: &RaceState) -> Option<u64> {
        self.master.next_deadline(state)
    }
}

impl Service for RaceService {
    fn spec(&self) -> ServiceSpec {
        ServiceSpec::new(SERVICE_NAME, RACE_MASTER_QUEUE, Vec::new())
    }

    fn input(&self, envelope: &Envelope) -> Result<Decoded<Input>, MappingError> {
        let message = RaceMessage::decode(&envelope.message_type, &envelope.payload)?;
        authorize(&self.operators, envelope.sender.as_deref(), &message)?;
        mapping::input(&message).map(Decoded::Input)
    }

    fn tick(&self, _now_ms: u64) -> Option<Input> {
        Some(Input::Tick)
    }

    fn refusal(&self, input: &Input, rejection: &Rejection) -> Vec<Event> {
        self.master.refusal(input, rejection)
    }

    fn encode(&self, event: &Event) -> Result<Outbound, MappingError> {
        mapping::encode(event).outbound()
    }

    fn decode(&self, envelope: &Envelope) -> Result<Event, MappingError> {
        mapping::decode(&RaceMessage::decode(
            &envelope.message_type,
            &envelope.payload,
        )?)
    }

    /// A team's queue `race.team.<team>` (bound to the facts a team may see) is declared
    /// before the team's registration or its account goes out, so the team's facts wait there
    /// from then on, whenever its car program subscribes.
    fn queue_before(&self, envelope: &Envelope) -> Option<SubscriptionSpec> {
        let told = [
            CarRegistered::TYPE,
            StateReported::TYPE,
            BudgetReported::TYPE,
        ];
        if !told.contains(&envelope.message_type.as_str()) {
            return None;
        }
        let team = envelope.payload.get("team")?.as_str()?;
        Some(team_subscription(team))
    }

    fn flow_of_event(&self, _event: &Event) -> Option<String> {
        Some(FLOW.to_string())
    }

    fn flow_of_input(&self, _input: &Input) -> Option<String> {
        Some(FLOW.to_string())
    }

    /// Snapshots in the format of `crate::snapshot` (no seed in it: the state holds none).
    fn snapshots(&self) -> Option<arcade_runtime::Codec<RaceState>> {
        Some(arcade_runtime::Codec::of::<Self>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arcade_contracts::race::{Achievement, HintPublish};

    #[test]
    fn only_an_operator_publishes_a_hint_the_consoles_broker_user_included() {
        let hint = RaceMessage::HintPublish(HintPublish {
            achievement: Achievement::MadMax,
        });
        let operators = Operators::default();
        for sender in ["operator", "arcade-admin", "console"] {
            assert_eq!(
                authorize(&operators, Some(sender), &hint),
                Ok(()),
                "{sender}"
            );
        }
        let refused = authorize(&operators, Some("race-team-red"), &hint).unwrap_err();
        assert!(
            refused.to_string().contains("race.hint.publish.v1"),
            "{refused}"
        );
        assert!(authorize(&operators, None, &hint).is_err());
        let strict = Operators::new(["operator".to_string()]);
        assert!(
            authorize(&strict, Some("console"), &hint).is_err(),
            "ARCADE_OPERATOR_PRINCIPALS without it: the console is not an operator"
        );
    }
}
