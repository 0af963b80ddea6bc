//! Every duel of the race: who fought, each answer as `race.duel.played.v1` told it while the
//! duel ran (cards played, never the hands: those stay secret until the end), and the whole
//! transcript once `race.duel.resolved.v1` reveals it. [`replay`] turns a transcript into one
//! frame per step — both hands, the squares, the attack and the parry, the cards drawn, the
//! deck left — which the duel's page steps through.

use std::collections::BTreeMap;

use arcade_contracts::race::{
    CombatResolved, DuelAction, DuelAnswer, DuelFighter, DuelPlayed, DuelReason, DuelResolved,
    DuelStarted, IllegalReason, ParryOutcome, Silence,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::lines::duel_reason;

/// Duels kept (the newest by id); a race of two hours has a few hundred.
pub const MAX_DUELS: usize = 2_000;
/// Steps kept per duel (a duel's 25 cards end it in far fewer).
pub const MAX_STEPS: usize = 200;
/// Cards in the duel's deck.
pub const DECK: u32 = 25;
/// Where fighter 0 and fighter 1 start.
pub const START: [u32; 2] = [1, 23];

/// One duel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Duel {
    /// The duel.
    pub duel_id: u32,
    /// The combat it settles (absent against pirates).
    pub combat_id: Option<u32>,
    /// The turn it was fought in.
    pub turn: u32,
    /// Fighter 0 and fighter 1.
    pub fighters: Vec<DuelFighter>,
    /// Who played first.
    pub first_player: u8,
    /// Each answer as it was played.
    pub played: Vec<DuelPlayed>,
    /// The whole transcript, once over.
    pub transcript: Option<DuelResolved>,
    /// When the console saw it start.
    pub seen_at_ms: u64,
}

/// The duels, by id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Duels {
    by_id: BTreeMap<u32, Duel>,
}

impl Duels {
    /// A duel, if kept.
    pub fn get(&self, duel_id: u32) -> Option<&Duel> {
        self.by_id.get(&duel_id)
    }

    /// The newest `n` duels, newest first.
    pub fn newest(&self, n: usize) -> impl Iterator<Item = &Duel> {
        self.by_id.values().rev().take(n)
    }

    /// How many are kept.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    fn insert(&mut self, duel: Duel) {
        self.by_id.insert(duel.duel_id, duel);
        while self.by_id.len() > MAX_DUELS {
            self.by_id.pop_first();
        }
    }

    /// `race.duel.started.v1`.
    pub fn started(&mut self, m: DuelStarted, seen_at_ms: u64) {
        self.insert(Duel {
            duel_id: m.duel_id,
            combat_id: m.combat_id,
            turn: m.turn,
            fighters: m.fighters,
            first_player: m.first_player,
            played: Vec::new(),
            transcript: None,
            seen_at_ms,
        });
    }

    /// `race.duel.played.v1`.
    pub fn played(&mut self, m: DuelPlayed) {
        if let Some(duel) = self.by_id.get_mut(&m.duel_id)
            && duel.played.len() < MAX_STEPS
            && !duel.played.iter().any(|p| p.step == m.step)
        {
            duel.played.push(m);
        }
    }

    /// `race.duel.resolved.v1` (a duel the console did not see start is begun from it).
    pub fn resolved(&mut self, mut m: DuelResolved, turn: u32, seen_at_ms: u64) {
        m.steps.truncate(MAX_STEPS);
        match self.by_id.get_mut(&m.duel_id) {
            Some(duel) => duel.transcript = Some(m),
            None => self.insert(Duel {
                duel_id: m.duel_id,
                combat_id: m.combat_id,
                turn,
                fighters: m.fighters.clone(),
                first_player: m.first_player,
                played: Vec::new(),
                transcript: Some(m),
                seen_at_ms,
            }),
        }
    }

    /// `race.combat.resolved.v1`: nothing to keep beyond the duel's own facts (the turn's story
    /// tells the combat).
    pub fn combat_resolved(&mut self, _m: &CombatResolved) {}
}

fn name(fighters: &[DuelFighter], i: usize) -> String {
    fighters
        .get(i)
        .map(|f| f.car.clone().unwrap_or_else(|| f.team.clone()))
        .unwrap_or_else(|| format!("fighter {i}"))
}

/// The summary of a duel in a list.
pub fn summary(duel: &Duel) -> Value {
    let t = duel.transcript.as_ref();
    json!({
        "duelId": duel.duel_id,
        "combatId": duel.combat_id,
        "turn": duel.turn,
        "fighters": [name(&duel.fighters, 0), name(&duel.fighters, 1)],
        "over": t.is_some(),
        "winner": t.and_then(|t| t.winner).map(|w| name(&duel.fighters, usize::from(w))),
        "reason": t.map(|t| duel_reason(t.reason)),
        "steps": t.map_or(duel.played.len(), |t| t.steps.len()),
    })
}

fn illegal_text(reason: IllegalReason) -> &'static str {
    match reason {
        IllegalReason::Empty => "no card played",
        IllegalReason::NotACard => "not a card",
        IllegalReason::NotHeld => "a card not held",
        IllegalReason::TooFar => "it would pass the opponent",
        IllegalReason::OutOfReach => "attack cards that are not the distance",
        IllegalReason::BadShape => "not a legal shape",
    }
}

fn parry_text(parry: Option<ParryOutcome>) -> &'static str {
    match parry {
        Some(ParryOutcome::Parried) => "parried",
        Some(ParryOutcome::ParriedLastCards) => "parried with the last cards: lost",
        Some(ParryOutcome::Hit) => "hit",
        None => "",
    }
}

/// One answer as both `race.duel.played.v1` (while the duel runs) and a transcript's step
/// (once it is over) tell it: the contract's [`DuelAnswer`], which both carry.
trait Answer {
    /// Fighter 0 or 1.
    fn me(&self) -> usize;
    /// What the answer did, in words (`who` played it).
    fn text(&self, who: &str) -> String;
    /// The answer's frame: step `step`, told by `text`; `drawn`, `hands` and `deckLeft` as
    /// the message knows them (null when it does not).
    fn frame(
        &self,
        step: Value,
        text: String,
        drawn: Value,
        hands: Value,
        deck_left: Value,
    ) -> Value;
}

impl Answer for DuelAnswer {
    fn me(&self) -> usize {
        usize::from(self.fighter.min(1))
    }

    fn text(&self, who: &str) -> String {
        let cards = &self.cards;
        let moved = self.moved;
        let attack = || {
            format!(
                "attacks with {}×{}: {}",
                self.attack_cards,
                self.attack_value.unwrap_or(0),
                parry_text(self.parry)
            )
        };
        match self.action {
            DuelAction::Move => format!("{who} plays {cards:?}: moves {moved}"),
            DuelAction::Attack => format!("{who} plays {cards:?}: {}", attack()),
            DuelAction::MoveAttack => {
                format!("{who} plays {cards:?}: moves {moved}, {}", attack())
            }
            DuelAction::Illegal => {
                let (reason, card) = self
                    .illegal
                    .map_or((IllegalReason::BadShape, None), |i| (i.reason, i.card));
                let card = card.map(|c| format!(" ({c})")).unwrap_or_default();
                format!(
                    "{who} plays {cards:?}: illegal, {}{card} — loses",
                    illegal_text(reason)
                )
            }
            DuelAction::Silent => match self.silence {
                Some(Silence::WrongAnswer) => format!("{who} answered another question — loses"),
                _ => format!("{who} did not answer in time — loses"),
            },
        }
    }

    fn frame(
        &self,
        step: Value,
        text: String,
        drawn: Value,
        hands: Value,
        deck_left: Value,
    ) -> Value {
        json!({
            "step": step,
            "fighter": self.me(),
            "cards": self.cards,
            "action": self.action,
            "parry": self.parry,
            "moved": self.moved,
            "attackValue": self.attack_value,
            "attackCards": self.attack_cards,
            "drawn": drawn,
            "text": text,
            "squares": self.squares,
            "hands": hands,
            "deckLeft": deck_left,
        })
    }
}

fn take(hand: &mut Vec<u8>, card: u8) {
    if let Some(i) = hand.iter().position(|&c| c == card) {
        hand.remove(i);
    }
}

fn sorted(hand: &[u8]) -> Vec<u8> {
    let mut hand = hand.to_vec();
    hand.sort_unstable();
    hand
}

/// A transcript as frames: frame 0 is the deal, then one per answer with both hands after it.
pub fn replay(duel: &DuelResolved) -> Vec<Value> {
    let mut hands = [
        duel.hands.first().cloned().unwrap_or_default(),
        duel.hands.get(1).cloned().unwrap_or_default(),
    ];
    let dealt = (hands[0].len() + hands[1].len()) as u32;
    let mut deck_left = DECK.saturating_sub(dealt);
    let mut frames = vec![json!({
        "step": null,
        "text": format!(
            "{} dealt {} card(s) and plays first; {} dealt {}",
            name(&duel.fighters, usize::from(duel.first_player.min(1))),
            hands[usize::from(duel.first_player.min(1))].len(),
            name(&duel.fighters, 1 - usize::from(duel.first_player.min(1))),
            hands[1 - usize::from(duel.first_player.min(1))].len(),
        ),
        "squares": START,
        "hands": [sorted(&hands[0]), sorted(&hands[1])],
        "deckLeft": deck_left,
    })];
    for (i, step) in duel.steps.iter().enumerate() {
        let answer = &step.answer;
        let me = answer.me();
        let legal = matches!(
            answer.action,
            DuelAction::Move | DuelAction::Attack | DuelAction::MoveAttack
        );
        if legal {
            for &card in &answer.cards {
                take(&mut hands[me], card);
            }
            if matches!(
                answer.parry,
                Some(ParryOutcome::Parried | ParryOutcome::ParriedLastCards)
            ) && let Some(value) = answer.attack_value
            {
                for _ in 0..answer.attack_cards {
                    take(&mut hands[1 - me], value);
                }
            }
        }
        hands[me].extend_from_slice(&step.drawn);
        deck_left = deck_left.saturating_sub(step.drawn.len() as u32);
        let mut text = answer.text(&name(&duel.fighters, me));
        if !step.drawn.is_empty() {
            text.push_str(&format!("; draws {:?}", step.drawn));
        }
        frames.push(answer.frame(
            json!(i),
            text,
            json!(step.drawn),
            json!([sorted(&hands[0]), sorted(&hands[1])]),
            json!(deck_left),
        ));
    }
    frames
}

/// The frames of a duel still running: what `race.duel.played.v1` told (no hands, no cards
/// drawn: only their number).
fn played_frames(duel: &Duel) -> Vec<Value> {
    let mut frames = vec![json!({
        "step": null,
        "text": format!("{} plays first; the hands stay secret until the duel is over",
            name(&duel.fighters, usize::from(duel.first_player.min(1)))),
        "squares": START,
        "hands": null,
        "deckLeft": null,
    })];
    for p in &duel.played {
        let answer = &p.answer;
        let mut text = answer.text(&name(&duel.fighters, answer.me()));
        if p.drew > 0 {
            text.push_str(&format!("; draws {} card(s)", p.drew));
        }
        frames.push(answer.frame(json!(p.step), text, Value::Null, Value::Null, Value::Null));
    }
    frames
}

/// The view of one duel: its fighters, how it ended, and its frames.
pub fn view(duel: &Duel) -> Value {
    let t = duel.transcript.as_ref();
    json!({
        "duelId": duel.duel_id,
        "combatId": duel.combat_id,
        "turn": duel.turn,
        "fighters": duel.fighters.iter().enumerate().map(|(i, f)| json!({
            "name": name(&duel.fighters, i),
            "team": f.team,
            "car": f.car,
            "weapons": f.weapons,
        })).collect::<Vec<_>>(),
        "firstPlayer": duel.first_player,
        "over": t.is_some(),
        "winner": t.and_then(|t| t.winner),
        "reason": t.map(|t| t.reason),
        "reasonText": t.map(|t| duel_reason(t.reason)),
        "draw": t.is_some_and(|t| t.reason == DuelReason::DeckExhausted),
        "deck": t.map(|t| t.deck.clone()),
        "frames": t.map_or_else(|| played_frames(duel), replay),
    })
}

#[cfg(test)]
mod tests;
