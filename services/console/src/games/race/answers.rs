//! A decision's answer in words, and the question each kind of answer answers.

use arcade_contracts::race::Answer;

use super::lines::module_name;

/// The kind of an answer (the question it answers).
pub fn answer_kind(answer: &Answer) -> &'static str {
    match answer {
        Answer::ShouldFight { .. } => "shouldFight",
        Answer::CrossMineField { .. } => "crossMineField",
        Answer::ExploreWreck { .. } => "exploreWreck",
        Answer::BuyAtGarage { .. } => "buyAtGarage",
        Answer::DuelAnswer { .. } => "duelAnswer",
        Answer::ReportState { .. } => "reportState",
    }
}

pub(super) fn question_of_kind(kind: &str) -> String {
    match kind {
        "shouldFight" => "fight the car on your square?",
        "crossMineField" => "cross the mine field?",
        "exploreWreck" => "explore the wreck?",
        "buyAtGarage" => "buy a module at the garage?",
        "duelAnswer" => "your cards in the duel?",
        "reportState" => "report your state",
        _ => "a question the console could not see",
    }
    .into()
}

/// An answer in words.
pub fn answer_text(answer: &Answer) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    match answer {
        Answer::ShouldFight { fight } => format!("fight: {}", yes(*fight)),
        Answer::CrossMineField { cross } => format!("cross: {}", yes(*cross)),
        Answer::ExploreWreck { explore } => format!("explore: {}", yes(*explore)),
        Answer::BuyAtGarage { module } => match module {
            Some(m) => format!("buy a {}", module_name(*m)),
            None => "buy nothing".into(),
        },
        Answer::DuelAnswer { cards } => format!("play {cards:?}"),
        Answer::ReportState { square, modules } => format!(
            "square {square}, {}P {}E {}W",
            modules.pilots, modules.engines, modules.weapons
        ),
    }
}
