//! The game itself, as pure functions of the rules: one ball, the timeout, the winner, and the
//! ball-lock (IBR) decision by simulating the four possible next balls.

use serde::{Deserialize, Serialize};

use super::rules::{Conditions, Rules};
use super::terms::{BallKind, Ibr, IbrLock, Phase, Score, Side};

/// Where a game stands. Small and `Copy`: the IBR decision simulates on copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Play {
    /// The score.
    pub score: Score,
    /// The phase whose goal strengths and conditions apply.
    pub phase: Phase,
    /// Balls seen so far, rehearsal balls included.
    pub balls: u64,
    /// The winner, once there is one; after that nothing changes.
    pub winner: Option<Side>,
}

impl Play {
    /// A game at its start: the initial score, phase `default`, no ball yet.
    pub fn start(rules: &Rules) -> Play {
        Play {
            score: rules.initial_score(),
            phase: Phase::Default,
            balls: 0,
            winner: None,
        }
    }

    /// Whether the next ball is a rehearsal ball (it will change nothing).
    pub fn next_is_rehearsal(&self, rules: &Rules) -> bool {
        self.balls < rules.rehearsal_balls()
    }

    /// The game after a ball by `side` of `kind`. A rehearsal ball only counts as seen; a ball
    /// after a win changes nothing at all.
    pub fn after_ball(&self, rules: &Rules, side: Side, kind: BallKind) -> Play {
        if self.winner.is_some() {
            return *self;
        }
        let mut next = *self;
        next.balls = self.balls.saturating_add(1);
        if self.next_is_rehearsal(rules) {
            return next;
        }
        let [scorer, opponent] = rules.strength(self.phase, side, kind);
        next.score.add(side, scorer);
        next.score.add(side.other(), opponent);
        next.winner = rules.winner(next.phase, next.score);
        if next.winner.is_none()
            && next.phase == Phase::Default
            && let Some(start) = rules.tie_break_start()
            && Side::ALL.iter().any(|&s| rules.holds(start, s, next.score))
        {
            next.phase = Phase::TieBreak;
            next.winner = rules.winner(Phase::TieBreak, next.score);
        }
        next
    }

    /// The game once its clock reads `clock_ms` (since game start): when the rules have a
    /// timeout and the clock reached it, the phase becomes `timeout` and the winner is computed
    /// at once. `None` when nothing changes.
    pub fn after_clock(&self, rules: &Rules, clock_ms: u64) -> Option<Play> {
        let timeout_ms = rules.timeout_ms()?;
        if self.winner.is_some() || self.phase == Phase::Timeout || clock_ms < timeout_ms {
            return None;
        }
        let mut next = *self;
        next.phase = Phase::Timeout;
        next.winner = rules.winner(Phase::Timeout, next.score);
        Some(next)
    }

    /// The ball-lock decision. After a win both are locked; while playing, a side is locked
    /// when it wins in any of the four possible next balls (phase changes and rehearsal balls
    /// included), else released.
    pub fn ibr(&self, rules: &Rules) -> Ibr {
        if self.winner.is_some() {
            return Ibr::LOCKED;
        }
        let mut ibr = Ibr::RELEASED;
        for side in Side::ALL {
            let goal = self.after_ball(rules, side, BallKind::Goal).winner;
            // A ball's kind only matters through its strength: equal strengths, same outcome.
            let inout = if rules.strength(self.phase, side, BallKind::Goal)
                == rules.strength(self.phase, side, BallKind::Inout)
            {
                goal
            } else {
                self.after_ball(rules, side, BallKind::Inout).winner
            };
            for winner in [goal, inout].into_iter().flatten() {
                match winner {
                    Side::Hinge => ibr.hinge = IbrLock::Locked,
                    Side::Lock => ibr.lock = IbrLock::Locked,
                }
            }
        }
        ibr
    }
}

impl Rules {
    /// The winner at `score` under `phase`'s conditions: a side qualifies when the win rule
    /// holds for it or the lose rule holds for the other side; exactly one qualifying side
    /// wins, none or both means no winner yet. No conditions for the phase: no winner.
    pub fn winner(&self, phase: Phase, score: Score) -> Option<Side> {
        let conditions = self.conditions(phase)?;
        let hinge = self.qualifies(conditions, Side::Hinge, score);
        let lock = self.qualifies(conditions, Side::Lock, score);
        match (hinge, lock) {
            (true, false) => Some(Side::Hinge),
            (false, true) => Some(Side::Lock),
            _ => None,
        }
    }

    /// Whether `side` qualifies to win under `conditions` at `score`.
    pub fn qualifies(&self, conditions: Conditions, side: Side, score: Score) -> bool {
        self.holds(conditions.win, side, score)
            || conditions
                .lose
                .is_some_and(|lose| self.holds(lose, side.other(), score))
    }
}
