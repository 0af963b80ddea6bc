//! The original master's fighting AI protocol, for teams whose AI already speaks it: for each
//! duel answer the car asks `GET <url>?yourmoves=[…]&othermoves=[…]&cards=[…]` and plays the
//! cards of the reply `{"res":[…]}`. A move is recorded as its card, an attack as 0 (a move
//! then an attack as the move's card, then 0), as the original master recorded them.
//!
//! This module is the pure part (the query, the reply); [`DuelAdvisor`] is what a car program
//! asks, and `arcade car --duel-ai URL` implements it over HTTP.

use arcade_contracts::race::{DuelAction, DuelQuestion};

/// Something a car program asks for a duel answer instead of its built-in strategy.
#[async_trait::async_trait]
pub trait DuelAdvisor: Send + Sync {
    /// The cards to play (an answer the master judges; an empty list is an illegal answer).
    async fn advise(&self, question: &DuelQuestion) -> Vec<u8>;
}

/// The past moves of one fighter as the original master recorded them: a move as its card,
/// an attack as 0; illegal or missing answers are not moves.
pub fn moves_of(question: &DuelQuestion, fighter: u8) -> Vec<u8> {
    let mut moves = Vec::new();
    for entry in question.history.iter().filter(|e| e.fighter == fighter) {
        match entry.action {
            DuelAction::Move => moves.extend(entry.cards.first().copied()),
            DuelAction::Attack => moves.push(0),
            DuelAction::MoveAttack => {
                moves.extend(entry.cards.first().copied());
                moves.push(0);
            }
            DuelAction::Illegal | DuelAction::Silent => {}
        }
    }
    moves
}

fn list(values: &[u8]) -> String {
    let items: Vec<String> = values.iter().map(u8::to_string).collect();
    format!("[{}]", items.join(","))
}

/// The URL the AI is asked at: `url` with `yourmoves`, `othermoves` and `cards` added to its
/// query, each a JSON list as in the rule book (`?yourmoves=[1,5,4,1]&othermoves=[1,2,2,4]&cards=[3,2,1,1,2,2]`).
pub fn ai_url(url: &str, question: &DuelQuestion) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!(
        "{url}{separator}yourmoves={}&othermoves={}&cards={}",
        list(&moves_of(question, question.you)),
        list(&moves_of(question, 1 - question.you.min(1))),
        list(&question.cards)
    )
}

/// The cards of the AI's reply `{"res":[…]}`; an error naming what is wrong otherwise.
pub fn parse_reply(body: &[u8]) -> Result<Vec<u8>, String> {
    #[derive(serde::Deserialize)]
    struct Reply {
        res: Vec<u8>,
    }
    serde_json::from_slice::<Reply>(body)
        .map(|r| r.res)
        .map_err(|e| format!("the reply is not {{\"res\":[cards…]}}: {e}"))
}

#[cfg(test)]
mod tests {
    use arcade_contracts::race::{DuelHistoryEntry, ParryOutcome};

    use super::*;

    fn entry(fighter: u8, cards: &[u8], action: DuelAction) -> DuelHistoryEntry {
        DuelHistoryEntry {
            fighter,
            cards: cards.to_vec(),
            action,
            parry: (action != DuelAction::Move).then_some(ParryOutcome::Parried),
        }
    }

    #[test]
    fn the_query_records_moves_by_card_and_attacks_as_zero() {
        let question = DuelQuestion {
            duel_id: 1,
            you: 1,
            cards: vec![3, 2, 1],
            squares: vec![9, 14],
            distance: 5,
            opponent_cards: 3,
            deck_left: 10,
            history: vec![
                entry(0, &[5], DuelAction::Move),
                entry(1, &[4], DuelAction::Move),
                entry(0, &[3], DuelAction::Move),
                entry(1, &[2, 3], DuelAction::MoveAttack),
                entry(0, &[3, 3], DuelAction::Attack),
            ],
        };
        assert_eq!(
            ai_url("http://ai.example/prod/action", &question),
            "http://ai.example/prod/action?yourmoves=[4,2,0]&othermoves=[5,3,0]&cards=[3,2,1]"
        );
        assert_eq!(
            ai_url("http://ai.example/a?team=red", &question),
            "http://ai.example/a?team=red&yourmoves=[4,2,0]&othermoves=[5,3,0]&cards=[3,2,1]"
        );
    }

    #[test]
    fn a_reply_is_res_or_an_error_naming_the_shape() {
        assert_eq!(parse_reply(br#"{"res":[1,2,2]}"#).unwrap(), [1, 2, 2]);
        let error = parse_reply(br#"{"move":[1]}"#).unwrap_err();
        assert!(error.contains(r#"{"res":[cards…]}"#), "{error}");
    }
}
