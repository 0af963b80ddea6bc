//! A game's configuration between the contract's shapes and the domain.

use arcade_contracts::bingo as contract;
use serde::{Deserialize, Serialize};

use crate::domain::{GameConfig, GameSpec};

/// The domain spec of a game described in contract shapes.
pub(crate) fn spec_in(
    tick_mode: contract::TickMode,
    grid: &contract::GridSpec,
    pool: &[contract::SquareSpec],
    patterns: &[contract::PatternSpec],
    sources: &[contract::ActivitySourceSpec],
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

/// A checked configuration in the contract's shapes (those of `bingo.game.opened.v1`); also
/// the JSON a snapshot keeps of a game's configuration.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ContractConfig {
    pub(crate) tick_mode: contract::TickMode,
    pub(crate) grid: contract::GridSpec,
    pub(crate) pool: Vec<contract::SquareSpec>,
    pub(crate) patterns: Vec<contract::PatternSpec>,
    pub(crate) activity_sources: Vec<contract::ActivitySourceSpec>,
}

pub(crate) fn config_out(config: &GameConfig) -> ContractConfig {
    let spec = config.spec();
    ContractConfig {
        tick_mode: spec.tick_mode,
        grid: contract::GridSpec {
            size: config.grid().size(),
            free_centre: spec.free_centre,
        },
        pool: spec.squares,
        patterns: spec.patterns.clone(),
        activity_sources: spec.sources,
    }
}
