//! Tests of the duels' read model.

use super::*;
use arcade_contracts::Message;
use arcade_contracts::race::DuelStep;

fn step(fighter: u8, cards: &[u8], action: DuelAction, drawn: &[u8]) -> DuelStep {
    DuelStep {
        answer: DuelAnswer {
            fighter,
            cards: cards.to_vec(),
            silence: None,
            action,
            illegal: None,
            moved: 0,
            attack_value: None,
            attack_cards: 0,
            parry: None,
            squares: vec![1, 23],
        },
        drawn: drawn.to_vec(),
    }
}

#[test]
fn a_parry_takes_the_defenders_cards_and_a_draw_refills_the_hand() {
    let mut duel = DuelResolved::example();
    duel.hands = vec![vec![4, 4, 3], vec![4, 4, 2]];
    duel.first_player = 0;
    let mut attack = step(1, &[4, 4], DuelAction::Attack, &[1, 3]);
    attack.answer.attack_value = Some(4);
    attack.answer.attack_cards = 2;
    attack.answer.parry = Some(ParryOutcome::Parried);
    let mut illegal = step(0, &[6], DuelAction::Illegal, &[]);
    illegal.answer.illegal = Some(arcade_contracts::race::IllegalAnswer {
        reason: IllegalReason::NotACard,
        card: Some(6),
        distance: None,
    });
    duel.steps = vec![step(0, &[3], DuelAction::Move, &[5]), attack, illegal];
    let frames = replay(&duel);
    assert_eq!(frames.len(), 4, "the deal and three steps");
    assert_eq!(frames[0]["hands"], json!([[3, 4, 4], [2, 4, 4]]));
    assert_eq!(frames[0]["deckLeft"], 19);
    assert_eq!(
        frames[1]["hands"],
        json!([[4, 4, 5], [2, 4, 4]]),
        "3 played, 5 drawn"
    );
    assert_eq!(
        frames[2]["hands"],
        json!([[5], [1, 2, 3]]),
        "two 4s parried"
    );
    assert!(frames[2]["text"].as_str().unwrap().contains("parried"));
    assert_eq!(frames[2]["deckLeft"], 16);
    assert_eq!(
        frames[3]["hands"], frames[2]["hands"],
        "an illegal answer takes nothing"
    );
    assert!(
        frames[3]["text"]
            .as_str()
            .unwrap()
            .contains("not a card (6)")
    );
}
