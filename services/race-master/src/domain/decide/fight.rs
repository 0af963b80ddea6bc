//! Fights: pairing cars of different teams on the same square of the ring (at random when
//! more share it), asking both whether they fight, destroying a car with no weapon, and driving duels —
//! a car's turn is a question to it, the pirates' turn is played at once with their built-in
//! tactics. A duel in progress is rebuilt from its deck (drawn from the seed) and its plays.

use std::collections::BTreeMap;

use arcade_contracts::race as c;

use super::work::Work;
use crate::domain::decision::{DuelView, HistoryEntry, Opponent, Question};
use crate::domain::dice::Purpose;
use crate::domain::duel::tactics::{Style, choose};
use crate::domain::duel::{Duel, End, Hand, Play, WinReason, deal_from_seed};
use crate::domain::event::{
    CombatOutcome, DuelReason, Event, EventOutcome, ModuleReason, Phase, StopReason,
};
use crate::domain::rules::{
    ARMED_WEAPONS, Achievement, DUEL_LOSS_TURNS, Modules, PIRATES_TEAM, RING_SQUARES,
    STRATEGIST_MARGIN,
};
use crate::domain::state::{Choice, DuelProgress, Side};

impl Work<'_> {
    fn fighter(&self, side: Side, pirates_weapons: u32) -> c::DuelFighter {
        match side {
            Side::Car(car) => {
                let (name, team) = self.names(car);
                c::DuelFighter {
                    car: Some(name),
                    team,
                    weapons: self.state.cars[car].modules.weapons,
                }
            }
            Side::Pirates => c::DuelFighter {
                car: None,
                team: PIRATES_TEAM.into(),
                weapons: pirates_weapons,
            },
        }
    }

    pub fn begin_combats(&mut self) {
        let turn = self.state.turn;
        self.emit(Event::PhaseStarted(c::PhaseStarted {
            turn,
            phase: Phase::Combats,
        }));
        // Cars meet on the same square of the ring, whatever lap each is on.
        let mut squares: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for car in (0..self.state.cars.len()).filter(|&c| self.state.racing(c)) {
            squares
                .entry(self.state.cars[car].square % RING_SQUARES)
                .or_default()
                .push(car);
        }
        let mut pairs = Vec::new();
        for (square, mut cars) in squares {
            if cars.len() < 2 {
                continue;
            }
            self.dice(Purpose::CombatPairing, turn, square)
                .shuffle(&mut cars);
            // Pair a car of the most numerous team left with the next car of another team (in
            // the shuffled order): as many combats as the teams allow, each car at most once.
            loop {
                let team_of = |c: usize| self.state.cars[c].team;
                let size = |t: usize| cars.iter().filter(|&&c| team_of(c) == t).count();
                let Some(largest) = cars.iter().map(|&c| size(team_of(c))).max() else {
                    break;
                };
                let Some(a) = cars.iter().position(|&c| size(team_of(c)) == largest) else {
                    break;
                };
                let Some(b) = cars.iter().position(|&c| team_of(c) != team_of(cars[a])) else {
                    break;
                };
                let pair = [cars[a.min(b)], cars[a.max(b)]];
                cars.remove(a.max(b));
                cars.remove(a.min(b));
                pairs.push((square, pair));
            }
        }
        for (square, cars) in pairs {
            let combat_id = self.state.last_combat + 1;
            let fighters = cars.map(|car| self.fighter(Side::Car(car), 0)).to_vec();
            self.emit(Event::CombatPaired(c::CombatPaired {
                combat_id,
                turn,
                square,
                fighters,
            }));
            for side in 0..2 {
                let (car, team) = self.names(cars[1 - side]);
                let weapons = self.state.cars[cars[1 - side]].modules.weapons;
                let question = Question::ShouldFight(Opponent {
                    combat_id,
                    square,
                    car,
                    team,
                    weapons,
                });
                self.ask(cars[side], question);
            }
        }
    }

    /// Settles a combat once both cars chose.
    pub fn resolve_combat(&mut self, combat_id: u32) {
        let Some(combat) = self.state.combats.get(&combat_id).cloned() else {
            return;
        };
        let [Some(a), Some(b)] = combat.choices else {
            return;
        };
        let resolved = |outcome, winner: Option<usize>, state: &Work<'_>| {
            Event::CombatResolved(c::CombatResolved {
                combat_id,
                outcome,
                winner: winner.map(|w| state.state.cars[w].name.to_string()),
                loser: None,
                loser_turns_to_miss: 0,
                duel_id: None,
            })
        };
        if a != Choice::Fight && b != Choice::Fight {
            if a == Choice::Refuse && b == Choice::Refuse {
                combat
                    .cars
                    .iter()
                    .for_each(|&car| self.award(car, Achievement::Pacifiste));
            }
            let event = resolved(CombatOutcome::Declined, None, self);
            self.emit(event);
            return;
        }
        let unarmed: Vec<usize> = combat
            .cars
            .iter()
            .copied()
            .filter(|&c| self.state.cars[c].modules.weapons == 0)
            .collect();
        if unarmed.is_empty() {
            self.start_duel(Some(combat_id), combat.cars.map(Side::Car), 0);
            return;
        }
        for &car in &unarmed {
            self.stop(car, StopReason::Destroyed);
        }
        let winner = combat.cars.iter().copied().find(|c| !unarmed.contains(c));
        let event = resolved(CombatOutcome::Destroyed, winner, self);
        self.emit(event);
    }

    /// Pirates attack a car: no weapon, destroyed; else a duel.
    pub fn meet_pirates(&mut self, car: usize, pirates: Modules) {
        if self.state.cars[car].modules.weapons == 0 {
            self.stop(car, StopReason::Destroyed);
            self.resolved(car, EventOutcome::Destroyed, None, None, None, 0);
        } else {
            self.start_duel(None, [Side::Car(car), Side::Pirates], pirates.weapons);
        }
    }

    fn start_duel(&mut self, combat_id: Option<u32>, sides: [Side; 2], pirates_weapons: u32) {
        let duel_id = self.state.last_duel + 1;
        let (_, first_player) = deal_from_seed(self.master.seed(), duel_id);
        let fighters = sides.map(|s| self.fighter(s, pirates_weapons)).to_vec();
        let turn = self.state.turn;
        self.emit(Event::DuelStarted(c::DuelStarted {
            duel_id,
            combat_id,
            turn,
            fighters,
            first_player: first_player as u8,
        }));
        for side in sides {
            if let Side::Car(car) = side
                && self.state.cars[car].modules.weapons >= ARMED_WEAPONS
            {
                self.award(car, Achievement::ArmeJusquAuxDents);
            }
        }
        self.drive_duel(duel_id, None);
    }

    fn rebuild(&self, duel_id: u32, progress: &DuelProgress) -> Duel {
        let (deck, first) = deal_from_seed(self.master.seed(), duel_id);
        let mut duel = Duel::new(deck, progress.weapons, first);
        for play in &progress.plays {
            // The plays were accepted when they were made; a finished duel ignores extras.
            let _ = duel.play(play.clone());
        }
        duel
    }

    /// Plays `play` (a car's answer) if any, then the pirates' turns, until a car must answer
    /// or the duel ends.
    pub fn drive_duel(&mut self, duel_id: u32, play: Option<Play>) {
        let Some(progress) = self.state.duels.get(&duel_id).cloned() else {
            return;
        };
        let mut duel = self.rebuild(duel_id, &progress);
        let mut next = play;
        loop {
            if let Some(play) = next.take() {
                let Ok(step) = duel.play(play) else { break };
                let (answer, drew) = (step.told(), step.drawn.len() as u32);
                let played = c::DuelPlayed {
                    duel_id,
                    step: duel.steps().len() as u32 - 1,
                    answer,
                    drew,
                };
                self.emit(Event::DuelPlayed(played));
            }
            if duel.end().is_some() {
                break;
            }
            let me = duel.to_play();
            match progress.sides[me] {
                Side::Car(car) => {
                    let view = duel_view(duel_id, &duel, me);
                    self.ask(car, Question::DuelAnswer(view));
                    return;
                }
                Side::Pirates => {
                    let seen = seen_cards(&duel);
                    let opponent = duel.hand(1 - me).len();
                    let action = choose(
                        Style::Aggressive,
                        duel.hand(me),
                        duel.distance(),
                        &seen,
                        opponent,
                    );
                    // With no legal answer the duel would already be over; an empty answer
                    // is the honest fallback (illegal, the pirates lose).
                    next = Some(Play::Cards(action.map(|a| a.cards()).unwrap_or_default()));
                }
            }
        }
        self.finish_duel(duel_id, &progress, &duel);
    }

    fn finish_duel(&mut self, duel_id: u32, progress: &DuelProgress, duel: &Duel) {
        let Some(end) = duel.end() else { return };
        let fighters = progress.sides.map(|s| self.fighter(s, progress.weapons[1]));
        let steps = duel.steps().iter();
        let (winner, reason) = match end {
            End::Draw => (None, DuelReason::DeckExhausted),
            End::Won { winner, reason } => (Some(winner), duel_reason(reason)),
        };
        self.emit(Event::DuelResolved(Box::new(c::DuelResolved {
            duel_id,
            combat_id: progress.combat,
            fighters: fighters.to_vec(),
            deck: duel.deck().cards().to_vec(),
            first_player: duel.first() as u8,
            hands: duel.dealt().to_vec(),
            steps: steps
                .map(|s| c::DuelStep {
                    answer: s.told(),
                    drawn: s.drawn.clone(),
                })
                .collect(),
            winner: winner.map(|w| w as u8),
            reason,
        })));
        let loser = winner.map(|w| 1 - w);
        let lost_module = match loser.map(|l| progress.sides[l]) {
            Some(Side::Car(car)) => {
                let dice = self.dice(Purpose::DuelLoss, 0, duel_id);
                self.lose_random(car, dice, ModuleReason::DuelLost)
            }
            _ => None,
        };
        if let (Some(w), Some(l)) = (winner, loser)
            && let Side::Car(car) = progress.sides[w]
        {
            if progress.sides[l] == Side::Pirates {
                self.award(car, Achievement::MadMax);
            }
            if progress.weapons[w].saturating_add(STRATEGIST_MARGIN) <= progress.weapons[l] {
                self.award(car, Achievement::Stratege);
            }
        }
        match progress.combat {
            Some(combat_id) => {
                let name = |side: Option<usize>| match side.map(|s| progress.sides[s]) {
                    Some(Side::Car(car)) => Some(self.state.cars[car].name.to_string()),
                    _ => None,
                };
                let event = Event::CombatResolved(c::CombatResolved {
                    combat_id,
                    outcome: if winner.is_some() {
                        CombatOutcome::Won
                    } else {
                        CombatOutcome::Drawn
                    },
                    winner: name(winner),
                    loser: name(loser),
                    loser_turns_to_miss: if loser.is_some() { DUEL_LOSS_TURNS } else { 0 },
                    duel_id: Some(duel_id),
                });
                self.emit(event);
            }
            None => {
                let Side::Car(car) = progress.sides[0] else {
                    return;
                };
                let (outcome, turns) = match winner {
                    None => (EventOutcome::FightDrawn, 0),
                    Some(0) => (EventOutcome::FightWon, 0),
                    Some(_) => (EventOutcome::FightLost, DUEL_LOSS_TURNS),
                };
                self.resolved(car, outcome, None, lost_module, Some(duel_id), turns);
            }
        }
    }
}

fn duel_reason(reason: WinReason) -> DuelReason {
    match reason {
        WinReason::Hit => DuelReason::Hit,
        WinReason::DefenderOutOfCards => DuelReason::DefenderOutOfCards,
        WinReason::IllegalAnswer => DuelReason::IllegalAnswer,
        WinReason::NoLegalAnswer => DuelReason::NoLegalAnswer,
        WinReason::NoAnswer => DuelReason::NoAnswer,
        WinReason::WrongAnswer => DuelReason::WrongAnswer,
    }
}

/// Cards known to be out of play: every card played and every card parried with.
fn seen_cards(duel: &Duel) -> Hand {
    *duel.discarded()
}

/// What fighter `you` may know on its turn.
pub fn duel_view(duel_id: u32, duel: &Duel, you: usize) -> DuelView {
    DuelView {
        duel_id,
        you: you as u8,
        cards: duel.hand(you).cards(),
        squares: duel.squares().to_vec(),
        distance: duel.distance(),
        opponent_cards: duel.hand(1 - you).len(),
        deck_left: duel.deck_left().len() as u32,
        history: duel
            .steps()
            .iter()
            .map(|step| {
                let told = step.told();
                HistoryEntry {
                    fighter: told.fighter,
                    cards: told.cards,
                    action: told.action,
                    parry: told.parry,
                }
            })
            .collect(),
    }
}
