//! A game's configuration between the wire (`contracts::bingo` shapes) and the domain.

use arcade_contracts::bingo as wire;

use crate::domain::{GameConfig, GameSpec};

/// The domain spec of a game described on the wire.
pub(crate) fn spec_in(
    tick_mode: wire::TickMode,
    grid: &wire::GridSpec,
    pool: &[wire::SquareSpec],
    patterns: &[wire::PatternSpec],
    sources: &[wire::ActivitySourceSpec],
) -> GameSpec {
    GameSpec {
        tick_mode,
        grid_size: u32::from(grid.size),
        free_centre: grid.free_centre,
        squares: pool.to_vec(),
        patterns: patterns.to_vec(),
        sources: sources.to_vec(),
    }
}

/// The wire pieces of a checked configuration: grid, pool, patterns, sources.
pub(crate) struct WireConfig {
    pub(crate) tick_mode: wire::TickMode,
    pub(crate) grid: wire::GridSpec,
    pub(crate) pool: Vec<wire::SquareSpec>,
    pub(crate) patterns: Vec<wire::PatternSpec>,
    pub(crate) sources: Vec<wire::ActivitySourceSpec>,
}

pub(crate) fn config_out(config: &GameConfig) -> WireConfig {
    let spec = config.spec();
    WireConfig {
        tick_mode: spec.tick_mode,
        grid: wire::GridSpec {
            size: config.grid().size(),
            free_centre: spec.free_centre,
        },
        pool: spec.squares,
        patterns: spec.patterns.clone(),
        sources: spec.sources,
    }
}
