//! A whole game refereed from the table's own sensors with the terminal display on and no
//! broker, then delivered in order to a RabbitMQ that appears later: the referee's broker
//! address leads nowhere while the game is played (connection refused), then a forwarder to the
//! real broker starts listening there. Every score and the winner appear on the display, the
//! locks follow the rules. Reads `ARCADE_AMQP_URL`; skipped without it unless
//! `ARCADE_REQUIRE_BROKER=1`.
//!
//! [`OfflineTable`] holds what a check may look at after the game (the simulated table's locks,
//! the display's screen, the referee, its runtime).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arcade_contracts::Envelope;
use arcade_referee::display::{DisplayOptions, DisplayPlan, DisplayStats};
use arcade_referee::service::{self, Input, RefereeService};
use arcade_referee::settings::parse_balls;
use arcade_referee::table::{Ball, GoalSensors, SharedTable, SimulatedTable, TerminalDisplay};
use arcade_referee::{IbrLock, Side};
use arcade_runtime::bus::amqp::{AmqpBus, AmqpConfig};
use arcade_runtime::bus::{Bus, Consumer, SubscriptionSpec};
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{HostHandle, Runtime};
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};

const POLL: Duration = Duration::from_millis(5);
const PATIENCE: Duration = Duration::from_secs(60);
/// The source's worked example on the bar rules: 4–3, 4–4, tie-break at 5–4, 6–4 wins it.
const BAR_GAME: &str = "hinge,lock,hinge,lock,hinge,lock,hinge,lock:inout,hinge,hinge";
/// started, 5 lock changes, 10 goals, 1 phase change, finished.
const GAME_EVENTS: u64 = 18;
/// What the display shows after each ball of [`BAR_GAME`], in order.
const SHOWN: [&str; 10] = [
    "1-0",
    "1-1",
    "2-1",
    "2-2",
    "3-2",
    "3-3",
    "4-3",
    "4-4",
    "TIE-BREAK 5-4",
    "HINGE WINS 6-4",
];

/// The terminal display's output, shared with the test.
#[derive(Clone, Default)]
struct Screen(Arc<Mutex<String>>);

impl Screen {
    /// The texts shown so far, in order (the `scoreboard: "TEXT"` lines).
    fn texts(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .lines()
            .filter_map(|line| line.strip_prefix("scoreboard: \""))
            .filter_map(|rest| rest.split_once('"').map(|(text, _)| text.to_string()))
            .collect()
    }
}

impl Write for Screen {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap()
            .push_str(&String::from_utf8_lossy(bytes));
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The table's goal sensors, as a player drops balls: each ball once the display shows the
/// score before it (a display redrawn only for the newest score would skip one otherwise).
struct Sensors {
    balls: VecDeque<Ball>,
    screen: Screen,
    /// What the display shows before each ball.
    before: VecDeque<&'static str>,
}

impl GoalSensors for Sensors {
    type Error = Infallible;
    fn poll_ball(&mut self) -> Result<Option<Ball>, Infallible> {
        let ready = self
            .before
            .front()
            .is_some_and(|text| self.screen.texts().last().map(String::as_str) == Some(*text));
        if !ready {
            return Ok(None);
        }
        self.before.pop_front();
        Ok(self.balls.pop_front())
    }
}

fn broker_url() -> Option<String> {
    match std::env::var("ARCADE_AMQP_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
                "ARCADE_REQUIRE_BROKER=1 but ARCADE_AMQP_URL is unset"
            );
            eprintln!("skipped: ARCADE_AMQP_URL unset");
            None
        }
    }
}

/// `url` with its host and port replaced by `127.0.0.1:port`, and the host:port it named.
fn redirected(url: &str, port: u16) -> (String, String) {
    let (scheme_user, rest) = url
        .rsplit_once('@')
        .expect("amqp://user:pass@host:port/vhost");
    let (authority, vhost) = rest.split_once('/').unwrap_or((rest, ""));
    (
        format!("{scheme_user}@127.0.0.1:{port}/{vhost}"),
        authority.to_string(),
    )
}

/// A port nothing listens on (yet).
async fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

/// The broker "starting": forwards every connection on `port` to `upstream`.
async fn forward(port: u16, upstream: String) {
    let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            tokio::spawn(async move {
                if let Ok(mut server) = TcpStream::connect(&upstream).await {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
}

type Table = SharedTable<SimulatedTable>;

/// A simulated table refereed from its own sensors, and what the checks look at.
struct OfflineTable {
    table_id: String,
    table: Table,
    screen: Screen,
    runtime: Runtime,
    referee: HostHandle<RefereeService<Table>>,
}

impl OfflineTable {
    /// Starts the referee on `bus` with `balls` in the table's sensors, and a game on the
    /// bar rules through the referee's local input (no broker needed).
    async fn play(bus: Arc<dyn Bus>, dir: &std::path::Path, balls: &str) -> OfflineTable {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let table_id = format!("offline-{nanos:x}");
        let table = SharedTable::new(SimulatedTable::scripted([]));
        let screen = Screen::default();
        let mut before: VecDeque<&'static str> = SHOWN.into_iter().collect();
        before.push_front("0-0");
        let sensors = Sensors {
            balls: parse_balls(balls).unwrap().into(),
            screen: screen.clone(),
            before,
        };
        let display = DisplayPlan::new(
            TerminalDisplay::new(screen.clone(), 32),
            DisplayOptions {
                scroll: Duration::from_millis(70),
                idle: Some("READY".into()),
                hold: Duration::from_secs(30),
            },
            DisplayStats::default(),
        );
        let runtime = arcade_runtime::testkit::runtime(bus, dir);
        let referee =
            service::start(&runtime, &table_id, table.clone(), sensors, POLL, display).unwrap();
        let rules: serde_json::Value =
            serde_json::from_str(include_str!("../examples/bar.rules.json")).unwrap();
        let start: arcade_contracts::table::TableGameStart = serde_json::from_value(json!({
            "tableId": table_id, "gameId": format!("{table_id}-g1"), "rules": rules,
            "players": {"hinge": ["alice"], "lock": ["bob"]}
        }))
        .unwrap();
        referee.local().send(Input::from(start)).await.unwrap();
        OfflineTable {
            table_id,
            table,
            screen,
            runtime,
            referee,
        }
    }

    /// The referee's log, in order.
    fn log(&self) -> Vec<Envelope> {
        self.referee
            .store()
            .read_from(1, GAME_EVENTS as usize)
            .unwrap()
            .into_iter()
            .map(|(_, record)| record.envelope)
            .collect()
    }

    /// Every lock write the decisions in the log call for, in order (hinge then lock).
    fn decided_locks(&self) -> Vec<(Side, IbrLock)> {
        let lock = |name: &serde_json::Value| match name.as_str() {
            Some("locked") => IbrLock::Locked,
            Some("released") => IbrLock::Released,
            other => panic!("a lock state: {other:?}"),
        };
        self.log()
            .iter()
            .filter(|e| e.message_type == "table.ibr.changed.v1")
            .flat_map(|e| {
                [
                    (Side::Hinge, lock(&e.payload["hinge"])),
                    (Side::Lock, lock(&e.payload["lock"])),
                ]
            })
            .collect()
    }
}

async fn next(consumer: &mut Box<dyn Consumer>) -> Envelope {
    let delivery = tokio::time::timeout(PATIENCE, consumer.next())
        .await
        .expect("an event within the patience")
        .unwrap();
    let envelope = lossy_envelope(&delivery.message);
    delivery.ack().await.unwrap();
    envelope
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_from_the_tables_own_sensors_with_no_broker_reaches_a_rabbitmq_started_later() {
    let Some(url) = broker_url() else { return };
    let port = free_port().await;
    let (offline_url, upstream) = redirected(&url, port);
    let mut config = AmqpConfig::new(offline_url);
    config.backoff = (Duration::from_millis(50), Duration::from_millis(500));
    let bus = Arc::new(AmqpBus::new(config).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let game = OfflineTable::play(bus.clone(), dir.path(), BAR_GAME).await;

    // The whole game, with no broker: refereed, logged, the locks set.
    tokio::time::timeout(PATIENCE, game.referee.wait_for_events(GAME_EVENTS))
        .await
        .expect("the whole game refereed with no broker");
    let log = game.log();
    assert_eq!(log[0].message_type, "table.game.started.v1");
    let finished = &log[GAME_EVENTS as usize - 1];
    assert_eq!(finished.message_type, "table.game.finished.v1");
    assert_eq!(finished.payload["winner"], "hinge");
    assert_eq!(finished.payload["score"], json!({"hinge": 6, "lock": 4}));
    // The display showed the idle text, then every score and the winner, in order.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while game.screen.texts().last().map(String::as_str) != Some("HINGE WINS 6-4") {
        assert!(tokio::time::Instant::now() < deadline, "the winner shown");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut expected = vec!["READY", "0-0"];
    expected.extend(SHOWN);
    assert_eq!(game.screen.texts(), expected);
    // The locks follow the rules: every decision written, in order, once it was durable.
    let decided = game.decided_locks();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while game.table.lock().writes().len() < decided.len() {
        assert!(tokio::time::Instant::now() < deadline, "the locks written");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(game.table.lock().writes(), decided.as_slice());
    assert_eq!(game.table.lock().lock(Side::Hinge), Some(IbrLock::Locked));
    assert_eq!(game.table.lock().lock(Side::Lock), Some(IbrLock::Locked));
    let queue = format!("referee.{}", game.table_id);
    assert_eq!(game.runtime.metrics().snapshot()[&queue].published, 0);

    // The broker appears: a watcher bound first, then the referee's address leads to it.
    let watcher = AmqpBus::new(AmqpConfig::new(url.clone())).unwrap();
    let mut watch = watcher
        .subscribe(&SubscriptionSpec::temporary(
            format!("watch.{}", game.table_id),
            vec!["table.#".into()],
        ))
        .await
        .unwrap();
    forward(port, upstream).await;
    let mut delivered = Vec::new();
    while delivered.len() < GAME_EVENTS as usize {
        let envelope = next(&mut watch).await;
        if envelope.payload["tableId"] == game.table_id.as_str() {
            delivered.push(envelope.message_id);
        }
    }
    let logged: Vec<String> = log.into_iter().map(|e| e.message_id).collect();
    assert_eq!(delivered, logged, "every event, in log order");
    game.referee.stop(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        game.runtime.metrics().snapshot()[&queue].published,
        GAME_EVENTS
    );
    watcher.close().await;
    bus.close().await;
}
