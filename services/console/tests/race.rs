//! The race's projection, given the race master's public facts: the ring and standings, a
//! turn's story, a duel replayed with both hands, a team's log with its questions (taken from
//! the public facts: the requests go to the team's queue only), answers and penalties, the seed
//! only once the race is over, no team's points or money on the public pages before the
//! finish (the operator's view has them), a new race after the end, and its bounds.

use arcade_console::games::race::audience::Audience;
use arcade_console::games::race::pages::{
    duel_view, race_view, race_view_for, team_view, turn_view, turn_view_for,
};
use arcade_console::games::race::projection::{MAX_CARS, MAX_LINES, Race};
use arcade_console::games::race::teams::MAX_LOG;
use arcade_console::observed::Observed;
use arcade_console::projection::Projections;
use serde_json::{Value, json};

const SEED: &str = "9046201173350218411";

struct Given {
    state: Projections,
    n: u64,
}

impl Given {
    fn new() -> Self {
        Given {
            state: Projections::default(),
            n: 0,
        }
    }

    fn event(&mut self, message_type: &str, payload: Value) -> &mut Self {
        self.n += 1;
        self.state.apply(&Observed {
            message_id: format!("m-{}", self.n),
            message_type: message_type.into(),
            producer: "race-master".into(),
            occurred_at: "2026-12-02T19:30:00.000Z".into(),
            seen_at_ms: 1_000 + self.n,
            payload,
        });
        self
    }

    fn race(&self) -> &Race {
        self.state.get::<Race>().unwrap()
    }
}

fn modules(p: u32, e: u32, w: u32) -> Value {
    json!({"pilots": p, "engines": e, "weapons": w})
}

fn fighter(car: &str, team: &str, weapons: u32) -> Value {
    json!({"car": car, "team": team, "weapons": weapons})
}

fn played(step: u32, fighter: u8, cards: &[u8], squares: [u32; 2], drew: u32) -> Value {
    json!({"duelId": 1, "step": step, "fighter": fighter, "cards": cards, "action": "move",
           "moved": cards[0], "attackCards": 0, "squares": squares, "drew": drew})
}

fn standing(rank: u32, team: &str, points: u32, distance: u32) -> Value {
    json!({"rank": rank, "team": team, "points": points, "distancePoints": points,
           "achievementPoints": 0, "bonusPoints": 0, "distance": distance, "fightsWon": 0,
           "budget": 90, "carsRacing": 1, "cars": 1})
}

/// A race of two teams, one car each, up to the end of turn 1: a mine field crossed, a combat
/// and its duel (won by red on a hit), the state checks where blue does not answer.
fn one_turn() -> Given {
    let mut g = Given::new();
    g.event(
        "race.car.registered.v1",
        json!({"team": "red", "car": "red-1", "modules": modules(1, 4, 3),
        "price": 15, "budgetLeft": 85, "startsTurn": 1}),
    )
    .event(
        "race.car.registered.v1",
        json!({"team": "blue", "car": "blue-1", "modules": modules(1, 4, 3),
        "price": 15, "budgetLeft": 85, "startsTurn": 1}),
    )
    .event(
        "race.started.v1",
        json!({"atMs": 5_000, "turns": 8, "durationMs": 7_200_000,
        "turnIntervalMs": 50, "decisionTimeoutMs": 5_000,
        "distribution": {"nothing": 50, "pirates": 10, "garage": 10, "wreck": 15, "mineField": 15},
        "seedSha256": "ab".repeat(32)}),
    )
    .event(
        "race.turn.started.v1",
        json!({"turn": 1, "atMs": 5_000, "joining": ["red-1", "blue-1"]}),
    )
    .event(
        "race.car.moved.v1",
        json!({"car": "red-1", "team": "red", "turn": 1, "from": 0, "to": 4,
        "reason": "onTrack", "turnsToMiss": 0, "ringSquare": 4}),
    )
    .event(
        "race.car.moved.v1",
        json!({"car": "blue-1", "team": "blue", "turn": 1, "from": 0, "to": 4,
        "reason": "onTrack", "turnsToMiss": 0}),
    )
    .event(
        "race.phase.started.v1",
        json!({"turn": 1, "phase": "events"}),
    )
    .event(
        "race.event.drawn.v1",
        json!({"car": "red-1", "team": "red", "turn": 1, "roll": 90, "event": "mineField"}),
    )
    .event(
        "race.event.drawn.v1",
        json!({"car": "blue-1", "team": "blue", "turn": 1, "roll": 3, "event": "nothing"}),
    )
    .event(
        "race.decision.closed.v1",
        json!({"decisionId": 1, "team": "red", "car": "red-1",
        "closure": "answered", "answer": {"kind": "crossMineField", "cross": true}}),
    )
    .event(
        "race.event.resolved.v1",
        json!({"car": "red-1", "team": "red", "event": "mineField",
        "outcome": "crossedUnhurt", "roll": 95, "turnsToMiss": 0}),
    )
    .event(
        "race.phase.started.v1",
        json!({"turn": 1, "phase": "combats"}),
    )
    .event(
        "race.combat.paired.v1",
        json!({"combatId": 1, "turn": 1, "square": 4,
        "fighters": [fighter("red-1", "red", 3), fighter("blue-1", "blue", 3)]}),
    )
    .event(
        "race.decision.closed.v1",
        json!({"decisionId": 2, "team": "red", "car": "red-1",
        "closure": "answered", "answer": {"kind": "shouldFight", "fight": true}}),
    )
    .event(
        "race.decision.closed.v1",
        json!({"decisionId": 3, "team": "blue", "car": "blue-1",
        "closure": "answered", "answer": {"kind": "shouldFight", "fight": false}}),
    )
    .event(
        "race.duel.started.v1",
        json!({"duelId": 1, "combatId": 1, "turn": 1,
        "fighters": [fighter("red-1", "red", 3), fighter("blue-1", "blue", 3)], "firstPlayer": 0}),
    )
    .event(
        "race.decision.closed.v1",
        json!({"decisionId": 4, "team": "red", "car": "red-1",
        "closure": "answered", "answer": {"kind": "duelAnswer", "cards": [5]}}),
    )
    .event("race.duel.played.v1", played(0, 0, &[5], [6, 23], 1));
    g
}

/// The rest of the duel, its transcript, the combat, the state checks and the standings.
fn end_of_turn(g: &mut Given) {
    let deck = [
        2, 5, 3, 4, 4, 1, 2, 3, 4, 5, 1, 2, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5,
    ];
    let step = |fighter: u8,
                cards: Vec<u8>,
                action: &str,
                moved: u32,
                squares: [u32; 2],
                drawn: Vec<u8>| {
        json!({"fighter": fighter, "cards": cards, "action": action, "moved": moved,
               "attackCards": 0, "squares": squares, "drawn": drawn})
    };
    let mut hit = step(0, vec![1], "attack", 0, [13, 14], vec![]);
    hit["attackValue"] = json!(1);
    hit["attackCards"] = json!(1);
    hit["parry"] = json!("hit");
    g.event(
        "race.duel.resolved.v1",
        json!({"duelId": 1, "combatId": 1,
        "fighters": [fighter("red-1", "red", 3), fighter("blue-1", "blue", 3)],
        "deck": deck, "firstPlayer": 0, "hands": [[2, 5, 3], [4, 4, 1]],
        "steps": [
            step(0, vec![5], "move", 5, [6, 23], vec![2]),
            step(1, vec![4], "move", 4, [6, 19], vec![3]),
            step(0, vec![3], "move", 3, [9, 19], vec![4]),
            step(1, vec![4], "move", 4, [9, 15], vec![5]),
            step(0, vec![4], "move", 4, [13, 15], vec![1]),
            step(1, vec![1], "move", 1, [13, 14], vec![2]),
            hit,
        ],
        "winner": 0, "reason": "hit"}),
    )
    .event(
        "race.combat.resolved.v1",
        json!({"combatId": 1, "outcome": "won", "winner": "red-1",
        "loser": "blue-1", "loserTurnsToMiss": 1, "duelId": 1}),
    )
    .event(
        "race.module.changed.v1",
        json!({"car": "blue-1", "team": "blue", "module": "engine",
        "change": "lost", "reason": "duelLost", "modules": modules(1, 3, 3)}),
    )
    .event(
        "race.phase.started.v1",
        json!({"turn": 1, "phase": "stateChecks"}),
    )
    .event(
        "race.decision.closed.v1",
        json!({"decisionId": 9, "team": "blue", "car": "blue-1",
        "closure": "noAnswer"}),
    )
    .event(
        "race.penalty.given.v1",
        json!({"car": "blue-1", "team": "blue", "decisionId": 9,
        "reason": "noAnswer", "turnsToMiss": 1}),
    )
    .event(
        "race.standings.updated.v1",
        json!({"turn": 1, "standings": [
            standing(1, "red", 0, 4), standing(2, "blue", 0, 4)]}),
    );
}

#[test]
fn the_ring_the_standings_and_the_turns_story() {
    let mut g = one_turn();
    end_of_turn(&mut g);
    let view = race_view(g.race());
    assert_eq!(view["status"], "running");
    assert_eq!(view["turn"], 1);
    assert_eq!(view["phase"], "stateChecks");
    let cars = view["cars"].as_array().unwrap();
    assert_eq!(cars.len(), 2);
    assert_eq!(cars[0]["ring"], 4, "the ring square, given or computed");
    assert_eq!(cars[1]["ring"], 4);
    let blue = cars.iter().find(|c| c["car"] == "blue-1").unwrap();
    assert_eq!(
        blue["modules"],
        modules(1, 3, 3),
        "the module lost in the duel"
    );
    assert_eq!(blue["turnsToMiss"], 1, "the penalty's turn to miss");
    assert_eq!(
        cars.iter().find(|c| c["car"] == "red-1").unwrap()["fightsWon"],
        1
    );
    assert_eq!(view["standings"][0]["team"], "red");
    let lines: Vec<&str> = view["current"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert!(lines.contains(&"red-1 drove 0 → 4"), "{lines:?}");
    assert!(
        lines.contains(&"red-1: a mine field — crossed unhurt"),
        "{lines:?}"
    );
    assert!(lines.contains(&"combat 1: red-1 beat blue-1"), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("duel 1: red-1 beat blue-1 in 7 step(s) (hit)")),
        "{lines:?}"
    );
    assert_eq!(view["turns"][0]["leader"]["team"], "red");
    assert_eq!(
        turn_view(g.race(), 1)["story"]["standings"][1]["team"],
        "blue"
    );
    assert_eq!(turn_view(g.race(), 7)["story"], Value::Null);
    assert_eq!(view["duels"][0]["winner"], "red-1");
}

#[test]
fn a_duel_shows_its_played_steps_then_its_whole_transcript() {
    let mut g = one_turn();
    let running = duel_view(g.race(), 1).unwrap();
    assert_eq!(running["over"], false);
    let frames = running["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 2, "the deal and the step played");
    assert_eq!(
        frames[1]["hands"],
        Value::Null,
        "hands are secret while the duel runs"
    );
    assert_eq!(frames[1]["squares"], json!([6, 23]));
    end_of_turn(&mut g);
    let over = duel_view(g.race(), 1).unwrap();
    assert_eq!(over["over"], true);
    assert_eq!(over["winner"], 0);
    let frames = over["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 8, "the deal and seven steps");
    assert_eq!(frames[0]["hands"], json!([[2, 3, 5], [1, 4, 4]]));
    assert_eq!(frames[0]["deckLeft"], 19);
    assert_eq!(
        frames[1]["hands"],
        json!([[2, 2, 3], [1, 4, 4]]),
        "5 played, 2 drawn"
    );
    assert_eq!(
        frames[7]["hands"],
        json!([[2, 2], [2, 3, 5]]),
        "the last 1 attacked"
    );
    assert_eq!(frames[7]["squares"], json!([13, 14]));
    assert_eq!(frames[7]["deckLeft"], 13);
    assert!(
        frames[7]["text"]
            .as_str()
            .unwrap()
            .contains("attacks with 1×1: hit")
    );
    assert!(duel_view(g.race(), 2).is_none(), "a duel nobody saw");
}

#[test]
fn a_teams_log_has_its_questions_answers_and_penalties() {
    let mut g = one_turn();
    end_of_turn(&mut g);
    g.event(
        "race.command.rejected.v1",
        json!({"command": "race.decision.made.v1", "team": "blue",
        "decisionId": 9, "reason": "decision 9's deadline passed at 7000"}),
    );
    let red = team_view(g.race(), "red");
    let log = red["log"].as_array().unwrap();
    let decisions: Vec<&Value> = log.iter().filter(|e| e["kind"] == "decision").collect();
    let kinds: Vec<&str> = decisions
        .iter()
        .rev()
        .map(|e| e["question"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["crossMineField", "shouldFight", "duelAnswer"]);
    let fight = decisions.iter().find(|e| e["decisionId"] == 2).unwrap();
    assert!(
        fight["question"]["text"]
            .as_str()
            .unwrap()
            .contains("fight blue-1 (blue, 3 weapon(s))"),
        "{fight}"
    );
    assert_eq!(decisions[0]["question"]["duelId"], 1);
    assert_eq!(log.last().unwrap()["kind"], "registered", "newest first");

    let blue = team_view(g.race(), "blue");
    let log = blue["log"].as_array().unwrap();
    let unanswered = log
        .iter()
        .find(|e| e["decisionId"] == 9 && e["kind"] == "decision")
        .unwrap();
    assert_eq!(
        unanswered["question"]["kind"], "reportState",
        "from the state checks"
    );
    assert_eq!(unanswered["closure"], "noAnswer");
    assert_eq!(
        unanswered["penalty"],
        "no answer before the deadline: 1 turn(s) to miss"
    );
    assert!(log.iter().any(|e| e["kind"] == "penalty"));
    assert!(log.iter().any(
        |e| e["kind"] == "rejected" && e["text"].as_str().unwrap().contains("deadline passed")
    ));
    assert!(
        !serde_json::to_string(&blue)
            .unwrap()
            .contains("red-1 registered"),
        "a team's log holds only its own entries"
    );
    assert_eq!(team_view(g.race(), "green")["known"], false);
}

#[test]
fn the_seed_shows_only_once_the_race_is_over_then_a_new_race_begins() {
    let mut g = one_turn();
    end_of_turn(&mut g);
    assert!(!serde_json::to_string(g.race()).unwrap().contains(SEED));
    g.event("race.finished.v1", json!({"turn": 1, "atMs": 9_000, "reason": "turns",
        "bonuses": [{"kind": "carMostFightsWon", "value": 1, "teams": ["red"], "cars": ["red-1"], "points": 20}],
        "standings": [standing(1, "red", 20, 4), standing(2, "blue", 0, 4)], "seed": SEED}));
    let view = race_view(g.race());
    assert_eq!(view["status"], "finished");
    assert_eq!(view["finished"]["seed"], SEED);
    assert_eq!(view["standings"][0]["points"], 20, "the final standings");
    // The next race: its first registration clears the finished one.
    g.event(
        "race.car.registered.v1",
        json!({"team": "green", "car": "green-1", "modules": modules(1, 1, 1),
        "price": 5, "budgetLeft": 95, "startsTurn": 1}),
    );
    let view = race_view(g.race());
    assert_eq!(view["status"], "registration");
    assert_eq!(view["cars"].as_array().unwrap().len(), 1);
    assert_eq!(view["finished"], Value::Null);
    assert!(!serde_json::to_string(g.race()).unwrap().contains(SEED));
}

#[test]
fn operator_refusals_hints_and_a_snapshot_round_trip() {
    let mut g = one_turn();
    g.event(
        "race.command.rejected.v1",
        json!({"command": "race.start.v1", "reason": "the race already started"}),
    )
    .event(
        "race.hint.published.v1",
        json!({"turn": 1, "achievement": "stratege", "title": "Stratège",
        "hint": "Gagner un duel avec trois armes de moins que l'adversaire."}),
    );
    let view = race_view(g.race());
    assert_eq!(view["refusals"][0]["title"], "race.start.v1");
    assert_eq!(view["hints"][0]["title"], "Stratège");
    let restored = Projections::decode(&g.state.encode().unwrap()).unwrap();
    assert_eq!(race_view(restored.get::<Race>().unwrap()), view);
}

#[test]
fn what_a_producer_could_grow_is_capped() {
    let mut g = Given::new();
    for n in 0..(MAX_CARS + 10) {
        g.event(
            "race.car.registered.v1",
            json!({"team": "many", "car": format!("c-{n}"),
            "modules": modules(1, 1, 1), "price": 5, "budgetLeft": 95, "startsTurn": 1}),
        );
    }
    assert_eq!(g.race().cars.len(), MAX_CARS);
    assert_eq!(g.race().cars_dropped, 10);
    let log = team_view(g.race(), "many");
    assert_eq!(log["log"].as_array().unwrap().len(), MAX_LOG);
    assert_eq!(log["dropped"], (MAX_CARS + 10 - MAX_LOG) as u64);
    g.event(
        "race.turn.started.v1",
        json!({"turn": 1, "atMs": 1, "joining": []}),
    );
    for n in 0..(MAX_LINES + 5) {
        g.event(
            "race.car.moved.v1",
            json!({"car": "c-1", "team": "many", "turn": 1, "from": n, "to": n + 1,
            "reason": "onTrack", "turnsToMiss": 0}),
        );
    }
    let turn = g.race().turn(1).unwrap();
    assert_eq!(turn.lines.len(), MAX_LINES);
    assert_eq!(turn.dropped, 5);
    // A payload that breaks its schema changes nothing.
    let before = g.race().clone();
    g.state.apply(&Observed {
        message_id: "x".into(),
        message_type: "race.car.moved.v1".into(),
        producer: "race-master".into(),
        occurred_at: String::new(),
        seen_at_ms: 0,
        payload: json!({"car": 5}),
    });
    assert_eq!(g.race(), &before);
}

#[test]
fn the_public_sees_no_teams_points_or_money_until_the_finish_the_operator_does() {
    let mut g = one_turn();
    end_of_turn(&mut g);
    g.event(
        "race.achievement.awarded.v1",
        json!({"team": "red", "car": "red-1", "achievement": "asDuVolant",
        "title": "As du volant", "money": 0, "points": 1, "budgetLeft": 77}),
    );
    g.event(
        "race.turn.started.v1",
        json!({"turn": 2, "atMs": 5_000, "joining": []}),
    );
    g.event(
        "race.achievement.awarded.v1",
        json!({"team": "blue", "car": "blue-1", "achievement": "madMax",
        "title": "Mad Max", "money": 1, "points": 1, "budgetLeft": 66}),
    );
    let public = race_view_for(g.race(), Audience::Public);
    assert_eq!(public["status"], "running");
    assert_eq!(public["standings"], json!([]));
    assert_eq!(public["achievements"], json!([]));
    assert_eq!(public["accountsHidden"], true);
    assert_eq!(public["turns"][1]["leader"], Value::Null);
    let text = public.to_string();
    for secret in ["\"points\"", "\"budget\"", "budgetLeft", "+$", "point(s)"] {
        assert!(!text.contains(secret), "{secret} on the public /race");
    }
    assert_eq!(
        public["cars"].as_array().unwrap().len(),
        2,
        "the track stays public"
    );
    let turn = turn_view_for(g.race(), 1, Audience::Public).to_string();
    assert!(
        !turn.contains("\"points\"") && !turn.contains("As du volant"),
        "{turn}"
    );

    let operator = race_view_for(g.race(), Audience::Operator);
    assert_eq!(operator["standings"][0]["budget"], 90);
    assert_eq!(operator["achievements"].as_array().unwrap().len(), 2);
    assert_eq!(
        turn_view_for(g.race(), 1, Audience::Operator)["story"]["standings"][0]["team"],
        "red"
    );

    g.event(
        "race.finished.v1",
        json!({"turn": 2, "atMs": 9_000, "reason": "turns",
        "bonuses": [], "standings": [standing(1, "red", 4, 4), standing(2, "blue", 1, 4)],
        "seed": SEED}),
    );
    let public = race_view_for(g.race(), Audience::Public);
    assert_eq!(
        public["standings"][0]["points"], 4,
        "the standings, once over"
    );
    assert_eq!(public["standings"][1]["budget"], 90);
    assert_eq!(public["achievements"].as_array().unwrap().len(), 2);
    assert_eq!(public["turns"][1]["leader"]["team"], "red");
    assert_eq!(public.get("accountsHidden"), None);
}
