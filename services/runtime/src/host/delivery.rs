//! The path of one input through the host: a delivery is checked and decoded (or
//! dead-lettered), deduplicated against its batch and the inbox, decided on, and its events
//! recorded into the batch's commit group; local inputs join at the decision.

use std::sync::Arc;
use std::time::Instant;

use arcade_contracts::{Envelope, Route};
use tracing::{debug, error, warn};

use super::batch::Batch;
use super::{Host, HostError};
use crate::bus::{Acker, Delivery};
use crate::clock::rfc3339_ms;
use crate::counters::Counters;
use crate::dead_letter::{self, Dead};
use crate::decider::{Context, Decoded, Service};
use crate::inbound::{self, Inbound};
use crate::mapping::MappingError;
use crate::store::{LogRecord, Seen, StoreError};
use crate::telemetry;

impl<S: Service> Host<S> {
    /// The consumer span of a message: the exchange and routing key it came by follow from its
    /// type's route (topic, or a queue through the commands exchange).
    fn process_span(&self, inbound: &Inbound, queue: &str) -> tracing::Span {
        let envelope = &inbound.envelope;
        let addressed = tracing::enabled!(tracing::Level::INFO)
            && self
                .catalog
                .get(&envelope.message_type)
                .and_then(|entry| entry.route(&envelope.payload).ok())
                .is_some_and(|route| matches!(route, Route::Queue(_)));
        let (destination, routing_key) = if addressed {
            (self.messaging.commands.as_str(), queue)
        } else {
            (
                self.messaging.exchange.as_str(),
                envelope.message_type.as_str(),
            )
        };
        telemetry::process_span(&telemetry::Consumed {
            message: telemetry::Message {
                system: self.messaging.system,
                destination,
                routing_key,
                message_id: &envelope.message_id,
                correlation_id: &envelope.correlation_id,
                service: &self.spec.name,
                parent: inbound.traceparent.as_deref(),
            },
            queue,
            message_type: &envelope.message_type,
        })
    }

    pub(super) async fn on_delivery(
        &mut self,
        mut delivery: Delivery,
        batch: &mut Batch<S::Event>,
    ) -> Result<(), HostError> {
        batch.inputs += 1;
        Counters::inc(&self.counters.consumed);
        let received = self
            .counters
            .histograms
            .handle_latency
            .is_some()
            .then(Instant::now);
        let queue = std::mem::take(&mut delivery.queue);
        let routing_key = delivery.topic_routing_key.take();
        let (wire, acker) = delivery.into_parts();
        // A replay is checked as the sender it is replayed for, never as who replays it.
        let wire = match dead_letter::replayed(&wire, &self.config.replayers) {
            Ok(None) => wire,
            Ok(Some(replayed)) => Arc::new(replayed),
            Err(reason) => {
                let dead = Dead::refused(&reason, dead_letter::proven(&wire));
                return self.dead_letter(acker, dead).await;
            }
        };
        let sender = dead_letter::proven(&wire);
        if let Err(reason) = inbound::check_routing_key(&wire, routing_key.as_deref()) {
            return self
                .dead_letter(acker, Dead::refused(&reason, sender))
                .await;
        }
        // A signed message is from the producer whose keys verify it, or refused; never the
        // key in the reason.
        let signed_by = match self.config.signing.verify(&wire) {
            Ok(signed_by) => signed_by,
            Err(error) => {
                let reason = error.reason();
                return self
                    .dead_letter(acker, Dead::refused(&reason, sender))
                    .await;
            }
        };
        // Its dead letters, from here on, record the sender its signature proves.
        let signed_sender = signed_by.as_deref().map(crate::signing::signed_sender);
        let sender = signed_sender.as_deref().or(sender);
        let inbound = match inbound::decode(
            &wire,
            &self.catalog,
            self.clock.now_ms(),
            signed_by.as_deref(),
        ) {
            Ok(inbound) => inbound,
            Err(reason) => return self.dead_letter(acker, Dead::failed(&reason, sender)).await,
        };
        if self.config.require_proven_sender && inbound.envelope.sender.is_none() {
            let dead = Dead::refused(inbound::NO_PROVEN_SENDER, None);
            return self.dead_letter(acker, dead).await;
        }
        let span = self.process_span(&inbound, &queue);
        let outcome = span.in_scope(|| self.on_inbound(&inbound, batch));
        match outcome {
            Ok(()) => {
                batch.acks.push(acker);
                batch.received.extend(received);
                Ok(())
            }
            Err(Refused::Poison(reason)) => {
                self.dead_letter(acker, Dead::failed(&reason, sender)).await
            }
            Err(Refused::Denied(reason)) => {
                self.dead_letter(acker, Dead::refused(&reason, sender))
                    .await
            }
            Err(Refused::Store(e)) => Err(self.store_error(e)),
        }
    }

    fn on_inbound(
        &mut self,
        inbound: &Inbound,
        batch: &mut Batch<S::Event>,
    ) -> Result<(), Refused> {
        match self.seen(inbound, batch) {
            Seen::New => {}
            Seen::Same => {
                Counters::inc(&self.counters.deduplicated);
                debug!(message_id = %inbound.envelope.message_id, "duplicate delivery absorbed");
                return Ok(());
            }
            Seen::Different => {
                warn!(
                    message_id = %inbound.envelope.message_id,
                    sender = inbound.envelope.sender.as_deref().unwrap_or(&inbound.envelope.producer),
                    "a message id came again with another body"
                );
                return Err(Refused::Denied(inbound::ID_REUSED.to_string()));
            }
        }
        // The error names the message type and what is wrong: the dead letter's reason.
        let input = match self
            .service
            .input(&inbound.envelope)
            .map_err(|error| match error {
                MappingError::Refused { .. } => Refused::Denied(error.to_string()),
                _ => Refused::Poison(error.to_string()),
            })? {
            Decoded::Input(input) => input,
            Decoded::Ignore(why) => {
                Counters::inc(&self.counters.ignored);
                debug!(%why, "ignored");
                return Ok(());
            }
        };
        if self.service.is_repeat(&self.state, &input) {
            Counters::inc(&self.counters.deduplicated);
            debug!(message_id = %inbound.envelope.message_id, "repeat of an applied fact absorbed");
            batch
                .pending
                .add_input(inbound.key_digest, inbound.body_digest, Vec::new());
            return Ok(());
        }
        self.apply(Some(inbound), input, batch)
            .map_err(|error| Refused::Poison(error.to_string()))
    }

    /// What the batch and the inbox know of an input: new, a duplicate, or its id reused.
    fn seen(&self, inbound: &Inbound, batch: &Batch<S::Event>) -> Seen {
        match batch.pending.seen(inbound.key_digest, inbound.body_digest) {
            Seen::New => self
                .store
                .seen(inbound.key_digest, inbound.earlier, inbound.body_digest),
            known => known,
        }
    }

    pub(super) fn on_local(&mut self, input: S::Input, batch: &mut Batch<S::Event>) {
        batch.inputs += 1;
        if let Err(error) = self.apply(None, input, batch) {
            error!(service = %self.spec.name, %error, "a local input's events cannot be encoded; nothing applied");
        }
    }

    async fn dead_letter(
        &mut self,
        acker: Box<dyn Acker>,
        dead: Dead<'_>,
    ) -> Result<(), HostError> {
        let reason = dead.reason;
        let sender = dead.sender.unwrap_or("");
        warn!(service = %self.spec.name, %reason, %sender, "message dead-lettered");
        Counters::inc(&self.counters.dead_lettered);
        if let Err(error) = acker.dead_letter(dead).await {
            // The message was not moved; it stays unacked and comes back, to be refused again.
            warn!(service = %self.spec.name, %error, "could not dead-letter; it will be redelivered");
        }
        Ok(())
    }

    /// Decides on one input and adds the outcome to the batch's commit group, evolving the
    /// state at once so the next input of the batch sees it; `cause` is the message it came in,
    /// if any. Should the group's commit fail, the host stops and its state is rebuilt from the
    /// log at the next start. An event the service cannot encode refuses the whole decision:
    /// nothing is evolved or recorded.
    fn apply(
        &mut self,
        cause: Option<&Inbound>,
        input: S::Input,
        batch: &mut Batch<S::Event>,
    ) -> Result<(), MappingError> {
        let ctx = Context {
            now_ms: self.clock.now_ms(),
        };
        if self.stamp.0 != ctx.now_ms {
            self.stamp = (ctx.now_ms, rfc3339_ms(ctx.now_ms));
        }
        let events = match self.service.decide(&self.state, &input, &ctx) {
            Ok(events) => events,
            Err(rejection) => {
                Counters::inc(&self.counters.rejected);
                debug!(service = %self.spec.name, %rejection, "input refused");
                self.service.refusal(&input, &rejection)
            }
        };
        let input_flow = self.service.flow_of_input(&input);
        let traceparent = cause.and_then(|_| telemetry::current_traceparent());
        let records: Vec<LogRecord> = events
            .iter()
            .map(|event| self.record(event, cause, input_flow.as_deref(), traceparent.clone()))
            .collect::<Result<_, _>>()?;
        for (event, record) in events.iter().zip(&records) {
            S::evolve(&mut self.state, event);
            self.remember_flow(event, record);
        }
        match cause {
            Some(cause) => batch
                .pending
                .add_input(cause.key_digest, cause.body_digest, records),
            None => batch.pending.add(None, records),
        }
        batch.events.extend(events);
        Ok(())
    }

    fn record(
        &self,
        event: &S::Event,
        cause: Option<&Inbound>,
        input_flow: Option<&str>,
        traceparent: Option<String>,
    ) -> Result<LogRecord, MappingError> {
        let outbound = self.service.encode(event)?;
        let message_id = uuid::Uuid::now_v7().to_string();
        let (correlation_id, causation_id, traceparent) = match cause {
            Some(cause) => (
                cause.envelope.correlation_id.clone(),
                Some(cause.envelope.message_id.clone()),
                traceparent,
            ),
            // A local input (a sensor) continues its flow, in the flow's trace.
            None => {
                let flow = self.service.flow_of_event(event);
                match flow
                    .as_deref()
                    .or(input_flow)
                    .and_then(|f| self.flows.get(f))
                {
                    Some(flow) => (
                        flow.correlation.clone(),
                        Some(flow.last.clone()),
                        flow.traceparent.clone(),
                    ),
                    None => (message_id.clone(), None, None),
                }
            }
        };
        Ok(LogRecord {
            envelope: Envelope {
                message_id,
                message_type: outbound.message_type.to_string(),
                correlation_id,
                causation_id,
                producer: self.spec.name.clone(),
                sender: None,
                occurred_at: self.stamp.1.clone(),
                payload: outbound.payload,
            },
            queue: match outbound.route {
                Route::Topic => None,
                Route::Queue(queue) => Some(queue),
            },
            traceparent,
        })
    }
}

enum Refused {
    /// It cannot be taken (unreadable, invalid, its events unwritable).
    Poison(String),
    /// Its consumer says no to it from this sender (or its id was used for another body).
    Denied(String),
    Store(StoreError),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        Refused::Store(e)
    }
}
