//! Which bus a process runs on: the one place a transport is chosen and built. A [`Transport`]
//! is a setting (the embedded bus in a data directory, or RabbitMQ at a URL with its options);
//! [`Transport::open`] builds the bus and the guard that closes it ([`OpenBus`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tracing::warn;

use crate::bus::amqp::{AmqpBus, AmqpConfig, InvalidUrl};
use crate::bus::embedded::EmbeddedBus;
use crate::bus::{Bus, BusError};
use crate::store::Storage;

/// The setting that names the broker in every Arcade process, as errors name it.
pub const AMQP_SETTING: &str = "--amqp / ARCADE_AMQP_URL";

/// How long closing a RabbitMQ connection may take at the end of a process.
const CLOSE_AMQP: std::time::Duration = crate::shutdown::GRACE;

/// Where a process's messages travel.
#[derive(Debug, Clone)]
pub enum Transport {
    /// The embedded bus, stored in `DATA/bus`: one process, no broker.
    Embedded {
        /// The data directory (`--data`); the bus lives in its `bus` subdirectory.
        data_dir: PathBuf,
        /// The sled sizing (`Storage::Compact` on the edge).
        storage: Storage,
    },
    /// RabbitMQ.
    Amqp {
        /// Where and how to reach it (boxed: it is much larger than the embedded variant).
        config: Box<AmqpConfig>,
        /// Whether an unreachable broker is an error ([`Transport::open`]).
        must_connect: bool,
    },
}

/// Why a transport could not be opened. Each says where; its cause is its
/// [`source`](std::error::Error::source), said once when the chain is printed (`{:#}` of an
/// `anyhow::Error`).
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The embedded bus in the data directory did not open.
    #[error("{}: cannot open the embedded bus", data_dir.display())]
    Embedded {
        /// The data directory.
        data_dir: PathBuf,
        /// Why.
        source: BusError,
    },
    /// The broker's URL is not one the transport can use.
    #[error("{AMQP_SETTING}")]
    Url(#[from] InvalidUrl),
    /// The broker did not answer, and the process cannot do without it.
    #[error("{AMQP_SETTING}")]
    Unreachable(#[source] BusError),
}

impl Transport {
    /// The embedded bus in `data_dir/bus`, with the server's sled sizing.
    pub fn embedded(data_dir: impl Into<PathBuf>) -> Self {
        Transport::Embedded {
            data_dir: data_dir.into(),
            storage: Storage::default(),
        }
    }

    /// RabbitMQ with `config`; an unreachable broker is an error (a tool that talks to the
    /// services now).
    pub fn amqp(config: AmqpConfig) -> Self {
        Transport::Amqp {
            config: Box::new(config),
            must_connect: true,
        }
    }

    /// RabbitMQ with `config`, started even when the broker is away (a process hosting
    /// services: events wait in the logs, and the bus connects when the broker appears).
    pub fn amqp_patient(config: AmqpConfig) -> Self {
        Transport::Amqp {
            config: Box::new(config),
            must_connect: false,
        }
    }

    /// The embedded bus sized with `storage` (RabbitMQ is left as it is).
    pub fn with_storage(self, storage: Storage) -> Self {
        match self {
            Transport::Embedded { data_dir, .. } => Transport::Embedded { data_dir, storage },
            amqp @ Transport::Amqp { .. } => amqp,
        }
    }

    /// Builds the bus: opens the embedded one, or connects to RabbitMQ at once (an
    /// unreachable broker is an error only when it must connect; otherwise it is logged).
    pub async fn open(self) -> Result<OpenBus, TransportError> {
        match self {
            Transport::Embedded { data_dir, storage } => {
                match EmbeddedBus::open_with(&data_dir.join("bus"), storage) {
                    Ok(bus) => Ok(OpenBus::embedded(bus)),
                    Err(source) => Err(TransportError::Embedded { data_dir, source }),
                }
            }
            Transport::Amqp {
                config,
                must_connect,
            } => Ok(OpenBus::amqp(connect_amqp(*config, must_connect).await?)),
        }
    }
}

/// The RabbitMQ bus of `config`, connecting at once: with `must_connect` an unreachable broker
/// is an error (a tool that talks to the services now); without it the bus is returned anyway
/// (the services start, events wait in their logs, and it connects when the broker appears).
pub async fn connect_amqp(
    config: AmqpConfig,
    must_connect: bool,
) -> Result<AmqpBus, TransportError> {
    let bus = AmqpBus::new(config)?;
    if let Err(e) = bus.connect_now().await {
        if must_connect {
            return Err(TransportError::Unreachable(e));
        }
        warn!(error = %e, "RabbitMQ not reachable yet; services run and connect when it appears");
    }
    Ok(bus)
}

/// An open bus and what closes it at the end of the process.
#[derive(Clone)]
pub struct OpenBus {
    bus: Arc<dyn Bus>,
    guard: Guard,
}

#[derive(Clone)]
enum Guard {
    Embedded(EmbeddedBus),
    Amqp(AmqpBus),
}

impl std::fmt::Debug for OpenBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenBus")
            .field("bus", &self.bus.name())
            .finish_non_exhaustive()
    }
}

impl OpenBus {
    /// An embedded bus opened elsewhere (a test's).
    pub fn embedded(bus: EmbeddedBus) -> Self {
        OpenBus {
            bus: Arc::new(bus.clone()),
            guard: Guard::Embedded(bus),
        }
    }

    /// A RabbitMQ bus built elsewhere.
    pub fn amqp(bus: AmqpBus) -> Self {
        OpenBus {
            bus: Arc::new(bus.clone()),
            guard: Guard::Amqp(bus),
        }
    }

    /// The bus.
    pub fn bus(&self) -> Arc<dyn Bus> {
        self.bus.clone()
    }

    /// Whether it is the embedded bus (only this process publishes there).
    pub fn is_embedded(&self) -> bool {
        matches!(self.guard, Guard::Embedded(_))
    }

    /// The RabbitMQ bus, when it is one (its broker user, its history stream).
    pub fn as_amqp(&self) -> Option<&AmqpBus> {
        match &self.guard {
            Guard::Amqp(bus) => Some(bus),
            Guard::Embedded(_) => None,
        }
    }

    /// Closes it: the embedded bus writes what was acked and flushes its store; a RabbitMQ
    /// connection is closed within [`crate::shutdown::GRACE`] (what it does not finish by
    /// then, the broker sees as a dropped connection).
    pub async fn close(self) -> Result<(), BusError> {
        match self.guard {
            Guard::Embedded(bus) => bus.close().await,
            Guard::Amqp(bus) => {
                let _ = tokio::time::timeout(CLOSE_AMQP, bus.close()).await;
                Ok(())
            }
        }
    }
}

/// Creates the data directory and checks that it is writable; the error names the setting.
pub fn prepare_data_dir(dir: &Path) -> Result<(), DataDirError> {
    std::fs::create_dir_all(dir).map_err(|source| DataDirError::Create {
        dir: dir.to_path_buf(),
        source,
    })?;
    let probe = dir.join(".arcade-write-test");
    std::fs::write(&probe, b"")
        .and_then(|()| std::fs::remove_file(&probe))
        .map_err(|source| DataDirError::NotWritable {
            dir: dir.to_path_buf(),
            source,
        })
}

/// A data directory a process cannot use.
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    /// It does not exist and cannot be created.
    #[error("--data / ARCADE_DATA_DIR {}: cannot create it: {source}", dir.display())]
    Create {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Nothing can be written in it.
    #[error("--data / ARCADE_DATA_DIR {}: not writable: {source}", dir.display())]
    NotWritable {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain of `error` as `{:#}` prints it, after checking that no error repeats its
    /// cause in its own text.
    fn chain(error: &(dyn std::error::Error + 'static)) -> String {
        let mut said = vec![error.to_string()];
        let mut current = error;
        while let Some(cause) = current.source() {
            assert!(
                !current.to_string().contains(&cause.to_string()),
                "{current} repeats its cause {cause}"
            );
            said.push(cause.to_string());
            current = cause;
        }
        said.join(": ")
    }

    #[tokio::test]
    async fn an_unreachable_broker_or_a_bad_url_says_its_cause_once() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("amqp://guest:secret@127.0.0.1:{port}/%2f");
        let error = connect_amqp(AmqpConfig::new(url), true).await.unwrap_err();
        assert!(matches!(error, TransportError::Unreachable(_)), "{error:?}");
        let text = chain(&error);
        assert!(
            text.starts_with(&format!(
                "{AMQP_SETTING}: broker unavailable: amqp://guest:***@127.0.0.1:{port}"
            )),
            "{text}"
        );
        assert_eq!(text.matches("broker unavailable").count(), 1, "{text}");

        let error = connect_amqp(AmqpConfig::new("http://broker"), true)
            .await
            .unwrap_err();
        let text = chain(&error);
        assert!(text.starts_with(&format!("{AMQP_SETTING}: ")), "{text}");
        assert_eq!(text.matches(AMQP_SETTING).count(), 1, "{text}");
    }
}
