//! The pure parts of `arcade bingo open | print`: squares files, pattern names, printed cards
//! as JSON lines and as an HTML sheet.

use arcade_bingo::cli::{card_line, html_sheet, patterns_from_list, squares_from_text};
use arcade_contracts::bingo::{PatternSpec, PrintedCard, TickMode, TriggerSpec};

#[test]
fn a_squares_file_is_one_label_per_line_numbered_from_one() {
    let squares = squares_from_text("B1\r\n\n  B2  \nI16\n", TickMode::Called).unwrap();
    let got: Vec<(u32, &str)> = squares.iter().map(|s| (s.id, s.label.as_str())).collect();
    assert_eq!(got, vec![(1, "B1"), (2, "B2"), (3, "I16")]);
    assert!(squares.iter().all(|s| s.trigger.is_none()));
}

#[test]
fn an_activity_squares_file_names_each_square_s_gesture() {
    let text = "Say hello | talk.hello\nScore at table 3 | table.goal | table-3\n";
    let squares = squares_from_text(text, TickMode::Activity).unwrap();
    assert_eq!(
        squares[1].trigger,
        Some(TriggerSpec {
            verb: "table.goal".into(),
            object: Some("table-3".into())
        })
    );
    assert_eq!(
        squares_from_text("ok | v\nNo verb here\n", TickMode::Activity).unwrap_err(),
        "line 2: \"No verb here\" has no verb: an activity game's square is `label | verb` or \
         `label | verb | object`"
    );
}

#[test]
fn bad_squares_files_are_refused_naming_the_line() {
    assert_eq!(
        squares_from_text("\n\n", TickMode::Called).unwrap_err(),
        "the file holds no square: one label per line"
    );
    let long = format!("ok\n{}\n", "x".repeat(201));
    assert_eq!(
        squares_from_text(&long, TickMode::Called).unwrap_err(),
        "line 2: a label is 1 to 200 bytes, not 201"
    );
    let many: String = (1..=501).map(|n| format!("{n}\n")).collect();
    assert_eq!(
        squares_from_text(&many, TickMode::Called).unwrap_err(),
        "line 501: a pool holds at most 500 squares"
    );
}

#[test]
fn pattern_names_are_read_in_order() {
    assert_eq!(
        patterns_from_list("line,full").unwrap(),
        vec![PatternSpec::Line, PatternSpec::FullCard]
    );
    assert_eq!(
        patterns_from_list("corners, fullCard").unwrap(),
        vec![PatternSpec::FourCorners, PatternSpec::FullCard]
    );
    let error = patterns_from_list("line,house").unwrap_err();
    assert!(
        error.starts_with("\"house\" is not a pattern: use line, row"),
        "{error}"
    );
}

fn card(serial: u32, label: &str) -> PrintedCard {
    PrintedCard {
        serial,
        label: label.into(),
        cells: vec![
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            None,
            Some(5),
            Some(6),
            Some(7),
            Some(8),
        ],
    }
}

#[test]
fn a_card_line_is_the_printed_card_as_json() {
    assert_eq!(
        card_line(&card(3, "55c4-606b-2f30-e354")),
        "{\"serial\":3,\"label\":\"55c4-606b-2f30-e354\",\"cells\":[1,2,3,4,null,5,6,7,8]}\n"
    );
}

#[test]
fn the_html_sheet_shows_labels_grid_and_card_label_with_nothing_external() {
    let mut squares = squares_from_text(
        "one\ntwo\nthree\nfour\nfive\nsix\nseven\n",
        TickMode::Called,
    )
    .unwrap();
    squares.push(arcade_contracts::bingo::SquareSpec {
        id: 8,
        label: "<b>Tom & Jerry</b>".into(),
        trigger: None,
    });
    let html = html_sheet(
        "quiz <night>",
        3,
        &squares,
        &[
            card(1, "aaaa-bbbb-cccc-dddd"),
            card(2, "1111-2222-3333-4444"),
        ],
    );
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("@page { size: A4;"));
    assert_eq!(html.matches("<section class=\"card\">").count(), 2);
    assert!(html.contains(
        "<tr><td>one</td><td>two</td><td>three</td></tr>\n\
         <tr><td>four</td><td class=\"free\">FREE</td><td>five</td></tr>\n\
         <tr><td>six</td><td>seven</td><td>&lt;b&gt;Tom &amp; Jerry&lt;/b&gt;</td></tr>"
    ));
    assert!(html.contains("<p class=\"label\">aaaa-bbbb-cccc-dddd</p>"));
    assert!(html.contains("<span>quiz &lt;night&gt;</span><span>card 2</span>"));
    for external in ["http://", "https://", "<link", "<script", "src="] {
        assert!(!html.contains(external), "the sheet fetches {external}");
    }
}
