//! The shipped Grafana dashboard (`ops/grafana/arcade.json`) as Grafana loads it: its JSON
//! checked for what a load needs (uid, title, unique panel ids, panels on the 24-column grid,
//! each target with a unique refId and the dashboard's data source variable), and the metric
//! names its PromQL uses, from panels and template variables alike.

#![allow(dead_code)]

use std::collections::BTreeSet;

use serde_json::Value;

/// Metrics that come from RabbitMQ's own Prometheus plugin, not from an Arcade process.
pub const RABBITMQ_PREFIX: &str = "rabbitmq_";

/// PromQL words that are not metric names: operators, modifiers, and the aggregations, which
/// may come before their `by (…)` instead of their `(`.
const KEYWORDS: &[&str] = &[
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "inf",
    "nan",
    "sum",
    "avg",
    "min",
    "max",
    "count",
    "group",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
];

/// The dashboard, parsed.
pub fn load() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ops/grafana/arcade.json");
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON: {e}"))
}

/// Checks what Grafana needs to load `dashboard`; panics naming what is wrong.
pub fn check(dashboard: &Value) {
    for key in ["uid", "title"] {
        assert!(
            dashboard[key].as_str().is_some_and(|v| !v.is_empty()),
            "the dashboard has no {key}"
        );
    }
    assert!(dashboard["schemaVersion"].is_u64(), "no schemaVersion");
    let variables: BTreeSet<&str> = dashboard["templating"]["list"]
        .as_array()
        .expect("templating.list")
        .iter()
        .map(|v| v["name"].as_str().expect("a variable's name"))
        .collect();
    assert!(variables.contains("datasource"), "no datasource variable");
    let panels = dashboard["panels"].as_array().expect("panels");
    let mut ids = BTreeSet::new();
    for panel in panels {
        let title = panel["title"].as_str().expect("a panel's title");
        assert!(
            ids.insert(panel["id"].as_u64().expect("a panel's id")),
            "panel {title:?}: its id is another panel's"
        );
        assert!(
            ["timeseries", "stat", "table", "gauge", "bargauge", "text"]
                .contains(&panel["type"].as_str().unwrap_or("")),
            "panel {title:?}: unknown type {}",
            panel["type"]
        );
        let grid = &panel["gridPos"];
        let (x, w, h) = (grid["x"].as_u64(), grid["w"].as_u64(), grid["h"].as_u64());
        assert!(
            matches!((x, w, h), (Some(x), Some(w), Some(h)) if x + w <= 24 && w > 0 && h > 0)
                && grid["y"].is_u64(),
            "panel {title:?}: gridPos {grid} is off the 24-column grid"
        );
        let mut refs = BTreeSet::new();
        for target in panel["targets"].as_array().expect("targets") {
            assert!(
                refs.insert(target["refId"].as_str().expect("a refId")),
                "panel {title:?}: two targets share a refId"
            );
            assert_eq!(
                target["datasource"]["uid"], "${datasource}",
                "panel {title:?}: a target not on the data source variable"
            );
            assert!(
                target["expr"]
                    .as_str()
                    .is_some_and(|e| !e.trim().is_empty()),
                "panel {title:?}: a target with no expr"
            );
        }
    }
}

/// Every PromQL expression of `dashboard`: its targets' and its query variables'.
pub fn expressions(dashboard: &Value) -> Vec<String> {
    let mut all = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            all.push(target["expr"].as_str().unwrap().to_string());
        }
    }
    for variable in dashboard["templating"]["list"].as_array().unwrap() {
        if variable["type"] == "query" {
            let query = variable["query"].as_str().unwrap();
            // label_values(METRIC, label): the metric.
            let inner = query
                .strip_prefix("label_values(")
                .and_then(|q| q.split(',').next())
                .unwrap_or(query);
            all.push(inner.to_string());
        }
    }
    all
}

/// The metric names `expr` reads: identifiers that are not functions (followed by `(`), not
/// keywords, not inside a label matcher `{…}`, a range `[…]` or a grouping `by (…)`.
pub fn metric_names(expr: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    let mut braces = 0usize;
    let mut brackets = 0usize;
    let mut in_string = false;
    let mut grouping = false;
    let mut last_word = String::new();
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            if c == '\\' {
                i += 1;
            } else if c == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => braces += 1,
            '}' => braces = braces.saturating_sub(1),
            '[' => brackets += 1,
            ']' => brackets = brackets.saturating_sub(1),
            '(' if [
                "by",
                "without",
                "on",
                "ignoring",
                "group_left",
                "group_right",
            ]
            .contains(&last_word.as_str()) =>
            {
                grouping = true
            }
            ')' if grouping => grouping = false,
            '$' => {
                // A Grafana variable ($service, $__rate_interval): skip it.
                i += 1;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                continue;
            }
            c if c.is_ascii_alphabetic() || c == '_' || c == ':' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == ':')
                {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let next = chars[i..].iter().find(|c| !c.is_whitespace());
                let function = next == Some(&'(');
                if braces == 0
                    && brackets == 0
                    && !grouping
                    && !function
                    && !KEYWORDS.contains(&word.to_ascii_lowercase().as_str())
                {
                    names.insert(word.clone());
                }
                last_word = word;
                continue;
            }
            _ => {}
        }
        if !c.is_whitespace() {
            last_word.clear();
        }
        i += 1;
    }
    names
}

/// Every metric name the dashboard reads, RabbitMQ's plugin's included.
pub fn metrics(dashboard: &Value) -> BTreeSet<String> {
    let all: BTreeSet<String> = expressions(dashboard)
        .iter()
        .flat_map(|e| metric_names(e))
        .collect();
    assert!(!all.is_empty(), "the dashboard reads no metric");
    all
}

#[test]
fn metric_names_are_told_from_functions_labels_and_groupings() {
    let names = metric_names(
        r#"histogram_quantile(0.99, sum by (service, le) (rate(arcade_handle_duration_seconds_bucket{service=~"$service"}[$__rate_interval])))"#,
    );
    assert_eq!(
        names,
        BTreeSet::from(["arcade_handle_duration_seconds_bucket".to_string()])
    );
    let names = metric_names(
        "sum by (service) (process_open_fds / process_max_fds) and on (instance, job) arcade_build_info",
    );
    assert_eq!(
        names,
        BTreeSet::from([
            "arcade_build_info".to_string(),
            "process_max_fds".to_string(),
            "process_open_fds".to_string()
        ])
    );
    assert_eq!(
        metric_names(r#"time() - (arcade_last_commit_timestamp_seconds{service=~"a,b"} > 0)"#),
        BTreeSet::from(["arcade_last_commit_timestamp_seconds".to_string()])
    );
}
