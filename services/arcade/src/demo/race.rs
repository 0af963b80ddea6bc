//! The race master's act: three teams of built-in cars (cautious, aggressive, random), each its
//! own program on the demo's bus, play a short race. Printed: each turn's moves and events, a
//! summary of each duel's transcript, and the final standings.

use std::collections::BTreeMap;

use arcade_contracts::race::{
    CarRegistered, DuelResolved, FinishReason, RaceFinished, RaceStart, team_queue,
};
use arcade_contracts::{Envelope, Message};
use arcade_race_master::bots::{CarBot, Strategy};
use arcade_race_master::car::{CarProgram, run_on_bus};
use arcade_race_master::mapping::RaceMessage;

use super::Demo;

/// The demo race's seed (the service runs with it, see `demo::settings`): secret until
/// `race.finished.v1` reveals it. Distinctive digits, so that a grep for it finds only it
/// (the secrets test looks for it in everything the demo leaves).
pub const SEED: u64 = 9_046_201_173_350_218_411;

/// The car programs' own seed: they do not know the race's (cars that knew it could foresee the
/// draws).
const CAR_SEED: u64 = 2026;

const TEAMS: [(&str, Strategy); 3] = [
    ("red", Strategy::Cautious),
    ("blue", Strategy::Aggressive),
    ("green", Strategy::Random),
];
const CARS: usize = 2;
const TURNS: u32 = 8;

pub async fn act(demo: &Demo) -> anyhow::Result<()> {
    demo.act("race: three car programs race through the bus only");
    let mut tap = demo.tap("race.#").await?;
    let mut programs = Vec::new();
    for (number, (team, strategy)) in TEAMS.into_iter().enumerate() {
        let runtime = demo.runtime.clone();
        let bot = CarBot::new(team, strategy, CAR_SEED, number as u32);
        programs.push(tokio::spawn(async move {
            run_on_bus(&runtime, CarProgram::new(bot), CARS, None, |_| {}).await
        }));
        demo.say(format!(
            "team {team} ({strategy:?}) plays from queue {}",
            team_queue(team)
        ));
    }
    let mut registered = 0;
    while registered < TEAMS.len() * CARS {
        let envelope = tap.until(CarRegistered::TYPE, |_| true).await?;
        let car: CarRegistered = serde_json::from_value(envelope.payload)?;
        demo.say(format!(
            "  {} registered: {}P {}E {}W for ${}",
            car.car, car.modules.pilots, car.modules.engines, car.modules.weapons, car.price
        ));
        registered += 1;
    }
    let start = RaceStart {
        turns: Some(TURNS),
        duration_ms: None,
        turn_interval_ms: Some(50),
        decision_timeout_ms: Some(5_000),
        distribution: None,
    };
    demo.send(RaceStart::TYPE, serde_json::to_value(&start)?)
        .await?;
    demo.say(format!(
        "race.start.v1: {TURNS} turns, 5 s to answer each question"
    ));
    let finished = follow(demo, &mut tap).await?;
    for program in programs {
        let seen = program.await??;
        if seen != finished {
            anyhow::bail!("a car program saw another end of the race than the spectators");
        }
    }
    Ok(())
}

/// Prints the race as a spectator sees it, until `race.finished.v1`.
async fn follow(demo: &Demo, tap: &mut super::Tap) -> anyhow::Result<RaceFinished> {
    let mut moves: BTreeMap<String, String> = BTreeMap::new();
    loop {
        let envelope: Envelope = tap.next().await?;
        let Some(message) = RaceMessage::read(&envelope.message_type, &envelope.payload)? else {
            continue;
        };
        match message {
            RaceMessage::TurnStarted(m) => demo.say(format!("turn {}", m.turn)),
            RaceMessage::CarMoved(m) => {
                moves.insert(m.car, format!("{}→{}", m.from, m.to));
            }
            RaceMessage::EventDrawn(m) => {
                if let Some(line) = moves.remove(&m.car) {
                    demo.say(format!("  {:<8} {line:<9} {:?}", m.car, m.event));
                }
            }
            RaceMessage::CarStopped(m) => demo.say(format!("  {} stopped: {:?}", m.car, m.reason)),
            RaceMessage::PenaltyGiven(m) => demo.say(format!(
                "  {} penalised ({:?}): {} turn(s) to miss",
                m.car, m.reason, m.turns_to_miss
            )),
            RaceMessage::AchievementAwarded(m) => demo.say(format!(
                "  achievement {:?} for team {} ({})",
                m.achievement, m.team, m.car
            )),
            RaceMessage::DuelResolved(duel) => demo.say(duel_summary(&duel)),
            RaceMessage::StandingsUpdated(m) => {
                let line: Vec<String> = m
                    .standings
                    .iter()
                    .map(|s| format!("{} {}", s.team, s.points))
                    .collect();
                demo.say(format!(
                    "  standings after turn {}: {}",
                    m.turn,
                    line.join(", ")
                ));
            }
            RaceMessage::RaceFinished(finished) => {
                let why = match finished.reason {
                    FinishReason::Turns => "its turns are played",
                    FinishReason::Duration => "its time ran out",
                };
                demo.say(format!(
                    "race over after turn {} ({why}); seed revealed: {}",
                    finished.turn, finished.seed
                ));
                for bonus in &finished.bonuses {
                    demo.say(format!(
                        "  bonus {:?} (+{}): {}",
                        bonus.kind,
                        bonus.points,
                        bonus.teams.join(", ")
                    ));
                }
                for s in &finished.standings {
                    demo.say(format!(
                        "  #{} {:<6} {:>3} points (distance {}, achievements {}, bonuses {}), {} squares, ${} left",
                        s.rank,
                        s.team,
                        s.points,
                        s.distance_points,
                        s.achievement_points,
                        s.bonus_points,
                        s.distance,
                        s.budget
                    ));
                }
                if finished.turn != TURNS || finished.standings.len() != TEAMS.len() {
                    anyhow::bail!(
                        "the race ended after turn {} with {} teams, expected {TURNS} and {}",
                        finished.turn,
                        finished.standings.len(),
                        TEAMS.len()
                    );
                }
                return Ok(finished);
            }
            _ => {}
        }
    }
}

/// One line of a duel's transcript: who fought whom with how many weapons, who started, how
/// many answers were played, and who won and why.
fn duel_summary(duel: &DuelResolved) -> String {
    let name = |i: usize| {
        duel.fighters
            .get(i)
            .map(|f| {
                format!(
                    "{} ({}W)",
                    f.car.clone().unwrap_or_else(|| f.team.clone()),
                    f.weapons
                )
            })
            .unwrap_or_default()
    };
    let winner = match duel.winner {
        Some(w) => format!("{} wins", name(usize::from(w))),
        None => "draw".to_string(),
    };
    format!(
        "  duel {}: {} vs {}; {} starts; deck {:?}…; {} answers; {winner} ({:?})",
        duel.duel_id,
        name(0),
        name(1),
        name(usize::from(duel.first_player)),
        &duel.deck[..duel.deck.len().min(6)],
        duel.steps.len(),
        duel.reason
    )
}
