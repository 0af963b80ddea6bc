//! A team's car program on the bus: a built-in [`CarBot`] that plays the team's cars through
//! messages only. It consumes the team's queue `race.team.<team>` — bound to the `race.*` facts
//! a team may see ([`TEAM_FACTS`]: not its rivals' money and points), and where the master
//! sends the questions and the account addressed to the team, all in the order the master
//! published them — keeps its own state from the facts, answers each question
//! with `race.decision.made.v1` on the master's queue, and stops at `race.finished.v1`.
//!
//! At start the program asks the master for its cars' true state (`race.state.query.v1`) and
//! holds the questions that come before the report; from the report on it knows its cars (a
//! restarted program continues where the master is) and registers only the cars it lacks.
//!
//! [`CarProgram`] is the transport-free part (one message in, what to send out);
//! [`run_on_bus`] drives it on a [`Bus`] (the embedded one or RabbitMQ). `arcade car` also
//! drives it through the admin endpoint of `arcade run`.

use arcade_contracts::Message;
use arcade_contracts::race::{
    Answer, CarRegister, DecisionMade, DecisionRequested, Question, RaceFinished, StateQuery,
    StateReported, TEAM_FACTS, team_queue,
};
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::mapping::write;
use arcade_runtime::telemetry;
use arcade_runtime::{BusError, MappingError, Runtime, SendError, SubscriptionSpec};

use tracing::Instrument;

use crate::bots::CarBot;
use crate::duel_ai::DuelAdvisor;
use crate::mapping::RaceMessage;

/// The subscription of a team's car program: its durable queue `race.team.<team>`, bound to
/// the race facts a team may see ([`TEAM_FACTS`]); the master sends the team's questions and
/// its own account (`race.state.reported.v1`, `race.budget.reported.v1`) to the queue itself.
pub fn team_subscription(team: &str) -> SubscriptionSpec {
    SubscriptionSpec::durable(
        team_queue(team),
        TEAM_FACTS.iter().map(|t| t.to_string()).collect(),
    )
}

/// What a car program made of one message.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    /// Not a race message (nothing to do).
    Ignored,
    /// A fact of the race, taken in.
    Fact(RaceMessage),
    /// A question to one of the team's cars, and the answer to send.
    Question {
        /// The question.
        request: DecisionRequested,
        /// The answer.
        answer: DecisionMade,
    },
    /// A question already answered (a redelivery): not answered twice.
    Repeated(DecisionRequested),
    /// A question that came before the state report: answered once the report is in.
    Held(DecisionRequested),
    /// The team's true state, and the answers to the questions held until it came.
    Synced {
        /// The report.
        report: StateReported,
        /// The held questions and their answers.
        answers: Vec<(DecisionRequested, DecisionMade)>,
    },
    /// The race is over.
    Finished(RaceFinished),
}

impl Heard {
    /// The questions answered by it, with the answers to send.
    pub fn answers(&self) -> Vec<(&DecisionRequested, &DecisionMade)> {
        match self {
            Heard::Question { request, answer } => vec![(request, answer)],
            Heard::Synced { answers, .. } => answers.iter().map(|(q, a)| (q, a)).collect(),
            _ => Vec::new(),
        }
    }
}

/// The answer to send: `answer`, except that a duel answer is the `advisor`'s when there is
/// one (`arcade car --duel-ai`).
pub async fn advised(
    advisor: Option<&dyn DuelAdvisor>,
    request: &DecisionRequested,
    answer: &DecisionMade,
) -> DecisionMade {
    match (advisor, &request.question) {
        (Some(advisor), Question::DuelAnswer(question)) => DecisionMade {
            answer: Answer::DuelAnswer {
                cards: advisor.advise(question).await,
            },
            ..answer.clone()
        },
        _ => answer.clone(),
    }
}

/// A team's car program, without transport.
#[derive(Debug, Clone)]
pub struct CarProgram {
    bot: CarBot,
    last_answered: u64,
    synced: bool,
    held: Vec<DecisionRequested>,
}

impl CarProgram {
    /// The program playing `bot`'s team; it waits for its state report before answering.
    pub fn new(bot: CarBot) -> CarProgram {
        CarProgram {
            bot,
            last_answered: 0,
            synced: false,
            held: Vec::new(),
        }
    }

    /// The program playing `bot`'s team as if its state report were in (the simulation,
    /// where the bot sees every fact from the first one).
    pub fn synced(bot: CarBot) -> CarProgram {
        CarProgram {
            synced: true,
            ..CarProgram::new(bot)
        }
    }

    /// The question that starts it: its cars' true state.
    pub fn state_query(&self) -> StateQuery {
        StateQuery {
            team: self.team().to_string(),
            race_id: None,
        }
    }

    /// Whether its state report came.
    pub fn is_synced(&self) -> bool {
        self.synced
    }

    /// The registrations of the cars among `<team>-1`…`<team>-<cars>` that the master does not
    /// know yet (after the state report: a restarted program registers nothing twice).
    pub fn missing_registrations(&mut self, cars: usize) -> Vec<CarRegister> {
        let all = self.bot.registrations(cars);
        all.into_iter()
            .filter(|r| self.bot.view().car(&r.car).is_none())
            .collect()
    }

    fn answer(&mut self, request: DecisionRequested) -> Heard {
        // Decision ids grow through the race, so an id not above the last one answered is a
        // redelivery.
        if request.decision_id <= self.last_answered {
            return Heard::Repeated(request);
        }
        if !self.synced {
            self.held.push(request.clone());
            return Heard::Held(request);
        }
        self.last_answered = request.decision_id;
        let answer = self.bot.answer(&request);
        Heard::Question { request, answer }
    }

    /// The team.
    pub fn team(&self) -> &str {
        self.bot.view().team()
    }

    /// The bot, with what it believes.
    pub fn bot(&self) -> &CarBot {
        &self.bot
    }

    /// The registrations of its `cars` cars (`<team>-1`, `<team>-2`…).
    pub fn registrations(&mut self, cars: usize) -> Vec<CarRegister> {
        self.bot.registrations(cars)
    }

    /// Takes in one message of its queue.
    pub fn hear(
        &mut self,
        message_type: &str,
        payload: &serde_json::Value,
    ) -> Result<Heard, MappingError> {
        let Some(message) = RaceMessage::read(message_type, payload)? else {
            return Ok(Heard::Ignored);
        };
        Ok(match message {
            RaceMessage::DecisionRequested(request) => {
                if request.team != self.team() {
                    // Not ours (a misrouted copy): another team's cards are not our business.
                    return Ok(Heard::Ignored);
                }
                self.answer(request)
            }
            // A report naming a race answers someone's question about a race over, not ours.
            RaceMessage::StateReported(report)
                if report.team == self.team() && report.race_id.is_none() =>
            {
                self.bot
                    .observe(&RaceMessage::StateReported(report.clone()));
                let first = !self.synced;
                self.synced = true;
                let mut answers = Vec::new();
                for request in std::mem::take(&mut self.held) {
                    if let Heard::Question { request, answer } = self.answer(request) {
                        answers.push((request, answer));
                    }
                }
                if first || !answers.is_empty() {
                    Heard::Synced { report, answers }
                } else {
                    Heard::Fact(RaceMessage::StateReported(report))
                }
            }
            RaceMessage::RaceFinished(finished) => {
                self.bot
                    .observe(&RaceMessage::RaceFinished(finished.clone()));
                Heard::Finished(finished)
            }
            fact => {
                self.bot.observe(&fact);
                Heard::Fact(fact)
            }
        })
    }
}

/// Why a car program stopped before the race's end.
#[derive(Debug, thiserror::Error)]
pub enum CarError {
    /// The bus failed.
    #[error("car program of team {team}: {source}")]
    Bus {
        /// The team.
        team: String,
        /// What failed.
        #[source]
        source: BusError,
    },
    /// A registration or an answer could not be sent.
    #[error("car program of team {team}: {source}")]
    Send {
        /// The team.
        team: String,
        /// What failed.
        #[source]
        source: SendError,
    },
    /// A registration, query or answer could not be written as JSON.
    #[error("car program of team {team}: {source}")]
    Unwritable {
        /// The team.
        team: String,
        /// What failed.
        #[source]
        source: MappingError,
    },
}

/// Plays `program`'s team on `runtime`'s bus: subscribes to the team's queue, asks for its
/// cars' true state, registers those of its `cars` cars the master does not know, answers every
/// question (a duel answer from `advisor` when there is one), and returns the race's final
/// facts. `on` sees each message as the program understood it (to print a story).
pub async fn run_on_bus(
    runtime: &Runtime,
    mut program: CarProgram,
    cars: usize,
    advisor: Option<&dyn DuelAdvisor>,
    mut on: impl FnMut(&Heard),
) -> Result<RaceFinished, CarError> {
    let team = program.team().to_string();
    let producer = format!("car.{team}");
    let bus_error = |source| CarError::Bus {
        team: team.clone(),
        source,
    };
    let send_error = |source| CarError::Send {
        team: team.clone(),
        source,
    };
    let mut consumer = runtime
        .bus()
        .subscribe(&team_subscription(&team))
        .await
        .map_err(bus_error)?;
    let unwritable = |source| CarError::Unwritable {
        team: team.clone(),
        source,
    };
    let query = write(&program.state_query()).map_err(unwritable)?;
    runtime
        .send(StateQuery::TYPE, query, &producer)
        .await
        .map_err(send_error)?;
    loop {
        let delivery = consumer.next().await.map_err(bus_error)?;
        // The answers are sent in the question's trace.
        let span = heard_span(runtime, &delivery.message, &team, &producer);
        let envelope = lossy_envelope(&delivery.message);
        let heard = match program.hear(&envelope.message_type, &envelope.payload) {
            Ok(heard) => heard,
            Err(error) => {
                tracing::warn!(%team, %error, "a message the car program cannot read");
                Heard::Ignored
            }
        };
        on(&heard);
        for (request, answer) in heard.answers() {
            let answer = advised(advisor, request, answer).await;
            let payload = write(&answer).map_err(unwritable)?;
            runtime
                .send(DecisionMade::TYPE, payload, &producer)
                .instrument(span.clone())
                .await
                .map_err(send_error)?;
        }
        if matches!(heard, Heard::Synced { .. }) {
            for registration in program.missing_registrations(cars) {
                let payload = write(&registration).map_err(unwritable)?;
                runtime
                    .send(CarRegister::TYPE, payload, &producer)
                    .instrument(span.clone())
                    .await
                    .map_err(send_error)?;
            }
        }
        delivery.ack().await.map_err(bus_error)?;
        if let Heard::Finished(finished) = heard {
            return Ok(finished);
        }
    }
}

/// The consumer span `process <type>` of a message the team's program handles, child of the
/// context it came with: the answers it sends are published in it.
fn heard_span(
    runtime: &Runtime,
    message: &arcade_runtime::WireMessage,
    team: &str,
    producer: &str,
) -> tracing::Span {
    let message_type = message.message_type.as_deref().unwrap_or_default();
    let queue = team_queue(team);
    let command = runtime
        .catalog()
        .get(message_type)
        .is_some_and(|entry| entry.kind == arcade_contracts::MessageKind::Command);
    let bus = runtime.bus();
    let (destination, routing_key) = if command {
        (bus.commands_exchange(), queue.as_str())
    } else {
        (bus.events_exchange(), message_type)
    };
    telemetry::process_span(&telemetry::Consumed {
        message: telemetry::Message {
            system: telemetry::spans::messaging_system(bus.name()),
            destination,
            routing_key,
            message_id: message.message_id.as_deref().unwrap_or_default(),
            correlation_id: message.correlation_id.as_deref().unwrap_or_default(),
            service: producer,
            parent: message.traceparent.as_deref(),
        },
        queue: &queue,
        message_type,
    })
}

#[cfg(test)]
mod tests;
