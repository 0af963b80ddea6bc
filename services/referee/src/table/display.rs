//! The score display, behind a small trait: [`ScoreDisplay`] shows one frame. Backends: the
//! HT16K33 LED matrices ([`Ht16k33Display`](super::Ht16k33Display)), a [`TerminalDisplay`]
//! that draws the frame as text (a simulated table, the docs), and [`NoDisplay`].

use std::convert::Infallible;
use std::io::Write;

use arcade_scoreboard::Frame;
use embedded_hal::i2c::I2c;

use super::ht16k33::{DisplayError, Ht16k33Display};

/// A display of 8 rows.
pub trait ScoreDisplay {
    /// Why a frame could not be shown.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Its width in columns.
    fn columns(&self) -> usize;
    /// Whether it shows every step of a scrolling text; `false`: only the first (a log).
    fn animates(&self) -> bool {
        true
    }
    /// Shows `frame`, a picture of `text`.
    fn show(&mut self, text: &str, frame: &Frame) -> Result<(), Self::Error>;
}

impl<B: I2c> ScoreDisplay for Ht16k33Display<B> {
    type Error = DisplayError;
    fn columns(&self) -> usize {
        Ht16k33Display::columns(self)
    }
    fn show(&mut self, _text: &str, frame: &Frame) -> Result<(), DisplayError> {
        Ht16k33Display::show(self, frame)
    }
}

/// No display: shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoDisplay;

impl ScoreDisplay for NoDisplay {
    type Error = Infallible;
    fn columns(&self) -> usize {
        0
    }
    fn show(&mut self, _text: &str, _frame: &Frame) -> Result<(), Infallible> {
        Ok(())
    }
}

/// The frame drawn as text on a writer (stdout, a log): a line `scoreboard: "TEXT"` (with
/// `(scrolls)` when the text is wider than the display), then 8 rows of `#` (lit) and `.`
/// (dark). It draws each new text once, at its first scroll position, not every step.
pub struct TerminalDisplay<W> {
    out: W,
    columns: usize,
}

impl<W> std::fmt::Debug for TerminalDisplay<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalDisplay")
            .field("columns", &self.columns)
            .finish_non_exhaustive()
    }
}

impl<W: Write> TerminalDisplay<W> {
    /// A display `columns` wide drawn on `out`.
    pub fn new(out: W, columns: usize) -> TerminalDisplay<W> {
        TerminalDisplay { out, columns }
    }

    /// Gives the writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> ScoreDisplay for TerminalDisplay<W> {
    type Error = std::io::Error;
    fn columns(&self) -> usize {
        self.columns
    }
    fn animates(&self) -> bool {
        false
    }
    fn show(&mut self, text: &str, frame: &Frame) -> Result<(), std::io::Error> {
        let scrolls = if arcade_scoreboard::text_width(text) > self.columns {
            " (scrolls)"
        } else {
            ""
        };
        let picture = format!("scoreboard: {text:?}{scrolls}\n{}", frame.to_text());
        self.out.write_all(picture.as_bytes())?;
        self.out.flush()
    }
}
