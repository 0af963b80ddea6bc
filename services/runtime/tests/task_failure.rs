//! A host whose task dies (its decider panics) is reported as what happened: the task failed,
//! with the panic's message, not a log entry that does not replay.

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Envelope;
use arcade_runtime::HostError;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::decider::{
    Context, Decided, Decider, Decoded, MappingError, Outbound, Service, ServiceSpec,
};
use arcade_runtime::testkit::{self, Emit, EmitterState, ItemEmitted};

/// Numbers items like the testkit's emitter, and panics on the producer `boom`.
#[derive(Debug, Clone)]
struct Fragile;

impl Decider for Fragile {
    type State = EmitterState;
    type Input = Emit;
    type Event = ItemEmitted;
    type Rejection = String;

    fn decide(&self, state: &EmitterState, input: &Emit, _: &Context) -> Decided<Self> {
        assert!(input.producer != "boom", "the decider broke on boom");
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

impl Service for Fragile {
    fn spec(&self) -> ServiceSpec {
        ServiceSpec::new("fragile", "fragile", Vec::new())
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
        arcade_runtime::decider::payload_of(envelope)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_host_task_is_reported_as_a_failed_task() {
    let dir = tempfile::tempdir().unwrap();
    let bus = Arc::new(EmbeddedBus::open(&dir.path().join("bus")).unwrap());
    let runtime = testkit::runtime(bus, dir.path());
    let fragile = runtime.start(Fragile).unwrap();
    let local = fragile.local();
    local
        .send(Emit {
            producer: "fine".into(),
            note: String::new(),
        })
        .await
        .unwrap();
    fragile.wait_for_events(1).await;
    // The host task panics on this one; once it has, its input channel is closed.
    let _ = local
        .send(Emit {
            producer: "boom".into(),
            note: String::new(),
        })
        .await;
    let died = async {
        loop {
            let sent = local
                .send(Emit {
                    producer: "fine".into(),
                    note: String::new(),
                })
                .await;
            if sent.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), died)
        .await
        .expect("the host task dies on boom");
    let error = tokio::time::timeout(
        Duration::from_secs(60),
        fragile.stop(Duration::from_secs(5)),
    )
    .await
    .expect("stop returns")
    .expect_err("the host task panicked");
    assert!(
        matches!(&error, HostError::Task { service, reason }
            if service == "fragile" && reason.contains("panic")),
        "{error:?}"
    );
    let shown = error.to_string();
    assert!(
        shown.contains("fragile: its task failed") && !shown.contains("replay"),
        "{shown}"
    );
}
