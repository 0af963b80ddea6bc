//! The flags (with their `ARCADE_…` environment fallbacks) of the application layer's
//! settings, declared once for every binary that flattens them (feature `cli`):
//!
//! - [`DataArgs`]: `--data` — where the services' logs and the embedded bus are;
//! - [`BrokerArgs`]: `--amqp`, `--amqp-ca`, `--queue-type` — which [`Transport`];
//! - [`HostArgs`]: `--dedupe-window`, `--log-history`, `--log-archive`, `--snapshot-every`,
//!   `--snapshot-interval` — how hosted services keep their logs; `--require-proven-sender`,
//!   `--replay-principals`, `--signing-keys` — whom they believe;
//! - [`ObserveArgs`] (feature `http` too): `--metrics-addr`, `--ready-max-backlog`;
//! - [`LogArgs`]: `--log-format` — text or JSON lines on stderr.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::bus::amqp::{AmqpConfig, QueueType};
use crate::host::HostConfig;
use crate::runtime::Runtime;
use crate::snapshot::SnapshotPolicy;

use super::Transport;

/// Where a process's data is.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct DataArgs {
    /// Directory of the data: each service's log (its own sled database) and the embedded
    /// bus (in `bus`).
    #[arg(
        id = "data",
        long = "data",
        env = "ARCADE_DATA_DIR",
        default_value = "./data",
        value_name = "DIR"
    )]
    pub dir: PathBuf,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args)]
pub struct LogArgs {
    /// Log lines on stderr as `text`, or `json`: one JSON object a line, for log shippers. A
    /// line written while a traced span is current carries its `trace_id` and `span_id`.
    // Its own id: a global argument named `format` would collide with a subcommand's own
    // `--format` (`arcade bingo print --format html`).
    #[arg(
        id = "log_format",
        long = "log-format",
        env = "ARCADE_LOG_FORMAT",
        global = true,
        value_name = "text|json"
    )]
    pub format: Option<crate::telemetry::LogFormat>,
}

impl LogArgs {
    /// `config` with the format asked for, if one was.
    pub fn apply(
        &self,
        config: crate::telemetry::TelemetryConfig,
    ) -> crate::telemetry::TelemetryConfig {
        match self.format {
            Some(format) => config.with_log_format(format),
            None => config,
        }
    }
}

/// Where RabbitMQ is, if the process uses it.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct BrokerArgs {
    /// RabbitMQ URL (amqp:// or amqps://). Absent: the embedded bus (in the data directory,
    /// or that of `arcade run` through its admin endpoint). Its value (with its password) is
    /// never shown.
    #[arg(
        long = "amqp",
        env = "ARCADE_AMQP_URL",
        value_name = "URL",
        hide_env_values = true
    )]
    pub amqp: Option<String>,
    /// PEM file of the CA certificates an amqps:// broker's certificate must chain to, besides
    /// the system's roots (a broker whose certificate neither signed is refused).
    #[arg(long = "amqp-ca", env = "ARCADE_AMQP_CA", value_name = "PEM")]
    pub amqp_ca: Option<PathBuf>,
    /// Type of the durable queues declared on RabbitMQ: quorum (replicated; the default) or
    /// classic. An existing queue keeps its type: see ops/RUNBOOK.md to move one.
    #[arg(
        long = "queue-type",
        env = "ARCADE_QUEUE_TYPE",
        default_value = "quorum",
        value_name = "TYPE"
    )]
    pub queue_type: QueueType,
}

impl BrokerArgs {
    /// The RabbitMQ settings of a connection named `connection_name` (standard topology, the
    /// history stream declared with its default retention), when a URL is given.
    pub fn amqp_config(&self, connection_name: &str) -> Option<AmqpConfig> {
        let url = self.amqp.as_deref()?;
        let mut config = AmqpConfig::new(url);
        config.connection_name = connection_name.to_string();
        config.queue_type = self.queue_type;
        config.ca_file = self.amqp_ca.clone();
        Some(config)
    }

    /// The transport of a process hosting services: RabbitMQ when a URL is given (its
    /// settings from [`BrokerArgs::amqp_config`], then `configure`; started even while the
    /// broker is away), else the embedded bus in `data_dir`.
    pub fn transport(
        &self,
        data_dir: &Path,
        connection_name: &str,
        configure: impl FnOnce(&mut AmqpConfig),
    ) -> Transport {
        match self.amqp_config(connection_name) {
            Some(mut config) => {
                configure(&mut config);
                Transport::amqp_patient(config)
            }
            None => Transport::embedded(data_dir),
        }
    }
}

/// How hosted services keep their logs: deduplication and snapshots.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct HostArgs {
    /// How long each service remembers a processed message id to deduplicate redeliveries,
    /// e.g. `7d`, `12h`, `1m` (units ms, s, m, h, d). A redelivery older than this is applied
    /// again; RabbitMQ redeliveries and relay republishes come within seconds to hours.
    #[arg(
        long = "dedupe-window",
        env = "ARCADE_DEDUPE_WINDOW",
        default_value = "7d",
        value_parser = crate::store::parse_dedupe_window,
        value_name = "DURATION"
    )]
    pub dedupe_window: Duration,
    /// How much of each service's log is kept beyond what its state needs (its snapshots) and
    /// the relay has not yet published, e.g. `120d`, `36h` (units ms, s, m, h, d; `off`: the
    /// whole log is kept). Older chunks are pruned in the background: archived into
    /// --log-archive if set, else dropped.
    #[arg(
        long = "log-history",
        env = "ARCADE_LOG_HISTORY",
        default_value = "120d",
        value_parser = parse_log_history,
        value_name = "DURATION"
    )]
    pub log_history: LogHistory,
    /// Directory where the log entries retention prunes are archived first (gzip'd JSON lines,
    /// one file per pruned range, read with `arcade log --archive FILE`). Absent: they are
    /// dropped.
    #[arg(long = "log-archive", env = "ARCADE_LOG_ARCHIVE", value_name = "DIR")]
    pub log_archive: Option<PathBuf>,
    /// Snapshot a service's state after this many new log entries (0: not by count; with an
    /// interval of `off` too, no snapshots: a restart replays the whole log).
    #[arg(
        long = "snapshot-every",
        env = "ARCADE_SNAPSHOT_EVERY",
        default_value_t = 10_000,
        value_name = "N"
    )]
    pub snapshot_every: u64,
    /// Snapshot a service's state at least this often while entries come, e.g. `60s`, `5m`
    /// (units ms, s, m, h, d; `off`: not by time).
    #[arg(
        long = "snapshot-interval",
        env = "ARCADE_SNAPSHOT_INTERVAL",
        default_value = "60s",
        value_parser = crate::snapshot::parse_interval,
        value_name = "DURATION"
    )]
    pub snapshot_interval: Duration,
    /// Dead-letter every message that has no proven sender (on RabbitMQ, no `user_id` the
    /// broker validated) instead of accepting it in the anonymous scope, where its id can
    /// collide with no proven sender's. Plain producers without a broker user of their own
    /// are refused then.
    #[arg(long = "require-proven-sender", env = "ARCADE_REQUIRE_PROVEN_SENDER")]
    pub require_proven_sender: bool,
    /// The broker users whose replay of a dead letter (`arcade dead replay --amqp`) is checked
    /// as the dead letter's own sender: the operator's (with a deployment's user prefix,
    /// PREFIX-arcade-admin). A replay from anyone else is refused.
    #[arg(
        long = "replay-principals",
        env = "ARCADE_REPLAY_PRINCIPALS",
        value_delimiter = ',',
        default_value = "arcade-admin",
        value_name = "NAMES"
    )]
    pub replayers: Vec<String>,
    /// JSON file of the keys of the producers that prove themselves by a signature (Symfony
    /// Messenger's `Body-Sign`) instead of a broker user: {"producers": {"NAME": ["KEY", …]}},
    /// NAME the producer's app_id, the current key first and the previous ones while rotating.
    /// A message one of its producer's keys signed has the sender signed:NAME; a signature
    /// none verifies is dead-lettered. Read once at start; keys are never shown.
    #[arg(
        long = "signing-keys",
        env = "ARCADE_SIGNING_KEYS",
        value_name = "FILE",
        value_parser = crate::signing::parse_keys_file
    )]
    pub signing_keys: Option<crate::signing::SigningKeys>,
}

/// A `--log-history` value: the history kept, `None` for `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogHistory(pub Option<Duration>);

fn parse_log_history(text: &str) -> Result<LogHistory, String> {
    crate::store::retention::parse_history(text).map(LogHistory)
}

impl HostArgs {
    /// How the services' logs are kept.
    pub fn retention(&self) -> crate::store::retention::Retention {
        crate::store::retention::Retention {
            history: self.log_history.0,
            archive: self.log_archive.clone(),
        }
    }

    /// The snapshot policy.
    pub fn snapshots(&self) -> SnapshotPolicy {
        SnapshotPolicy::from_settings(self.snapshot_every, self.snapshot_interval)
    }

    /// `runtime` with this deduplication window and snapshot policy.
    pub fn apply(&self, runtime: Runtime) -> Runtime {
        runtime
            .with_dedupe_window(self.dedupe_window)
            .with_log_retention(self.retention())
            .with_config(HostConfig {
                snapshots: self.snapshots(),
                require_proven_sender: self.require_proven_sender,
                replayers: self.replayers.clone(),
                signing: self.signing_keys.clone().unwrap_or_default(),
                ..HostConfig::default()
            })
    }
}

/// Settings of the observability endpoint (`/health`, `/ready`, `/metrics`).
#[cfg(feature = "http")]
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ObserveArgs {
    /// Serve /health, /ready and /metrics (Prometheus; only those) on this address, e.g.
    /// 0.0.0.0:9464 for a scraper. Absent or empty: not on a listener of their own.
    #[arg(
        long = "metrics-addr",
        env = "ARCADE_METRICS_ADDR",
        value_name = "ADDR"
    )]
    pub metrics_addr: Option<crate::http::ListenAddr>,
    /// /ready answers 503 while a service's relay has this many events or more waiting to be
    /// published.
    #[arg(
        long = "ready-max-backlog",
        env = "ARCADE_READY_MAX_BACKLOG",
        default_value_t = crate::health::DEFAULT_MAX_BACKLOG,
        value_name = "EVENTS"
    )]
    pub ready_max_backlog: u64,
}

#[cfg(feature = "http")]
impl ObserveArgs {
    /// The setting that gives the address, as errors name it.
    pub const SETTING: &'static str = "--metrics-addr / ARCADE_METRICS_ADDR";

    /// The address to serve on, if one is given.
    pub fn addr(&self) -> Option<std::net::SocketAddr> {
        self.metrics_addr.and_then(|a| a.0)
    }

    /// Serves the routes on [`ObserveArgs::addr`], if set, as a server of `app`; returns the
    /// bound address.
    pub async fn serve(
        &self,
        app: &mut super::App,
    ) -> Result<Option<std::net::SocketAddr>, String> {
        match self.addr() {
            Some(addr) => app
                .serve_observability(addr, Self::SETTING, self.ready_max_backlog)
                .await
                .map(Some),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        broker: BrokerArgs,
        #[command(flatten)]
        host: HostArgs,
        #[cfg(feature = "http")]
        #[command(flatten)]
        observe: ObserveArgs,
    }

    #[test]
    fn a_url_picks_rabbitmq_and_none_the_embedded_bus() {
        let cli = Cli::try_parse_from([
            "x",
            "--amqp",
            "amqp://guest:guest@127.0.0.1:5672/%2f",
            "--queue-type",
            "classic",
        ])
        .unwrap();
        let transport = cli
            .broker
            .transport(Path::new("/tmp/d"), "x", |c| c.frame_max = Some(4096));
        match transport {
            Transport::Amqp {
                config,
                must_connect,
            } => {
                assert_eq!(config.queue_type, QueueType::Classic);
                assert_eq!(config.connection_name, "x");
                assert_eq!(config.frame_max, Some(4096));
                assert!(!must_connect);
            }
            other => panic!("not RabbitMQ: {other:?}"),
        }
        let none = BrokerArgs::default();
        assert!(matches!(
            none.transport(Path::new("/tmp/d"), "x", |_| {}),
            Transport::Embedded { data_dir, .. } if data_dir == Path::new("/tmp/d")
        ));
    }

    #[test]
    fn a_bad_value_names_its_flag() {
        for (flag, value) in [
            ("--queue-type", "fast"),
            ("--dedupe-window", "soon"),
            ("--snapshot-interval", "often"),
            ("--log-history", "forever"),
        ] {
            let error = Cli::try_parse_from(["x", flag, value])
                .unwrap_err()
                .to_string();
            assert!(error.contains(flag), "{flag}: {error}");
        }
    }

    #[test]
    fn signing_keys_come_from_a_file_and_are_never_shown() {
        let key = "0123456789abcdef-never-shown";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        std::fs::write(&path, format!(r#"{{"producers": {{"shop": ["{key}"]}}}}"#)).unwrap();
        let cli = Cli::try_parse_from(["x", "--signing-keys", path.to_str().unwrap()]).unwrap();
        let keys = cli.host.signing_keys.clone().unwrap();
        assert_eq!(keys.producers().collect::<Vec<_>>(), ["shop"]);
        assert!(!format!("{cli:?}").contains(key));
        std::fs::write(&path, format!(r#"{{"producers": {{"shop": "{key}"}}}}"#)).unwrap();
        let error = Cli::try_parse_from(["x", "--signing-keys", path.to_str().unwrap()])
            .unwrap_err()
            .to_string();
        assert!(error.contains("--signing-keys"), "{error}");
        assert!(error.contains("\"shop\""), "{error}");
        assert!(!error.contains(key), "{error}");
    }

    #[cfg(feature = "http")]
    #[test]
    fn an_empty_metrics_address_is_none_and_a_bad_one_is_named() {
        #[derive(Debug, Parser)]
        struct Run {
            #[command(flatten)]
            observe: ObserveArgs,
        }
        let run = Run::try_parse_from(["run", "--metrics-addr", ""]).unwrap();
        assert_eq!(run.observe.addr(), None);
        let run = Run::try_parse_from(["run", "--metrics-addr", "0.0.0.0:9464"]).unwrap();
        assert_eq!(run.observe.addr(), Some("0.0.0.0:9464".parse().unwrap()));
        let error = Run::try_parse_from(["run", "--metrics-addr", "nowhere"]).unwrap_err();
        assert!(error.to_string().contains("--metrics-addr"), "{error}");
        let run = Run::try_parse_from(["run"]).unwrap();
        assert_eq!(run.observe.ready_max_backlog, 10_000);
    }
}
