//! Two small services that exercise the protocol, for the runtime's tests and benchmarks (and
//! the transports' contract tests): an **emitter** that numbers items per producer, and a
//! **tally** that consumes them and records, for every (producer, n), how many times its
//! effect was applied and whether it came in order. And [`Scenario`], the given/when/then
//! harness of every service's decider tests, and [`runtime`], the runtime every service's host
//! tests start from. Enabled by the `testkit` feature.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use arcade_contracts::{Catalog, Envelope, Message, MessageKind, MessageType};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::decider::{
    Context, Decided, Decider, Decoded, MappingError, Outbound, Service, ServiceSpec, payload_of,
};
use crate::snapshot::{Codec, Snapshot, SnapshotError};
use crate::{Bus, HostConfig, Runtime};

pub mod scenario;

pub use scenario::{Scenario, Then};

/// `test.item.emitted.v1`: the emitter's n-th item of a producer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemEmitted {
    /// Which stream.
    pub producer: String,
    /// Position in the stream, from 1.
    #[schemars(range(min = 1))]
    pub n: u64,
    /// Free bytes to make messages of a realistic size.
    #[serde(default)]
    pub note: String,
}

impl Message for ItemEmitted {
    const TYPE: &'static str = "test.item.emitted.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        ItemEmitted {
            producer: "p".into(),
            n: 1,
            note: String::new(),
        }
    }
}

/// `test.item.tallied.v1`: the tally applied an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemTallied {
    /// Which stream.
    pub producer: String,
    /// Position in the stream.
    pub n: u64,
    /// Whether it came right after the previous one of its stream.
    pub in_order: bool,
}

impl Message for ItemTallied {
    const TYPE: &'static str = "test.item.tallied.v1";
    const KIND: MessageKind = MessageKind::Event;
    fn example() -> Self {
        ItemTallied {
            producer: "p".into(),
            n: 1,
            in_order: true,
        }
    }
}

/// The catalog of the contract's types plus the test types.
pub fn catalog() -> Catalog {
    let mut types = arcade_contracts::catalog::all_types();
    types.push(MessageType::of::<ItemEmitted>());
    types.push(MessageType::of::<ItemTallied>());
    Catalog::from_types(types)
}

/// The runtime of a test: on `bus`, its services' stores under `dir`, knowing the contract's
/// types and the test types ([`catalog`]), with the default clock, batches and dedupe window.
/// A test refines it with the `with_*` methods: `.with_config(batches(16, 32))`, a clock, a
/// sender.
pub fn runtime(bus: Arc<dyn Bus>, dir: impl Into<PathBuf>) -> Runtime {
    Runtime::new(bus).with_data_dir(dir).with_catalog(catalog())
}

/// Small batches: `batch` inputs between two flushes and events per relay publication,
/// `prefetch` unacked deliveries, the rest as [`HostConfig::default`].
pub fn batches(batch: usize, prefetch: u16) -> HostConfig {
    HostConfig {
        batch,
        prefetch,
        relay_batch: batch,
        ..HostConfig::default()
    }
}

/// Emits the next item of a producer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emit {
    /// Which stream.
    pub producer: String,
    /// Padding, in bytes.
    pub note: String,
}

/// Numbers items per producer.
#[derive(Debug, Clone)]
pub struct Emitter {
    /// Its name (and queue).
    pub name: String,
}

/// Emitter state: the last n per producer.
pub type EmitterState = BTreeMap<String, u64>;

impl Decider for Emitter {
    type State = EmitterState;
    type Input = Emit;
    type Event = ItemEmitted;
    type Rejection = String;

    fn decide(&self, state: &EmitterState, input: &Emit, _: &Context) -> Decided<Self> {
        let n = state.get(&input.producer).copied().unwrap_or(0) + 1;
        Ok(vec![ItemEmitted {
            producer: input.producer.clone(),
            n,
            note: input.note.clone(),
        }])
    }

    fn evolve(state: &mut EmitterState, event: &ItemEmitted) {
        state.insert(event.producer.clone(), event.n);
    }
}

impl Service for Emitter {
    fn spec(&self) -> ServiceSpec {
        ServiceSpec::new(self.name.clone(), self.name.clone(), Vec::new())
    }

    fn input(&self, message: &Envelope) -> Result<Decoded<Emit>, MappingError> {
        Err(MappingError::unknown(
            &message.message_type,
            "an emitter",
            &[],
        ))
    }

    fn encode(&self, event: &ItemEmitted) -> Result<Outbound, MappingError> {
        Outbound::of(event)
    }

    fn decode(&self, envelope: &Envelope) -> Result<ItemEmitted, MappingError> {
        payload_of(envelope)
    }

    fn snapshots(&self) -> Option<Codec<Self::State>> {
        Some(Codec::of::<Self>())
    }
}

/// Applies items: counts every effect.
#[derive(Debug, Clone)]
pub struct Tally {
    /// Its name (and queue).
    pub name: String,
}

/// What the tally applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TallyState {
    /// Times each (producer, n) was applied: exactly once each, if the protocol holds.
    pub applied: BTreeMap<(String, u64), u32>,
    /// Last n applied per producer.
    pub last: BTreeMap<String, u64>,
    /// Items that came out of order.
    pub out_of_order: u64,
}

impl TallyState {
    /// Items applied more than once.
    pub fn applied_twice(&self) -> Vec<(String, u64)> {
        self.applied
            .iter()
            .filter(|(_, c)| **c > 1)
            .map(|(k, _)| k.clone())
            .collect()
    }
}

impl Decider for Tally {
    type State = TallyState;
    type Input = ItemEmitted;
    type Event = ItemTallied;
    type Rejection = String;

    fn decide(&self, state: &TallyState, input: &ItemEmitted, _: &Context) -> Decided<Self> {
        let last = state.last.get(&input.producer).copied().unwrap_or(0);
        Ok(vec![ItemTallied {
            producer: input.producer.clone(),
            n: input.n,
            in_order: input.n == last + 1,
        }])
    }

    fn evolve(state: &mut TallyState, event: &ItemTallied) {
        *state
            .applied
            .entry((event.producer.clone(), event.n))
            .or_default() += 1;
        if !event.in_order {
            state.out_of_order += 1;
        }
        state.last.insert(event.producer.clone(), event.n);
    }
}

impl Service for Tally {
    fn spec(&self) -> ServiceSpec {
        ServiceSpec::new(
            self.name.clone(),
            self.name.clone(),
            vec![ItemEmitted::TYPE.to_string()],
        )
    }

    fn input(&self, message: &Envelope) -> Result<Decoded<ItemEmitted>, MappingError> {
        payload_of(message).map(Decoded::Input)
    }

    fn encode(&self, event: &ItemTallied) -> Result<Outbound, MappingError> {
        Outbound::of(event)
    }

    fn decode(&self, envelope: &Envelope) -> Result<ItemTallied, MappingError> {
        payload_of(envelope)
    }

    fn snapshots(&self) -> Option<Codec<Self::State>> {
        Some(Codec::of::<Self>())
    }
}

/// The emitter's snapshot format, version 1: (producer, last n) pairs.
#[derive(Debug, Serialize, Deserialize)]
struct EmitterSnapshotV1 {
    last: Vec<(String, u64)>,
}

impl Snapshot for Emitter {
    const VERSION: u32 = 1;

    fn encode(state: &EmitterState) -> Vec<u8> {
        let snapshot = EmitterSnapshotV1 {
            last: state.iter().map(|(p, n)| (p.clone(), *n)).collect(),
        };
        postcard::to_allocvec(&snapshot).unwrap_or_default()
    }

    fn decode(bytes: &[u8]) -> Result<EmitterState, SnapshotError> {
        let snapshot: EmitterSnapshotV1 =
            postcard::from_bytes(bytes).map_err(|e| SnapshotError::Payload(e.to_string()))?;
        Ok(snapshot.last.into_iter().collect())
    }
}

/// The tally's snapshot format, version 1.
#[derive(Debug, Serialize, Deserialize)]
struct TallySnapshotV1 {
    applied: Vec<(String, u64, u32)>,
    last: Vec<(String, u64)>,
    out_of_order: u64,
}

impl Snapshot for Tally {
    const VERSION: u32 = 1;

    fn encode(state: &TallyState) -> Vec<u8> {
        let snapshot = TallySnapshotV1 {
            applied: state
                .applied
                .iter()
                .map(|((p, n), c)| (p.clone(), *n, *c))
                .collect(),
            last: state.last.iter().map(|(p, n)| (p.clone(), *n)).collect(),
            out_of_order: state.out_of_order,
        };
        postcard::to_allocvec(&snapshot).unwrap_or_default()
    }

    fn decode(bytes: &[u8]) -> Result<TallyState, SnapshotError> {
        let snapshot: TallySnapshotV1 =
            postcard::from_bytes(bytes).map_err(|e| SnapshotError::Payload(e.to_string()))?;
        Ok(TallyState {
            applied: snapshot
                .applied
                .into_iter()
                .map(|(p, n, c)| ((p, n), c))
                .collect(),
            last: snapshot.last.into_iter().collect(),
            out_of_order: snapshot.out_of_order,
        })
    }
}
