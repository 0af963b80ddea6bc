//! What a table's display shows, as a value the referee and the console both compute: the
//! score during a game, the result at its end, a chosen text between games.

/// A side of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The hinge side.
    Hinge,
    /// The lock side.
    Lock,
}

/// A phase of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Normal play.
    Default,
    /// The tie-break.
    TieBreak,
    /// After the game clock's timeout.
    Timeout,
}

/// Both sides' scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Score {
    /// The hinge side's.
    pub hinge: i64,
    /// The lock side's.
    pub lock: i64,
}

/// What the display shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Board {
    /// A game in progress.
    Playing {
        /// The score.
        score: Score,
        /// Its phase.
        phase: Phase,
    },
    /// A game won.
    Won {
        /// The winner.
        winner: Side,
        /// The final score.
        score: Score,
    },
    /// A game ended without a winner.
    Aborted {
        /// The score when it ended.
        score: Score,
    },
    /// Between games: this text.
    Idle(String),
}

impl Board {
    /// The text on the display:
    ///
    /// | board | text |
    /// |---|---|
    /// | playing, default phase | `5-4` (hinge first) |
    /// | playing, tie-break | `TIE-BREAK 5-5` |
    /// | playing, timeout | `TIMEOUT 5-4` |
    /// | won | `HINGE WINS 6-4` / `LOCK WINS 4-6` |
    /// | aborted | `ABORTED 3-2` |
    /// | idle | its text |
    pub fn text(&self) -> String {
        match self {
            Board::Playing { score, phase } => match phase {
                Phase::Default => score_text(*score),
                Phase::TieBreak => format!("TIE-BREAK {}", score_text(*score)),
                Phase::Timeout => format!("TIMEOUT {}", score_text(*score)),
            },
            Board::Won { winner, score } => {
                let side = match winner {
                    Side::Hinge => "HINGE",
                    Side::Lock => "LOCK",
                };
                format!("{side} WINS {}", score_text(*score))
            }
            Board::Aborted { score } => format!("ABORTED {}", score_text(*score)),
            Board::Idle(text) => text.clone(),
        }
    }

    /// Whether a game is being played.
    pub fn playing(&self) -> bool {
        matches!(self, Board::Playing { .. })
    }
}

fn score_text(score: Score) -> String {
    format!("{}-{}", score.hinge, score.lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Score = Score { hinge: 5, lock: 4 };

    #[test]
    fn texts() {
        let playing = |phase| Board::Playing { score: S, phase };
        assert_eq!(playing(Phase::Default).text(), "5-4");
        assert_eq!(playing(Phase::TieBreak).text(), "TIE-BREAK 5-4");
        assert_eq!(playing(Phase::Timeout).text(), "TIMEOUT 5-4");
        let won = |winner| Board::Won { winner, score: S };
        assert_eq!(won(Side::Hinge).text(), "HINGE WINS 5-4");
        assert_eq!(won(Side::Lock).text(), "LOCK WINS 5-4");
        assert_eq!(Board::Aborted { score: S }.text(), "ABORTED 5-4");
        assert_eq!(Board::Idle("BAR 42".into()).text(), "BAR 42");
        assert!(playing(Phase::Default).playing());
        assert!(!won(Side::Lock).playing());
    }
}
