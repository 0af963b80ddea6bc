//! The bingo acts of `arcade demo`: a called game (open, deal, print, calls, a claim that wins,
//! a claim refused, a printed card verified by its label) and an activity game (gestures tick,
//! an undo, a gesture that wins, and a goal of table 3 counted through the game's mapping).

use anyhow::{Context as _, bail};
use arcade_bingo::Secret;
use serde_json::{Value, json};

use super::{Demo, Tap};
use crate::hosted::bingo::BingoArgs;

/// The demo's bingo settings: a fixed secret (a real deployment keeps its own in
/// `ARCADE_BINGO_SECRET` or a file).
pub fn settings() -> BingoArgs {
    BingoArgs {
        secret: Secret::new(*b"arcade-demo-bingo-secret").ok(),
        ..BingoArgs::default()
    }
}

pub async fn act(demo: &Demo) -> anyhow::Result<()> {
    called(demo).await?;
    activity(demo).await
}

fn cells_of(card: &Value) -> anyhow::Result<Vec<Option<u64>>> {
    Ok(card["cells"]
        .as_array()
        .context("a dealt card has cells")?
        .iter()
        .map(Value::as_u64)
        .collect())
}

fn show(cells: &[Option<u64>], size: usize) -> String {
    cells
        .chunks(size)
        .map(|row| {
            row.iter()
                .map(|c| c.map_or(" **".to_string(), |s| format!("{s:>3}")))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" /")
}

/// Deals `player` a card of `game` (`size` × `size`) and says what it holds.
async fn deal(
    demo: &Demo,
    tap: &mut Tap,
    game: &str,
    player: &str,
    size: usize,
) -> anyhow::Result<(Value, Vec<Option<u64>>)> {
    demo.send(
        "bingo.card.deal.v1",
        json!({"gameId": game, "player": player}),
    )
    .await?;
    let dealt = tap
        .until("bingo.card.dealt.v1", |p| p["player"] == player)
        .await?
        .payload;
    let cells = cells_of(&dealt)?;
    demo.say(format!(
        "dealt {player} card #{}: {}",
        dealt["serial"],
        show(&cells, size)
    ));
    Ok((dealt, cells))
}

/// Opens the game `open` describes, and says `story` once the service has opened it.
async fn open_game(demo: &Demo, tap: &mut Tap, open: Value, story: &str) -> anyhow::Result<()> {
    let game_id = open["gameId"].clone();
    demo.send("bingo.game.open.v1", open).await?;
    tap.until("bingo.game.opened.v1", |p| p["gameId"] == game_id)
        .await?;
    demo.say(story);
    Ok(())
}

async fn rejected(tap: &mut Tap, request_type: &str) -> anyhow::Result<Value> {
    Ok(tap
        .until("bingo.request.rejected.v1", |p| {
            p["requestType"] == request_type
        })
        .await?
        .payload)
}

async fn called(demo: &Demo) -> anyhow::Result<()> {
    demo.act("bingo: a called game — the organiser calls, players claim");
    let mut tap = demo.tap("bingo.#").await?;
    let pool: Vec<Value> = (1..=75)
        .map(|id| json!({"id": id, "label": format!("{}{id}", b"BINGO"[(id as usize - 1) / 15] as char)}))
        .collect();
    let open = json!({
        "gameId": "demo-quiz", "tickMode": "called", "grid": {"size": 5},
        "pool": pool, "patterns": [{"kind": "line"}, {"kind": "fullCard"}],
    });
    open_game(
        demo,
        &mut tap,
        open,
        "opened demo-quiz: 5×5 cards from 75 squares, won by a line or a full card",
    )
    .await?;

    let mut cards = Vec::new();
    for player in ["alice", "bob"] {
        let (dealt, cells) = deal(demo, &mut tap, "demo-quiz", player, 5).await?;
        cards.push((dealt["serial"].as_u64().unwrap_or(0), cells));
    }
    demo.send(
        "bingo.cards.print.v1",
        json!({"gameId": "demo-quiz", "count": 2}),
    )
    .await?;
    let printed = tap.until("bingo.cards.printed.v1", |_| true).await?.payload;
    let first = &printed["cards"][0];
    demo.say(format!(
        "printed 2 cards for the room, e.g. #{} labelled {}",
        first["serial"], first["label"]
    ));

    // The organiser calls the middle row of Alice's card (its centre is free).
    let (alice_serial, alice_cells) = &cards[0];
    let middle: Vec<u64> = alice_cells[10..15].iter().flatten().copied().collect();
    for square in &middle {
        demo.send(
            "bingo.square.call.v1",
            json!({"gameId": "demo-quiz", "squareId": square}),
        )
        .await?;
        let called = tap
            .until("bingo.square.called.v1", |p| p["squareId"] == *square)
            .await?
            .payload;
        demo.say(format!(
            "called {} (call {})",
            called["label"].as_str().unwrap_or("?"),
            called["callNumber"]
        ));
    }

    demo.send(
        "bingo.card.claim.v1",
        json!({"gameId": "demo-quiz", "serial": alice_serial, "player": "bob"}),
    )
    .await?;
    let refusal = rejected(&mut tap, "bingo.card.claim.v1").await?;
    demo.say(format!(
        "bob claims alice's card: refused ({}): {}",
        refusal["code"].as_str().unwrap_or("?"),
        refusal["reason"].as_str().unwrap_or("?")
    ));

    demo.send(
        "bingo.card.claim.v1",
        json!({"gameId": "demo-quiz", "serial": alice_serial, "player": "alice"}),
    )
    .await?;
    let won = tap.until("bingo.card.won.v1", |_| true).await?.payload;
    let answer = tap
        .until("bingo.claim.answered.v1", |p| p["serial"] == *alice_serial)
        .await?
        .payload;
    if answer["pattern"] != "line" {
        bail!("alice's claim did not win by a line: {answer}");
    }
    demo.say(format!(
        "alice claims card #{alice_serial}: ticked cells {} — BINGO by {} (place {})",
        answer["tickedCells"], won["pattern"], won["place"]
    ));

    let label = first["label"].clone();
    demo.send(
        "bingo.card.verify.v1",
        json!({"gameId": "demo-quiz", "serial": first["serial"], "label": label}),
    )
    .await?;
    let verified = tap
        .until("bingo.claim.answered.v1", |p| p["check"] == "verifyLabel")
        .await?
        .payload;
    demo.say(format!(
        "the organiser checks printed card #{} by its label: genuine, ticked cells {}, {}",
        verified["serial"],
        verified["tickedCells"],
        if verified["pattern"].is_null() {
            "no win yet".to_string()
        } else {
            format!("won by {}", verified["pattern"])
        }
    ));

    demo.send("bingo.game.close.v1", json!({"gameId": "demo-quiz"}))
        .await?;
    let closed = tap.until("bingo.game.closed.v1", |_| true).await?.payload;
    demo.say(format!(
        "closed demo-quiz: {} cards, winners {}",
        closed["cards"], closed["winners"]
    ));
    Ok(())
}

/// The squares of the activity game: (id, label, verb, object).
const SQUARES: [(u64, &str, &str, Option<&str>); 8] = [
    (1, "Say hello to a new colleague", "talk.hello", None),
    (2, "Join any conversation", "talk.*", None),
    (3, "Score a goal at table 3", "table.goal", Some("table-3")),
    (4, "Share a photo", "photo.shared", None),
    (5, "Finish a Strata Relay puzzle", "puzzle.won", None),
    (
        6,
        "Ask the quiz master a question",
        "talk.question",
        Some("quiz-master"),
    ),
    (7, "Bring a cake", "food.cake", None),
    (8, "Do anything at all", "*", None),
];

fn label_of(square: &Value) -> &'static str {
    SQUARES
        .iter()
        .find(|s| Some(s.0) == square.as_u64())
        .map_or("?", |s| s.1)
}

/// A gesture that ticks `square` (a prefix trigger gets a verb of its own).
fn gesture_for(square: u64, entry: &str, member: &str) -> Value {
    let (_, _, verb, object) = SQUARES
        .iter()
        .find(|s| s.0 == square)
        .copied()
        .unwrap_or(SQUARES[7]);
    let verb = match verb {
        "talk.*" => "talk.weather",
        "*" => "wave",
        exact => exact,
    };
    let mut gesture = json!({"entryId": entry, "member": member, "verb": verb});
    if let Some(object) = object {
        gesture["object"] = json!(object);
    }
    gesture
}

async fn ticks_until(demo: &Demo, tap: &mut Tap, last: &str, who: &str) -> anyhow::Result<Value> {
    loop {
        let envelope = tap.next().await?;
        match envelope.message_type.as_str() {
            "bingo.square.ticked.v1" if envelope.payload["player"] == who => demo.say(format!(
                "  ticked {who}'s \"{}\" (cell {}) by {}",
                label_of(&envelope.payload["squareId"]),
                envelope.payload["cell"],
                envelope.payload["verb"]
            )),
            t if t == last => return Ok(envelope.payload),
            _ => {}
        }
    }
}

async fn activity(demo: &Demo) -> anyhow::Result<()> {
    demo.act("bingo: an activity game — gestures tick the cards");
    let mut tap = demo.tap("bingo.#").await?;
    let pool: Vec<Value> = SQUARES
        .iter()
        .map(|(id, label, verb, object)| {
            let mut trigger = json!({"verb": verb});
            if let Some(object) = object {
                trigger["object"] = json!(object);
            }
            json!({"id": id, "label": label, "trigger": trigger})
        })
        .collect();
    let open = json!({
        "gameId": "demo-party", "grid": {"size": 3}, "pool": pool,
        "patterns": [{"kind": "line"}],
        "activitySources": [{"messageType": "table.goal.scored.v1", "verb": "table.goal",
                             "memberField": "/side", "objectField": "/tableId",
                             "undoneBy": {"messageType": "table.goal.cancelled.v1",
                                          "key": ["/tableId", "/gameId", "/ball"]}}],
    });
    open_game(demo, &mut tap, open, "opened demo-party: 3×3 cards of 8 gestures, won by a line; the table referee's goals count as `table.goal` of the scoring side").await?;
    let mut alice = Vec::new();
    for player in ["alice", "hinge"] {
        let (_, cells) = deal(demo, &mut tap, "demo-party", player, 3).await?;
        if player == "alice" {
            alice = cells;
        }
    }

    demo.say("alice says hello to a new colleague:");
    demo.send(
        "activity.recorded.v1",
        json!({"entryId": "party-1", "member": "alice", "verb": "talk.hello"}),
    )
    .await?;
    demo.send("activity.undone.v1", json!({"entryId": "party-1"}))
        .await?;
    let undone = ticks_until(demo, &mut tap, "bingo.gesture.undone.v1", "alice").await?;
    demo.say(format!(
        "…and deletes that message: the gesture is undone, {} cells unticked",
        undone["unticked"].as_array().map_or(0, Vec::len)
    ));

    demo.say("alice does what her top row asks:");
    for (n, square) in alice[..3].iter().flatten().enumerate() {
        demo.send(
            "activity.recorded.v1",
            gesture_for(*square, &format!("party-row-{n}"), "alice"),
        )
        .await?;
    }
    let won = ticks_until(demo, &mut tap, "bingo.card.won.v1", "alice").await?;
    demo.say(format!(
        "BINGO: alice's card #{} wins by a {} (cells {})",
        won["serial"], won["pattern"], won["cells"]
    ));

    demo.say("the table referee reports a goal of the hinge side at table 3:");
    let goal = json!({
        "tableId": "table-3", "gameId": "demo-table-game", "side": "hinge", "kind": "goal",
        "counted": true, "score": {"hinge": 1, "lock": 0}, "phase": "default", "ball": 1,
        "clockMs": 4200,
    });
    demo.send("table.goal.scored.v1", goal).await?;
    let tick = tap
        .until("bingo.square.ticked.v1", |p| {
            p["player"] == "hinge" && p["squareId"] == 3
        })
        .await?
        .payload;
    demo.say(format!(
        "  ticked hinge's \"{}\" (cell {}) by {}",
        label_of(&tick["squareId"]),
        tick["cell"],
        tick["verb"]
    ));
    Ok(())
}
