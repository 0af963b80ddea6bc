//! A frame of the display: 8 rows × N columns of pixels, a `DrawTarget` of `BinaryColor`, and
//! its text and PBM pictures.

use std::convert::Infallible;

use embedded_graphics::Pixel;
use embedded_graphics::draw_target::DrawTarget;
use embedded_graphics::geometry::{OriginDimensions, Size};
use embedded_graphics::pixelcolor::BinaryColor;

/// Rows of the display (the matrix of the HT16K33 drivers).
pub const ROWS: usize = 8;

/// 8 rows × `width` columns of pixels. Column `c` is one byte whose bit `r` is the pixel of row
/// `r` (row 0 at the top, bit 0 the least significant).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    columns: Vec<u8>,
}

impl Frame {
    /// A dark frame `width` columns wide.
    pub fn dark(width: usize) -> Frame {
        Frame {
            columns: vec![0; width],
        }
    }

    /// A frame of these columns (bit `r` of each byte is row `r`).
    pub fn from_columns(columns: Vec<u8>) -> Frame {
        Frame { columns }
    }

    /// Its width in columns.
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// Its columns, left to right (bit `r` of each byte is row `r`).
    pub fn columns(&self) -> &[u8] {
        &self.columns
    }

    /// Whether the pixel at `column`, `row` is lit (dark outside the frame).
    pub fn lit(&self, column: usize, row: usize) -> bool {
        row < ROWS
            && self
                .columns
                .get(column)
                .is_some_and(|c| c & (1 << row) != 0)
    }

    /// Lights (`on`) or darkens one pixel; a pixel outside the frame is ignored.
    pub fn set(&mut self, column: usize, row: usize, on: bool) {
        if row >= ROWS {
            return;
        }
        if let Some(c) = self.columns.get_mut(column) {
            if on {
                *c |= 1 << row;
            } else {
                *c &= !(1 << row);
            }
        }
    }

    /// Its rows, top to bottom, each as a string of `lit` and `dark` characters.
    pub fn rows(&self, lit: char, dark: char) -> Vec<String> {
        (0..ROWS)
            .map(|row| {
                (0..self.width())
                    .map(|column| if self.lit(column, row) { lit } else { dark })
                    .collect()
            })
            .collect()
    }

    /// The frame as text: 8 lines, `#` for a lit pixel and `.` for a dark one, each ending
    /// with a newline.
    pub fn to_text(&self) -> String {
        let mut text = String::with_capacity((self.width() + 1) * ROWS);
        for row in self.rows('#', '.') {
            text.push_str(&row);
            text.push('\n');
        }
        text
    }

    /// The frame as a plain PBM image (`P1`): `1` for a lit pixel, `0` for a dark one, one
    /// line per row.
    pub fn to_pbm(&self) -> String {
        let mut pbm = format!("P1\n{} {}\n", self.width(), ROWS);
        for row in 0..ROWS {
            let line: Vec<&str> = (0..self.width())
                .map(|column| if self.lit(column, row) { "1" } else { "0" })
                .collect();
            pbm.push_str(&line.join(" "));
            pbm.push('\n');
        }
        pbm
    }
}

impl OriginDimensions for Frame {
    fn size(&self) -> Size {
        Size::new(u32::try_from(self.width()).unwrap_or(u32::MAX), ROWS as u32)
    }
}

impl DrawTarget for Frame {
    type Color = BinaryColor;
    type Error = Infallible;

    fn draw_iter<I>(&mut self, pixels: I) -> Result<(), Infallible>
    where
        I: IntoIterator<Item = Pixel<BinaryColor>>,
    {
        for Pixel(point, color) in pixels {
            if let (Ok(column), Ok(row)) = (usize::try_from(point.x), usize::try_from(point.y)) {
                self.set(column, row, color.is_on());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_outside_are_ignored_and_dark() {
        let mut frame = Frame::dark(3);
        frame.set(2, 7, true);
        frame.set(3, 0, true);
        frame.set(0, 8, true);
        assert!(frame.lit(2, 7));
        assert!(!frame.lit(3, 0));
        assert_eq!(frame.columns(), &[0, 0, 0x80]);
    }

    #[test]
    fn text_and_pbm_show_the_same_pixels() {
        let mut frame = Frame::dark(2);
        frame.set(0, 0, true);
        frame.set(1, 7, true);
        assert_eq!(frame.to_text(), "#.\n..\n..\n..\n..\n..\n..\n.#\n");
        assert_eq!(
            frame.to_pbm(),
            "P1\n2 8\n1 0\n0 0\n0 0\n0 0\n0 0\n0 0\n0 0\n0 1\n"
        );
    }
}
