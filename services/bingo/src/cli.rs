//! The pure parts of the organiser's tools `arcade bingo open | print | show` (the `arcade`
//! binary sends their requests to the service and reads its answers): a squares file read into
//! a pool, pattern names read into patterns, and printed cards written as JSON lines or as a
//! printable A4 HTML sheet.
//!
//! A squares file holds one square per line, numbered from 1 in file order; blank lines are
//! skipped. In a called game the line is the label. In an activity game it is
//! `label | verb` or `label | verb | object`: the gesture that ticks it.

use std::collections::HashMap;
use std::fmt::Write as _;

use arcade_contracts::bingo::{PatternSpec, PrintedCard, SquareSpec, TickMode, squares_of_text};
use arcade_runtime::web::escape_html as escape;

use crate::domain::limits::{MAX_LABEL_BYTES, MAX_POOL};

/// The pattern names `--patterns` takes, and what each is.
pub const PATTERN_NAMES: &str =
    "line, row, column, diagonal, full (or fullCard), corners (or fourCorners)";

/// Reads a squares file (see the module's header); errors name the line.
pub fn squares_from_text(text: &str, mode: TickMode) -> Result<Vec<SquareSpec>, String> {
    let mut squares = Vec::new();
    for (at, square) in squares_of_text(text, mode) {
        let square = square.map_err(|error| format!("line {at}: {error}"))?;
        let label = &square.label;
        if label.is_empty() || label.len() > MAX_LABEL_BYTES {
            return Err(format!(
                "line {at}: a label is 1 to {MAX_LABEL_BYTES} bytes, not {}",
                label.len()
            ));
        }
        if squares.len() == MAX_POOL {
            return Err(format!(
                "line {at}: a pool holds at most {MAX_POOL} squares"
            ));
        }
        squares.push(square);
    }
    if squares.is_empty() {
        return Err("the file holds no square: one label per line".into());
    }
    Ok(squares)
}

/// Reads a comma-separated list of pattern names ([`PATTERN_NAMES`]).
pub fn patterns_from_list(list: &str) -> Result<Vec<PatternSpec>, String> {
    list.split(',')
        .map(str::trim)
        .map(|name| match name {
            "line" => Ok(PatternSpec::Line),
            "row" => Ok(PatternSpec::Row),
            "column" => Ok(PatternSpec::Column),
            "diagonal" => Ok(PatternSpec::Diagonal),
            "full" | "fullCard" => Ok(PatternSpec::FullCard),
            "corners" | "fourCorners" => Ok(PatternSpec::FourCorners),
            other => Err(format!(
                "\"{other}\" is not a pattern: use {PATTERN_NAMES}, separated by commas"
            )),
        })
        .collect()
}

/// A printed card as one JSON line: `{"serial":1,"label":"…","cells":[…]}`.
pub fn card_line(card: &PrintedCard) -> String {
    let mut line = serde_json::to_string(card).unwrap_or_default();
    line.push('\n');
    line
}

const STYLE: &str = "@page { size: A4; margin: 12mm; }
body { font-family: Helvetica, Arial, sans-serif; margin: 0; color: #000; }
section.card { break-inside: avoid; page-break-inside: avoid; width: 105mm; margin: 0 auto 8mm; }
section.card:nth-of-type(2n) { break-after: page; page-break-after: always; }
h1 { font-size: 14pt; margin: 0 0 3mm; display: flex; justify-content: space-between; }
table { border-collapse: collapse; table-layout: fixed; width: 105mm; }
td { border: 0.4mm solid #000; text-align: center; vertical-align: middle; overflow-wrap: anywhere;
     hyphens: auto; padding: 1mm; font-size: 9pt; }
td.free { background: #ddd; font-weight: bold; }
p.label { font-family: 'Courier New', monospace; font-size: 11pt; margin: 2mm 0 0; text-align: right; }";

/// A printable sheet of cards: one `<section>` per card (two per A4 page) with the game and
/// serial, the grid of square labels (`FREE` in the free centre) and the card's label. Plain
/// HTML with its style inline: nothing is fetched from elsewhere.
pub fn html_sheet(
    game_id: &str,
    grid_size: u8,
    squares: &[SquareSpec],
    cards: &[PrintedCard],
) -> String {
    let sheet = HtmlSheet::new(game_id, grid_size, squares);
    let mut html = sheet.head();
    html.push_str(&sheet.cards(cards));
    html.push_str(HtmlSheet::FOOT);
    html
}

/// [`html_sheet`] in parts, to write a sheet of many cards batch by batch: [`HtmlSheet::head`],
/// then [`HtmlSheet::cards`] of each batch, then [`HtmlSheet::FOOT`].
#[derive(Debug)]
pub struct HtmlSheet<'a> {
    labels: HashMap<u32, &'a str>,
    size: usize,
    game: String,
}

impl<'a> HtmlSheet<'a> {
    /// The end of the sheet.
    pub const FOOT: &'static str = "</body>\n</html>\n";

    /// A sheet of cards of `game_id`, a `grid_size` grid whose squares are `squares`.
    pub fn new(game_id: &str, grid_size: u8, squares: &'a [SquareSpec]) -> HtmlSheet<'a> {
        HtmlSheet {
            labels: squares.iter().map(|s| (s.id, s.label.as_str())).collect(),
            size: usize::from(grid_size.max(1)),
            game: escape(game_id),
        }
    }

    /// The start of the sheet: its head and style.
    pub fn head(&self) -> String {
        // Cells are square: the table is 105 mm wide, so two cards fit on an A4 page.
        let cell_mm = 105 / self.size;
        let game = &self.game;
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>Bingo cards of {game}</title>\n<style>\n{STYLE}\ntd {{ height: {cell_mm}mm; }}\n\
             </style>\n</head>\n<body>\n"
        )
    }

    /// The sections of `cards`.
    pub fn cards(&self, cards: &[PrintedCard]) -> String {
        let mut html = String::new();
        let game = &self.game;
        for card in cards {
            let _ = write!(
                html,
                "<section class=\"card\">\n<h1><span>{game}</span><span>card {}</span></h1>\n<table>\n",
                card.serial
            );
            for row in card.cells.chunks(self.size) {
                html.push_str("<tr>");
                for cell in row {
                    match cell {
                        None => html.push_str("<td class=\"free\">FREE</td>"),
                        Some(id) => {
                            let label = self
                                .labels
                                .get(id)
                                .map_or_else(|| id.to_string(), |l| escape(l));
                            let _ = write!(html, "<td>{label}</td>");
                        }
                    }
                }
                html.push_str("</tr>\n");
            }
            let _ = write!(
                html,
                "</table>\n<p class=\"label\">{}</p>\n</section>\n",
                escape(&card.label)
            );
        }
        html
    }
}
