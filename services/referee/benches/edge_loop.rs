//! The edge loop's latency: a ball handed out by the goal sensors → the referee's decision
//! durable in its log (`fdatasync`) → both ball-lock writes done on the I2C bus, for every
//! ball that changes the locks, over whole games of the source's bar rules. Prints p50, p99
//! and max. The store syncs on this machine's disk, optionally each `--sync-delay-ms` longer
//! (an SD card's slow `fdatasync`, injected in the store).
//!
//! Balls come as in play: each once the previous one is published (its events confirmed by the
//! bus, whose store syncs too), as seconds separate two goals; `--back-to-back` hands each ball
//! out as soon as the previous one's locks are written, so its decision may wait for the
//! previous publication's sync.
//!
//! `cargo bench -p arcade-referee --bench edge_loop -- [--games N] [--sync-delay-ms MS]
//! [--poll-ms MS] [--back-to-back]`. The time from the ball crossing the sensor to the poll that
//! hands it out (up to `--sensor-poll-ms`, 100 ms by default) comes before this loop and is not
//! in it.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arcade_referee::domain::referee::{BallSeen, StartGame};
use arcade_referee::service;
use arcade_referee::settings::parse_balls;
use arcade_referee::table::{Ball, GoalSensors, I2cAddresses, I2cBallLocks};
use arcade_referee::{Event, Input, Referee, TableState};
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::store::delay_syncs;
use arcade_runtime::{Runtime, Storage};
use embedded_hal::i2c::{ErrorType, I2c, Operation, SevenBitAddress};
use tokio::sync::mpsc;

/// The source's worked example on the bar rules: 4–3, 4–4, tie-break at 5–4, 6–4 wins it.
const BAR_GAME: &str = "hinge,lock,hinge,lock,hinge,lock,hinge,lock:inout,hinge,hinge";
const TABLE: &str = "bench";

/// Sensors the bench feeds one ball at a time; each ball's hand-out time is noted.
struct Sensors {
    balls: std::sync::mpsc::Receiver<Ball>,
    sensed: Arc<Mutex<Option<Instant>>>,
}

impl GoalSensors for Sensors {
    type Error = Infallible;
    fn poll_ball(&mut self) -> Result<Option<Ball>, Infallible> {
        let ball = self.balls.try_recv().ok();
        if ball.is_some() {
            *self.sensed.lock().unwrap() = Some(Instant::now());
        }
        Ok(ball)
    }
}

/// An I2C bus that notes when each write is done.
struct Recording(mpsc::UnboundedSender<Instant>);

impl ErrorType for Recording {
    type Error = Infallible;
}

impl I2c<SevenBitAddress> for Recording {
    fn transaction(
        &mut self,
        _address: u8,
        _operations: &mut [Operation<'_>],
    ) -> Result<(), Infallible> {
        let _ = self.0.send(Instant::now());
        Ok(())
    }
}

struct Options {
    games: usize,
    sync_delay: Duration,
    poll: Duration,
    back_to_back: bool,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        games: 50,
        sync_delay: Duration::ZERO,
        poll: Duration::from_millis(1),
        back_to_back: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            let text = args.next().ok_or(format!("{name} needs a value"))?;
            text.parse()
                .map_err(|_| format!("{name} {text:?}: not a whole number"))
        };
        match arg.as_str() {
            "--games" => options.games = value("--games")? as usize,
            "--sync-delay-ms" => {
                options.sync_delay = Duration::from_millis(value("--sync-delay-ms")?)
            }
            "--poll-ms" => options.poll = Duration::from_millis(value("--poll-ms")?.max(1)),
            "--back-to-back" => options.back_to_back = true,
            // cargo bench passes `--bench`; criterion-style filters are not used here.
            _ => {}
        }
    }
    Ok(options)
}

fn main() -> Result<(), String> {
    let options = options()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let samples = runtime.block_on(run(&options))?;
    let mut slowest = samples.clone();
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut latencies: Vec<Duration> = samples.iter().map(|s| s.0).collect();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "edge loop (ball sensed -> decision durable -> both locks written), {} lock changes in {} games, sync delay {} ms, {}: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        latencies.len(),
        options.games,
        options.sync_delay.as_millis(),
        if options.back_to_back {
            "back to back"
        } else {
            "paced as in play"
        },
        ms(at(0.50)),
        ms(at(0.99)),
        ms(at(1.0)),
    );
    let slowest: Vec<String> = slowest
        .iter()
        .take(5)
        .map(|(latency, game, ball)| format!("game {game} ball {ball}: {:.1} ms", ms(*latency)))
        .collect();
    println!("slowest: {}", slowest.join(", "));
    Ok(())
}

/// Each lock change's latency, with its game and the ball (1-based) that made it.
async fn run(options: &Options) -> Result<Vec<(Duration, usize, usize)>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    delay_syncs(dir.path(), options.sync_delay);
    let bus = EmbeddedBus::open_with(&dir.path().join("bus"), Storage::Compact)
        .map_err(|e| e.to_string())?;
    let runtime = Runtime::new(Arc::new(bus))
        .with_data_dir(dir.path())
        .with_storage(Storage::Compact);
    let (written_tx, mut written) = mpsc::unbounded_channel();
    let locks = I2cBallLocks::new(
        Recording(written_tx),
        I2cAddresses {
            hinge: 0x20,
            lock: 0x21,
        },
    )
    .map_err(|e| e.to_string())?;
    let (balls, balls_rx) = std::sync::mpsc::channel();
    let sensed = Arc::new(Mutex::new(None));
    let sensors = Sensors {
        balls: balls_rx,
        sensed: sensed.clone(),
    };
    let referee = service::start(
        &runtime,
        TABLE,
        locks,
        sensors,
        options.poll,
        arcade_referee::display::DisplayPlan::none(),
    )
    .map_err(|e| e.to_string())?;
    let counters = runtime
        .metrics()
        .service(&arcade_contracts::table::referee_queue(TABLE));
    // Until the bus has confirmed every event logged so far.
    let published = || async {
        while counters.relay_backlog() > 0 {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    };
    let rules: serde_json::Value = serde_json::from_str(include_str!("../examples/bar.rules.json"))
        .map_err(|e| e.to_string())?;
    let script = parse_balls(BAR_GAME)?;
    // The same decisions, taken by the pure referee beside the service: how many events each
    // input makes, and whether it changes the locks.
    let shadow = Referee::new(TABLE);
    let mut state = TableState::default();
    let mut decide = |input: &Input| -> Result<(u64, bool), String> {
        let events = shadow
            .decide(&state, input)
            .map_err(|e| format!("the bench's referee refused {input:?}: {e:?}"))?;
        let locks = events.iter().any(|e| matches!(e, Event::IbrChanged { .. }));
        for event in &events {
            Referee::evolve(&mut state, event);
        }
        Ok((events.len() as u64, locks))
    };
    let mut end = 0;
    let mut latencies = Vec::new();
    for game in 0..options.games {
        let game_id = format!("g{game}");
        let start: arcade_contracts::table::TableGameStart =
            serde_json::from_value(serde_json::json!({
                "tableId": TABLE, "gameId": game_id, "rules": rules
            }))
            .map_err(|e| e.to_string())?;
        let (count, locks) = decide(&Input::Start(StartGame {
            table_id: TABLE.into(),
            game_id,
            rules: rules.clone(),
            players: None,
            at_ms: 0,
        }))?;
        referee
            .local()
            .send(Input::from(start))
            .await
            .map_err(|_| "the referee stopped")?;
        end += count;
        referee.wait_for_events(end).await;
        if locks {
            written.recv().await;
            written.recv().await;
        }
        for (index, ball) in script.iter().enumerate() {
            if !options.back_to_back {
                published().await;
            }
            let (count, locks) = decide(&Input::Ball(BallSeen {
                side: ball.side,
                kind: ball.kind,
                at_ms: 0,
            }))?;
            balls.send(*ball).map_err(|_| "the sensors stopped")?;
            end += count;
            referee.wait_for_events(end).await;
            if locks {
                written.recv().await;
                let both = written.recv().await.ok_or("the locks stopped")?;
                let from = sensed.lock().unwrap().take().ok_or("no ball sensed")?;
                latencies.push((both.duration_since(from), game, index + 1));
            }
        }
    }
    referee
        .stop(Duration::from_secs(10))
        .await
        .map_err(|e| e.to_string())?;
    delay_syncs(dir.path(), Duration::ZERO);
    if latencies.is_empty() {
        return Err("no ball changed the locks".into());
    }
    Ok(latencies)
}
