//! Facts about one car: moves, stops, modules gained or lost, penalties, and its random event
//! (drawn, then resolved).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CarState, ModuleKind, Modules};

/// Why a car's square changed (or did not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum MoveReason {
    /// The "on track" step: one square per engine.
    OnTrack,
    /// The car had a turn to miss and stayed where it was (`from` equals `to`).
    MissedTurn,
    /// The car bought a module at a garage and lost one square.
    Garage,
}

/// `race.car.moved.v1`: a car's square in the "on track" step or at a garage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A car moved (or missed its move).")]
pub struct CarMoved {
    /// The car.
    pub car: String,
    /// Its team.
    pub team: String,
    /// The turn.
    pub turn: u32,
    /// Squares driven before (from the start line: it does not wrap around the ring).
    pub from: u32,
    /// Squares driven after; the distance that scores.
    pub to: u32,
    /// Why.
    pub reason: MoveReason,
    /// Turns the car still has to miss after this one.
    pub turns_to_miss: u32,
    /// Where the car stands on the ring of 300 squares after the move (`to` modulo 300):
    /// cars on the same ring square meet. Optional: came after the first v1 messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 299))]
    pub ring_square: Option<u32>,
}

/// Why a car left the race.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// No engine left in an "on track" step.
    NoEngine,
    /// No pilot left.
    NoPilot,
    /// No weapon in a fight: destroyed by the opponent.
    Destroyed,
}

/// `race.car.stopped.v1`: a car left the race; its farthest square still scores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A car left the race.")]
pub struct CarStopped {
    /// The car.
    pub car: String,
    /// Its team.
    pub team: String,
    /// Why.
    pub reason: StopReason,
    /// Squares it had driven when it stopped (from the start line).
    pub square: u32,
}

/// Whether a module came or went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ModuleChange {
    /// One module more.
    Gained,
    /// One module less.
    Lost,
}

/// What made a module come or go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ModuleReason {
    /// A mine exploded under the car (a random module).
    MineField,
    /// Found in a wreck.
    Wreck,
    /// Snakes in a wreck bit the pilot.
    Snakes,
    /// Bought at a garage.
    Garage,
    /// Lost a duel (a random module).
    DuelLost,
}

/// `race.module.changed.v1`: a car gained or lost one module (the 10-module limit of
/// registration does not apply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A car gained or lost a module.")]
pub struct ModuleChanged {
    /// The car.
    pub car: String,
    /// Its team.
    pub team: String,
    /// The module's kind.
    pub module: ModuleKind,
    /// Gained or lost.
    pub change: ModuleChange,
    /// Why.
    pub reason: ModuleReason,
    /// The car's modules after the change.
    pub modules: Modules,
}

/// Why a car was penalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PenaltyReason {
    /// No answer before the deadline.
    NoAnswer,
    /// An answer of the wrong kind for the question.
    WrongAnswer,
    /// A state report that differs from the master's record.
    WrongState,
}

/// `race.penalty.given.v1`: a car answered late, wrongly, or reported a wrong state. It misses
/// turns; after a state check the master sends the right state in `correction`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A car was penalised.")]
pub struct PenaltyGiven {
    /// The car.
    pub car: String,
    /// Its team.
    pub team: String,
    /// The decision that went wrong.
    pub decision_id: u64,
    /// What went wrong.
    pub reason: PenaltyReason,
    /// Turns to miss added ("on track" steps where the car does not move).
    pub turns_to_miss: u32,
    /// After a state check: the state the master holds, which the car must take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<CarState>,
}

/// The random event a car meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RaceEventKind {
    /// Nothing happens.
    Nothing,
    /// Pirates attack: a duel follows.
    Pirates,
    /// A garage: the team may buy a module (the car loses one square).
    Garage,
    /// A wreck: exploring costs a turn and may find a module (or snakes).
    Wreck,
    /// A mine field: crossing may cost a module; going around costs 3 turns.
    MineField,
}

/// The pirates' car: the generated opponent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PirateCrew {
    /// Its name ("Flying Dutchman").
    pub name: String,
    /// Its modules: 1 pilot, 1 to 8 weapons, engines up to 10 modules.
    pub modules: Modules,
}

/// `race.event.drawn.v1`: the random event of a car this turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A car's random event was drawn.")]
pub struct EventDrawn {
    /// The car.
    pub car: String,
    /// Its team.
    pub team: String,
    /// The turn.
    pub turn: u32,
    /// The number drawn, 0 to 99, read against the distribution.
    #[schemars(range(max = 99))]
    pub roll: u32,
    /// The event.
    pub event: RaceEventKind,
    /// The pirates, when the event is pirates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pirates: Option<PirateCrew>,
}

/// How a car's event ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum EventOutcome {
    /// A wreck or mine field met by a car with turns to miss: no effect.
    Skipped,
    /// Crossed the mine field unhurt.
    CrossedUnhurt,
    /// Crossed the mine field and lost a module.
    CrossedHurt,
    /// Went around the mine field: 3 turns to miss.
    WentAround,
    /// Explored the wreck and found nothing (1 turn to miss).
    FoundNothing,
    /// Explored the wreck and found a module (1 turn to miss).
    FoundModule,
    /// Explored the wreck and met snakes: a pilot lost (1 turn to miss).
    Snakes,
    /// Did not explore the wreck.
    Ignored,
    /// Bought a module at the garage.
    Bought,
    /// Asked for a module the team cannot pay.
    CannotAfford,
    /// Bought nothing at the garage.
    Declined,
    /// Did not answer in time (see the penalty).
    NoAnswer,
    /// Answered another question (see the penalty).
    WrongAnswer,
    /// Beat the pirates.
    FightWon,
    /// Lost to the pirates: a random module lost, 1 turn to miss.
    FightLost,
    /// The duel with the pirates was a draw.
    FightDrawn,
    /// Had no weapon against the pirates: destroyed.
    Destroyed,
}

/// `race.event.resolved.v1`: a car's event (other than nothing) is over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A car's random event is over.")]
pub struct EventResolved {
    /// The car.
    pub car: String,
    /// Its team.
    pub team: String,
    /// The event.
    pub event: RaceEventKind,
    /// How it ended.
    pub outcome: EventOutcome,
    /// The number drawn 0 to 100 for a crossed mine field (below 80: a module lost) or an
    /// explored wreck (0-50 nothing, 51-75 engine, 76-90 weapon, 91-98 pilot, 99-100 snakes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100))]
    pub roll: Option<u32>,
    /// The module found, bought, or lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<ModuleKind>,
    /// The price paid at the garage, in dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<u32>,
    /// The duel fought against the pirates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duel_id: Option<u32>,
    /// Turns to miss this outcome adds (penalties come separately).
    pub turns_to_miss: u32,
}

messages! {
    Event CarMoved: "race.car.moved.v1" => CarMoved {
        car: "red-baron-1".into(),
        team: "red-baron".into(),
        turn: 3,
        from: 8,
        to: 12,
        reason: MoveReason::OnTrack,
        turns_to_miss: 0,
        ring_square: Some(12),
    };
    Event CarStopped: "race.car.stopped.v1" => CarStopped {
        car: "red-baron-1".into(),
        team: "red-baron".into(),
        reason: StopReason::NoEngine,
        square: 156,
    };
    Event ModuleChanged: "race.module.changed.v1" => ModuleChanged {
        car: "red-baron-1".into(),
        team: "red-baron".into(),
        module: ModuleKind::Engine,
        change: ModuleChange::Lost,
        reason: ModuleReason::MineField,
        modules: Modules {
            pilots: 2,
            engines: 3,
            weapons: 4,
        },
    };
    Event PenaltyGiven: "race.penalty.given.v1" => PenaltyGiven {
        car: "red-baron-1".into(),
        team: "red-baron".into(),
        decision_id: 42,
        reason: PenaltyReason::WrongState,
        turns_to_miss: 1,
        correction: Some(CarState {
            square: 12,
            modules: Modules {
                pilots: 2,
                engines: 4,
                weapons: 4,
            },
        }),
    };
    Event EventDrawn: "race.event.drawn.v1" => EventDrawn {
        car: "red-baron-1".into(),
        team: "red-baron".into(),
        turn: 3,
        roll: 55,
        event: RaceEventKind::Pirates,
        pirates: Some(PirateCrew {
            name: "Flying Dutchman".into(),
            modules: Modules {
                pilots: 1,
                engines: 6,
                weapons: 3,
            },
        }),
    };
    Event EventResolved: "race.event.resolved.v1" => EventResolved {
        car: "red-baron-1".into(),
        team: "red-baron".into(),
        event: RaceEventKind::Wreck,
        outcome: EventOutcome::FoundModule,
        roll: Some(80),
        module: Some(ModuleKind::Weapon),
        price: None,
        duel_id: None,
        turns_to_miss: 1,
    };
}
