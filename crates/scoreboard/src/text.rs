//! Text drawn in the 5 × 7 font: [`render`] draws a whole text on a frame exactly its width.

use embedded_graphics::geometry::{OriginDimensions, Point};
use embedded_graphics::image::GetPixel;
use embedded_graphics::mono_font::ascii::FONT_5X7;
use embedded_graphics::pixelcolor::BinaryColor;

use crate::frame::Frame;

/// Columns per character: 4 of glyph and one dark.
pub const CELL_WIDTH: usize = 5;

/// The row of the frame where the font's top row goes.
const TOP: usize = 1;
/// Rows of the font.
const FONT_ROWS: usize = 7;

/// The width of `text` in columns: `5n − 1` for `n` characters (no trailing dark column), 0 for
/// an empty text.
pub fn text_width(text: &str) -> usize {
    (text.chars().count() * CELL_WIDTH).saturating_sub(1)
}

/// `text` on a frame exactly [`text_width`] columns wide.
///
/// The glyphs are read from `FONT_5X7`'s bitmap (its glyph mapping turns a character outside
/// the font into `?`) and set pixel by pixel, rather than drawn by `embedded-graphics`'s text
/// renderer, which adds about 5 KB to the edge binary for the same pixels; a test checks the
/// two agree for every printable character, the renderer drawing on [`Frame`] as a
/// `DrawTarget`.
pub fn render(text: &str) -> Frame {
    let mut frame = Frame::dark(text_width(text));
    let font = &FONT_5X7;
    let per_row = (font.image.size().width / font.character_size.width).max(1) as usize;
    for (i, c) in text.chars().enumerate() {
        let glyph = font.glyph_mapping.index(c);
        let (gx, gy) = (
            (glyph % per_row) * CELL_WIDTH,
            (glyph / per_row) * FONT_ROWS,
        );
        for dy in 0..FONT_ROWS {
            for dx in 0..CELL_WIDTH {
                let at = Point::new((gx + dx) as i32, (gy + dy) as i32);
                if font.image.pixel(at) == Some(BinaryColor::On) {
                    frame.set(i * CELL_WIDTH + dx, TOP + dy, true);
                }
            }
        }
    }
    frame
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::ROWS;
    use embedded_graphics::Drawable;
    use embedded_graphics::mono_font::MonoTextStyle;
    use embedded_graphics::text::{Baseline, Text};

    /// `text` drawn by embedded-graphics's text renderer on the frame as a `DrawTarget`.
    fn drawn(text: &str) -> Frame {
        let mut frame = Frame::dark(text_width(text));
        let style = MonoTextStyle::new(&FONT_5X7, BinaryColor::On);
        let at = Point::new(0, TOP as i32);
        Text::with_baseline(text, at, style, Baseline::Top)
            .draw(&mut frame)
            .unwrap();
        frame
    }

    #[test]
    fn the_glyphs_are_the_ones_embedded_graphics_draws() {
        let printable: String = (' '..='~').collect();
        assert_eq!(render(&printable), drawn(&printable));
        assert_eq!(render("TIE-BREAK 5-4 é"), drawn("TIE-BREAK 5-4 é"));
    }

    fn glyph(c: char) -> Frame {
        render(&c.to_string())
    }

    #[test]
    fn every_digit_is_distinct_and_lit() {
        let digits: Vec<Frame> = ('0'..='9').map(glyph).collect();
        for (i, a) in digits.iter().enumerate() {
            assert!(a.columns().iter().any(|c| *c != 0), "digit {i} is dark");
            for (j, b) in digits.iter().enumerate().skip(i + 1) {
                assert_ne!(a, b, "digits {i} and {j} look the same");
            }
        }
    }

    #[test]
    fn every_letter_and_sign_is_distinct() {
        let chars: Vec<char> = ('A'..='Z').chain(['-', ':', '!', '?', '.']).collect();
        for (i, a) in chars.iter().enumerate() {
            for b in &chars[i + 1..] {
                assert_ne!(glyph(*a), glyph(*b), "{a:?} and {b:?} look the same");
            }
        }
        assert_eq!(glyph(' '), Frame::dark(4));
    }

    #[test]
    fn characters_stand_one_dark_column_apart() {
        let printable: String = (' '..='~').collect();
        assert_eq!(render(&printable).width(), 95 * 5 - 1);
        // Only `#`, `$` and `+` fill their whole cell.
        let narrow: String = printable.chars().filter(|c| !"#$+".contains(*c)).collect();
        let strip = render(&narrow);
        for gap in (4..strip.width()).step_by(CELL_WIDTH) {
            assert_eq!(
                strip.columns()[gap],
                0,
                "column {gap} between two characters is lit"
            );
        }
        for wide in ['#', '$', '+'] {
            assert_ne!(render(&format!("{wide} ")).columns()[4], 0, "{wide:?}");
        }
    }

    #[test]
    fn the_font_fills_rows_one_to_seven() {
        let strip = render("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZgjpqy");
        let row_lit = |row: usize| (0..strip.width()).any(|c| strip.lit(c, row));
        assert!(!row_lit(0), "row 0 stays dark");
        assert!((1..ROWS).all(row_lit), "rows 1 to 7 are used");
        // A digit or a capital (but Q's tail) stands in rows 1–6.
        let digits = render("0123456789ABCDEFGHIJKLMNOPRSTUVWXYZ");
        assert!((0..digits.width()).all(|c| !digits.lit(c, 7)));
    }

    #[test]
    fn widths() {
        assert_eq!(text_width(""), 0);
        assert_eq!(text_width("5"), 4);
        assert_eq!(text_width("5-4"), 14);
        assert_eq!(text_width("10-12"), 24);
        assert_eq!(render("5-4").width(), 14);
        assert_eq!(render("").width(), 0);
    }

    #[test]
    fn unknown_characters_are_question_marks() {
        assert_eq!(render("é"), render("?"));
    }
}
