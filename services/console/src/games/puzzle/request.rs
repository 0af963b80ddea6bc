//! A player's request to the console's rules, and why the rules refuse one.

/// What a player asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayCommand {
    /// A new board from a seed and a stage.
    Start {
        /// The request's id (its answer names it).
        request: String,
        /// The new game's id.
        game_id: String,
        /// The generator's seed.
        seed: i64,
        /// The stage, 1 to 5 (checked here too).
        stage: i64,
    },
    /// A pulse at cell `(x, y)`.
    Pulse {
        /// The request's id.
        request: String,
        /// The game.
        game_id: String,
        /// Column, 0 to 4.
        x: i64,
        /// Row, 0 to 4.
        y: i64,
    },
}

impl PlayCommand {
    /// The request's id.
    pub fn request(&self) -> &str {
        match self {
            PlayCommand::Start { request, .. } | PlayCommand::Pulse { request, .. } => request,
        }
    }
}

/// Why the rules refuse a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayRefused {
    /// The stage is not 1 to 5.
    #[error("stage {0} is out of range: a stage is 1 to 5")]
    Stage(i64),
    /// The generator gives no board for this seed and stage.
    #[error("seed {seed} gives no playable board at stage {stage}")]
    Unplayable {
        /// The seed.
        seed: i64,
        /// The stage.
        stage: u8,
    },
    /// A game of this id exists.
    #[error("game {0:?} exists already")]
    Exists(String),
    /// No such game (never started here, or no longer kept).
    #[error("no game {0:?} on this console")]
    Unknown(String),
    /// The game is over.
    #[error("game {game_id:?} is over ({outcome}): start a new board")]
    Finished {
        /// The game.
        game_id: String,
        /// `won` or `failed`.
        outcome: &'static str,
    },
    /// The cell is outside the board.
    #[error("cell [{x}, {y}] is outside the board: x and y are 0 to 4")]
    Outside {
        /// Column.
        x: i64,
        /// Row.
        y: i64,
    },
    /// As many games are in progress as the console keeps, none abandoned: a new one waits.
    #[error(
        "{0} games are in progress on this console, the most it keeps, none abandoned yet: \
         try again in a while"
    )]
    Full(usize),
    /// The cell is stone or an anchor.
    #[error("cell [{x}, {y}] is stone or an anchor: it cannot be pulsed")]
    Immutable {
        /// Column.
        x: u8,
        /// Row.
        y: u8,
    },
}

impl PlayRefused {
    /// A word for what went wrong (`stage`, `unplayable`, `exists`, `full`, `unknown`,
    /// `finished`, `outside`, `immutable`), for the answer's status.
    pub fn code(&self) -> &'static str {
        match self {
            PlayRefused::Stage(_) => "stage",
            PlayRefused::Unplayable { .. } => "unplayable",
            PlayRefused::Exists(_) => "exists",
            PlayRefused::Full(_) => "full",
            PlayRefused::Unknown(_) => "unknown",
            PlayRefused::Finished { .. } => "finished",
            PlayRefused::Outside { .. } => "outside",
            PlayRefused::Immutable { .. } => "immutable",
        }
    }
}
