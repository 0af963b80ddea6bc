//! Facts about results: achievements, the standings after each turn, and the end of the race
//! with its bonuses.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A feat of the game, worth money and points once per team. Every achievement is hidden at
/// the start; `race.hint.published.v1` gives hints during the race.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Achievement {
    /// "Mad Max" ($1, 1 point).
    MadMax,
    /// "Rapide comme l'éclair" ($5, 2 points).
    RapideCommeLEclair,
    /// "Armé jusqu'aux dents" ($5, 2 points).
    ArmeJusquAuxDents,
    /// "Snakes on a car" (1 point).
    SnakesOnACar,
    /// "As du volant" (1 point).
    AsDuVolant,
    /// "Pacifiste" (1 point).
    Pacifiste,
    /// "Tri sélectif" ($1, 1 point).
    TriSelectif,
    /// "Pimp my ride" (1 point).
    PimpMyRide,
    /// "Stratège" ($1, 2 points).
    Stratege,
    /// "Clic Clic" (nothing).
    ClicClic,
    /// "Panne d'essence" (nothing).
    PanneDEssence,
    /// "Ulysse 31" (nothing).
    Ulysse31,
    /// "Picsou" (nothing; came after the first v1 achievements).
    Picsou,
}

impl Achievement {
    /// Every achievement, in the order of the rule book's notes (the order declared here).
    pub const ALL: [Achievement; 13] = [
        Achievement::MadMax,
        Achievement::RapideCommeLEclair,
        Achievement::ArmeJusquAuxDents,
        Achievement::SnakesOnACar,
        Achievement::AsDuVolant,
        Achievement::Pacifiste,
        Achievement::TriSelectif,
        Achievement::PimpMyRide,
        Achievement::Stratege,
        Achievement::ClicClic,
        Achievement::PanneDEssence,
        Achievement::Ulysse31,
        Achievement::Picsou,
    ];
}

/// `race.achievement.awarded.v1`: a team earned an achievement (once per team).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "A team earned an achievement.")]
pub struct AchievementAwarded {
    /// The team.
    pub team: String,
    /// The car that earned it.
    pub car: String,
    /// The achievement.
    pub achievement: Achievement,
    /// Its name in the rule book.
    pub title: String,
    /// Money added to the team's budget, in dollars.
    pub money: u32,
    /// Victory points added to the team.
    pub points: u32,
    /// The team's budget after the reward, in dollars.
    pub budget_left: u32,
}

/// A team's line in the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TeamStanding {
    /// Its place, from 1 (teams with equal points share it).
    #[schemars(range(min = 1))]
    pub rank: u32,
    /// The team.
    pub team: String,
    /// All its victory points.
    pub points: u32,
    /// Points from its cars' farthest squares (30: 1, 50: 2, 100: 8, 200: 18, 300: 30, then 15
    /// more per 100 squares).
    pub distance_points: u32,
    /// Points from achievements.
    pub achievement_points: u32,
    /// Points from end bonuses (0 until the race ends).
    pub bonus_points: u32,
    /// Squares driven by all its cars (farthest square of each, added up).
    pub distance: u32,
    /// Fights won by all its cars.
    pub fights_won: u32,
    /// Its money left, in dollars.
    pub budget: u32,
    /// Its cars still racing.
    pub cars_racing: u32,
    /// Its cars registered.
    pub cars: u32,
}

/// `race.standings.updated.v1`: the standings after a turn's scoring (the turn is over).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "The standings after a turn.")]
pub struct StandingsUpdated {
    /// The turn just scored.
    pub turn: u32,
    /// Teams, best first (equal points: by name).
    pub standings: Vec<TeamStanding>,
}

fn example_standings() -> Vec<TeamStanding> {
    vec![
        TeamStanding {
            rank: 1,
            team: "blue-max".into(),
            points: 12,
            distance_points: 10,
            achievement_points: 2,
            bonus_points: 0,
            distance: 162,
            fights_won: 1,
            budget: 81,
            cars_racing: 2,
            cars: 2,
        },
        TeamStanding {
            rank: 2,
            team: "red-baron".into(),
            points: 3,
            distance_points: 2,
            achievement_points: 1,
            bonus_points: 0,
            distance: 98,
            fights_won: 0,
            budget: 83,
            cars_racing: 1,
            cars: 1,
        },
    ]
}

/// One of the rule book's four end bonuses (+20 points each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum BonusKind {
    /// The team owning the car that won the most fights.
    CarMostFightsWon,
    /// The team whose cars won the most fights.
    TeamMostFightsWon,
    /// The team owning the car that went farthest.
    CarFarthest,
    /// The team whose cars went farthest, added up.
    TeamFarthest,
}

/// An end bonus and who earned it (every team tied at the top; nobody when the best is 0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Bonus {
    /// Which bonus.
    pub kind: BonusKind,
    /// The best value (fights won, or squares).
    pub value: u32,
    /// The teams that earned it.
    pub teams: Vec<String>,
    /// The cars behind it, for the per-car bonuses.
    pub cars: Vec<String>,
    /// Points given to each of those teams.
    pub points: u32,
}

/// Why the race ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FinishReason {
    /// The configured number of turns was played.
    Turns,
    /// The configured duration ran out.
    Duration,
}

/// `race.finished.v1`: the race is over; the best team wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(description = "The race is over.")]
pub struct RaceFinished {
    /// The last turn played.
    pub turn: u32,
    /// When it ended, in milliseconds since the epoch.
    pub at_ms: u64,
    /// Why it ended.
    pub reason: FinishReason,
    /// The four end bonuses.
    pub bonuses: Vec<Bonus>,
    /// Final standings, bonuses included, best first.
    pub standings: Vec<TeamStanding>,
    /// The race's seed, revealed (decimal string: 64-bit values do not fit every JSON reader);
    /// its SHA-256 was published in `race.started.v1`.
    #[schemars(pattern("^[0-9]{1,20}$"))]
    pub seed: String,
}

messages! {
    Event AchievementAwarded: "race.achievement.awarded.v1" => AchievementAwarded {
        team: "red-baron".into(),
        car: "red-baron-1".into(),
        achievement: Achievement::MadMax,
        title: "Mad Max".into(),
        money: 1,
        points: 1,
        budget_left: 83,
    };
    Event StandingsUpdated: "race.standings.updated.v1" => StandingsUpdated {
        turn: 12,
        standings: example_standings(),
    };
    Event RaceFinished: "race.finished.v1" => RaceFinished {
        turn: 200,
        at_ms: 1_767_227_590_000,
        reason: FinishReason::Turns,
        bonuses: vec![Bonus {
            kind: BonusKind::TeamMostFightsWon,
            value: 1,
            teams: vec!["blue-max".into()],
            cars: vec![],
            points: 20,
        }],
        standings: example_standings(),
        seed: "42".into(),
    };
}
