//! `arcade car --team T --strategy cautious|aggressive|random`: a car program that plays a
//! team's cars through the bus only. It registers the team's cars, keeps its own state from the
//! race's facts, answers every decision request (reporting its state truthfully) and exits with
//! the final standings when the race is over.
//!
//! At start it asks the master for its cars' true state (`race.state.query.v1`), so a restarted
//! program continues where the master is and registers only the cars the master lacks. With
//! `--duel-ai URL` each duel answer comes from the team's HTTP fighting AI, asked as the
//! original master did (see `tools::duel_ai`).
//!
//! Over RabbitMQ (`--amqp`) it consumes the team's queue `race.team.<team>` itself; over the
//! embedded transport it reaches `arcade run` through the admin endpoint: the team's queue as
//! a stream (`GET /race/teams/{team}/stream`) and `POST /messages/{type}` to register and answer.
//! Every answer is published in a producer span, child of the question's trace context.

use std::process::ExitCode;

use arcade_contracts::Message;
use arcade_contracts::race::{CarRegister, DecisionMade, Question, RaceFinished, StateQuery};
use arcade_race_master::bots::{CarBot, Strategy};
use arcade_race_master::car::{CarProgram, Heard, advised, run_on_bus};
use arcade_race_master::domain::decide::valid_name;
use arcade_race_master::duel_ai::DuelAdvisor;
use arcade_race_master::mapping::RaceMessage;
use arcade_runtime::Runtime;
use serde_json::Value;

use super::duel_ai::HttpDuelAi;
use crate::connection::{Connection, successful, tool_bus};
use crate::traced::Outgoing;
use tracing::Instrument;

/// `arcade car`.
#[derive(Debug, clap::Args)]
pub struct CarArgs {
    /// The team (its cars are `<team>-1`, `<team>-2`…): 1 to 32 of a-z, 0-9 and '-'.
    #[arg(long, env = "ARCADE_CAR_TEAM")]
    pub team: String,
    /// How the cars play.
    #[arg(long, value_enum, env = "ARCADE_CAR_STRATEGY")]
    pub strategy: Strategy,
    /// Cars to register (each of at most 10 modules; those over the budget are refused).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub cars: u32,
    /// Seed of the program's own random choices (the random strategy); absent: drawn at random.
    #[arg(long, value_name = "U64")]
    pub seed: Option<u64>,
    /// The team's fighting AI, asked for every duel answer as the original master did:
    /// `GET URL?yourmoves=[…]&othermoves=[…]&cards=[…]` → `{"res":[…]}`.
    #[arg(long = "duel-ai", value_name = "URL", env = "ARCADE_CAR_DUEL_AI")]
    pub duel_ai: Option<reqwest::Url>,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

pub async fn run(args: CarArgs) -> anyhow::Result<ExitCode> {
    if !valid_name(&args.team) {
        anyhow::bail!(
            "--team {:?}: a team name is 1 to 32 of a-z, 0-9 and '-', not starting with '-'",
            args.team
        );
    }
    let seed = args
        .seed
        .unwrap_or_else(|| uuid::Uuid::new_v4().as_u64_pair().0);
    let program = CarProgram::new(CarBot::new(&args.team, args.strategy, seed, 0));
    let team = args.team.clone();
    let advisor = args.duel_ai.clone().map(HttpDuelAi::new).transpose()?;
    let advisor = advisor.as_ref().map(|a| a as &dyn DuelAdvisor);
    let finished = match tool_bus(&args.connection.broker, "arcade car").await? {
        Some(bus) => {
            let runtime = Runtime::new(std::sync::Arc::new(bus));
            eprintln!("car program of team {team} on {}", runtime.bus().name());
            run_on_bus(&runtime, program, args.cars as usize, advisor, |heard| {
                print_story(&team, heard)
            })
            .await?
        }
        None => via_admin(&args, program, advisor).await?,
    };
    println!("{}", serde_json::to_string_pretty(&finished)?);
    Ok(ExitCode::SUCCESS)
}

/// One line on stderr for what concerns the team.
fn print_story(team: &str, heard: &Heard) {
    if let Some(line) = story(team, heard) {
        eprintln!("{line}");
    }
}

fn story(team: &str, heard: &Heard) -> Option<String> {
    match heard {
        Heard::Question { request, answer } => Some(format!(
            "turn {} · {} asked {} → {}",
            request.turn,
            request.car,
            question_name(&request.question),
            serde_json::to_string(&answer.answer).unwrap_or_default()
        )),
        Heard::Fact(RaceMessage::StateReported(m)) if m.team == team => Some(format!(
            "team {team}: {} car(s), ${} left, {} point(s)",
            m.cars.len(),
            m.budget,
            m.points
        )),
        Heard::Fact(RaceMessage::BudgetReported(m)) if m.team == team => Some(format!(
            "team {team}: ${} left, {} point(s)",
            m.budget, m.points
        )),
        Heard::Fact(RaceMessage::RegistrationRejected(m)) if m.team == team => {
            Some(format!("{} refused: {}", m.car, m.reason))
        }
        Heard::Fact(RaceMessage::TurnStarted(m)) => Some(format!("— turn {}", m.turn)),
        Heard::Fact(RaceMessage::PenaltyGiven(m)) if m.team == team => Some(format!(
            "{} penalised ({:?}): {} turn(s) to miss",
            m.car, m.reason, m.turns_to_miss
        )),
        Heard::Fact(RaceMessage::CarStopped(m)) if m.team == team => Some(format!(
            "{} stopped ({:?}) on square {}",
            m.car, m.reason, m.square
        )),
        Heard::Synced { report, answers } => Some(format!(
            "the master knows {} car(s) of team {team} (turn {}, ${}); {} held question(s) answered",
            report.cars.len(),
            report.turn,
            report.budget,
            answers.len()
        )),
        Heard::Fact(RaceMessage::HintPublished(m)) => {
            Some(format!("hint (turn {}) · {}: {}", m.turn, m.title, m.hint))
        }
        Heard::Finished(_) => Some("the race is over".into()),
        _ => None,
    }
}

fn question_name(question: &Question) -> &'static str {
    match question {
        Question::ShouldFight(_) => "fight?",
        Question::CrossMineField => "cross the mine field?",
        Question::ExploreWreck => "explore the wreck?",
        Question::BuyAtGarage(_) => "buy at the garage?",
        Question::DuelAnswer(_) => "duel answer",
        Question::ReportState => "report your state",
    }
}

/// Plays through the admin endpoint of `arcade run` (embedded transport).
pub(crate) async fn via_admin(
    args: &CarArgs,
    mut program: CarProgram,
    advisor: Option<&dyn DuelAdvisor>,
) -> anyhow::Result<RaceFinished> {
    let admin = args.connection.admin();
    let team = args.team.clone();
    let client = crate::auth::http_client(args.connection.token.as_deref());
    // Open the team's queue first, so the program sees its state report.
    let request = client.get(format!("http://{admin}/race/teams/{team}/stream"));
    let refused = |status| format!("{admin}: the team's stream: {status}");
    let mut stream = args.connection.answer(request, refused, "refused").await?;
    eprintln!("car program of team {team} through the admin endpoint at {admin}");
    // Each message in its producer span, child of the question's context when it answers one.
    let post = |message_type: &'static str, payload: Value, parent: Option<String>| {
        let client = client.clone();
        let producer = format!("car.{team}");
        async move {
            let id = uuid::Uuid::now_v7().to_string();
            let outgoing = Outgoing::new(message_type, &payload, &id, &producer, parent.as_deref());
            let request = client
                .post(format!("http://{admin}/messages/{message_type}"))
                .query(&[("producer", &producer)])
                .header("Idempotency-Key", &id)
                .json(&payload);
            let response = outgoing
                .carried(request)
                .send()
                .instrument(outgoing.span.clone())
                .await
                .map_err(|e| anyhow::anyhow!("{admin}: sending {message_type}: {e}"))?;
            let refused = |_| format!("{message_type} refused");
            successful(response, refused, "no reason given")
                .await
                .map(drop)
        }
    };
    post(
        StateQuery::TYPE,
        serde_json::to_value(program.state_query())?,
        None,
    )
    .await?;
    let mut pending = Vec::new();
    loop {
        let Some(chunk) = stream.chunk().await? else {
            anyhow::bail!("{admin}: the team's stream ended before the race did");
        };
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let envelope: Value = serde_json::from_slice(&line)
                .map_err(|e| anyhow::anyhow!("{admin}: a line of the stream is not JSON: {e}"))?;
            let message_type = envelope["type"].as_str().unwrap_or_default();
            let context = envelope["traceparent"].as_str().map(str::to_string);
            let heard = match program.hear(message_type, &envelope["payload"]) {
                Ok(heard) => heard,
                Err(e) => {
                    eprintln!("warning: cannot read a {message_type}: {e}");
                    continue;
                }
            };
            print_story(&team, &heard);
            for (request, answer) in heard.answers() {
                let answer = advised(advisor, request, answer).await;
                post(
                    DecisionMade::TYPE,
                    serde_json::to_value(&answer)?,
                    context.clone(),
                )
                .await?;
            }
            match heard {
                Heard::Synced { .. } => {
                    for registration in program.missing_registrations(args.cars as usize) {
                        let payload = serde_json::to_value(&registration)?;
                        post(CarRegister::TYPE, payload, context.clone()).await?;
                    }
                }
                Heard::Finished(finished) => return Ok(finished),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests;
