//! What the table's display shows, driven by the referee's own state: the score while a game
//! is played (and its phase when not the default one: "TIE-BREAK 5-5"), the winner and the
//! final score at its end, the idle text (`--display-idle`) between games. [`board_of`] turns
//! the state into an [`arcade_scoreboard::Board`] each time an event is applied
//! ([`RefereeService::board`](crate::service::RefereeService::board)); [`spawn_display`] draws
//! it on a [`ScoreDisplay`] in its own task, scrolling a text wider than the display one column
//! every `--display-scroll-ms`.
//!
//! A result stays on the display for [`RESULT_HOLD`], then the idle text comes (with no idle
//! text, the result stays until the next game). A display that fails to write is logged (once
//! until it works again) and counted ([`DisplayStats`]); the task tries again at the next step,
//! and the referee never waits for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use arcade_runtime::counters::ExtraCounters;
use arcade_scoreboard::{
    Board, Marquee, Phase as BoardPhase, Score as BoardScore, Side as BoardSide,
};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::{info, warn};

use crate::domain::Input;
use crate::domain::{Phase, Score, Side, TableState};
use crate::table::ScoreDisplay;

/// How long a game's result stays on the display before the idle text.
pub const RESULT_HOLD: Duration = Duration::from_secs(30);

/// What the display shows for `state`; `None` before the table's first game.
pub fn board_of(state: &TableState) -> Option<Board> {
    let game = state.game()?;
    let play = game.play();
    let score = board_score(play.score);
    Some(if game.in_progress() {
        Board::Playing {
            score,
            phase: match play.phase {
                Phase::Default => BoardPhase::Default,
                Phase::TieBreak => BoardPhase::TieBreak,
                Phase::Timeout => BoardPhase::Timeout,
            },
        }
    } else {
        match play.winner {
            Some(side) => Board::Won {
                winner: match side {
                    Side::Hinge => BoardSide::Hinge,
                    Side::Lock => BoardSide::Lock,
                },
                score,
            },
            None => Board::Aborted { score },
        }
    })
}

fn board_score(score: Score) -> BoardScore {
    let points = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    BoardScore {
        hinge: points(score.hinge),
        lock: points(score.lock),
    }
}

/// How the display task runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayOptions {
    /// One scroll step.
    pub scroll: Duration,
    /// The text between games; `None`: the last result stays (dark before the first game).
    pub idle: Option<String>,
    /// How long a result stays before the idle text.
    pub hold: Duration,
}

/// Metric name of the frames written to the display.
pub const FRAMES_METRIC: &str = "arcade_display_frames";
/// Metric name of the failed writes to the display.
pub const FAILURES_METRIC: &str = "arcade_display_write_failures";

/// What the display task did: frames written and failed writes (the metrics
/// `arcade_display_frames_total` and `arcade_display_write_failures_total` of the referee's
/// service when made by [`DisplayStats::counted_in`]).
#[derive(Debug, Clone, Default)]
pub struct DisplayStats {
    frames: Arc<AtomicU64>,
    failures: Arc<AtomicU64>,
}

impl DisplayStats {
    /// Stats counted in a service's own counters (exported with its metrics).
    pub fn counted_in(counters: &ExtraCounters) -> DisplayStats {
        DisplayStats {
            frames: counters.counter(FRAMES_METRIC, "Frames written to the score display."),
            failures: counters.counter(
                FAILURES_METRIC,
                "Writes to the score display that failed (the referee goes on refereeing).",
            ),
        }
    }
    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames.load(Ordering::Relaxed)
    }
    /// Failed writes so far.
    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }
}

/// A display ready to start beside a referee (the display's type erased): see
/// [`crate::service::start`].
pub struct DisplayPlan {
    start: Option<StartDisplay>,
}

type StartDisplay =
    Box<dyn FnOnce(watch::Receiver<Option<Board>>, mpsc::Sender<Input>) -> JoinHandle<()> + Send>;

impl std::fmt::Debug for DisplayPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DisplayPlan")
            .field("display", &self.start.is_some())
            .finish()
    }
}

impl DisplayPlan {
    /// No display.
    pub fn none() -> DisplayPlan {
        DisplayPlan { start: None }
    }

    /// `display`, driven as `options` say, counting in `stats`.
    pub fn new<D>(display: D, options: DisplayOptions, stats: DisplayStats) -> DisplayPlan
    where
        D: ScoreDisplay + Send + 'static,
    {
        DisplayPlan {
            start: Some(Box::new(move |board, stop| {
                spawn_display(display, board, stop, options, stats)
            })),
        }
    }

    /// Starts the display task on `board`; it ends when `stop`'s receiver (the host) is gone.
    pub fn start(
        self,
        board: watch::Receiver<Option<Board>>,
        stop: mpsc::Sender<Input>,
    ) -> Option<JoinHandle<()>> {
        self.start.map(|start| start(board, stop))
    }
}

/// Draws `board` on `display` until `stop`'s receiver is closed (the host stopped) or the
/// board's sender is dropped.
pub fn spawn_display<D: ScoreDisplay + Send + 'static>(
    mut display: D,
    mut board: watch::Receiver<Option<Board>>,
    stop: mpsc::Sender<Input>,
    options: DisplayOptions,
    stats: DisplayStats,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let columns = display.columns();
        let mut text: Option<String> = None;
        let mut marquee = Marquee::new("", columns);
        let mut step = 0u64;
        let mut pending = true;
        let mut failing = false;
        let mut result_until = result_deadline(&board.borrow(), &options);
        let mut every = tokio::time::interval(options.scroll.max(Duration::from_millis(1)));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let expired = result_until.is_some_and(|until| Instant::now() >= until);
            let wanted = wanted_text(&board.borrow(), &options, expired);
            if text.as_deref() != Some(wanted.as_str()) {
                marquee = Marquee::new(&wanted, columns);
                text = Some(wanted);
                step = 0;
                pending = true;
                // A new text stays at its start for a whole step.
                every.reset();
            }
            if pending {
                let shown = text.as_deref().unwrap_or("");
                match display.show(shown, &marquee.frame(step)) {
                    Ok(()) => {
                        stats.frames.fetch_add(1, Ordering::Relaxed);
                        if failing {
                            info!("score display written again");
                        }
                        failing = false;
                        pending = false;
                    }
                    Err(error) => {
                        stats.failures.fetch_add(1, Ordering::Relaxed);
                        if !failing {
                            warn!(%error, "cannot write the score display; retrying");
                        }
                        failing = true;
                    }
                }
            }
            let scrolling = marquee.scrolls() && display.animates();
            tokio::select! {
                () = stop.closed() => return,
                changed = board.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    result_until = result_deadline(&board.borrow(), &options);
                }
                _ = every.tick(), if scrolling || pending => {
                    if scrolling && !pending {
                        step = (step + 1) % marquee.period();
                        pending = true;
                    }
                }
                () = sleep_until(result_until), if result_until.is_some_and(|u| Instant::now() < u) => {}
            }
        }
    })
}

async fn sleep_until(until: Option<Instant>) {
    if let Some(until) = until {
        tokio::time::sleep_until(until).await;
    }
}

/// When a result shown now gives way to the idle text; `None` when there is none to give way to.
fn result_deadline(board: &Option<Board>, options: &DisplayOptions) -> Option<Instant> {
    let over = matches!(board, Some(Board::Won { .. } | Board::Aborted { .. }));
    (over && options.idle.is_some()).then(|| Instant::now() + options.hold)
}

fn wanted_text(board: &Option<Board>, options: &DisplayOptions, result_expired: bool) -> String {
    let idle = || options.idle.clone().unwrap_or_default();
    match board {
        None => idle(),
        Some(board) if !board.playing() && result_expired => idle(),
        Some(board) => board.text(),
    }
}
