//! The puzzle routes on a real runtime: the JSON is the live statistics, and the page, loaded
//! in a real headless browser (Chromium), draws its charts with those numbers.
//!
//! Without a browser the page test is skipped with a message, unless `ARCADE_REQUIRE_BROWSER=1`
//! (as `.ci/run` sets), where it fails. `ARCADE_BROWSER` names another Chromium-like binary.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_contracts::game::GameSessionCompleted;
use arcade_contracts::puzzle::StatsUpdated;
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::service::TelemetryService;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::{Bus, Service, SubscriptionSpec};

use super::{PuzzleArgs, parse_period, routes, start};
use crate::admin;

#[test]
fn periods_read_with_their_unit_and_refuse_without() {
    assert_eq!(parse_period("500ms"), Ok(Duration::from_millis(500)));
    assert_eq!(parse_period("5s"), Ok(Duration::from_secs(5)));
    assert_eq!(parse_period("2m"), Ok(Duration::from_secs(120)));
    assert_eq!(parse_period("1h"), Ok(Duration::from_secs(3600)));
    assert!(parse_period("5").unwrap_err().contains("no unit"));
    assert!(parse_period("5 days").unwrap_err().contains("not a unit"));
    assert!(parse_period("fast").unwrap_err().contains("not a duration"));
}

fn browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ARCADE_BROWSER") {
        return Some(PathBuf::from(path));
    }
    [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

/// The attributes of every `<name …>` tag of a serialized DOM.
fn tags(dom: &str, name: &str) -> Vec<BTreeMap<String, String>> {
    let open = format!("<{name} ");
    dom.match_indices(&open)
        .map(|(at, _)| {
            let rest = &dom[at + open.len()..];
            let end = rest.find('>').unwrap_or(rest.len());
            let mut attrs = BTreeMap::new();
            let mut text = &rest[..end];
            while let Some(eq) = text.find("=\"") {
                let key = text[..eq].trim().to_string();
                let value_start = eq + 2;
                let value_len = text[value_start..].find('"').unwrap_or(0);
                attrs.insert(
                    key,
                    text[value_start..value_start + value_len].replace("&amp;", "&"),
                );
                text = &text[value_start + value_len + 1..];
            }
            attrs
        })
        .collect()
}

/// The text of the `<text>` element with `class` and `data-stage`.
fn label(dom: &str, class: &str, stage: u8) -> String {
    let open = format!("<text class=\"{class}\" data-stage=\"{stage}\"");
    let at = dom
        .find(&open)
        .unwrap_or_else(|| panic!("no {class} label for stage {stage}"));
    let rest = &dom[at..];
    let start = rest.find('>').unwrap() + 1;
    let end = rest.find("</text>").unwrap();
    rest[start..end].to_string()
}

fn pct(value: Option<f64>) -> String {
    value.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

fn secs(ms: Option<u64>) -> String {
    ms.map_or("-".into(), |ms| format!("{:.1}s", ms as f64 / 1000.0))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_draws_the_live_statistics_in_a_real_browser() {
    let required = std::env::var("ARCADE_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    // The queue bound before the service subscribes in the background: no session is routed
    // nowhere.
    let spec = TelemetryService::new(0).spec();
    drop(
        bus.subscribe(&SubscriptionSpec::durable(spec.queue, spec.bindings))
            .await
            .unwrap(),
    );
    let runtime = arcade_runtime::testkit::runtime(bus, dir.path());
    let mut hosted = crate::hosted::Hosted::default();
    let running = start(&runtime, &PuzzleArgs::default(), &mut hosted).unwrap();
    let live = hosted
        .puzzle
        .clone()
        .expect("start hands over the live statistics");

    const SESSIONS: u64 = 400;
    let mut simulator = Simulator::new(99);
    for _ in 0..SESSIONS {
        let session = serde_json::to_value(simulator.session(None)).unwrap();
        runtime
            .send(GameSessionCompleted::TYPE, session, "test")
            .await
            .unwrap();
    }
    let forged = serde_json::json!({"gameId":"forged","seed":77,"stage":2,"outcome":"failed","turns":9,"durationMs":1000});
    runtime
        .send(GameSessionCompleted::TYPE, forged, "test")
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(60), async {
        while live.counted() < SESSIONS + 1 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("every session counted");

    let endpoint =
        admin::testing::spawn(&runtime, |state| routes(&state.runtime, Some(live.clone()))).await;
    let addr = endpoint.addr;
    let operator = endpoint.operator.clone();

    let json: StatsUpdated = endpoint
        .client(&operator)
        .get(format!("http://{addr}/puzzle/stats"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(json.sessions, SESSIONS);
    assert_eq!(json.flagged, 1);
    assert_eq!(json.stages[1].flagged, 1);
    assert!(
        json.stages.iter().all(|s| s.sessions > 0 && s.won > 0),
        "the bot plays and wins every stage: {json:?}"
    );

    let Some(browser) = browser() else {
        endpoint.stop().await;
        assert!(
            !required,
            "ARCADE_REQUIRE_BROWSER=1 but no Chromium found (install chromium or set ARCADE_BROWSER)"
        );
        eprintln!(
            "SKIPPED: no headless browser (install chromium or set ARCADE_BROWSER); the page was not checked"
        );
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let output = tokio::time::timeout(
        Duration::from_secs(90),
        tokio::process::Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("--dump-dom")
            .arg(format!("http://{addr}/puzzle?token={operator}"))
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the browser finished within 90 s")
    .unwrap_or_else(|e| panic!("cannot run {}: {e}", browser.display()));
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() && !dom.is_empty(),
        "{} failed: {}",
        browser.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    endpoint.stop().await;
    for service in running {
        service.stop_boxed(Duration::from_secs(5)).await.unwrap();
    }

    let body = &tags(&dom, "body")[0];
    assert_eq!(body["data-rendered"], "true", "the script ran");
    assert_eq!(body["data-sessions"], SESSIONS.to_string());
    let rects = tags(&dom, "rect");
    for s in &json.stages {
        let stage = s.stage.to_string();
        let of_stage = |class: &str| {
            rects
                .iter()
                .filter(|r| r["class"].ends_with(class) && r["data-stage"] == stage)
                .collect::<Vec<_>>()
        };
        // Win rate: one bar, its value and height the stage's win rate.
        let [bar] = of_stage(" win")[..] else {
            panic!("one win-rate bar for stage {stage}")
        };
        let rate = s.win_rate.unwrap();
        let drawn: f64 = bar["data-value"].parse().unwrap();
        assert!(
            (drawn - rate).abs() < 1e-12,
            "stage {stage}: {drawn} vs {rate}"
        );
        let height: f64 = bar["height"].parse().unwrap();
        assert!((height - rate * 170.0).abs() < 1e-6, "bar height {height}");
        assert_eq!(label(&dom, "value", s.stage), pct(s.win_rate));
        // Turns: one column per turn count 0..=limit, the limit's column marked.
        let mut columns: Vec<_> = rects
            .iter()
            .filter(|r| r.contains_key("data-turns") && r["data-stage"] == stage)
            .collect();
        columns.sort_by_key(|r| r["data-turns"].parse::<u32>().unwrap());
        let counts: Vec<u64> = columns
            .iter()
            .map(|r| r["data-count"].parse().unwrap())
            .collect();
        assert_eq!(counts, s.turns_histogram, "stage {stage} turns");
        assert_eq!(columns.len(), usize::from(s.move_limit) + 1);
        assert!(columns.last().unwrap()["class"].ends_with("limit"));
        // Durations: one bar per bucket with its count, and the percentiles.
        let buckets: Vec<(u64, u64, u64)> = of_stage(" duration")
            .iter()
            .map(|r| {
                (
                    r["data-from"].parse().unwrap(),
                    r["data-to"].parse().unwrap(),
                    r["data-count"].parse().unwrap(),
                )
            })
            .collect();
        let expected: Vec<(u64, u64, u64)> = s
            .duration
            .buckets
            .iter()
            .map(|b| (b.from_ms, b.to_ms, b.count))
            .collect();
        assert_eq!(buckets, expected, "stage {stage} durations");
        assert_eq!(
            label(&dom, "p50", s.stage),
            format!("p50 {}", secs(s.duration.p50_ms))
        );
        assert_eq!(
            label(&dom, "p99", s.stage),
            format!("p99 {}", secs(s.duration.p99_ms))
        );
    }
}
