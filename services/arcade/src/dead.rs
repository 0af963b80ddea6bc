//! `arcade dead list|show|replay`: the dead letters, on RabbitMQ (`--amqp`, the operator's
//! user: nobody else may read them) or in the embedded bus under `--data`: opened directly
//! when no process holds it, else asked of the `arcade run` using it, through its admin
//! endpoint (`--admin`, the operator's token from `--token` or DATA/admin-token). One JSON line
//! per dead letter. Replay validates each message again (type, schema) and sends it to the
//! queue it was taken from, as its recorded sender (never as the operator: the service checks it
//! as that sender again), and skips one its service refused; each replay is recorded and `show`
//! prints the records. On RabbitMQ it replays only a dead letter whose `user_id` (vouched
//! for by the broker) is the operator's or that of the service consuming the queue it names
//! ([`check_dead_letter_origin`](arcade_runtime::dead_origin::check_dead_letter_origin)), so
//! one planted by anyone else, a service included, is never delivered. `list` and `show` mark
//! such a dead letter (`"refusal"`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use arcade_runtime::Bus;
use arcade_runtime::app::args::BrokerArgs;
use clap::{Args, Subcommand};
use serde_json::Value;

use crate::client::segment;
use crate::connection::{AdminArg, tool_bus};
use crate::exit::Failure;

pub mod letters;
pub mod records;
#[cfg(test)]
mod replay_amqp_tests;
#[cfg(test)]
mod replay_tests;

use letters::Replayed;
use records::Replayer;

/// `arcade dead`.
#[derive(Debug, Subcommand)]
pub enum DeadCommand {
    /// One JSON line per dead letter: id, type, reason, queue, sender.
    List(DeadArgs),
    /// The dead letter with this message id, whole (headers and payload).
    Show(ShowArgs),
    /// Validate the dead letters again and send each back to its queue (all, or `--id`).
    Replay(ReplayArgs),
}

/// Where the dead letters are.
#[derive(Debug, Args)]
pub struct DeadArgs {
    /// The broker (as the operator's user: nobody else may read the dead letters). Absent:
    /// the embedded bus under --data.
    #[command(flatten)]
    pub broker: BrokerArgs,
    /// Where the data is.
    #[command(flatten)]
    pub data: arcade_runtime::app::args::DataArgs,
    /// The admin endpoint of the `arcade run` using --data, asked when that process holds the
    /// embedded bus.
    #[command(flatten)]
    pub endpoint: AdminArg,
    /// The operator's token for that endpoint; absent: the one in DATA/admin-token. Its value
    /// is never shown.
    #[arg(
        long = "token",
        env = "ARCADE_ADMIN_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
    /// The deployment's broker user prefix (`render-definitions.py --user-prefix`): a dead
    /// letter is trusted when its `user_id` is PREFIX + `arcade-admin`, or PREFIX + the service
    /// consuming its origin queue. RabbitMQ only.
    #[arg(long = "user-prefix", default_value = "", value_name = "PREFIX")]
    pub user_prefix: String,
}

/// `arcade dead show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The dead letter's message id.
    #[arg(value_name = "ID")]
    pub id: String,
    #[command(flatten)]
    pub source: DeadArgs,
}

/// `arcade dead replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Replay only the dead letter with this message id.
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    #[command(flatten)]
    pub source: DeadArgs,
}

/// Where the dead letters are read: a bus this command opened, or the admin endpoint of the
/// process holding the embedded bus.
enum Source {
    Bus {
        bus: Arc<dyn Bus>,
        /// The user prefix on RabbitMQ; `None` on the embedded bus.
        trust: Option<String>,
        /// Who replays, for the replay records.
        replayer: Replayer,
    },
    Endpoint(Endpoint),
}

/// The admin endpoint of the running `arcade run`, and why the bus could not be opened here.
struct Endpoint {
    addr: SocketAddr,
    client: reqwest::Client,
    /// Why the embedded bus could not be opened by this command.
    held: String,
}

impl Endpoint {
    /// Sends `request`; its JSON answer and status, or the error saying what cannot be done.
    async fn ask(&self, request: reqwest::RequestBuilder) -> anyhow::Result<(u16, Value)> {
        let response = request.send().await.map_err(|e| {
            Failure::undelivered(format_args!(
                "cannot read the dead letters: {}, and no `arcade run` admin endpoint answers at {} ({e}); pass --admin ADDR of the `arcade run` using it, or stop that process and run this again",
                self.held, self.addr
            ))
        })?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or_default();
        if status.is_success() || status == reqwest::StatusCode::NOT_FOUND {
            return Ok((status.as_u16(), body));
        }
        let why = body["error"].as_str().unwrap_or("refused");
        Err(Failure {
            code: crate::exit::for_status(status),
            message: format!(
                "{}: the admin endpoint at {} answered {status}: {why}",
                self.held, self.addr
            ),
        }
        .into())
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// The dead letters' source: RabbitMQ with `--amqp`; else the embedded bus under `--data`,
/// or, when another process holds it, that process's admin endpoint.
async fn open(source: &DeadArgs) -> anyhow::Result<Source> {
    if let Some(bus) = tool_bus(&source.broker, "arcade dead").await? {
        let replayer = Replayer {
            by: bus.user().to_string(),
            via: "RabbitMQ",
        };
        return Ok(Source::Bus {
            bus: Arc::new(bus),
            trust: Some(source.user_prefix.clone()),
            replayer,
        });
    }
    let dir = source.data.dir.join("bus");
    if !dir.exists() {
        return Err(Failure::invalid(format_args!(
            "{}: no embedded bus here (pass --data DIR of `arcade run`, or --amqp URL)",
            dir.display()
        )));
    }
    match arcade_runtime::bus::embedded::EmbeddedBus::open(&dir) {
        Ok(bus) => Ok(Source::Bus {
            bus: Arc::new(bus),
            trust: None,
            replayer: Replayer {
                by: arcade_contracts::principal::OPERATOR.into(),
                via: "data dir",
            },
        }),
        Err(e) => {
            let token = source.token.clone().or_else(|| {
                std::fs::read_to_string(source.data.dir.join(crate::auth::TOKEN_FILE))
                    .ok()
                    .map(|t| t.trim().to_string())
            });
            Ok(Source::Endpoint(Endpoint {
                addr: source.endpoint.admin,
                client: crate::auth::http_client(token.as_deref()),
                held: format!("the embedded bus cannot be opened here ({e})"),
            }))
        }
    }
}

fn print_lines(lines: &[Value]) {
    for line in lines {
        println!("{line}");
    }
}

pub async fn run(command: DeadCommand) -> anyhow::Result<ExitCode> {
    match command {
        DeadCommand::List(source) => {
            let lines = match open(&source).await? {
                Source::Bus { bus, trust, .. } => {
                    letters::list(bus.as_ref(), trust.as_deref()).await?
                }
                Source::Endpoint(endpoint) => {
                    let (_, body) = endpoint
                        .ask(endpoint.client.get(endpoint.url("/dead")))
                        .await?;
                    serde_json::from_value(body["letters"].clone())?
                }
            };
            print_lines(&lines);
            Ok(ExitCode::SUCCESS)
        }
        DeadCommand::Show(args) => {
            let found = match open(&args.source).await? {
                Source::Bus { bus, trust, .. } => {
                    letters::show(bus.as_ref(), trust.as_deref(), &args.id).await?
                }
                Source::Endpoint(endpoint) => {
                    let url = endpoint.url(&format!("/dead/{}", segment(&args.id)));
                    match endpoint.ask(endpoint.client.get(url)).await? {
                        (404, _) => None,
                        (_, body) => Some(body),
                    }
                }
            };
            match found {
                Some(line) => {
                    println!("{line}");
                    Ok(ExitCode::SUCCESS)
                }
                None => Ok(crate::exit::print(
                    crate::exit::REFUSED,
                    format_args!("no dead letter has the message id {:?}", args.id),
                )),
            }
        }
        DeadCommand::Replay(args) => {
            let done: Replayed = match open(&args.source).await? {
                Source::Bus {
                    bus,
                    trust,
                    replayer,
                } => {
                    letters::replay(
                        bus.as_ref(),
                        trust.as_deref(),
                        args.id.as_deref(),
                        &replayer,
                    )
                    .await?
                }
                Source::Endpoint(endpoint) => {
                    let mut request = endpoint.client.post(endpoint.url("/dead/replay"));
                    if let Some(id) = &args.id {
                        request = request.query(&[("id", id)]);
                    }
                    serde_json::from_value(endpoint.ask(request).await?.1)?
                }
            };
            print_lines(&done.lines);
            if let Some(error) = done.error {
                anyhow::bail!(error);
            }
            Ok(if done.refused == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::letters::{refusal, summary};
    use arcade_contracts::Catalog;
    use arcade_runtime::WireMessage;
    use arcade_runtime::dead_letter::{Dead, Transport, dead_letter_of};
    use arcade_runtime::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON};

    /// A dead letter of format 2 taken from `from`, written to the dead letters by `sender`.
    fn dead(sender: Option<&str>, body: &[u8]) -> WireMessage {
        let message = WireMessage {
            message_type: Some("game.session.completed.v1".into()),
            message_id: Some("m-1".into()),
            user_id: sender.map(Into::into),
            body: body.to_vec(),
            ..WireMessage::default()
        };
        dead_letter_of(
            &message,
            "puzzle-telemetry",
            Dead::failed("bingo: store busy", Some("strata-relay")),
        )
    }

    /// The same, as dead-lettered before dead letters recorded their sender (format 1).
    fn old(sender: Option<&str>, body: &[u8]) -> WireMessage {
        let mut message = WireMessage {
            message_type: Some("game.session.completed.v1".into()),
            message_id: Some("m-1".into()),
            user_id: sender.map(Into::into),
            body: body.to_vec(),
            ..WireMessage::default()
        };
        message
            .headers
            .insert(HEADER_DEAD_REASON.into(), "bingo: store busy".into());
        message
            .headers
            .insert(HEADER_DEAD_QUEUE.into(), "puzzle-telemetry".into());
        message
    }

    const GOOD: &[u8] =
        br#"{"gameId":"g","seed":1,"stage":2,"outcome":"won","turns":3,"durationMs":10}"#;

    #[test]
    fn only_arcade_s_own_valid_dead_letters_are_replayed() {
        let catalog = Catalog::new();
        let ok = |m: &WireMessage| refusal(m, &catalog, Some(""));
        assert_eq!(ok(&dead(Some("puzzle-telemetry"), GOOD)), None);
        assert_eq!(ok(&dead(Some("arcade-admin"), GOOD)), None);
        let planted = ok(&dead(Some("race-team-red"), GOOD)).unwrap();
        assert!(planted.contains("not dead-lettered by Arcade"), "{planted}");
        // The fake dead letter of a service user, who may write the dead letters (it
        // dead-letters): its forged reason names a queue it does not consume.
        let forged = ok(&dead(Some("bingo"), GOOD)).unwrap();
        assert!(forged.contains("not dead-lettered by Arcade"), "{forged}");
        assert!(
            forged.contains("\"bingo\""),
            "the sender is named: {forged}"
        );
        let mut table = dead(Some("referee-t1"), GOOD);
        table
            .headers
            .insert(HEADER_DEAD_QUEUE.into(), "referee.t2".into());
        assert!(ok(&table).is_some(), "a table's referee for another table");
        assert!(ok(&dead(None, GOOD)).is_some(), "no sender, no trust");
        let still_poison = ok(&dead(Some("puzzle-telemetry"), b"{\"gameId\":")).unwrap();
        assert!(still_poison.contains("not JSON"), "{still_poison}");
        let mut nowhere = dead(Some("puzzle-telemetry"), GOOD);
        nowhere.headers.remove(HEADER_DEAD_QUEUE);
        assert!(ok(&nowhere).unwrap().contains("no origin queue"));
        // A deployment with a user prefix trusts its prefixed principals only.
        let prefixed = |m: &WireMessage| refusal(m, &catalog, Some("p1-"));
        assert_eq!(prefixed(&dead(Some("p1-puzzle-telemetry"), GOOD)), None);
        assert!(prefixed(&dead(Some("puzzle-telemetry"), GOOD)).is_some());
        // The embedded bus's store is written by the process alone: no sender check.
        assert_eq!(refusal(&dead(None, GOOD), &catalog, None), None);
        let mut nowhere = dead(None, GOOD);
        nowhere.headers.remove(HEADER_DEAD_QUEUE);
        assert!(
            refusal(&nowhere, &catalog, None)
                .unwrap()
                .contains("no origin queue")
        );
        let line = summary(&dead(Some("bingo"), GOOD), Transport::Broker);
        assert_eq!(line["reason"], "bingo: store busy");
        assert_eq!(line["queue"], "puzzle-telemetry");
        assert_eq!(line["sender"], "strata-relay", "who sent it");
        assert_eq!(line["userId"], "bingo", "who dead-lettered it");
        assert_eq!(line["kind"], "failed");
        assert_eq!(line["format"], 2);
    }

    #[test]
    fn an_old_dead_letter_is_replayed_only_where_its_sender_is_known() {
        let catalog = Catalog::new();
        // On RabbitMQ its user_id is the consumer that dead-lettered it: who sent it is
        // unknown, and it is not replayed (as the operator or anyone).
        let unknown = refusal(&old(Some("puzzle-telemetry"), GOOD), &catalog, Some("")).unwrap();
        assert!(unknown.contains("its sender is unknown"), "{unknown}");
        let line = summary(&old(Some("puzzle-telemetry"), GOOD), Transport::Broker);
        assert_eq!(line["sender"], serde_json::Value::Null);
        assert_eq!(line["format"], 1);
        // The embedded bus kept the message as sent: its user_id is its sender.
        assert_eq!(
            refusal(&old(Some("strata-relay"), GOOD), &catalog, None),
            None
        );
        let line = summary(&old(Some("strata-relay"), GOOD), Transport::Embedded);
        assert_eq!(line["sender"], "strata-relay");
        // A refusal of either format is not replayed.
        let mut refused = old(Some("race-team-red"), GOOD);
        refused.headers.insert(
            HEADER_DEAD_REASON.into(),
            "race.budget.grant.v1 is refused: sender race-team-red is not an operator".into(),
        );
        let why = refusal(&refused, &catalog, None).unwrap();
        assert!(
            why.contains("cannot turn the refusal into an acceptance"),
            "{why}"
        );
    }
}
