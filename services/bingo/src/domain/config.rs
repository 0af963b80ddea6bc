//! A game's configuration: tick mode, grid, pool, win patterns and activity sources, checked
//! together (the pool must hold what a card draws; triggers go with the tick mode).

use std::collections::HashSet;

use super::config_error::ConfigError;
use super::grid::Grid;
use super::limits::MAX_ACTIVITY_SOURCES;
use super::pattern::{PatternKind, Patterns};
use super::pool::{Pool, SquareSpec};
use super::sources::{ActivitySource, SourceSpec};

/// How a game's cards get ticked: by the players' gestures (a gesture that completes a pattern
/// wins by itself), or by the squares the organiser calls (a card wins when claimed or
/// verified). The contract's type, the same thing.
pub use arcade_contracts::bingo::TickMode;

/// A game as the organiser describes it, not yet checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSpec {
    /// How cards get ticked.
    pub tick_mode: TickMode,
    /// Cells per side.
    pub grid_size: u32,
    /// Whether the centre is free; absent: odd sizes have one.
    pub free_centre: Option<bool>,
    /// The squares.
    pub squares: Vec<SquareSpec>,
    /// The win patterns, in order.
    pub patterns: Vec<PatternKind>,
    /// Other services' events counted as gestures.
    pub sources: Vec<SourceSpec>,
}

/// A checked game configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameConfig {
    tick_mode: TickMode,
    grid: Grid,
    pool: Pool,
    patterns: Patterns,
    sources: Vec<ActivitySource>,
}

impl GameConfig {
    /// Checks every rule of a game's configuration; the error names the first problem.
    pub fn new(spec: &GameSpec) -> Result<GameConfig, ConfigError> {
        let grid = Grid::new(spec.grid_size, spec.free_centre)?;
        let pool = Pool::new(&spec.squares)?;
        if pool.len() < grid.draws() {
            return Err(ConfigError::PoolTooSmall {
                size: grid.size(),
                free_centre: grid.has_free_centre(),
                needed: grid.draws(),
                squares: pool.len(),
            });
        }
        for square in pool.squares() {
            match (spec.tick_mode, &square.trigger) {
                (TickMode::Activity, None) => return Err(ConfigError::MissingTrigger(square.id)),
                (TickMode::Called, Some(_)) => {
                    return Err(ConfigError::TriggerInCalledGame(square.id));
                }
                _ => {}
            }
        }
        let patterns = Patterns::new(&spec.patterns, &grid)?;
        if spec.sources.len() > MAX_ACTIVITY_SOURCES {
            return Err(ConfigError::SourceCount(spec.sources.len()));
        }
        if spec.tick_mode == TickMode::Called && !spec.sources.is_empty() {
            return Err(ConfigError::SourcesInCalledGame);
        }
        let mut types = HashSet::new();
        let mut sources = Vec::with_capacity(spec.sources.len());
        for (i, source) in spec.sources.iter().enumerate() {
            let source = ActivitySource::new(i + 1, source.clone())?;
            if !types.insert(source.message_type().to_string()) {
                return Err(ConfigError::DuplicateSource(
                    source.message_type().to_string(),
                ));
            }
            sources.push(source);
        }
        Ok(GameConfig {
            tick_mode: spec.tick_mode,
            grid,
            pool,
            patterns,
            sources,
        })
    }

    /// How cards get ticked.
    pub fn tick_mode(&self) -> TickMode {
        self.tick_mode
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The pool.
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// The win patterns.
    pub fn patterns(&self) -> &Patterns {
        &self.patterns
    }

    /// The activity sources.
    pub fn sources(&self) -> &[ActivitySource] {
        &self.sources
    }

    /// The activity source for a message type, if the game maps it.
    pub fn source_for(&self, message_type: &str) -> Option<&ActivitySource> {
        self.sources
            .iter()
            .find(|s| s.message_type() == message_type)
    }

    /// The message types its sources map to gestures, and those that undo them: what the
    /// service consumes for it.
    pub fn mapped_types(&self) -> impl Iterator<Item = &str> {
        (self.sources.iter())
            .flat_map(|s| [Some(s.message_type()), s.undo_type()])
            .flatten()
    }

    /// The activity sources whose gestures a message type undoes.
    pub fn sources_undone_by<'a>(
        &'a self,
        message_type: &'a str,
    ) -> impl Iterator<Item = &'a ActivitySource> + 'a {
        self.sources
            .iter()
            .filter(move |s| s.undo_type() == Some(message_type))
    }

    /// The spec, with the free centre resolved (what `bingo.game.opened.v1` carries).
    pub fn spec(&self) -> GameSpec {
        GameSpec {
            tick_mode: self.tick_mode,
            grid_size: u32::from(self.grid.size()),
            free_centre: Some(self.grid.has_free_centre()),
            squares: self.pool.specs(),
            patterns: self.patterns.kinds(),
            sources: self.sources.iter().map(|s| s.spec().clone()).collect(),
        }
    }
}
