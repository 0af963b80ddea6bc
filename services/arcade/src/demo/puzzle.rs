//! The puzzle telemetry act: the bot plays a few hundred real Strata Relay sessions, each
//! published as `game.session.completed.v1`; the telemetry records them, publishes its
//! statistics, and flags a session that cannot have happened.

use std::collections::HashSet;

use arcade_contracts::Message;
use arcade_contracts::game::GameSessionCompleted;
use arcade_contracts::puzzle::{SessionFlagged, SessionRecorded, StatsUpdated};
use arcade_puzzle_telemetry::cli::render_stats_table;
use arcade_puzzle_telemetry::domain::bot::Simulator;
use serde_json::json;

use super::Demo;

/// Sessions the bot plays.
const SESSIONS: usize = 300;

pub async fn act(demo: &Demo) -> anyhow::Result<()> {
    demo.act("puzzle telemetry: Strata Relay sessions become statistics");
    let mut tap = demo.tap("puzzle.#").await?;
    let mut simulator = Simulator::new(2026);
    let sessions: Vec<GameSessionCompleted> =
        (0..SESSIONS).map(|_| simulator.session(None)).collect();
    let (won, failed) = sessions.iter().fold((0, 0), |(w, f), s| match s.outcome {
        arcade_contracts::game::Outcome::Won => (w + 1, f),
        arcade_contracts::game::Outcome::Failed => (w, f + 1),
        arcade_contracts::game::Outcome::Abandoned => (w, f),
    });
    for session in &sessions {
        demo.send(GameSessionCompleted::TYPE, serde_json::to_value(session)?)
            .await?;
    }
    demo.say(format!(
        "the bot played {SESSIONS} sessions across the five stages ({won} won, {failed} failed, {} abandoned) and published one {} each",
        SESSIONS - won - failed,
        GameSessionCompleted::TYPE
    ));

    let mut waiting: HashSet<&str> = sessions.iter().map(|s| s.game_id.as_str()).collect();
    let mut flagged = 0;
    while !waiting.is_empty() {
        let envelope = tap.next().await?;
        let game_id = envelope.payload["gameId"].as_str().unwrap_or_default();
        let is_flagged = envelope.message_type == SessionFlagged::TYPE;
        if (is_flagged || envelope.message_type == SessionRecorded::TYPE) && waiting.remove(game_id)
        {
            flagged += usize::from(is_flagged);
        }
    }
    if flagged > 0 {
        anyhow::bail!("{flagged} of the bot's sessions were flagged: the bot breaks the rules");
    }
    demo.say(format!(
        "telemetry validated each against the puzzle its seed generates: {SESSIONS} recorded, none flagged"
    ));
    // The statistics count every session recorded: the contract act's one too.
    let everything = SESSIONS as u64 + 1;
    let stats = tap
        .until(StatsUpdated::TYPE, |p| {
            p["sessions"].as_u64().is_some_and(|n| n >= everything)
        })
        .await?;
    let stats: StatsUpdated = serde_json::from_value(stats.payload)?;
    demo.say(format!(
        "{} came with the per-stage statistics of all {} sessions recorded (these {SESSIONS} and the contract act's one):\n",
        StatsUpdated::TYPE,
        stats.sessions
    ));
    demo.say(render_stats_table(&stats).trim_end());

    let forged = json!({
        "gameId": "demo-impossible", "seed": 77, "stage": 2,
        "outcome": "won", "turns": 9, "durationMs": 4000
    });
    demo.say(format!(
        "\na client claims a stage-2 win in 9 turns (seed 77): {forged}"
    ));
    demo.send(GameSessionCompleted::TYPE, forged).await?;
    let flag = tap
        .until(SessionFlagged::TYPE, |p| p["gameId"] == "demo-impossible")
        .await?;
    let flag: SessionFlagged = serde_json::from_value(flag.payload)?;
    demo.say(format!(
        "{}: {} — {} (kept out of the statistics)",
        SessionFlagged::TYPE,
        serde_json::to_value(flag.reason)?,
        flag.detail
    ));
    Ok(())
}
