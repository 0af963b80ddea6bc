//! `arcade bingo open --game G --grid N --squares FILE --patterns line,full [--mode
//! called|activity] [--tick-from TYPE --verb VERB --member POINTER [--object POINTER] [--where
//! POINTER=JSON]… [--where-or-missing POINTER=JSON]…]`: opens a game whose pool is the squares
//! file (one label per line; `label | verb [| object]` in an activity game) and says how the
//! service answered.
//!
//! `--tick-from` makes the game's cards tick by another service's events, the contract's
//! activity source (`activitySources` of `bingo.game.open.v1`): each message of type TYPE is a
//! gesture of verb VERB by the member its payload names at `--member`, about the object at
//! `--object`, when its payload meets every `--where` (the field equals the JSON value) and
//! every `--where-or-missing` (the same, or the field is missing).

use std::path::PathBuf;
use std::process::ExitCode;

use arcade_bingo::cli::{patterns_from_list, squares_from_text};
use arcade_contracts::Message;
use arcade_contracts::bingo::{
    ActivitySourceSpec, FieldFilter, GameOpened, GridSpec, OpenGame, RequestRejected, TickMode,
    UndoneBy,
};
use clap::{Args, ValueEnum};
use serde_json::Value;

use super::requests::ask;
use super::{grid_text, mode_name};
use crate::connection::Connection;
use crate::exit::Failure;
use crate::reply::AnswerArgs;

/// How a game's cards get ticked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// By the squares the organiser calls.
    Called,
    /// By the players' gestures (each line of the squares file is `label | verb [| object]`).
    Activity,
}

/// `arcade bingo open`.
#[derive(Debug, Args)]
pub struct OpenArgs {
    /// The new game's id.
    #[arg(long)]
    pub game: String,
    /// Cells per side, 3 to 9 (odd sizes have a free centre).
    #[arg(long, value_parser = clap::value_parser!(u8).range(3..=9))]
    pub grid: u8,
    /// The squares, one label per line (numbered from 1); in an activity game `label | verb`
    /// or `label | verb | object`.
    #[arg(long, value_name = "FILE")]
    pub squares: PathBuf,
    /// Win patterns, checked in order, separated by commas: line, row, column, diagonal, full,
    /// corners.
    #[arg(long, value_name = "LIST")]
    pub patterns: String,
    /// How cards get ticked [default: called; activity with --tick-from].
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// No free centre on an odd grid.
    #[arg(long)]
    pub no_free_centre: bool,
    /// Another service's events that tick the cards.
    #[command(flatten)]
    pub source: SourceArgs,
    /// The message id, and how long to wait for the service's answer.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// An activity source: which events of another service tick the cards, and how they read.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// Tick the cards by this message type of another service, e.g. table.goal.scored.v1 (an
    /// activity game; a table.goal.cancelled.v1 then unticks what its goal ticked).
    #[arg(long, value_name = "TYPE", requires_all = ["verb", "member"])]
    pub tick_from: Option<String>,
    /// The verb each such message counts as, e.g. table.goal (the squares file's
    /// `label | verb [| object]` lines name it).
    #[arg(long, value_name = "VERB", requires = "tick_from")]
    pub verb: Option<String>,
    /// JSON Pointer to the payload field naming the member whose card ticks, e.g. /side.
    #[arg(long, value_name = "POINTER", value_parser = pointer, requires = "tick_from")]
    pub member: Option<String>,
    /// JSON Pointer to the payload field naming the gesture's object, e.g. /tableId.
    #[arg(long, value_name = "POINTER", value_parser = pointer, requires = "tick_from")]
    pub object: Option<String>,
    /// Only messages whose field equals the JSON value (a string, number, boolean or null),
    /// e.g. --where /counted=true; repeatable, all must hold.
    #[arg(long = "where", value_name = "POINTER=JSON", value_parser = filter, requires = "tick_from")]
    pub filters: Vec<FieldFilter>,
    /// As --where, also met when the field is missing, e.g. --where-or-missing /ownGoal=false.
    #[arg(long = "where-or-missing", value_name = "POINTER=JSON", value_parser = filter_or_missing, requires = "tick_from")]
    pub filters_or_missing: Vec<FieldFilter>,
}

impl SourceArgs {
    /// The activity source these arguments name, if any.
    fn spec(&self) -> Option<ActivitySourceSpec> {
        let message_type = self.tick_from.clone()?;
        Some(ActivitySourceSpec {
            verb: self.verb.clone().unwrap_or_default(),
            member_field: self.member.clone().unwrap_or_default(),
            object_field: self.object.clone(),
            filters: self
                .filters
                .iter()
                .chain(&self.filters_or_missing)
                .cloned()
                .collect(),
            undone_by: UndoneBy::known_for(&message_type),
            message_type,
        })
    }
}

/// A JSON Pointer (RFC 6901) to a payload field: `/` then the field's path.
fn pointer(text: &str) -> Result<String, String> {
    if text.starts_with('/') {
        Ok(text.to_string())
    } else {
        Err(format!(
            "{text:?} is no JSON Pointer: it starts with / (e.g. /tableId)"
        ))
    }
}

/// `POINTER=JSON`: the field at POINTER equals the JSON value, a string, number, boolean or
/// null (a bare word that is no JSON is taken as a string).
fn filter(text: &str) -> Result<FieldFilter, String> {
    let Some((field, value)) = text.split_once('=') else {
        return Err(format!(
            "{text:?} is not POINTER=JSON (e.g. /counted=true or /tableId=\"t1\")"
        ));
    };
    let field = pointer(field)?;
    let equals = match serde_json::from_str::<Value>(value) {
        Ok(Value::Array(_) | Value::Object(_)) => {
            return Err(format!(
                "{field}: {value} is not a string, number, boolean or null"
            ));
        }
        Ok(scalar) => scalar,
        Err(_) => Value::String(value.to_string()),
    };
    Ok(FieldFilter {
        field,
        equals,
        or_missing: false,
    })
}

fn filter_or_missing(text: &str) -> Result<FieldFilter, String> {
    filter(text).map(|f| FieldFilter {
        or_missing: true,
        ..f
    })
}

/// Runs `arcade bingo open`.
pub async fn run(args: OpenArgs) -> anyhow::Result<ExitCode> {
    let source = args.source.spec();
    let mode = match (args.mode, &source) {
        (Some(Mode::Called), Some(_)) => {
            return Err(Failure::invalid(
                "--tick-from opens a game ticked by events: not with --mode called",
            ));
        }
        (Some(Mode::Called), None) | (None, None) => TickMode::Called,
        (Some(Mode::Activity), _) | (None, Some(_)) => TickMode::Activity,
    };
    let text = std::fs::read_to_string(&args.squares)
        .map_err(|e| Failure::invalid(format_args!("--squares {}: {e}", args.squares.display())))?;
    let pool = squares_from_text(&text, mode)
        .map_err(|e| Failure::invalid(format_args!("--squares {}: {e}", args.squares.display())))?;
    let patterns = patterns_from_list(&args.patterns)
        .map_err(|e| Failure::invalid(format_args!("--patterns: {e}")))?;
    let request = OpenGame {
        request_id: None,
        game_id: args.game.clone(),
        tick_mode: mode,
        grid: GridSpec {
            size: args.grid,
            free_centre: args.no_free_centre.then_some(false),
        },
        pool,
        patterns,
        activity_sources: source.into_iter().collect(),
    };
    let payload = serde_json::to_value(&request)?;
    let answers = [GameOpened::TYPE, RequestRejected::TYPE];
    let reply = ask(
        &args.connection,
        &args.answer,
        OpenGame::TYPE,
        payload,
        &answers,
    )
    .await?;
    let opened: GameOpened = serde_json::from_value(reply.payload)?;
    let names: Vec<&str> = args.patterns.split(',').map(str::trim).collect();
    let mut said = format!(
        "opened game \"{}\": {}, {} cards from {} squares, won by {}",
        opened.game_id,
        mode_name(opened.tick_mode),
        grid_text(&opened.grid),
        opened.pool.len(),
        names.join(", then ")
    );
    for source in &opened.activity_sources {
        said.push_str(&format!(
            "; {} counts as {}",
            source.message_type, source.verb
        ));
    }
    println!("{said}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_reads_a_pointer_and_a_json_value() {
        let counted = filter("/counted=true").unwrap();
        assert_eq!(
            (counted.field.as_str(), &counted.equals),
            ("/counted", &Value::Bool(true))
        );
        assert!(!counted.or_missing);
        assert_eq!(filter("/tableId=\"t1\"").unwrap().equals, Value::from("t1"));
        assert_eq!(filter("/tableId=t1").unwrap().equals, Value::from("t1"));
        assert_eq!(filter("/n=3").unwrap().equals, Value::from(3));
        assert!(filter_or_missing("/ownGoal=false").unwrap().or_missing);
        assert!(filter("counted=true").unwrap_err().contains("JSON Pointer"));
        assert!(filter("/counted").unwrap_err().contains("POINTER=JSON"));
        assert!(filter("/a=[1]").unwrap_err().contains("not a string"));
    }
}
