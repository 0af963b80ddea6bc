//! What every Arcade service stands on.
//!
//! Layout:
//! - [`decider`]: the shape of a service — `decide`/`evolve` and the [`Service`] shell.
//! - [`store`]: the service's sled database — event log, inbox, cursors.
//! - [`host`]: runs a service: receive, dedupe, decide, commit, flush, ack; replay at start.
//! - [`relay`]: publishes the durable log in order, advancing a cursor after each confirm.
//! - [`bus`]: the transport trait, topic patterns and the [`bus::embedded`] transport.
//! - [`inbound`]: the boundary — decoding and schema validation, reasons for dead letters.
//! - [`signing`]: signed producers — verifying Symfony Messenger's `Body-Sign` HMAC.
//! - [`mapping`]: between contract messages and a service's domain: [`mapping!`] declares
//!   it once per service; [`MappingError`] names what does not map.
//! - [`runtime`]: a process's shared parts; starts services; sends validated messages.
//! - [`app`]: a process's lifecycle — the transport setting, hosting services and servers,
//!   running until a shutdown future, stopping in order.
//! - [`shutdown`]: the one stop signal every long-running task listens to; bounded waits.
//! - [`telemetry`], [`counters`], [`clock`], [`backoff`], [`wire`], [`duration`] (settings).
//! - [`metrics`] (Prometheus text), [`health`] (readiness), `http` (their routes; feature
//!   `http`); `guard` (feature `http`): the one guard of every HTTP surface (hosts, bearer
//!   tokens, per-client limits, security headers); [`parts`]: what is not a service but shows there (a table's sensors).

pub mod app;
pub mod backoff;
pub mod bus;
mod chunk;
pub mod clock;
pub mod counters;
pub mod dead_letter;
pub mod dead_origin;
pub mod decider;
pub mod duration;
#[cfg(feature = "http")]
pub mod guard;
pub mod health;
pub mod host;
#[cfg(feature = "http")]
pub mod http;
pub mod inbound;
pub mod mapping;
pub mod metrics;
pub mod parts;
pub mod relay;
pub mod runtime;
pub mod shutdown;
pub mod signing;
pub mod snapshot;
pub mod store;
pub mod telemetry;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod web;
pub mod wire;

pub use app::{App, OpenBus, Transport};
pub use bus::{Bus, BusError, Delivery, Destination, Publication, Published, SubscriptionSpec};
pub use clock::Clock;
pub use decider::{Context, Decided, Decider, Decoded, Publishes, Service, ServiceSpec};
pub use host::{Host, HostConfig, HostError};
pub use mapping::{MappingError, Outbound, payload_of};
pub use runtime::{HostHandle, Running, Runtime, SendError, SendOptions};
pub use snapshot::{Codec, Snapshot, SnapshotError, SnapshotPolicy};
pub use store::{LogRecord, Storage, Store};
pub use wire::WireMessage;
