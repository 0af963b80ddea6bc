//! A game's configuration between the wire (`contracts::bingo` shapes) and the domain.

use arcade_contracts::bingo as wire;

use crate::domain::{GameConfig, GameSpec, PatternKind, SourceSpec, SquareSpec, TickMode};

pub(crate) fn tick_mode_in(mode: wire::TickMode) -> TickMode {
    match mode {
        wire::TickMode::Activity => TickMode::Activity,
        wire::TickMode::Called => TickMode::Called,
    }
}

pub(crate) fn tick_mode_out(mode: TickMode) -> wire::TickMode {
    match mode {
        TickMode::Activity => wire::TickMode::Activity,
        TickMode::Called => wire::TickMode::Called,
    }
}

fn pattern_in(pattern: &wire::PatternSpec) -> PatternKind {
    match pattern {
        wire::PatternSpec::Row => PatternKind::Row,
        wire::PatternSpec::Column => PatternKind::Column,
        wire::PatternSpec::Diagonal => PatternKind::Diagonal,
        wire::PatternSpec::FullCard => PatternKind::FullCard,
        wire::PatternSpec::FourCorners => PatternKind::FourCorners,
        wire::PatternSpec::Line => PatternKind::Line,
        wire::PatternSpec::Custom { name, cell_sets } => PatternKind::Custom {
            name: name.clone(),
            cell_sets: cell_sets.clone(),
        },
    }
}

fn pattern_out(pattern: &PatternKind) -> wire::PatternSpec {
    match pattern {
        PatternKind::Row => wire::PatternSpec::Row,
        PatternKind::Column => wire::PatternSpec::Column,
        PatternKind::Diagonal => wire::PatternSpec::Diagonal,
        PatternKind::FullCard => wire::PatternSpec::FullCard,
        PatternKind::FourCorners => wire::PatternSpec::FourCorners,
        PatternKind::Line => wire::PatternSpec::Line,
        PatternKind::Custom { name, cell_sets } => wire::PatternSpec::Custom {
            name: name.clone(),
            cell_sets: cell_sets.clone(),
        },
    }
}

/// The domain spec of a game described on the wire.
pub(crate) fn spec_in(
    tick_mode: wire::TickMode,
    grid: &wire::GridSpec,
    pool: &[wire::SquareSpec],
    patterns: &[wire::PatternSpec],
    sources: &[wire::ActivitySourceSpec],
) -> GameSpec {
    GameSpec {
        tick_mode: tick_mode_in(tick_mode),
        grid_size: u32::from(grid.size),
        free_centre: grid.free_centre,
        squares: pool
            .iter()
            .map(|s| SquareSpec {
                id: s.id,
                label: s.label.clone(),
                trigger: s
                    .trigger
                    .as_ref()
                    .map(|t| (t.verb.clone(), t.object.clone())),
            })
            .collect(),
        patterns: patterns.iter().map(pattern_in).collect(),
        sources: sources
            .iter()
            .map(|s| SourceSpec {
                message_type: s.message_type.clone(),
                verb: s.verb.clone(),
                member_field: s.member_field.clone(),
                object_field: s.object_field.clone(),
                filters: s
                    .filters
                    .iter()
                    .map(|f| (f.field.clone(), f.equals.clone()))
                    .collect(),
            })
            .collect(),
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
        tick_mode: tick_mode_out(spec.tick_mode),
        grid: wire::GridSpec {
            size: config.grid().size(),
            free_centre: spec.free_centre,
        },
        pool: spec
            .squares
            .into_iter()
            .map(|s| wire::SquareSpec {
                id: s.id,
                label: s.label,
                trigger: s
                    .trigger
                    .map(|(verb, object)| wire::TriggerSpec { verb, object }),
            })
            .collect(),
        patterns: spec.patterns.iter().map(pattern_out).collect(),
        sources: spec
            .sources
            .into_iter()
            .map(|s| wire::ActivitySourceSpec {
                message_type: s.message_type,
                verb: s.verb,
                member_field: s.member_field,
                object_field: s.object_field,
                filters: s
                    .filters
                    .into_iter()
                    .map(|(field, equals)| wire::FieldFilter { field, equals })
                    .collect(),
            })
            .collect(),
    }
}
