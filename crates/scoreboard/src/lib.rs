//! The table's score display in pixels (`arcade-scoreboard`, shared by the referee and the
//! console): text in, pixels out. Pure: no I/O, no clock; scrolling is a function of a step
//! number.
//!
//! # Frame
//!
//! A [`Frame`] is [`ROWS`] (8) rows × any number of columns, one bit per pixel, row 0 at the
//! top — the LED matrix of the source's table (HT16K33 drivers of 8 × 16 pixels, chained left to
//! right). It is an `embedded-graphics` [`DrawTarget`](embedded_graphics::draw_target::DrawTarget)
//! of [`BinaryColor`](embedded_graphics::pixelcolor::BinaryColor), so anything that draws with
//! `embedded-graphics` draws on it.
//!
//! # Font
//!
//! `embedded-graphics`'s 5 × 7 mono font (`mono_font::ascii::FONT_5X7`, from the X11
//! misc-fixed fonts): printable ASCII (digits, A–Z, a–z, space, `-`, `:`, `!` and the other
//! signs); any other character is drawn as `?`. Its glyphs are 4 columns wide in a 5-column
//! cell whose last column is dark (but `#`, `$` and `+`, which fill it), so with no extra
//! spacing two characters stand one column apart: a text of `n` characters is `5n − 1` columns
//! wide ([`text_width`]). The 7 rows
//! of the font sit in rows 1–7 of the frame: capitals and digits in rows 1–6, descenders in row
//! 7, row 0 dark. [`render`] reads the glyphs from the font's bitmap (see there why not through
//! the text renderer; a test checks both give the same pixels).
//!
//! # Scrolling
//!
//! [`Marquee`] shows a text on a display of a given width: a text that fits is centred and
//! still; a wider one scrolls left one column per step, followed by [`SCROLL_GAP`] dark columns
//! before it comes round again. Step 0 shows its first columns.
//!
//! # What a table shows
//!
//! [`Board`] is what the referee's display shows, and [`Board::text`] its text: the score
//! `hinge-lock` during a game (with the phase when it is not the default one), the winner and
//! the final score at the end, a chosen text between games. The console computes the same
//! `Board` from its own read model, so both draw the same frame.
//!
//! # Formats
//!
//! [`Frame::to_text`] draws a frame as 8 lines of `#` (lit) and `.` (dark); [`Frame::to_pbm`]
//! as a plain PBM image (`P1`).

mod board;
mod frame;
mod marquee;
mod text;

pub use board::{Board, Phase, Score, Side};
pub use frame::{Frame, ROWS};
pub use marquee::{Marquee, SCROLL_GAP};
pub use text::{CELL_WIDTH, render, text_width};
