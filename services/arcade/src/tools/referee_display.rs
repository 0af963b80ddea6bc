//! `arcade referee display --text TEXT [--columns N] [--format text|pbm] [--scroll]`: one frame
//! of the table's score display, drawn without hardware by the same pure crate the referee's
//! display and the console use (`arcade-scoreboard`).

use std::io::Write;

use arcade_scoreboard::{Frame, Marquee, text_width};

/// How a frame is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FrameFormat {
    /// 8 lines, `#` for a lit pixel and `.` for a dark one.
    #[default]
    Text,
    /// A plain PBM image (P1): `1` lit, `0` dark.
    Pbm,
}

/// `arcade referee display`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
The frame is 8 rows: the 5x7 font in rows 1-7, row 0 dark; characters are 5 columns apart \
(4 of glyph, one dark), so a text of n characters is 5n-1 columns wide. With --columns \
narrower than the text, the frame is the first scroll position (the text's first columns) \
and a note on stderr says it scrolls; --scroll prints every position of one turn instead \
(one column per step, the text then 10 dark columns), frames separated by a blank line (text) \
or one image after another (pbm). A text that fits in --columns is centred.")]
pub struct DisplayArgs {
    /// The text to draw (printable ASCII; anything else is drawn as `?`).
    #[arg(long, value_name = "TEXT")]
    pub text: String,
    /// The display's width in columns (16 per HT16K33 module); default: the text's width.
    #[arg(long, value_name = "N")]
    pub columns: Option<usize>,
    /// How to print the frame.
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT")]
    pub format: FrameFormat,
    /// Print every scroll position of a text wider than --columns, not only the first.
    #[arg(long)]
    pub scroll: bool,
}

/// Exit code of bad input.
const INVALID: u8 = 2;

/// Prints the frame(s) on `out`, notes on `err`; the exit code.
pub fn run(args: &DisplayArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match draw(args, out, err) {
        Ok(code) => code,
        Err(error) => {
            let _ = writeln!(err, "error: writing the frame: {error}");
            1
        }
    }
}

fn draw(args: &DisplayArgs, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<u8> {
    let width = text_width(&args.text);
    if width == 0 {
        writeln!(err, "error: --text: the text is empty")?;
        return Ok(INVALID);
    }
    let columns = args.columns.unwrap_or(width);
    if columns == 0 {
        writeln!(err, "error: --columns: a display has at least 1 column")?;
        return Ok(INVALID);
    }
    let marquee = Marquee::new(&args.text, columns);
    let steps = if args.scroll { marquee.period() } else { 1 };
    if marquee.scrolls() && !args.scroll {
        writeln!(
            err,
            "note: {:?} is {width} columns wide: on {columns} columns it scrolls one column per step ({} steps a turn); this is its first position (--scroll prints them all)",
            args.text,
            marquee.period()
        )?;
    }
    for step in 0..steps {
        let frame: Frame = marquee.frame(step);
        if step > 0 && args.format == FrameFormat::Text {
            writeln!(out)?;
        }
        match args.format {
            FrameFormat::Text => out.write_all(frame.to_text().as_bytes())?,
            FrameFormat::Pbm => out.write_all(frame.to_pbm().as_bytes())?,
        }
    }
    out.flush()?;
    Ok(0)
}
