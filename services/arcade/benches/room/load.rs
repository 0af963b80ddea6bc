//! The two scenarios' events, and the publisher that hands them to the bus at a fixed rate
//! through the admin endpoint (`POST /messages/{type}`, the operator naming the producer).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::Semaphore;

/// One event to publish: its type, producer and payload; `mark`: the (client sequence, value)
/// a frame shows once it is folded, when the event is one the clients can see.
pub struct Event {
    pub message_type: &'static str,
    pub producer: &'static str,
    pub payload: Value,
    pub mark: Option<Mark>,
}

/// What a frame shows once an event is in: `value` in the sequence `seq` (a card's ticked
/// cells: one sequence per card; the race's turn: one sequence for every client).
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    pub seq: usize,
    pub value: u64,
}

fn event(message_type: &'static str, producer: &'static str, payload: Value) -> Event {
    Event {
        message_type,
        producer,
        payload,
        mark: None,
    }
}

pub const GAME: &str = "room";
/// 5×5 with a free centre: 24 cells to tick on each card.
const SIZE: u8 = 5;
const CELLS: u64 = 24;

/// The bingo night: an activity game, `cards` players each dealt a card.
pub fn bingo_setup(cards: usize) -> Vec<Event> {
    let pool: Vec<Value> = (1..=CELLS)
        .map(|id| json!({"id": id, "label": format!("square {id}"), "trigger": {"verb": "room.tick"}}))
        .collect();
    let mut events = vec![event(
        "bingo.game.opened.v1",
        "bingo",
        json!({"gameId": GAME, "tickMode": "activity", "grid": {"size": SIZE, "freeCentre": true},
               "pool": pool, "patterns": [{"kind": "fullCard"}], "activitySources": [], "openedAt": 1_000}),
    )];
    for serial in 1..=cards {
        events.push(event(
            "bingo.card.dealt.v1",
            "bingo",
            json!({"gameId": GAME, "player": player(serial), "serial": serial,
                   "cells": cells(), "firstDeal": true}),
        ));
    }
    events
}

fn player(serial: usize) -> String {
    format!("player-{serial}")
}

/// Every card the same squares: 1…12, the free centre, 13…24.
fn cells() -> Vec<Option<u64>> {
    (0..25u64)
        .map(|c| match c {
            0..12 => Some(c + 1),
            12 => None,
            _ => Some(c),
        })
        .collect()
}

/// Cell of the `j`-th tick of a card (the centre skipped).
fn cell(j: u64) -> u64 {
    if j < 12 { j } else { j + 1 }
}

/// The `k`-th tick of the load: card `k % cards + 1`, its tick `k / cards` (so every card gets
/// one a turn round the room); `None` once every card is full.
pub fn bingo_tick(k: u64, cards: usize) -> Option<Event> {
    let serial = (k % cards as u64) as usize + 1;
    let j = k / cards as u64;
    (j < CELLS).then(|| Event {
        message_type: "bingo.square.ticked.v1",
        producer: "bingo",
        payload: json!({"gameId": GAME, "serial": serial, "player": player(serial),
                        "squareId": cells()[cell(j) as usize], "cell": cell(j),
                        "entryId": format!("tick-{k}"), "verb": "room.tick"}),
        mark: Some(Mark {
            seq: serial - 1,
            value: j + 1,
        }),
    })
}

/// The page a bingo client follows: the card of its player (client `i` holds card `i + 1`).
pub fn bingo_path(client: usize, cards: usize) -> (String, usize) {
    let serial = client % cards + 1;
    (format!("/bingo/{GAME}/cards/{serial}"), serial - 1)
}

pub const TEAMS: usize = 20;
const CARS_PER_TEAM: usize = 2;
/// Facts a turn (its `race.turn.started.v1` first): 5 turns a second at 1,000 events/s.
pub const PER_TURN: u64 = 200;

fn car(n: usize) -> (String, String) {
    let team = format!("team-{}", n % TEAMS);
    (format!("{team}-{}", n / TEAMS), team)
}

/// The race before the load: its cars registered, started.
pub fn race_setup() -> Vec<Event> {
    let mut events: Vec<Event> = (0..TEAMS * CARS_PER_TEAM)
        .map(|c| {
            let (name, team) = car(c);
            event(
                "race.car.registered.v1",
                "race-master",
                json!({"team": team, "car": name, "modules": {"pilots": 1, "engines": 4, "weapons": 3},
                       "price": 15, "budgetLeft": 85, "startsTurn": 1}),
            )
        })
        .collect();
    events.push(event(
        "race.started.v1",
        "race-master",
        json!({"atMs": 0, "durationMs": 7_200_000, "turnIntervalMs": 200, "decisionTimeoutMs": 5_000,
               "distribution": {"nothing": 50, "pirates": 10, "garage": 10, "wreck": 15, "mineField": 15},
               "seedSha256": "ab".repeat(32)}),
    ));
    events
}

/// The `k`-th fact of the load: turn `k / PER_TURN + 1`, opened by its `race.turn.started.v1`
/// (the one a frame shows: its turn number), then moves, events drawn, and the standings.
pub fn race_fact(k: u64) -> Event {
    let turn = k / PER_TURN + 1;
    let i = k % PER_TURN;
    let (name, team) = car(i as usize % (TEAMS * CARS_PER_TEAM));
    let (message_type, payload) = match i {
        0 => (
            "race.turn.started.v1",
            json!({"turn": turn, "atMs": 1_000 * turn, "joining": []}),
        ),
        i if i == PER_TURN - 1 => {
            let standings: Vec<Value> = (0..TEAMS)
                .map(|t| {
                    json!({"rank": t + 1, "team": format!("team-{t}"), "points": 100 - t,
                           "distancePoints": 100 - t, "achievementPoints": 0, "bonusPoints": 0,
                           "distance": turn * 8, "fightsWon": 0, "budget": 80, "carsRacing": 2, "cars": 2})
                })
                .collect();
            (
                "race.standings.updated.v1",
                json!({"turn": turn, "standings": standings}),
            )
        }
        i if i % 4 == 3 => (
            "race.event.drawn.v1",
            json!({"car": name, "team": team, "turn": turn, "roll": i % 100, "event": "nothing"}),
        ),
        _ => {
            let to = turn * 4 + i % 7;
            (
                "race.car.moved.v1",
                json!({"car": name, "team": team, "turn": turn, "from": to.saturating_sub(4), "to": to,
                       "reason": "onTrack", "turnsToMiss": 0, "ringSquare": to % 300}),
            )
        }
    };
    Event {
        message_type,
        producer: "race-master",
        payload,
        mark: (i == 0).then_some(Mark {
            seq: 0,
            value: turn,
        }),
    }
}

/// The admin endpoint of the `arcade` process.
#[derive(Clone)]
pub struct Admin {
    pub http: reqwest::Client,
    pub base: String,
    pub token: String,
}

impl Admin {
    /// Publishes one event; its durable acceptance (202) or a panic naming the refusal.
    pub async fn publish(&self, event: &Event) {
        let url = format!(
            "{}/messages/{}?producer={}",
            self.base, event.message_type, event.producer
        );
        let response = self
            .http
            .post(&url)
            .bearer_auth(&self.token)
            .json(&event.payload)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {url}: {e}"));
        let status = response.status();
        if status.as_u16() != 202 {
            let body = response.text().await.unwrap_or_default();
            panic!("POST {url}: {status} {body}");
        }
    }
}

/// Publishes `events(k)` for k = 0, 1, … until it returns `None`, `rate` a second (paced on
/// the clock in 10 ms slots, at most 64 requests in flight); returns, for every marked event,
/// its mark and the instant its request was sent.
pub async fn publish_at(
    admin: &Admin,
    rate: u64,
    mut events: impl FnMut(u64) -> Option<Event>,
) -> (Vec<(Mark, Instant)>, u64, Duration) {
    let slots = Arc::new(Semaphore::new(64));
    let begin = Instant::now();
    let per_slot = (rate / 100).max(1);
    let mut marks = Vec::new();
    let mut tasks = tokio::task::JoinSet::new();
    let (mut k, mut slot) = (0u64, 0u64);
    'load: loop {
        let due = begin + Duration::from_millis(slot * 10);
        tokio::time::sleep_until(due.into()).await;
        for _ in 0..per_slot {
            let Some(event) = events(k) else { break 'load };
            k += 1;
            let permit = slots.clone().acquire_owned().await.expect("open");
            if let Some(mark) = event.mark {
                marks.push((mark, Instant::now()));
            }
            let admin = admin.clone();
            tasks.spawn(async move {
                admin.publish(&event).await;
                drop(permit);
            });
        }
        while let Some(done) = tasks.try_join_next() {
            done.expect("a publisher task");
        }
        slot += 1;
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("a publisher task");
    }
    (marks, k, begin.elapsed())
}
