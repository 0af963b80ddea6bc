//! The duel as a state machine: deal, then one answer at a time until someone wins or the
//! deck runs out. Every answer is recorded with what it did, so the transcript tells the
//! whole duel.
//!
//! Rules, as the issue states them: fighter 0 starts on square 1 and moves up, fighter 1 on
//! square 23 and moves down; each is dealt as many cards as it has weapons, the first player
//! first, from the top. An attack of `count` cards of value v must be parried with as many
//! cards of v: otherwise the defender is hit and loses; a defender left with no card after
//! parrying loses; a defender who parries does not draw and plays its turn. At the end of its
//! turn the active player draws back to its weapon count; if the deck runs out while it draws
//! (or while dealing), the duel is a draw. A player with no legal answer on its turn loses.

use arcade_contracts::race::{DuelAction, DuelAnswer};

use super::answer::{Action, Illegal, has_legal_answer, judge};
use super::cards::{DECK_SIZE, Deck, Hand};

/// How an attack was met: the contract's `ParryOutcome`, the same thing.
pub use arcade_contracts::race::ParryOutcome as Parry;
/// Why a fighter played no cards: the contract's `race.*` enum, the same thing.
pub use arcade_contracts::race::Silence;

/// Where the fighters start: 22 squares apart.
pub const START_SQUARES: [u32; 2] = [1, 23];

/// What a fighter played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Play {
    /// These cards, in this order.
    Cards(Vec<u8>),
    /// Nothing.
    Silent(Silence),
}

/// What an answer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// Illegal: the player lost.
    Illegal(Illegal),
    /// No cards: the player lost.
    Silent(Silence),
    /// A legal action; `parry` when it attacked.
    Played {
        /// The action.
        action: Action,
        /// How the attack was met.
        parry: Option<Parry>,
    },
}

/// One answer and its effects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Who played (0 or 1).
    pub fighter: usize,
    /// What was played.
    pub play: Play,
    /// What it did.
    pub outcome: StepOutcome,
    /// Squares of both fighters after it.
    pub squares: [u32; 2],
    /// Cards the player drew at the end of its turn, in order.
    pub drawn: Vec<u8>,
}

impl Step {
    /// The answer as `race.duel.played.v1` and a transcript tell it: who played, what, what it
    /// did, and the squares after.
    pub fn told(&self) -> DuelAnswer {
        let (cards, silence) = match &self.play {
            Play::Cards(cards) => (cards.clone(), None),
            Play::Silent(s) => (Vec::new(), Some(*s)),
        };
        let (action, illegal, played, parry) = match self.outcome {
            StepOutcome::Illegal(i) => (DuelAction::Illegal, Some(i.fault()), None, None),
            StepOutcome::Silent(_) => (DuelAction::Silent, None, None, None),
            StepOutcome::Played { action, parry } => {
                let kind = match action {
                    Action::Move(_) => DuelAction::Move,
                    Action::Attack { .. } => DuelAction::Attack,
                    Action::MoveAttack { .. } => DuelAction::MoveAttack,
                };
                (kind, None, Some(action), parry)
            }
        };
        let attack = played.and_then(|a| a.attack());
        DuelAnswer {
            fighter: self.fighter as u8,
            cards,
            silence,
            action,
            illegal,
            moved: played.map_or(0, |a| u32::from(a.moved())),
            attack_value: attack.map(|(v, _)| v),
            attack_cards: attack.map_or(0, |(_, n)| u32::from(n)),
            parry,
            squares: self.squares.to_vec(),
        }
    }
}

/// Why a fighter won.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinReason {
    /// The defender could not parry.
    Hit,
    /// The defender parried with its last cards.
    DefenderOutOfCards,
    /// The loser played an illegal answer.
    IllegalAnswer,
    /// The loser had no legal answer on its turn.
    NoLegalAnswer,
    /// The loser did not answer in time.
    NoAnswer,
    /// The loser answered another question.
    WrongAnswer,
}

/// How a duel ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// A winner (0 or 1).
    Won {
        /// The winner.
        winner: usize,
        /// Why.
        reason: WinReason,
    },
    /// The deck ran out while a player had to draw: nobody is harmed.
    Draw,
}

/// An answer given to a duel that is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the duel is over ({0:?}); no answer is awaited")]
pub struct DuelOver(pub End);

/// A duel in progress (or over).
#[derive(Debug, Clone)]
pub struct Duel {
    deck: Deck,
    next: usize,
    hands: [Hand; 2],
    dealt: [Vec<u8>; 2],
    weapons: [u32; 2],
    squares: [u32; 2],
    first: usize,
    to_play: usize,
    discarded: Hand,
    steps: Vec<Step>,
    end: Option<End>,
}

impl Duel {
    /// Deals from `deck`: `first` (0 or 1; anything else counts as 1) is dealt first and plays
    /// first.
    pub fn new(deck: Deck, weapons: [u32; 2], first: usize) -> Duel {
        let first = first.min(1);
        let mut duel = Duel {
            deck,
            next: 0,
            hands: [Hand::default(); 2],
            dealt: [Vec::new(), Vec::new()],
            weapons,
            squares: START_SQUARES,
            first,
            to_play: first,
            discarded: Hand::default(),
            steps: Vec::new(),
            end: None,
        };
        for fighter in [first, 1 - first] {
            let (cards, complete) = duel.draw_up(fighter);
            duel.dealt[fighter] = cards;
            if !complete {
                duel.end = Some(End::Draw);
                return duel;
            }
        }
        duel.check_turn();
        duel
    }

    /// Plays the answer of the fighter whose turn it is.
    pub fn play(&mut self, play: Play) -> Result<&Step, DuelOver> {
        if let Some(end) = self.end {
            return Err(DuelOver(end));
        }
        let me = self.to_play;
        let other = 1 - me;
        let mut drawn = Vec::new();
        let outcome = match &play {
            Play::Silent(silence) => {
                let reason = match silence {
                    Silence::NoAnswer => WinReason::NoAnswer,
                    Silence::WrongAnswer => WinReason::WrongAnswer,
                };
                self.end = Some(End::Won {
                    winner: other,
                    reason,
                });
                StepOutcome::Silent(*silence)
            }
            Play::Cards(cards) => match judge(cards, &self.hands[me], self.distance()) {
                Err(illegal) => {
                    self.end = Some(End::Won {
                        winner: other,
                        reason: WinReason::IllegalAnswer,
                    });
                    StepOutcome::Illegal(illegal)
                }
                Ok(action) => {
                    let parry = self.apply(me, action);
                    if self.end.is_none() {
                        let (cards, complete) = self.draw_up(me);
                        drawn = cards;
                        if !complete {
                            self.end = Some(End::Draw);
                        } else {
                            self.to_play = other;
                            self.check_turn();
                        }
                    }
                    StepOutcome::Played { action, parry }
                }
            },
        };
        self.steps.push(Step {
            fighter: me,
            play,
            outcome,
            squares: self.squares,
            drawn,
        });
        Ok(self.steps.last().expect("a step was just pushed"))
    }

    /// Moves and attacks for `me`; returns how an attack was met and ends the duel if it hit.
    fn apply(&mut self, me: usize, action: Action) -> Option<Parry> {
        let other = 1 - me;
        for card in action.cards() {
            self.hands[me].take(card, 1);
            self.discarded.add(card);
        }
        let step = u32::from(action.moved());
        if me == 0 {
            self.squares[0] += step;
        } else {
            self.squares[1] -= step;
        }
        let (value, count) = action.attack()?;
        if !self.hands[other].take(value, count) {
            self.end = Some(End::Won {
                winner: me,
                reason: WinReason::Hit,
            });
            return Some(Parry::Hit);
        }
        for _ in 0..count {
            self.discarded.add(value);
        }
        if self.hands[other].is_empty() {
            self.end = Some(End::Won {
                winner: me,
                reason: WinReason::DefenderOutOfCards,
            });
            return Some(Parry::ParriedLastCards);
        }
        // The defender does not draw and plays next; the attacker still ends its turn.
        Some(Parry::Parried)
    }

    /// Draws for `fighter` up to its weapon count; false if the deck ran out first.
    fn draw_up(&mut self, fighter: usize) -> (Vec<u8>, bool) {
        let mut drawn = Vec::new();
        while self.hands[fighter].len() < self.weapons[fighter] {
            if self.next == DECK_SIZE {
                return (drawn, false);
            }
            let card = self.deck.cards()[self.next];
            self.next += 1;
            self.hands[fighter].add(card);
            drawn.push(card);
        }
        (drawn, true)
    }

    /// Ends the duel if the player to move has no legal answer.
    fn check_turn(&mut self) {
        if !has_legal_answer(&self.hands[self.to_play], self.distance()) {
            self.end = Some(End::Won {
                winner: 1 - self.to_play,
                reason: WinReason::NoLegalAnswer,
            });
        }
    }

    /// Squares between the fighters.
    pub fn distance(&self) -> u32 {
        self.squares[1] - self.squares[0]
    }

    /// Squares of fighter 0 and fighter 1.
    pub fn squares(&self) -> [u32; 2] {
        self.squares
    }

    /// Whose turn it is (meaningless once over).
    pub fn to_play(&self) -> usize {
        self.to_play
    }

    /// Who played (and was dealt) first.
    pub fn first(&self) -> usize {
        self.first
    }

    /// A fighter's hand.
    pub fn hand(&self, fighter: usize) -> &Hand {
        &self.hands[fighter.min(1)]
    }

    /// A fighter's weapons.
    pub fn weapons(&self) -> [u32; 2] {
        self.weapons
    }

    /// The cards dealt to each fighter, in order.
    pub fn dealt(&self) -> &[Vec<u8>; 2] {
        &self.dealt
    }

    /// The deck's initial order.
    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// Cards still in the deck, top first.
    pub fn deck_left(&self) -> &[u8] {
        &self.deck.cards()[self.next..]
    }

    /// Cards played or discarded by parries.
    pub fn discarded(&self) -> &Hand {
        &self.discarded
    }

    /// Every answer so far.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// How it ended, once over.
    pub fn end(&self) -> Option<End> {
        self.end
    }
}
