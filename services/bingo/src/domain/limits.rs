//! Every limit of a bingo game, in one place (the source's, and the few the service adds so
//! every message stays bounded).

/// Narrowest grid (cells per side).
pub const MIN_GRID: u32 = 3;
/// Widest grid (cells per side).
pub const MAX_GRID: u32 = 9;
/// Most squares in a pool.
pub const MAX_POOL: usize = 500;
/// Longest square label, in bytes.
pub const MAX_LABEL_BYTES: usize = 200;
/// Longest identifier (game, player, member, entry, request), verb or object, in bytes.
pub const MAX_TEXT_BYTES: usize = 200;
/// Most win patterns in a game.
pub const MAX_PATTERNS: usize = 16;
/// Most cell sets in a custom pattern.
pub const MAX_CELL_SETS: usize = 64;
/// Longest custom pattern name, in bytes.
pub const MAX_PATTERN_NAME_BYTES: usize = 64;
/// Most cards (dealt and printed) in a game.
pub const MAX_CARDS: u32 = 100_000;
/// Most cards in one printed batch (added: keeps a `bingo.cards.printed.v1` message small).
pub const MAX_PRINT_BATCH: u32 = 1_000;
/// Most serials skipped in a row, looking for a card unlike every other of the game, before
/// the service says the pool cannot make more distinct cards (added: the source's skip rule
/// would otherwise loop for ever once a small pool's distinct cards are all dealt).
pub const MAX_SKIPPED_SERIALS: u32 = 1_000;
/// Most activity sources (other services' message types) in a game.
pub const MAX_ACTIVITY_SOURCES: usize = 16;
/// Most filters of one activity source, and most key fields of its `undoneBy`.
pub const MAX_SOURCE_FILTERS: usize = 8;
/// Longest key of an occurrence a mapped message's undo finds it by, in bytes (the undoing
/// type and the key fields' values).
pub const MAX_UNDO_KEY_BYTES: usize = 600;
/// Shortest server secret, in bytes.
pub const MIN_SECRET_BYTES: usize = 16;
