//! The referee's act: a foosball game on a simulated table under the bar rules (first to 5 with
//! a two-goal lead, a tie-break from 5, first to 7 or two ahead in it). The table's sensors play
//! a scripted comeback; the act prints every goal, phase change and ball-lock change, and the
//! winner.

use serde_json::{Value, json};

use super::Demo;
use crate::hosted::ServiceArgs;

const TABLE: &str = "demo-table";
/// The balls the simulated table's sensors see once the game starts: the lock side comes back
/// from 4–3 down and wins the tie-break 7–5.
const BALLS: &str = "hinge,lock,hinge,lock:inout,lock,hinge,hinge,lock,hinge,lock,lock,lock";
const RULES: &str = include_str!("../../../referee/examples/bar.rules.json");

/// The demo's referee: a simulated table with the scripted balls, read every 150 ms.
pub fn settings(args: &mut ServiceArgs) {
    let table = &mut args.referee.table;
    table.table_id = TABLE.into();
    table.sim_balls = Some(BALLS.into());
    table.poll_ms = 150;
}

fn score(payload: &Value) -> String {
    format!(
        "{}–{}",
        payload["score"]["hinge"].as_u64().unwrap_or(0),
        payload["score"]["lock"].as_u64().unwrap_or(0)
    )
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("?")
}

pub async fn act(demo: &Demo) -> anyhow::Result<()> {
    demo.act("referee: a foosball game on a simulated table, with a tie-break");
    let rules: Value = serde_json::from_str(RULES)?;
    let game = format!("demo-{}", uuid::Uuid::now_v7().simple());
    let mut tap = demo.tap("table.#").await?;
    demo.send(
        "table.game.start.v1",
        json!({"tableId": TABLE, "gameId": game, "rules": rules,
               "players": {"hinge": ["alice"], "lock": ["bob"]}}),
    )
    .await?;
    let mut tie_break = false;
    let mut goals = 0;
    loop {
        let event = tap.next().await?;
        let p = &event.payload;
        if p["gameId"] != game.as_str() {
            continue;
        }
        match event.message_type.as_str() {
            "table.game.started.v1" => demo.say(format!(
                "game {game} on table {TABLE}: alice (hinge) vs bob (lock), bar rules — first to 5 with a two-goal lead"
            )),
            "table.game.rejected.v1" => {
                anyhow::bail!("the referee refused the game: {}", text(&p["error"]))
            }
            "table.goal.scored.v1" => {
                goals += 1;
                demo.say(format!(
                    "  ball {:>2}: {:<5} {:<5} → {}  ({})",
                    p["ball"].as_u64().unwrap_or(0),
                    text(&p["side"]),
                    text(&p["kind"]),
                    score(p),
                    text(&p["phase"])
                ));
            }
            "table.phase.changed.v1" => {
                tie_break |= p["to"] == "tie_break";
                demo.say(format!(
                    "  phase {} → {} at {}",
                    text(&p["from"]),
                    text(&p["to"]),
                    score(p)
                ));
            }
            "table.ibr.changed.v1" => demo.say(format!(
                "  ball returns: hinge {}, lock {}",
                text(&p["hinge"]),
                text(&p["lock"])
            )),
            "table.game.finished.v1" => {
                demo.say(format!(
                    "winner: {} at {} in {} ({}), after {} balls and {:.1} s",
                    text(&p["winner"]),
                    score(p),
                    text(&p["phase"]),
                    text(&p["reason"]),
                    goals,
                    p["durationMs"].as_u64().unwrap_or(0) as f64 / 1000.0
                ));
                anyhow::ensure!(tie_break, "the game never went to the tie-break");
                anyhow::ensure!(
                    p["winner"] == "lock" && score(p) == "5–7",
                    "expected the lock side to win 7–5, got {} at {}",
                    text(&p["winner"]),
                    score(p)
                );
                return Ok(());
            }
            _ => {}
        }
    }
}
