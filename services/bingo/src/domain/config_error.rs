//! Why a game's configuration (grid, pool, patterns, activity sources) is refused, in words
//! the organiser understands. Positions people count (patterns, cell sets, sources) are
//! numbered from 1; squares are named by their id; cells by their number from 0.

use super::limits::{
    MAX_ACTIVITY_SOURCES, MAX_CELL_SETS, MAX_GRID, MAX_LABEL_BYTES, MAX_PATTERN_NAME_BYTES,
    MAX_PATTERNS, MAX_POOL, MAX_SOURCE_FILTERS, MAX_TEXT_BYTES, MIN_GRID,
};

/// What a card draws, in words: every cell, less the free centre if the grid has one.
fn drawn_cells(free_centre: &bool) -> &'static str {
    if *free_centre {
        "every cell but the free centre"
    } else {
        "every cell: the grid has no free centre"
    }
}

/// A game configuration the service refuses to open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The grid is narrower than 3 or wider than 9.
    #[error("a grid is {MIN_GRID} to {MAX_GRID} cells wide, not {0}")]
    GridSize(u32),
    /// A free centre was asked of an even grid.
    #[error("a {0}×{0} grid has no centre cell to leave free: set freeCentre to false")]
    FreeCentreOnEvenGrid(u32),
    /// The pool is empty or holds more than 500 squares.
    #[error("a pool holds 1 to {MAX_POOL} squares, not {0}")]
    PoolSize(usize),
    /// Two squares share an id.
    #[error("square id {0} appears more than once in the pool: square ids are distinct")]
    DuplicateSquare(u32),
    /// A label is empty or longer than 200 bytes.
    #[error("the label of square {id} is {len} bytes; a label is 1 to {MAX_LABEL_BYTES} bytes")]
    LabelLength {
        /// The square.
        id: u32,
        /// Its label's length in bytes.
        len: usize,
    },
    /// The pool holds fewer squares than a card draws.
    #[error(
        "a {size}×{size} card draws {needed} squares ({}), but the pool holds only {squares}",
        drawn_cells(.free_centre)
    )]
    PoolTooSmall {
        /// Cells per side.
        size: u8,
        /// Whether the grid has a free centre.
        free_centre: bool,
        /// Squares a card draws.
        needed: usize,
        /// Squares in the pool.
        squares: usize,
    },
    /// An activity game's square has no trigger.
    #[error(
        "square {0} has no trigger: in a game ticked by activity, every square names the \
         gesture that ticks it"
    )]
    MissingTrigger(u32),
    /// A called game's square has a trigger.
    #[error(
        "square {0} has a trigger, but a called game's squares are ticked by the squares the \
         organiser calls, not by gestures"
    )]
    TriggerInCalledGame(u32),
    /// A trigger's verb is malformed.
    #[error("the trigger verb \"{verb}\" of square {id} {problem}")]
    BadVerb {
        /// The square.
        id: u32,
        /// The verb as given.
        verb: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// A trigger's object is empty or too long.
    #[error(
        "the trigger object of square {id} is {len} bytes; an object is 1 to \
         {MAX_TEXT_BYTES} bytes"
    )]
    ObjectLength {
        /// The square.
        id: u32,
        /// The object's length in bytes.
        len: usize,
    },
    /// No pattern, or more than 16.
    #[error("a game has 1 to {MAX_PATTERNS} win patterns, not {0}")]
    PatternCount(usize),
    /// A custom pattern's name is empty or longer than 64 bytes.
    #[error(
        "the name of pattern {position} is {len} bytes; a custom pattern's name is 1 to \
         {MAX_PATTERN_NAME_BYTES} bytes"
    )]
    PatternNameLength {
        /// The pattern's position, from 1.
        position: usize,
        /// The name's length in bytes.
        len: usize,
    },
    /// Two patterns share a name.
    #[error(
        "two patterns are named \"{0}\": the first match names the win, so pattern names \
         must differ"
    )]
    DuplicatePatternName(String),
    /// A custom pattern has no cell set, or more than 64.
    #[error(
        "custom pattern \"{name}\" has {count} cell sets; a custom pattern has 1 to {MAX_CELL_SETS}"
    )]
    CellSetCount {
        /// The pattern.
        name: String,
        /// Its number of cell sets.
        count: usize,
    },
    /// A custom pattern's cell set is empty.
    #[error("cell set {set} of custom pattern \"{name}\" is empty")]
    EmptyCellSet {
        /// The pattern.
        name: String,
        /// The set's position, from 1.
        set: usize,
    },
    /// A custom pattern's cell set names a cell the grid does not have.
    #[error(
        "cell set {set} of custom pattern \"{name}\" names cell {cell}, but a {size}×{size} \
         grid has cells 0 to {last}"
    )]
    CellOutsideGrid {
        /// The pattern.
        name: String,
        /// The set's position, from 1.
        set: usize,
        /// The cell named.
        cell: u32,
        /// Cells per side.
        size: u8,
        /// The last cell of the grid.
        last: u8,
    },
    /// A custom pattern's cell set holds only the free centre.
    #[error(
        "cell set {set} of custom pattern \"{name}\" holds only the free centre, so every \
         card would win at once"
    )]
    OnlyFreeCentre {
        /// The pattern.
        name: String,
        /// The set's position, from 1.
        set: usize,
    },
    /// More than 16 activity sources.
    #[error("a game has at most {MAX_ACTIVITY_SOURCES} activity sources, not {0}")]
    SourceCount(usize),
    /// A called game has activity sources.
    #[error(
        "activity sources count other services' events as gestures, so only a game ticked by \
         activity may have them"
    )]
    SourcesInCalledGame,
    /// An activity source's message type is unusable.
    #[error("activity source {position} listens to \"{message_type}\", which {problem}")]
    BadSourceType {
        /// The source's position, from 1.
        position: usize,
        /// The message type as given.
        message_type: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// Two activity sources listen to the same message type.
    #[error("two activity sources listen to \"{0}\": a message type maps to one verb")]
    DuplicateSource(String),
    /// An activity source's verb is malformed.
    #[error("the verb \"{verb}\" of activity source {position} {problem}")]
    BadSourceVerb {
        /// The source's position, from 1.
        position: usize,
        /// The verb as given.
        verb: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// An activity source's field is not a JSON Pointer.
    #[error(
        "the {field} \"{pointer}\" of activity source {position} is not a JSON Pointer to a \
         field, like \"/scorer\""
    )]
    BadPointer {
        /// The source's position, from 1.
        position: usize,
        /// `memberField` or `objectField`.
        field: &'static str,
        /// The pointer as given.
        pointer: String,
    },
    /// An activity source has more than 8 filters.
    #[error(
        "activity source {position} has {count} filters; a source has at most \
         {MAX_SOURCE_FILTERS}"
    )]
    FilterCount {
        /// The source's position, from 1.
        position: usize,
        /// Its number of filters.
        count: usize,
    },
    /// An activity source's filter is malformed.
    #[error("filter {filter} (\"{field}\") of activity source {position} {problem}")]
    BadFilter {
        /// The source's position, from 1.
        position: usize,
        /// The filter's position, from 1.
        filter: usize,
        /// Its field pointer as given.
        field: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// An activity source's `undoneBy` is malformed.
    #[error("the undoneBy of activity source {position} {problem}")]
    BadUndo {
        /// The source's position, from 1.
        position: usize,
        /// What is wrong with it.
        problem: String,
    },
}
