//! A text on a display of a fixed width: still and centred when it fits, scrolling left one
//! column per step when it does not.

use crate::frame::Frame;
use crate::text::render;

/// Dark columns between the end of a scrolling text and its start coming round again.
pub const SCROLL_GAP: usize = 10;

/// A text shown on a display `columns` wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marquee {
    strip: Frame,
    columns: usize,
}

impl Marquee {
    /// `text` on a display `columns` wide.
    pub fn new(text: &str, columns: usize) -> Marquee {
        Marquee {
            strip: render(text),
            columns,
        }
    }

    /// The display's width.
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// The whole text, as wide as it is.
    pub fn strip(&self) -> &Frame {
        &self.strip
    }

    /// Whether the text is wider than the display, so that it scrolls.
    pub fn scrolls(&self) -> bool {
        self.strip.width() > self.columns
    }

    /// Steps before a scrolling text is back where it started (the text and the gap); 1 for a
    /// still one.
    pub fn period(&self) -> u64 {
        if self.scrolls() {
            (self.strip.width() + SCROLL_GAP) as u64
        } else {
            1
        }
    }

    /// The frame at `step`: a text that fits, centred (any step); a wider one, moved left by
    /// `step` columns (modulo [`Marquee::period`]), its first column at the left edge at step 0.
    pub fn frame(&self, step: u64) -> Frame {
        let strip = self.strip.columns();
        if !self.scrolls() {
            let left = (self.columns - strip.len()) / 2;
            let mut columns = vec![0; self.columns];
            columns[left..left + strip.len()].copy_from_slice(strip);
            return Frame::from_columns(columns);
        }
        let period = self.strip.width() + SCROLL_GAP;
        // `step % period` fits in usize: `period` does.
        let start = usize::try_from(step % period as u64).unwrap_or(0);
        let columns = (0..self.columns)
            .map(|c| strip.get((start + c) % period).copied().unwrap_or(0))
            .collect();
        Frame::from_columns(columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::text_width;

    #[test]
    fn a_text_that_fits_is_centred_and_still() {
        let marquee = Marquee::new("5-4", 32);
        assert!(!marquee.scrolls());
        assert_eq!(marquee.period(), 1);
        let frame = marquee.frame(0);
        assert_eq!(frame.width(), 32);
        // 14 columns of text, 9 dark on the left, 9 on the right.
        assert_eq!(&frame.columns()[9..23], render("5-4").columns());
        assert!(
            frame.columns()[..9]
                .iter()
                .chain(&frame.columns()[23..])
                .all(|c| *c == 0)
        );
        assert_eq!(marquee.frame(17), frame);
    }

    #[test]
    fn a_text_exactly_as_wide_fills_the_display() {
        let marquee = Marquee::new("5-4", 14);
        assert!(!marquee.scrolls());
        assert_eq!(marquee.frame(3), render("5-4"));
    }

    #[test]
    fn a_wider_text_scrolls_one_column_per_step() {
        let text = "TIE-BREAK 5-5";
        let marquee = Marquee::new(text, 16);
        let strip = render(text);
        assert!(marquee.scrolls());
        assert_eq!(marquee.period(), (text_width(text) + SCROLL_GAP) as u64);
        // Step 0: the first 16 columns; each step one column further.
        assert_eq!(marquee.frame(0).columns(), &strip.columns()[..16]);
        assert_eq!(marquee.frame(1).columns(), &strip.columns()[1..17]);
        assert_eq!(marquee.frame(5).columns(), &strip.columns()[5..21]);
        for step in 0..marquee.period() {
            let now = marquee.frame(step);
            let next = marquee.frame(step + 1);
            assert_eq!(now.width(), 16);
            assert_eq!(&now.columns()[1..], &next.columns()[..15], "step {step}");
        }
        // Round again after the text and the gap.
        assert_eq!(marquee.frame(marquee.period()), marquee.frame(0));
        assert_eq!(marquee.frame(3 * marquee.period() + 2), marquee.frame(2));
    }

    #[test]
    fn the_gap_is_dark_and_the_start_follows_it() {
        let marquee = Marquee::new("HINGE WINS 6-4", 8);
        let width = marquee.strip().width() as u64;
        // The text's last column is at the left edge, then the gap, then the text again.
        let after = marquee.frame(width);
        assert!(after.columns().iter().all(|c| *c == 0));
        let back = marquee.frame(width + SCROLL_GAP as u64 - 3);
        assert_eq!(&back.columns()[3..], &marquee.strip().columns()[..5]);
    }

    #[test]
    fn an_empty_text_or_display_is_dark() {
        assert_eq!(Marquee::new("", 16).frame(4), Frame::dark(16));
        let zero = Marquee::new("5-4", 0);
        assert!(zero.scrolls());
        assert_eq!(zero.frame(9), Frame::dark(0));
    }
}
