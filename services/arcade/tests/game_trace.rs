//! A table game as an organiser plays it, across processes, each exporting to one real OTLP
//! receiver: `arcade run` hosting the referee (a simulated table), bingo and the console, and
//! the command line. The game started with `arcade referee start` is one trace: the CLI's
//! producer span `publish arcade.commands` is its root, the admin endpoint's producer span its
//! child, then the referee's handling, the goals its sensors score, bingo's and the console's
//! handling of them. And with `--log-format json` every log line of `arcade run` is one JSON
//! object, the line written while a message is handled carrying that message's trace and span.

#[path = "support/otlp.rs"]
mod otlp;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use serde_json::{Value, json};

const TOKEN: &str = "arcade-test-operator-token";
const GOALS: usize = 5;

fn arcade(endpoint: &str, service_name: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command
        .env("ARCADE_CONSOLE_ADDR", "127.0.0.1:0")
        .env("ARCADE_ADMIN_TOKEN", TOKEN)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        .env("OTEL_SERVICE_NAME", service_name)
        .env_remove("ARCADE_AMQP_URL")
        .env_remove("RUST_LOG")
        .env_remove("ARCADE_LOG_FORMAT")
        .env_remove("OTEL_SDK_DISABLED")
        .env_remove("OTEL_TRACES_EXPORTER")
        .env_remove("OTEL_TRACES_SAMPLER")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
    command
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Every line of `arcade run`'s stderr, kept, and passed on as it comes.
fn lines(
    stream: impl std::io::Read + Send + 'static,
) -> (Arc<Mutex<Vec<String>>>, mpsc::Receiver<String>) {
    let kept = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    let keep = kept.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            keep.lock().unwrap().push(line.clone());
            let _ = tx.send(line);
        }
    });
    (kept, rx)
}

fn wait_for(lines: &mpsc::Receiver<String>, what: &str) {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no log line with {what:?} within 60 s"));
        if line.contains(what) {
            return;
        }
    }
}

fn succeeded(output: Output) -> Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn attr(span: &otlp::Received, key: &str) -> String {
    span.attribute(key)
        .unwrap_or_else(|| panic!("{} has no attribute {key}", span.name()))
}

/// The CLI's producer span of the message `id`.
fn sent_by_cli<'a>(spans: &'a [otlp::Received], id: &str) -> Option<&'a otlp::Received> {
    spans.iter().find(|s| {
        s.service_name == "arcade-cli" && s.attribute("messaging.message.id").as_deref() == Some(id)
    })
}

/// Whether the trace `trace` holds the whole game: bingo's handling of every goal and the
/// console's of the game's end.
fn whole_game(spans: &[otlp::Received], trace: &str) -> bool {
    let in_trace = || spans.iter().filter(|s| s.trace_id() == trace);
    let bingo_goals = in_trace()
        .filter(|s| {
            s.name() == "process table.goal.scored.v1"
                && s.attribute("arcade.service").as_deref() == Some("bingo")
        })
        .count();
    let console_saw_the_end = in_trace().any(|s| {
        s.name() == "process table.game.finished.v1"
            && s.attribute("arcade.service").as_deref() == Some("console")
    });
    bingo_goals >= GOALS && console_saw_the_end
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_started_from_the_cli_is_one_trace_and_json_logs_name_it() {
    let receiver = otlp::http().await;
    let endpoint = receiver.endpoint();
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let table = "trace-t1";
    let mut run = arcade(&endpoint, "arcade")
        .args(["--log-format", "json", "run", "referee", "bingo", "console"])
        .args([
            "--table",
            table,
            "--sim-balls",
            "hinge,hinge,hinge,hinge,hinge",
        ])
        .args(["--sensor-poll-ms", "20", "--admin", &admin, "--data"])
        .arg(data.path())
        .env("RUST_LOG", "info,arcade_runtime=debug")
        .env("ARCADE_BINGO_SECRET", "game-trace-test-secret-0123456789")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (logs, incoming) = lines(run.stderr.take().unwrap());
    let run = Killed(run);
    wait_for(&incoming, "arcade ready");

    let cli = |args: &[&str]| {
        let mut command = arcade(&endpoint, "arcade-cli");
        command.args(args).args(["--admin", &admin]);
        tokio::task::spawn_blocking(move || command.output().unwrap())
    };
    let pool: Vec<Value> = (1..=8)
        .map(|i| json!({"id": i, "label": format!("goal {i}"), "trigger": {"verb": "table.goal"}}))
        .collect();
    let open = data.path().join("open.json");
    std::fs::write(
        &open,
        json!({"gameId": "trace-party", "grid": {"size": 3}, "pool": pool,
               "patterns": [{"kind": "line"}],
               "activitySources": [{"messageType": "table.goal.scored.v1", "verb": "table.goal",
                                    "memberField": "/side", "objectField": "/tableId"}]})
        .to_string(),
    )
    .unwrap();
    succeeded(
        cli(&["send", "bingo.game.open.v1", open.to_str().unwrap()])
            .await
            .unwrap(),
    );
    wait_for(&incoming, "bound to the message types a game maps");

    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../referee/examples/bar.rules.json");
    let start = succeeded(
        cli(&[
            "referee",
            "start",
            "--table",
            table,
            "--game",
            "g1",
            "--rules",
            rules.to_str().unwrap(),
            "--hinge",
            "alice",
            "--lock",
            "bob",
        ])
        .await
        .unwrap(),
    );
    // `referee start` prints the referee's answer: the event its command caused.
    assert_eq!(start["type"], "table.game.started.v1", "{start}");
    let start_id = start["causation_id"].as_str().unwrap().to_string();
    let correlation = start["correlation_id"].as_str().unwrap().to_string();

    let spans = receiver
        .spans
        .wait_until(Duration::from_secs(90), |spans| {
            sent_by_cli(spans, &start_id).is_some_and(|cli| whole_game(spans, &cli.trace_id()))
        })
        .await;
    let cli_span = sent_by_cli(&spans, &start_id).expect("the CLI exported its producer span");
    let trace = cli_span.trace_id();
    assert!(
        whole_game(&spans, &trace),
        "the game's trace lacks bingo's goals or the console's end"
    );

    // The CLI's span is the root; the admin endpoint's continues it; the referee's handling
    // is the endpoint's child.
    assert_eq!(cli_span.name(), "publish arcade.commands");
    assert_eq!(cli_span.span.kind, SpanKind::Producer as i32);
    assert!(
        cli_span.parent_id().is_empty(),
        "the CLI's span is the root"
    );
    assert_eq!(
        attr(cli_span, "messaging.rabbitmq.destination.routing_key"),
        format!("referee.{table}")
    );
    let endpoint_span = spans
        .iter()
        .find(|s| s.parent_id() == cli_span.span_id())
        .expect("the admin endpoint's span is the CLI's child");
    assert_eq!(endpoint_span.service_name, "arcade");
    assert_eq!(endpoint_span.name(), "publish arcade.commands");
    assert_eq!(endpoint_span.span.kind, SpanKind::Producer as i32);
    assert_eq!(attr(endpoint_span, "messaging.message.id"), start_id);
    assert_eq!(attr(endpoint_span, "messaging.system"), "arcade.embedded");
    let handled = spans
        .iter()
        .find(|s| s.name() == "process table.game.start.v1")
        .expect("the referee's span of the start");
    assert_eq!(handled.parent_id(), endpoint_span.span_id());
    assert_eq!(
        attr(handled, "messaging.destination.name"),
        "arcade.commands"
    );

    // One game, one trace, over every process and service it went through.
    let game: Vec<&otlp::Received> = spans
        .iter()
        .filter(|s| {
            s.attribute("messaging.message.conversation_id").as_deref() == Some(&correlation)
        })
        .collect();
    let traces: BTreeSet<String> = game.iter().map(|s| s.trace_id()).collect();
    assert_eq!(
        traces,
        BTreeSet::from([trace.clone()]),
        "one game, one trace"
    );
    let services: BTreeSet<String> = spans
        .iter()
        .filter(|s| s.trace_id() == trace)
        .filter_map(|s| s.attribute("arcade.service"))
        .collect();
    for service in [
        "arcade-referee-cli".to_string(),
        format!("referee.{table}"),
        "bingo".to_string(),
        "console".to_string(),
    ] {
        assert!(
            services.contains(&service),
            "the trace has no span of {service}: {services:?}"
        );
    }

    // A command the referee refuses is logged in its handling's span: the JSON line names the
    // command's trace and that span.
    // The referee refuses it: the command says so with exit 1.
    let abort_id = uuid::Uuid::now_v7().to_string();
    let abort = cli(&[
        "referee", "abort", "--table", table, "--game", "g0", "--id", &abort_id,
    ])
    .await
    .unwrap();
    assert_eq!(
        abort.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&abort.stderr)
    );
    let spans = receiver
        .spans
        .wait_until(Duration::from_secs(60), |spans| {
            spans.iter().any(|s| {
                s.name() == "process table.game.abort.v1"
                    && s.attribute("messaging.message.id").as_deref() == Some(&abort_id)
            }) && sent_by_cli(spans, &abort_id).is_some()
        })
        .await;
    let abort_trace = sent_by_cli(&spans, &abort_id).unwrap().trace_id();
    let handling = spans
        .iter()
        .find(|s| {
            s.name() == "process table.game.abort.v1"
                && s.attribute("messaging.message.id").as_deref() == Some(&abort_id)
        })
        .expect("the referee's span of the abort");
    assert_eq!(handling.trace_id(), abort_trace);
    wait_for(&incoming, "input refused");
    drop(run);
    let logs = logs.lock().unwrap().clone();
    let objects: Vec<Value> = logs
        .iter()
        .map(|line| {
            serde_json::from_str::<Value>(line)
                .unwrap_or_else(|e| panic!("a log line is not JSON ({e}): {line}"))
        })
        .collect();
    assert!(objects.iter().all(Value::is_object));
    let refused = objects
        .iter()
        .find(|o| o["message"] == "input refused")
        .expect("the referee logged the refusal");
    assert_eq!(refused["trace_id"], abort_trace.as_str(), "{refused}");
    assert_eq!(refused["span_id"], handling.span_id().as_str(), "{refused}");
    assert!(refused["level"].is_string() && refused["timestamp"].is_string());
    let ready = objects
        .iter()
        .find(|o| {
            o["message"]
                .as_str()
                .is_some_and(|m| m.contains("arcade ready"))
        })
        .expect("the ready line");
    assert!(
        ready.get("trace_id").is_none(),
        "no trace id outside a span: {ready}"
    );
}
