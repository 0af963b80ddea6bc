//! `arcade demo`: a scripted showcase on a fresh temporary data dir. Every service adds its act
//! (a module here); the demo prints what happens and a summary, and exits by itself.

pub(crate) mod bingo;
mod race;
mod referee;

use std::process::ExitCode;
use std::time::Duration;

use arcade_contracts::Envelope;
use arcade_contracts::principal::DEFAULT_OPERATORS;
use arcade_runtime::app::{App, Ending, Transport, prepare_data_dir};
use arcade_runtime::bus::Consumer;
use arcade_runtime::bus::amqp::AmqpConfig;
use arcade_runtime::inbound::lossy_envelope;
use arcade_runtime::{Runtime, SubscriptionSpec};
use serde_json::{Value, json};

mod puzzle;

use crate::cli::DemoArgs;
use crate::hosted::{self, ServiceArgs};

/// How long the demo waits for an expected message before it gives up and says so.
const PATIENCE: Duration = Duration::from_secs(30);

/// What every act uses: the runtime, and helpers to send and to watch messages.
pub struct Demo {
    /// The runtime hosting every service.
    pub runtime: Runtime,
}

impl std::fmt::Debug for Demo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Demo").finish_non_exhaustive()
    }
}

/// A temporary subscription that collects messages for an act.
pub struct Tap {
    consumer: Box<dyn Consumer>,
}

impl std::fmt::Debug for Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tap").finish_non_exhaustive()
    }
}

impl Tap {
    /// The next message, whatever it is.
    pub async fn next(&mut self) -> anyhow::Result<Envelope> {
        let delivery = tokio::time::timeout(PATIENCE, self.consumer.next())
            .await
            .map_err(|_| anyhow::anyhow!("no message came within {PATIENCE:?}"))??;
        let envelope = lossy_envelope(&delivery.message);
        delivery.ack().await?;
        Ok(envelope)
    }

    /// Messages until one of type `message_type` satisfying `matches` comes; returns it.
    pub async fn until(
        &mut self,
        message_type: &str,
        matches: impl Fn(&Value) -> bool,
    ) -> anyhow::Result<Envelope> {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let envelope = tokio::time::timeout_at(deadline, self.next())
                .await
                .map_err(|_| anyhow::anyhow!("no {message_type} came within {PATIENCE:?}"))??;
            if envelope.message_type == message_type && matches(&envelope.payload) {
                return Ok(envelope);
            }
        }
    }
}

impl Demo {
    /// Prints a line of the story.
    pub fn say(&self, line: impl AsRef<str>) {
        println!("{}", line.as_ref());
    }

    /// Prints an act's title.
    pub fn act(&self, title: &str) {
        println!("\n== {title}");
    }

    /// Starts collecting messages whose type matches `pattern`.
    pub async fn tap(&self, pattern: &str) -> anyhow::Result<Tap> {
        let queue = format!("demo.tap.{}", uuid::Uuid::new_v4().simple());
        let consumer = self
            .runtime
            .bus()
            .subscribe(&SubscriptionSpec::temporary(queue, vec![pattern.into()]))
            .await?;
        Ok(Tap { consumer })
    }

    /// Validates and publishes a message, as `arcade send` does.
    pub async fn send(&self, message_type: &str, payload: Value) -> anyhow::Result<Envelope> {
        Ok(self
            .runtime
            .send(message_type, payload, "arcade-demo")
            .await?)
    }
}

/// The settings the demo runs the services with.
fn settings() -> ServiceArgs {
    let mut settings = ServiceArgs {
        bingo: bingo::settings(),
        ..ServiceArgs::default()
    };
    settings.puzzle.stats_every = Duration::from_millis(500);
    settings.race.race_seed = Some(race::SEED);
    referee::settings(&mut settings);
    settings
}

pub async fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let stop_signal = arcade_runtime::shutdown::signal();
    let temporary = tempfile::tempdir()?;
    let data = args.data.unwrap_or_else(|| temporary.path().to_path_buf());
    prepare_data_dir(&data)?;
    let mut settings = settings();
    let transport = match &args.amqp {
        None => Transport::embedded(&data),
        Some(url) => {
            let mut config = AmqpConfig::new(url.as_str());
            config.connection_name = "arcade demo".to_string();
            Transport::amqp(config)
        }
    };
    let bus = transport.open().await?;
    if let Some(amqp) = bus.as_amqp() {
        // The broker says who sent what: the demo's broker user is its operator.
        settings.operators = DEFAULT_OPERATORS.iter().map(|s| s.to_string()).collect();
        settings.operators.push(amqp.user().to_string());
    }
    let transport = match bus.bus().name() {
        "rabbitmq" => "RabbitMQ",
        _ => "the embedded bus",
    };
    let runtime = Runtime::new(bus.bus())
        .with_data_dir(&data)
        .with_sender(arcade_contracts::principal::OPERATOR);
    println!(
        "Arcade demo — every service in one process on {transport}; data in {}",
        data.display()
    );
    let mut app = App::new(runtime.clone(), bus);
    app.host(hosted::start(&runtime, &hosted::ServiceName::GAMES, &settings)?.running);
    if !app.subscribed(PATIENCE).await {
        anyhow::bail!("the services did not bind their queues on {transport} within {PATIENCE:?}");
    }
    println!("services: {}", app.names().join(", "));
    let demo = Demo {
        runtime: runtime.clone(),
    };
    // Ctrl-C or SIGTERM ends the demo where it stands; the services still stop cleanly.
    let script = async {
        let outcome = tokio::select! {
            outcome = acts(&demo) => outcome,
            () = stop_signal => {
                println!("\n== interrupted");
                Ok(())
            }
        };
        summary(&runtime);
        if outcome.is_ok() {
            next();
        }
        outcome
    };
    let stopped = app.run(script).await?;
    match stopped.ending {
        Ending::Shutdown(outcome) => outcome?,
        Ending::Failed(reason) => anyhow::bail!("a service stopped on an error: {reason}"),
    }
    Ok(if stopped.clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Says where to go from the demo.
fn next() {
    println!("\n== next");
    println!("arcade run        every service at once, with the console in a browser: it prints");
    println!("                  the console's address and where the organiser's token is");
    println!("arcade tap        (in another terminal) every message as it passes");
    println!("arcade --help     every command; docs/ has the tutorial and the how-tos");
}

/// Prints what each service consumed and published.
fn summary(runtime: &Runtime) {
    println!("\n== summary");
    for (service, counters) in runtime.metrics().snapshot() {
        println!(
            "{service:<24} consumed {:>6}  published {:>6}  deduplicated {:>4}  dead-lettered {:>4}  refused {:>4}",
            counters.consumed,
            counters.published,
            counters.deduplicated,
            counters.dead_lettered,
            counters.rejected
        );
    }
}

async fn acts(demo: &Demo) -> anyhow::Result<()> {
    contract(demo).await?;
    puzzle::act(demo).await?;
    bingo::act(demo).await?;
    race::act(demo).await?;
    referee::act(demo).await?;
    Ok(())
}

/// The contract at the boundary: an invalid payload is refused before anything is published.
async fn contract(demo: &Demo) -> anyhow::Result<()> {
    demo.act("contract: every payload is checked against its schema");
    let mut tap = demo.tap("game.#").await?;
    let bad =
        json!({"gameId":"demo-0","seed":7,"stage":9,"outcome":"won","turns":3,"durationMs":1000});
    match demo.send("game.session.completed.v1", bad).await {
        Ok(_) => anyhow::bail!("an invalid payload was accepted"),
        Err(e) => demo.say(format!("refused: {e}")),
    }
    let good =
        json!({"gameId":"demo-0","seed":7,"stage":2,"outcome":"won","turns":3,"durationMs":1000});
    let sent = demo.send("game.session.completed.v1", good).await?;
    let seen = tap
        .until("game.session.completed.v1", |p| p["gameId"] == "demo-0")
        .await?;
    demo.say(format!(
        "sent {} {}; a tap on 'game.#' saw it: {}",
        sent.message_type, sent.message_id, seen.message_id
    ));
    Ok(())
}
