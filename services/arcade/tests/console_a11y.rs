//! The console as everyone uses it, in a real headless Chromium: axe-core on every page at
//! 320 px (light theme), 390 and 1920 px (dark theme): no serious or critical violation, nothing wider than a 320 px phone,
//! the bingo card's numbers readable, the duel's controls named in text, the charts' labels
//! apart, the print page's word when nothing is printed yet; a puzzle move and a goal played
//! with the keyboard alone; focus and scroll position kept across ten live updates.
//!
//! axe-core is read from `ARCADE_AXE_JS`, or `target/axe-core/package/axe.min.js` (where
//! `.ci/run` unpacks `npm pack axe-core@4`); when a browser is there and axe-core is not, the
//! test fails naming the file.

#[path = "support/evening.rs"]
mod evening;
#[path = "support/webdriver.rs"]
mod webdriver;

use std::path::PathBuf;

use evening::{Evening, TOKEN, goal, new_board, table_game};
use serde_json::json;
use webdriver::{Browser, keys};

fn axe_source() -> String {
    let path = std::env::var_os("ARCADE_AXE_JS").map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/axe-core/package/axe.min.js")
        },
        PathBuf::from,
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "axe-core is missing: cannot read {} ({e}); get it with `mkdir -p target/axe-core && cd target/axe-core && npm pack axe-core@4 && tar xzf axe-core-*.tgz` (as .ci/run does), or set ARCADE_AXE_JS",
            path.display()
        )
    })
}

/// Opens `path` and waits until its page is drawn (and, for a live page, its stream open).
fn open(browser: &Browser, console: &str, path: &str) {
    browser.open(&format!("http://{console}{path}"));
    browser.wait_for(
        "document.getElementById('page').childElementCount > 0 && (document.body.dataset.stream === 'manual' || document.body.dataset.live === 'open')",
        &format!("{path} drawn and live"),
    );
}

/// The serious and critical violations axe-core finds on the page, one line each.
fn axe(browser: &Browser, source: &str) -> Vec<String> {
    if browser.eval("return typeof axe", json!([])) != "object" {
        browser.eval(source, json!([]));
    }
    let found = browser.eval_async(
        "const done = arguments[arguments.length - 1];
         axe.run(document, { resultTypes: ['violations'] }).then(r => done(r.violations
           .filter(v => v.impact === 'serious' || v.impact === 'critical')
           .map(v => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.map(n => n.target.join(' ')).join(', '))))
           .catch(e => done(['axe failed: ' + e]));",
        json!([]),
    );
    found
        .as_array()
        .unwrap_or_else(|| panic!("axe answered {found}"))
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect()
}

/// What a page shows wrong beyond axe: overflow, and each page's own promise.
fn layout(browser: &Browser, name: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    let wide = browser.eval(
        "return [document.documentElement.scrollWidth, window.innerWidth]",
        json!([]),
    );
    if wide[0].as_u64() > wide[1].as_u64() {
        wrong.push(format!("{} px wide in a {} px window", wide[0], wide[1]));
    }
    match name {
        "bingo-card" => {
            let small = browser.eval(
                "const cells = [...document.querySelectorAll('#grid .cell')].filter(c => /^[0-9]+$/.test(c.textContent));
                 return cells.length ? cells.filter(c =>
                   parseFloat(getComputedStyle(c.firstChild).fontSize) < 0.4 * c.getBoundingClientRect().height).length : 'no number'",
                json!([]),
            );
            if small != 0 {
                wrong.push(format!(
                    "{small} cells with numbers under 40 % of the cell's height"
                ));
            }
        }
        "race-duel" => {
            for id in ["first", "prev", "next", "last"] {
                let text = browser.text(&format!("#{id}"));
                if !text.chars().any(char::is_alphabetic) || text.contains(['⏮', '⏭']) {
                    wrong.push(format!("#{id} reads {text:?}: not a word"));
                }
            }
        }
        "puzzle" => {
            let overlaps = browser.eval(
                "const out = [];
                 for (const svg of document.querySelectorAll('svg.chart')) {
                   const boxes = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
                   boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([b, q]) => {
                     if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom)
                       out.push(svg.id + ': ' + a + ' / ' + b);
                   }));
                 }
                 return out",
                json!([]),
            );
            if overlaps.as_array().is_some_and(|o| !o.is_empty()) || overlaps.is_null() {
                wrong.push(format!("chart labels on top of each other: {overlaps}"));
            }
        }
        "bingo-print-none" => {
            let page = browser.text("#page");
            if browser.eval(
                "return document.querySelectorAll('.message.error').length",
                json!([]),
            ) != 0
                || !page.contains("No printed batch yet")
            {
                wrong.push(format!("the page without a batch reads {page:?}"));
            }
        }
        _ => {}
    }
    wrong
}

#[test]
fn every_console_page_passes_axe_and_fits_phones_and_tvs() {
    let data = tempfile::tempdir().unwrap();
    // The browser first: without one, the test is skipped before the evening is played.
    let Some(probe) = Browser::start(390, 844) else {
        return;
    };
    drop(probe);
    let source = axe_source();
    let evening = Evening::new(data.path());
    let mut wrong = Vec::new();
    // Both themes: the light one (a device that prefers it) on the narrowest phone, the dark
    // one (the default, the TV's) at 390 and 1920 px.
    for (width, height, light) in [(320, 640, true), (390, 844, false), (1920, 1080, false)] {
        let browser = Browser::start(width, height).expect("the browser started above");
        let theme = if light { "light" } else { "dark" };
        if light {
            browser.prefer_light();
        }
        // The operator's token in the tab: the pages show their actions too.
        open(&browser, &evening.console, "/");
        browser.eval(
            "sessionStorage.setItem('arcade.operator-token', arguments[0])",
            json!([TOKEN]),
        );
        for (name, path) in &evening.pages {
            eprintln!("{path} at {width} px, {theme}");
            open(&browser, &evening.console, path);
            if name == "race-team" {
                browser.type_into("#team-token", &evening.team.1);
                browser.click("#team-token-submit");
                browser.wait_for(
                    "document.querySelectorAll('#log li').length > 0",
                    "the team's log",
                );
            }
            if name == "bingo-print" {
                browser.wait_for(
                    "document.querySelectorAll('#sheet .sheet-card').length === 2",
                    "the sheet",
                );
            }
            if name == "race-duel" {
                browser.click("#next");
            }
            for problem in axe(&browser, &source)
                .into_iter()
                .chain(layout(&browser, name))
            {
                wrong.push(format!("{path} at {width} px, {theme}: {problem}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} problems:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Presses Tab until the element `id` has the focus (at most `max` times).
fn tab_to(browser: &Browser, id: &str, max: usize) {
    for _ in 0..max {
        if browser.focused() == id {
            return;
        }
        browser.press(keys::TAB);
    }
    assert_eq!(browser.focused(), id, "not reached with {max} Tab presses");
}

#[test]
fn a_puzzle_move_and_a_goal_with_the_keyboard_alone() {
    let data = tempfile::tempdir().unwrap();
    let Some(browser) = Browser::start(390, 844) else {
        return;
    };
    let (_run, console, _admin) = evening::start(data.path());

    // A new board from the form: Tab to the start button, Enter.
    open(&browser, &console, "/puzzle/play");
    tab_to(&browser, "start", 30);
    browser.press(keys::ENTER);
    browser.wait_for("document.getElementById('board') !== null", "the new board");
    // Into the board: one Tab stop, arrows move within it, Space pulses.
    tab_to(&browser, "cell-0-0", 30);
    browser.press(keys::RIGHT);
    browser.press(keys::DOWN);
    assert_eq!(
        browser.focused(),
        "cell-1-1",
        "the arrows move across the grid"
    );
    browser.wait_for("document.body.dataset.live === 'open'", "the board live");
    let target = browser
        .eval(
            "const c = [...document.querySelectorAll('.strata-cell')].find(c => c.getAttribute('aria-disabled') !== 'true'); return c.id",
            json!([]),
        )
        .as_str()
        .unwrap()
        .to_string();
    // Walk to the first playable cell with the arrows, then pulse it with Space.
    let (x, y) = {
        let mut parts = target.trim_start_matches("cell-").split('-');
        let x: usize = parts.next().unwrap().parse().unwrap();
        let y: usize = parts.next().unwrap().parse().unwrap();
        (x, y)
    };
    for _ in 0..5 {
        browser.press(keys::LEFT);
        browser.press(keys::UP);
    }
    for _ in 0..x {
        browser.press(keys::RIGHT);
    }
    for _ in 0..y {
        browser.press(keys::DOWN);
    }
    assert_eq!(browser.focused(), target);
    browser.press(keys::SPACE);
    browser.wait_for(
        "document.getElementById('turns').textContent === '1'",
        "the pulse played",
    );
    assert_eq!(
        browser.focused(),
        target,
        "the focus stays on the cell pulsed"
    );
    browser.press(keys::ENTER);
    browser.wait_for(
        "document.getElementById('turns').textContent === '2'",
        "a second pulse with Enter",
    );

    // A goal on the table page: log in by typing, then Tab to the goal button and press it.
    table_game(&console);
    open(&browser, &console, "/tables/t1");
    tab_to(&browser, "login-token", 30);
    browser.type_keys(TOKEN);
    browser.press(keys::ENTER);
    browser.wait_for("document.body.classList.contains('operator')", "logged in");
    tab_to(&browser, "goal-hinge", 60);
    browser.press(keys::SPACE);
    browser.wait_for(
        "document.getElementById('goal-message').textContent.includes('sent')",
        "the goal sent",
    );
    evening::view_when(&console, "/tables/t1", "the goal counted", |v| {
        v["table"]["game"]["score"]["hinge"] == 1
    });
}

#[test]
fn focus_and_scroll_survive_ten_live_updates() {
    let data = tempfile::tempdir().unwrap();
    let Some(browser) = Browser::start(390, 600) else {
        return;
    };
    let (_run, console, _admin) = evening::start(data.path());
    table_game(&console);
    open(&browser, &console, "/tables/t1");
    browser.type_into("#login-token", TOKEN);
    browser.click("#login-submit");
    browser.wait_for("document.body.classList.contains('operator')", "logged in");
    // A name half typed in the goal form, scrolled down to it.
    browser.eval(
        "const f = document.getElementById('goal-player'); f.scrollIntoView(); f.focus()",
        json!([]),
    );
    browser.type_keys("Zo");
    let scrolled = browser.eval("return window.scrollY", json!([]));
    let field_top = browser.eval(
        "return Math.round(document.getElementById('goal-player').getBoundingClientRect().top)",
        json!([]),
    );
    assert!(
        scrolled.as_f64().unwrap_or(0.0) > 0.0,
        "the page scrolls at 390 × 600"
    );
    let updates = |b: &Browser| {
        b.eval(
            "return Number(document.body.dataset.updates || 0)",
            json!([]),
        )
        .as_u64()
        .unwrap_or(0)
    };
    let before = updates(&browser);
    for n in 1..=10u64 {
        goal(&console, if n % 2 == 0 { "lock" } else { "hinge" }, n);
        browser.wait_for(
            &format!(
                "Number(document.body.dataset.updates || 0) >= {}",
                before + n
            ),
            "the live update drawn",
        );
    }
    assert!(updates(&browser) >= before + 10);
    assert_eq!(
        browser.focused(),
        "goal-player",
        "the focus stays in the field"
    );
    assert_eq!(
        browser.eval(
            "return document.getElementById('goal-player').value",
            json!([])
        ),
        "Zo"
    );
    // The page keeps its place: the field stays where it was on the screen (the goals listed
    // above it grew, and the scroll position followed them).
    assert_eq!(
        browser.eval(
            "return Math.round(document.getElementById('goal-player').getBoundingClientRect().top)",
            json!([])
        ),
        field_top
    );
    assert!(browser.eval("return window.scrollY", json!([])).as_f64() >= scrolled.as_f64());
    assert_eq!(browser.text("[data-score=hinge]"), "5");

    // A board followed live: the focused cell keeps the focus while pulses come in.
    let path = new_board(&console, 4_242, 4, 0);
    open(&browser, &console, &path);
    browser.eval("document.getElementById('cell-2-2').focus()", json!([]));
    let board =
        arcade_strata_relay::Puzzle::generate(4_242, arcade_strata_relay::Stage::new(4).unwrap())
            .unwrap();
    for (i, cell) in board.witness().take(3).enumerate() {
        let response = reqwest::blocking::Client::new()
            .post(format!("http://{console}{path}/pulses"))
            .json(&json!({"x": cell.x, "y": cell.y}))
            .send()
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        browser.wait_for(
            &format!(
                "document.getElementById('turns').textContent === '{}'",
                i + 1
            ),
            "the pulse drawn live",
        );
    }
    assert_eq!(browser.focused(), "cell-2-2");
}
