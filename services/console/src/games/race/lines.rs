//! A turn's story in words: one [`Line`] per public fact (a move, an event drawn and how it
//! ended, a combat, a duel, a penalty…), written from the event alone.

use arcade_contracts::race::{
    AchievementAwarded, CarMoved, CarStopped, CombatOutcome, CombatPaired, CombatResolved,
    DuelReason, DuelResolved, DuelStarted, EventDistribution, EventDrawn, EventOutcome,
    EventResolved, FinishReason, HintPublished, ModuleChange, ModuleChanged, ModuleKind,
    ModuleReason, MoveReason, PenaltyGiven, PenaltyReason, RaceEventKind, StopReason,
};
use serde::{Deserialize, Serialize};

/// One line of a turn's story.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// What kind of fact (`move`, `event`, `combat`, `duel`, `penalty`, `module`, `stop`,
    /// `achievement`, `hint`, `race`).
    pub kind: String,
    /// The team it is about, if one.
    pub team: Option<String>,
    /// The duel it is about, if one (the page links to it).
    pub duel_id: Option<u32>,
    /// The fact, in words.
    pub text: String,
}

fn line(kind: &str, team: Option<&str>, text: String) -> Line {
    Line {
        kind: kind.into(),
        team: team.map(str::to_string),
        duel_id: None,
        text,
    }
}

/// A module kind in words.
pub fn module_name(module: ModuleKind) -> &'static str {
    match module {
        ModuleKind::Pilot => "pilot",
        ModuleKind::Engine => "engine",
        ModuleKind::Weapon => "weapon",
    }
}

fn event_name(event: RaceEventKind) -> &'static str {
    match event {
        RaceEventKind::Nothing => "nothing",
        RaceEventKind::Pirates => "pirates",
        RaceEventKind::Garage => "a garage",
        RaceEventKind::Wreck => "a wreck",
        RaceEventKind::MineField => "a mine field",
    }
}

fn fighter_name(car: Option<&String>, team: &str) -> String {
    car.cloned().unwrap_or_else(|| team.to_string())
}

/// Cars joining the race.
pub fn joining(cars: &[String]) -> Line {
    line("race", None, format!("joining: {}", cars.join(", ")))
}

/// The odds changed.
pub fn distribution(d: &EventDistribution) -> Line {
    line(
        "race",
        None,
        format!(
            "odds changed: nothing {}%, pirates {}%, garage {}%, wreck {}%, mine field {}%",
            d.nothing, d.pirates, d.garage, d.wreck, d.mine_field
        ),
    )
}

/// A car moved.
pub fn moved(m: &CarMoved) -> Line {
    let text = match m.reason {
        MoveReason::OnTrack => format!("{} drove {} → {}", m.car, m.from, m.to),
        MoveReason::MissedTurn => format!(
            "{} missed its move on {} ({} more to miss)",
            m.car, m.to, m.turns_to_miss
        ),
        MoveReason::Garage => format!("{} lost a square at the garage: {}", m.car, m.to),
    };
    line("move", Some(&m.team), text)
}

/// A car left the race.
pub fn stopped(m: &CarStopped) -> Line {
    let why = match m.reason {
        StopReason::NoEngine => "no engine left",
        StopReason::NoPilot => "no pilot left",
        StopReason::Destroyed => "destroyed in a fight",
    };
    line(
        "stop",
        Some(&m.team),
        format!("{} is out on square {}: {why}", m.car, m.square),
    )
}

/// A module came or went.
pub fn module(m: &ModuleChanged) -> Line {
    let change = match m.change {
        ModuleChange::Gained => "gained",
        ModuleChange::Lost => "lost",
    };
    let why = match m.reason {
        ModuleReason::MineField => "a mine",
        ModuleReason::Wreck => "the wreck",
        ModuleReason::Snakes => "snakes",
        ModuleReason::Garage => "the garage",
        ModuleReason::DuelLost => "a lost duel",
    };
    line(
        "module",
        Some(&m.team),
        format!(
            "{} {change} {} {} ({why}): {}P {}E {}W",
            m.car,
            if m.module == ModuleKind::Engine {
                "an"
            } else {
                "a"
            },
            module_name(m.module),
            m.modules.pilots,
            m.modules.engines,
            m.modules.weapons
        ),
    )
}

/// Why a penalty, in words.
pub fn penalty_reason(reason: PenaltyReason) -> &'static str {
    match reason {
        PenaltyReason::NoAnswer => "no answer before the deadline",
        PenaltyReason::WrongAnswer => "an answer to another question",
        PenaltyReason::WrongState => "a state report that differs from the master's",
    }
}

/// A car was penalised.
pub fn penalty(m: &PenaltyGiven) -> Line {
    line(
        "penalty",
        Some(&m.team),
        format!(
            "{} penalised (decision {}): {}; {} turn(s) to miss",
            m.car,
            m.decision_id,
            penalty_reason(m.reason),
            m.turns_to_miss
        ),
    )
}

/// A random event was drawn.
pub fn drawn(m: &EventDrawn) -> Line {
    let mut text = format!("{} meets {} (roll {})", m.car, event_name(m.event), m.roll);
    if let Some(p) = &m.pirates {
        text.push_str(&format!(": {}, {} weapon(s)", p.name, p.modules.weapons));
    }
    line("event", Some(&m.team), text)
}

/// How an event ended.
pub fn resolved(m: &EventResolved) -> Line {
    let outcome = match m.outcome {
        EventOutcome::Skipped => "skipped (turns to miss)".to_string(),
        EventOutcome::CrossedUnhurt => "crossed unhurt".into(),
        EventOutcome::CrossedHurt => "crossed and lost a module".into(),
        EventOutcome::WentAround => "went around".into(),
        EventOutcome::FoundNothing => "explored, found nothing".into(),
        EventOutcome::FoundModule => "explored, found a module".into(),
        EventOutcome::Snakes => "explored, snakes bit the pilot".into(),
        EventOutcome::Ignored => "did not explore".into(),
        EventOutcome::Bought => format!("bought for ${}", m.price.unwrap_or(0)),
        EventOutcome::CannotAfford => "could not afford it".into(),
        EventOutcome::Declined => "bought nothing".into(),
        EventOutcome::NoAnswer => "no answer".into(),
        EventOutcome::WrongAnswer => "a wrong answer".into(),
        EventOutcome::FightWon => "beat the pirates".into(),
        EventOutcome::FightLost => "lost to the pirates".into(),
        EventOutcome::FightDrawn => "drew with the pirates".into(),
        EventOutcome::Destroyed => "destroyed by the pirates".into(),
    };
    let mut l = line(
        "event",
        Some(&m.team),
        format!("{}: {} — {outcome}", m.car, event_name(m.event)),
    );
    l.duel_id = m.duel_id;
    l
}

/// Two cars meet.
pub fn paired(m: &CombatPaired) -> Line {
    let names: Vec<String> = m
        .fighters
        .iter()
        .map(|f| fighter_name(f.car.as_ref(), &f.team))
        .collect();
    line(
        "combat",
        None,
        format!(
            "combat {} on square {}: {}",
            m.combat_id,
            m.square,
            names.join(" vs ")
        ),
    )
}

/// How a combat ended.
pub fn combat(m: &CombatResolved) -> Line {
    let text = match m.outcome {
        CombatOutcome::Declined => format!("combat {}: nobody wanted to fight", m.combat_id),
        CombatOutcome::Destroyed => format!(
            "combat {}: a car with no weapon was destroyed{}",
            m.combat_id,
            m.winner
                .as_ref()
                .map(|w| format!(" ({w} wins)"))
                .unwrap_or_default()
        ),
        CombatOutcome::Won => format!(
            "combat {}: {} beat {}",
            m.combat_id,
            m.winner.as_deref().unwrap_or("?"),
            m.loser.as_deref().unwrap_or("?")
        ),
        CombatOutcome::Drawn => format!("combat {}: a draw", m.combat_id),
    };
    let mut l = line("combat", None, text);
    l.duel_id = m.duel_id;
    l
}

/// A duel starts.
pub fn duel_started(m: &DuelStarted) -> Line {
    let names: Vec<String> = m
        .fighters
        .iter()
        .map(|f| format!("{} ({}W)", fighter_name(f.car.as_ref(), &f.team), f.weapons))
        .collect();
    let mut l = line(
        "duel",
        None,
        format!("duel {} starts: {}", m.duel_id, names.join(" vs ")),
    );
    l.duel_id = Some(m.duel_id);
    l
}

/// Why a duel ended, in words.
pub fn duel_reason(reason: DuelReason) -> &'static str {
    match reason {
        DuelReason::Hit => "hit",
        DuelReason::DefenderOutOfCards => "parried with its last cards",
        DuelReason::IllegalAnswer => "an illegal answer",
        DuelReason::NoLegalAnswer => "no legal answer",
        DuelReason::NoAnswer => "no answer in time",
        DuelReason::WrongAnswer => "an answer to another question",
        DuelReason::DeckExhausted => "the deck ran out: a draw",
    }
}

/// A duel is over.
pub fn duel_resolved(m: &DuelResolved) -> Line {
    let name = |i: usize| {
        m.fighters
            .get(i)
            .map(|f| fighter_name(f.car.as_ref(), &f.team))
            .unwrap_or_default()
    };
    let text = match m.winner {
        Some(w) => format!(
            "duel {}: {} beat {} in {} step(s) ({})",
            m.duel_id,
            name(usize::from(w)),
            name(1 - usize::from(w.min(1))),
            m.steps.len(),
            duel_reason(m.reason)
        ),
        None => format!("duel {}: {}", m.duel_id, duel_reason(m.reason)),
    };
    let mut l = line("duel", None, text);
    l.duel_id = Some(m.duel_id);
    l
}

/// An achievement.
pub fn achievement(m: &AchievementAwarded) -> Line {
    line(
        "achievement",
        Some(&m.team),
        format!(
            "{} earned “{}” (+{} point(s), +${})",
            m.car, m.title, m.points, m.money
        ),
    )
}

/// A hint.
pub fn hint(m: &HintPublished) -> Line {
    line("hint", None, format!("hint ({}): {}", m.title, m.hint))
}

/// The end.
pub fn finished(turn: u32, reason: FinishReason) -> Line {
    let why = match reason {
        FinishReason::Turns => "its turns were played",
        FinishReason::Duration => "its time ran out",
    };
    line(
        "race",
        None,
        format!("the race is over after turn {turn}: {why}"),
    )
}
