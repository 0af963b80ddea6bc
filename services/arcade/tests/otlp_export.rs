//! The `arcade` binary's OpenTelemetry export as an operator configures it, each run against
//! a real OTLP receiver in the test: `arcade demo` exports its spans without `RUST_LOG`, under
//! `OTEL_SERVICE_NAME`, over `http/protobuf` and over `grpc`; empty `OTEL_*` values (as
//! docker-compose passes them) are unset: no export, and no export error; with
//! `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none` or `OTEL_TRACES_SAMPLER=always_off` a
//! demo pointed at a receiver exports nothing.

#[path = "support/otlp.rs"]
mod otlp;

use std::process::{Command, Output};
use std::time::Duration;

fn demo(envs: &[(&str, &str)]) -> Output {
    let data = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command
        .arg("demo")
        .arg("--data")
        .arg(data.path())
        .env_remove("RUST_LOG")
        .env_remove("OTEL_SERVICE_NAME")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .env_remove("OTEL_SDK_DISABLED")
        .env_remove("OTEL_TRACES_EXPORTER")
        .env_remove("OTEL_TRACES_SAMPLER")
        .env_remove("OTEL_TRACES_SAMPLER_ARG");
    for (key, value) in envs {
        command.env(key, value);
    }
    let output = command.output().expect("arcade demo runs");
    assert!(
        output.status.success(),
        "arcade demo failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The spans a demo run exported, once it has exited (it flushes at exit).
async fn exported(
    receiver: &otlp::Receiver,
    envs: Vec<(&'static str, String)>,
) -> Vec<otlp::Received> {
    let endpoint = receiver.endpoint();
    tokio::task::spawn_blocking(move || {
        let mut all: Vec<(&str, &str)> = envs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        all.push(("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint));
        demo(&all);
    })
    .await
    .unwrap();
    receiver
        .spans
        .wait_until(Duration::from_secs(10), |spans| !spans.is_empty())
        .await
}

fn assert_a_demo_trace(spans: &[otlp::Received], service_name: &str) {
    assert!(!spans.is_empty(), "no span exported");
    for span in spans {
        assert_eq!(span.service_name, service_name, "{}", span.name());
    }
    let names: std::collections::BTreeSet<&str> = spans.iter().map(|s| s.name()).collect();
    for expected in [
        "process table.game.start.v1",
        "publish arcade.events",
        "process table.goal.scored.v1",
        "process bingo.game.open.v1",
    ] {
        assert!(
            names.contains(expected),
            "no {expected:?} span among {names:?}"
        );
    }
    // The demo also sends a goal itself (its own producer span); the referee's goals come
    // through its relay.
    let bingo_goals: Vec<&otlp::Received> = spans
        .iter()
        .filter(|s| {
            s.name() == "process table.goal.scored.v1"
                && s.attribute("arcade.service").as_deref() == Some("bingo")
        })
        .collect();
    assert!(
        bingo_goals
            .iter()
            .any(|goal| spans.iter().any(|p| p.span_id() == goal.parent_id()
                && p.name() == "publish arcade.events"
                && p.attribute("arcade.service").as_deref() == Some("referee.demo-table"))),
        "bingo's span of a referee's goal is the child of the referee's producer span"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_exports_over_http_protobuf_under_otel_service_name_without_rust_log() {
    let receiver = otlp::http().await;
    let spans = exported(
        &receiver,
        vec![("OTEL_SERVICE_NAME", "arcade-under-test".to_string())],
    )
    .await;
    assert_a_demo_trace(&spans, "arcade-under-test");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_exports_over_grpc() {
    let receiver = otlp::grpc().await;
    let spans = exported(
        &receiver,
        vec![("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc".to_string())],
    )
    .await;
    assert_a_demo_trace(&spans, "arcade");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_sdk_no_exporter_or_an_always_off_sampler_exports_nothing() {
    for off in [
        ("OTEL_SDK_DISABLED", "true"),
        ("OTEL_TRACES_EXPORTER", "none"),
        ("OTEL_TRACES_SAMPLER", "always_off"),
    ] {
        let receiver = otlp::http().await;
        let endpoint = receiver.endpoint();
        tokio::task::spawn_blocking(move || {
            demo(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint), off]);
        })
        .await
        .unwrap();
        // The demo flushes what it exports before it exits: it has all arrived by now.
        assert_eq!(
            receiver.spans.requests(),
            0,
            "{off:?}: something was exported"
        );
        assert!(receiver.spans.all().is_empty(), "{off:?}");
    }
}

#[test]
fn empty_otel_values_are_unset_and_give_no_export_error() {
    let output = demo(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", ""),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", ""),
        ("OTEL_SERVICE_NAME", ""),
        ("RUST_LOG", "info"),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("service started"),
        "the logs are on (RUST_LOG=info): {stderr}"
    );
    for line in stderr.lines() {
        assert!(
            !line.contains("ExportError") && !line.contains("ERROR"),
            "an error with empty OTEL_* values: {line}"
        );
    }
}

#[test]
fn an_unsupported_protocol_is_refused_naming_the_setting() {
    let output = Command::new(env!("CARGO_BIN_EXE_arcade"))
        .args(["types"])
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("OTEL_EXPORTER_OTLP_PROTOCOL"), "{stderr}");
}
