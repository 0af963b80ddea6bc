//! Prometheus metrics of a process, in the text exposition format (OpenMetrics 1.0, which
//! Prometheus scrapes natively), encoded by `prometheus-client` from the live counters at each
//! scrape. Per service (label `service`):
//!
//! - `arcade_messages_consumed_total`, `_published_total`, `_deduplicated_total`,
//!   `_dead_lettered_total`, `_refused_total`, `_ignored_total`; `arcade_events_appended_total`
//! - `arcade_handle_duration_seconds` (histogram): from the host taking a delivery to its ack,
//!   the commit covering it durable
//! - `arcade_batch_size` (histogram): inputs per committed batch
//! - `arcade_relay_backlog_messages`: log entries not yet confirmed by the bus
//! - `arcade_consumer_lag_messages` (label `queue`): messages waiting in the service's queue.
//!   On the embedded bus, those not yet acked; on RabbitMQ, the queue's ready messages as the
//!   broker last said them (a passive declare every 5 s, `bus::amqp`'s `lag` module), absent
//!   while the broker cannot be asked
//! - `arcade_inbox_keys`, `arcade_last_commit_timestamp_seconds`, `arcade_consuming` (0 or 1)
//! - `arcade_snapshot_age_seconds` and `arcade_snapshot_seq` (the last log entry it covers), for
//!   a service with a snapshot
//!
//! - a service's own counters ([`crate::counters::ExtraCounters`]), e.g. the referee's
//!   `arcade_display_write_failures_total`
//!
//! Per process, with a broker: `arcade_broker_connected` (0 or 1) and
//! `arcade_broker_reconnects_total`. Per part of the process ([`crate::parts`], label `part`):
//! `arcade_part_up` (0 or 1), `arcade_part_failures_total`, and
//! `arcade_part_events_total` (label `event` too). Per process always: the `process_*` metrics of
//! the Prometheus client conventions and `arcade_build_info{version,commit}` ([`process`]).

pub mod process;

use std::sync::atomic::Ordering;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::{Registry, Unit};

use crate::counters::Counters;
pub use crate::counters::Histograms;
use crate::runtime::Runtime;

/// The content type of [`encode`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Every metric of the process running `runtime`, as Prometheus text.
pub fn encode(runtime: &Runtime) -> Result<String, std::fmt::Error> {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Snapshot::of(runtime)));
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry)?;
    Ok(text)
}

/// What one scrape reads, taken at once.
#[derive(Debug)]
struct Snapshot {
    services: Vec<(String, std::sync::Arc<Counters>, Option<u64>)>,
    broker: Option<crate::bus::BrokerStatus>,
    parts: Vec<(String, crate::parts::PartState)>,
    now_ms: u64,
    process: process::ProcessFigures,
}

impl Snapshot {
    fn of(runtime: &Runtime) -> Self {
        let bus = runtime.bus();
        let services = runtime
            .metrics()
            .services()
            .into_iter()
            .map(|(name, counters)| {
                let lag = counters.queue.get().and_then(|q| bus.queue_depth(q));
                (name, counters, lag)
            })
            .collect();
        Snapshot {
            services,
            broker: bus.broker_status(),
            parts: runtime.parts().states(),
            now_ms: runtime.clock().now_ms(),
            process: process::ProcessFigures::read(),
        }
    }
}

type Labels = Vec<(&'static str, String)>;

/// A counter family: its name, its help, and how to read it from a service's counters.
type CounterFamily = (&'static str, &'static str, fn(&Counters) -> u64);

/// A gauge family: its name, its help, its unit, and how to read it.
type GaugeFamily = (
    &'static str,
    &'static str,
    Option<Unit>,
    fn(&Counters) -> f64,
);

/// A family of the services' own counters: its help, and each service's value.
type ExtraFamily<'a> = (&'static str, Vec<(&'a String, u64)>);

fn labels(service: &str) -> Labels {
    vec![("service", service.to_string())]
}

impl Collector for Snapshot {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let counters: [CounterFamily; 7] = [
            (
                "arcade_messages_consumed",
                "Messages taken from the bus and settled (acked or dead-lettered).",
                |c| c.consumed.load(Ordering::Relaxed),
            ),
            (
                "arcade_messages_published",
                "Events the bus confirmed.",
                |c| c.published.load(Ordering::Relaxed),
            ),
            (
                "arcade_messages_deduplicated",
                "Deliveries of a message already processed.",
                |c| c.deduplicated.load(Ordering::Relaxed),
            ),
            (
                "arcade_messages_dead_lettered",
                "Messages moved to the dead letters.",
                |c| c.dead_lettered.load(Ordering::Relaxed),
            ),
            (
                "arcade_messages_refused",
                "Inputs the domain refused.",
                |c| c.rejected.load(Ordering::Relaxed),
            ),
            (
                "arcade_messages_ignored",
                "Valid messages addressed to another instance.",
                |c| c.ignored.load(Ordering::Relaxed),
            ),
            (
                "arcade_events_appended",
                "Events appended to the service's log.",
                |c| c.appended.load(Ordering::Relaxed),
            ),
        ];
        for (name, help, value) in counters {
            let mut family = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
            for (service, c, _) in &self.services {
                ConstCounter::new(value(c)).encode(family.encode_family(&labels(service))?)?;
            }
        }
        // The services' own counters, one family per name.
        let mut extra: std::collections::BTreeMap<&str, ExtraFamily<'_>> =
            std::collections::BTreeMap::new();
        for (service, c, _) in &self.services {
            for (name, help, counter) in c.extra.all() {
                let family = extra.entry(name).or_insert_with(|| (help, Vec::new()));
                family.1.push((service, counter.load(Ordering::Relaxed)));
            }
        }
        for (name, (help, values)) in extra {
            let mut family = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
            for (service, value) in values {
                ConstCounter::new(value).encode(family.encode_family(&labels(service))?)?;
            }
        }
        let gauges: [GaugeFamily; 4] = [
            (
                "arcade_relay_backlog_messages",
                "Log entries not yet confirmed by the bus.",
                None,
                |c| c.relay_backlog() as f64,
            ),
            (
                "arcade_inbox_keys",
                "Keys in the service's inbox.",
                None,
                |c| c.inbox_keys.load(Ordering::Relaxed) as f64,
            ),
            (
                "arcade_last_commit_timestamp",
                "When the service last committed a batch (0: not since start).",
                Some(Unit::Seconds),
                |c| c.last_commit_ms.load(Ordering::Relaxed) as f64 / 1000.0,
            ),
            (
                "arcade_consuming",
                "1 while the service's queue is consumed.",
                None,
                |c| f64::from(u8::from(c.consuming.load(Ordering::Relaxed))),
            ),
        ];
        for (name, help, unit, value) in gauges {
            let mut family =
                encoder.encode_descriptor(name, help, unit.as_ref(), MetricType::Gauge)?;
            for (service, c, _) in &self.services {
                ConstGauge::new(value(c)).encode(family.encode_family(&labels(service))?)?;
            }
        }
        let mut family = encoder.encode_descriptor(
            "arcade_consumer_lag_messages",
            "Messages waiting in the service's queue: not yet acked (embedded), ready (RabbitMQ).",
            None,
            MetricType::Gauge,
        )?;
        for (service, c, lag) in &self.services {
            if let (Some(lag), Some(queue)) = (lag, c.queue.get()) {
                let mut labels = labels(service);
                labels.push(("queue", queue.clone()));
                ConstGauge::new(*lag as i64).encode(family.encode_family(&labels)?)?;
            }
        }
        let snapshotted = || {
            self.services.iter().filter_map(|(service, c, _)| {
                let taken = c.snapshot_taken_ms.load(Ordering::Relaxed);
                (taken > 0).then_some((service, c, taken))
            })
        };
        let mut family = encoder.encode_descriptor(
            "arcade_snapshot_age",
            "Time since the service's newest state snapshot was taken.",
            Some(&Unit::Seconds),
            MetricType::Gauge,
        )?;
        for (service, _, taken) in snapshotted() {
            let age = self.now_ms.saturating_sub(taken) as f64 / 1000.0;
            ConstGauge::new(age).encode(family.encode_family(&labels(service))?)?;
        }
        let mut family = encoder.encode_descriptor(
            "arcade_snapshot_seq",
            "The last log entry the service's newest state snapshot covers.",
            None,
            MetricType::Gauge,
        )?;
        for (service, c, _) in snapshotted() {
            let seq = c.snapshot_seq.load(Ordering::Relaxed) as i64;
            ConstGauge::new(seq).encode(family.encode_family(&labels(service))?)?;
        }
        let mut family = encoder.encode_descriptor(
            "arcade_handle_duration",
            "From the host taking a delivery to its ack, the commit covering it durable.",
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?;
        for (service, c, _) in &self.services {
            if let Some(histogram) = &c.histograms.handle_latency {
                histogram.encode(family.encode_family(&labels(service))?)?;
            }
        }
        let mut family = encoder.encode_descriptor(
            "arcade_batch_size",
            "Inputs per committed batch.",
            None,
            MetricType::Histogram,
        )?;
        for (service, c, _) in &self.services {
            c.histograms
                .batch_size
                .encode(family.encode_family(&labels(service))?)?;
        }
        if let Some(broker) = &self.broker {
            let family = encoder.encode_descriptor(
                "arcade_broker_connected",
                "1 while the process is connected to its broker.",
                None,
                MetricType::Gauge,
            )?;
            ConstGauge::new(i64::from(broker.connected)).encode(family)?;
            let family = encoder.encode_descriptor(
                "arcade_broker_reconnects",
                "Connections to the broker opened after the first one.",
                None,
                MetricType::Counter,
            )?;
            ConstCounter::new(broker.reconnects).encode(family)?;
        }
        self.process.encode(&mut encoder)?;
        process::encode_build_info(&mut encoder)?;
        self.encode_parts(&mut encoder)
    }
}

impl Snapshot {
    fn encode_parts(&self, encoder: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        if self.parts.is_empty() {
            return Ok(());
        }
        let part = |name: &str| vec![("part", name.to_string())];
        let mut family = encoder.encode_descriptor(
            "arcade_part_up",
            "1 while the part works (a table's goal sensors), 0 while it fails.",
            None,
            MetricType::Gauge,
        )?;
        for (name, state) in &self.parts {
            ConstGauge::new(i64::from(state.failing.is_none()))
                .encode(family.encode_family(&part(name))?)?;
        }
        let mut family = encoder.encode_descriptor(
            "arcade_part_failures",
            "Times the part went from working to failing.",
            None,
            MetricType::Counter,
        )?;
        for (name, state) in &self.parts {
            ConstCounter::new(state.failures).encode(family.encode_family(&part(name))?)?;
        }
        let mut family = encoder.encode_descriptor(
            "arcade_part_events",
            "Events the part counted (a goal sensor's balls between games).",
            None,
            MetricType::Counter,
        )?;
        for (name, state) in &self.parts {
            for (event, count) in &state.events {
                let mut labels = part(name);
                labels.push(("event", (*event).to_string()));
                ConstCounter::new(*count).encode(family.encode_family(&labels)?)?;
            }
        }
        Ok(())
    }
}
