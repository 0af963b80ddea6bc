//! Every service instance the console heard from: its events counted, the last one's type and
//! when the console saw it. Pure: times are the observed events' own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::observed::Observed;
use crate::projection::ReadModel;

/// Producers kept (service instances: a referee per table and four services); beyond, new
/// ones are not shown.
pub const MAX_PRODUCERS: usize = 1_000;

/// The producers seen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Services {
    producers: BTreeMap<String, Producer>,
}

/// One producer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Producer {
    /// Its instance name (`referee.t1`, `bingo`…).
    pub producer: String,
    /// Its service (`referee`, `bingo`, `race-master`, `puzzle-telemetry`, or who else
    /// publishes on the games' topics).
    pub service: String,
    /// Events seen.
    pub events: u64,
    /// The last one's type.
    pub last_type: String,
    /// When the console saw the first and the last (ms since the epoch).
    pub first_seen_ms: u64,
    /// See `first_seen_ms`.
    pub last_seen_ms: u64,
}

impl Services {
    /// Every producer, by name.
    pub fn all(&self) -> impl Iterator<Item = &Producer> {
        self.producers.values()
    }
}

impl ReadModel for Services {
    const KEY: &'static str = "services";
    const VERSION: u32 = 1;

    fn apply(&mut self, event: &Observed) -> bool {
        if !self.producers.contains_key(&event.producer) && self.producers.len() >= MAX_PRODUCERS {
            return false;
        }
        let producer = self
            .producers
            .entry(event.producer.clone())
            .or_insert_with(|| Producer {
                producer: event.producer.clone(),
                service: event
                    .producer
                    .split('.')
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                events: 0,
                last_type: String::new(),
                first_seen_ms: event.seen_at_ms,
                last_seen_ms: event.seen_at_ms,
            });
        producer.events += 1;
        producer.last_type.clone_from(&event.message_type);
        producer.last_seen_ms = event.seen_at_ms;
        true
    }
}
