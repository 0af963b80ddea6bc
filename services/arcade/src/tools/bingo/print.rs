//! `arcade bingo print --game G --count N [--format json|html]`: cards of a called game,
//! printed by the service so that it verifies them afterwards (`bingo.card.verify.v1` with
//! the label).
//!
//! First the game is read (`GET /bingo/games/G`) and the request checked against it: a called
//! game, open, with room for N more cards (100,000 per game, and no more than the distinct
//! cards its grid and pool make). Refused, nothing is sent and nothing written. Then the cards
//! are asked for in batches of `bingo.cards.print.v1`, as large as the service takes
//! ([`MAX_PRINT_BATCH`]), one after the other, each answered by its `bingo.cards.printed.v1`;
//! a progress bar on standard error counts them when it is a terminal. Each batch is written as
//! it comes ([`Sheet`]), so memory holds one batch whatever N: one JSON line per card
//! (`{"serial":…,"label":"…","cells":[…]}`), or an HTML sheet to print on A4 (`--format
//! html`). Should the service refuse a later batch (another organiser printed or closed the game
//! meanwhile), the cards it printed are written and the error says how many of N they are.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use arcade_bingo::cli::{HtmlSheet, card_line};
use arcade_bingo::domain::limits::{MAX_CARDS, MAX_PRINT_BATCH};
use arcade_contracts::Message;
use arcade_contracts::bingo::reads::{GameRead, GameStatus};
use arcade_contracts::bingo::{CardsPrinted, PrintCards, PrintedCard, RequestRejected, TickMode};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::link::{Admin, refused};
use super::requests::ask;
use crate::client::segment;
use crate::connection::Connection;
use crate::reply::AnswerArgs;

/// How the cards are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON line per card.
    Json,
    /// A printable A4 sheet: the square labels in the grid, the card's label.
    Html,
}

/// `arcade bingo print`.
#[derive(Debug, Args)]
pub struct PrintArgs {
    /// The game (a called game, opened with `arcade bingo open`).
    #[arg(long)]
    pub game: String,
    /// How many cards, 1 to 100000.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_CARDS)))]
    pub count: u32,
    /// How the cards are written on standard output.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
    /// Seconds to wait for the service's answer to each batch; none in time exits 3.
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// Broker and admin endpoint.
    #[command(flatten)]
    pub connection: Connection,
}

/// Why a game cannot print `count` cards, if it cannot.
pub fn infeasible(game: &GameRead, count: u32) -> Option<String> {
    let id = &game.game_id;
    if game.tick_mode != TickMode::Called {
        return Some(format!(
            "game \"{id}\" is ticked by its players' activity: only a called game prints cards; \
             nothing was printed"
        ));
    }
    if game.status == GameStatus::Closed {
        return Some(format!(
            "game \"{id}\" is closed: it prints no more cards; nothing was printed"
        ));
    }
    if count > game.printable {
        return Some(format!(
            "game \"{id}\" can print {} more cards, not {count}: it holds {} cards, and its {}×{} \
             cards drawn from {} squares allow no more distinct ones within the {MAX_CARDS} a game \
             holds; nothing was printed",
            game.printable,
            game.cards,
            game.grid.size,
            game.grid.size,
            game.pool.len()
        ));
    }
    None
}

/// The progress bar of `total` cards on `target`.
pub fn progress(total: u64, target: ProgressDrawTarget) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), target);
    let style = ProgressStyle::with_template("printing {bar:40} {pos}/{len} cards ({eta} left)")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

fn progress_on_stderr(total: u64) -> ProgressBar {
    if std::io::stderr().is_terminal() {
        progress(total, ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    }
}

/// Writes to standard output; a closed pipe (`| head`) ends quietly.
pub fn write_stdout(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(anyhow::anyhow!("writing the cards: {e}")),
    }
}

/// The cards written as they come, one batch at a time: only the batch in hand is in memory.
pub struct Sheet<'a, W: Write> {
    out: W,
    html: Option<HtmlSheet<'a>>,
}

impl<'a, W: Write> Sheet<'a, W> {
    /// Starts writing cards of `game` in `format` to `out` (the HTML head, for a sheet).
    pub fn begin(format: Format, game: &'a GameRead, mut out: W) -> std::io::Result<Self> {
        let html = (format == Format::Html)
            .then(|| HtmlSheet::new(&game.game_id, game.grid.size, &game.pool));
        if let Some(sheet) = &html {
            out.write_all(sheet.head().as_bytes())?;
        }
        Ok(Sheet { out, html })
    }

    /// Writes a batch of cards, and flushes it.
    pub fn batch(&mut self, cards: &[PrintedCard]) -> std::io::Result<()> {
        let text: String = match &self.html {
            Some(sheet) => sheet.cards(cards),
            None => cards.iter().map(card_line).collect(),
        };
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }

    /// Ends the sheet; the writer back.
    pub fn finish(mut self) -> std::io::Result<W> {
        if self.html.is_some() {
            self.out.write_all(HtmlSheet::FOOT.as_bytes())?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Runs `arcade bingo print`.
pub async fn run(args: PrintArgs) -> anyhow::Result<ExitCode> {
    let admin = Admin::new(args.connection.admin());
    let path = format!("/bingo/games/{}", segment(&args.game));
    let game = match admin.get::<GameRead>(&path).await? {
        Ok(game) => game,
        Err(refusal) => {
            return Ok(crate::exit::print(
                refusal.code,
                format_args!(
                    "{}; nothing was printed (open the game first with `arcade bingo open`)",
                    refusal.error
                ),
            ));
        }
    };
    if let Some(problem) = infeasible(&game, args.count) {
        return Ok(refused(problem));
    }
    // A fresh message id per batch.
    let answer = AnswerArgs {
        id: None,
        timeout: args.timeout,
    };
    let bar = progress_on_stderr(u64::from(args.count));
    let mut sheet = Sheet::begin(args.format, &game, std::io::stdout().lock())?;
    let mut printed_so_far = 0u32;
    let mut failure = None;
    while printed_so_far < args.count {
        // At most 100,000 cards.
        let count = (args.count - printed_so_far).min(MAX_PRINT_BATCH);
        let request = PrintCards {
            request_id: None,
            game_id: args.game.clone(),
            count,
        };
        let payload = serde_json::to_value(&request)?;
        let answers = [CardsPrinted::TYPE, RequestRejected::TYPE];
        let reply = match ask(
            &args.connection,
            &answer,
            PrintCards::TYPE,
            payload,
            &answers,
        )
        .await
        {
            Ok(reply) => reply,
            // Refused: the cards printed so far are written, and the error says how many.
            Err(e) if crate::exit::code_of(&e) == crate::exit::REFUSED && printed_so_far > 0 => {
                failure = Some(format!("{e:#}"));
                break;
            }
            Err(e) => return Err(e),
        };
        let printed: CardsPrinted = serde_json::from_value(reply.payload)?;
        bar.inc(printed.cards.len() as u64);
        // At most 1,000 a batch.
        printed_so_far += printed.cards.len() as u32;
        sheet
            .batch(&printed.cards)
            .map_err(|e| anyhow::Error::new(e).context("writing the cards"))?;
    }
    bar.finish_and_clear();
    let _stdout = sheet
        .finish()
        .map_err(|e| anyhow::Error::new(e).context("writing the cards"))?;
    match failure {
        None => Ok(ExitCode::SUCCESS),
        Some(reason) => Ok(refused(format!(
            "the service printed {printed_so_far} of the {} cards asked (written above), then: {reason}",
            args.count
        ))),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use indicatif::TermLike;

    use super::*;

    /// A terminal that keeps what is drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, line: &str) -> std::io::Result<()> {
            self.write_str(line)
        }
        fn write_str(&self, text: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(text);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_progress_bar_counts_the_printed_cards_on_a_terminal() {
        let screen = Screen::default();
        let bar = progress(
            1200,
            ProgressDrawTarget::term_like(Box::new(screen.clone())),
        );
        bar.inc(1000);
        bar.inc(200);
        bar.finish();
        let drawn = screen.0.lock().unwrap().clone();
        assert!(drawn.contains("printing "), "{drawn:?}");
        assert!(drawn.contains("1200/1200 cards"), "{drawn:?}");
    }

    fn game(mode: TickMode, status: GameStatus, cards: u32, printable: u32) -> GameRead {
        GameRead {
            game_id: "quiz".into(),
            tick_mode: mode,
            status,
            grid: arcade_contracts::bingo::GridSpec {
                size: 3,
                free_centre: Some(true),
            },
            pool: Vec::new(),
            patterns: vec!["line".into()],
            called_squares: Vec::new(),
            winners: Vec::new(),
            cards,
            printable,
        }
    }

    #[test]
    fn a_request_the_game_cannot_meet_is_refused_before_anything_is_printed() {
        let open = game(TickMode::Called, GameStatus::Open, 10, 39_680);
        assert_eq!(infeasible(&open, 39_680), None);
        let too_many = infeasible(&open, 40_000).unwrap();
        assert!(
            too_many
                .starts_with("game \"quiz\" can print 39680 more cards, not 40000: it holds 10"),
            "{too_many}"
        );
        let closed = game(TickMode::Called, GameStatus::Closed, 10, 0);
        assert!(infeasible(&closed, 1).unwrap().contains("is closed"));
        let activity = game(TickMode::Activity, GameStatus::Open, 10, 0);
        assert!(
            infeasible(&activity, 1)
                .unwrap()
                .contains("only a called game prints")
        );
    }

    fn card(serial: u32) -> PrintedCard {
        PrintedCard {
            serial,
            label: format!("label-{serial}"),
            cells: vec![Some(1), None, Some(2), Some(3)],
        }
    }

    #[test]
    fn each_batch_is_written_as_it_comes_and_the_whole_is_the_sheet_of_all() {
        let mut quiz = game(TickMode::Called, GameStatus::Open, 0, 10);
        quiz.grid.size = 2;
        let first: Vec<PrintedCard> = (1..=3).map(card).collect();
        let second: Vec<PrintedCard> = (4..=5).map(card).collect();
        let all: Vec<PrintedCard> = first.iter().chain(&second).cloned().collect();
        for format in [Format::Json, Format::Html] {
            let mut sheet = Sheet::begin(format, &quiz, Vec::new()).unwrap();
            sheet.batch(&first).unwrap();
            // Written already, before the next batch is asked for: nothing accumulates.
            let after_first = String::from_utf8(sheet.out.clone()).unwrap();
            assert!(after_first.contains("label-3"), "{after_first}");
            assert!(!after_first.contains("label-4"), "{after_first}");
            sheet.batch(&second).unwrap();
            let whole = String::from_utf8(sheet.finish().unwrap()).unwrap();
            let expected = match format {
                Format::Json => all.iter().map(card_line).collect::<String>(),
                Format::Html => arcade_bingo::cli::html_sheet("quiz", 2, &[], &all),
            };
            assert_eq!(whole, expected, "{format:?}");
        }
    }
}
