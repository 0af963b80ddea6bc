//! Publishing: persistent messages on one channel in confirm mode, each publication awaited to
//! its last confirm; commands mandatory, and one the broker returns kept as an `unroutable` dead
//! letter.

use std::sync::Arc;
use std::time::Duration;

use lapin::Channel;
use lapin::options::{BasicPublishOptions, ConfirmSelectOptions};

use super::{AmqpBus, properties, short, unavailable};
use crate::bus::dead_letter_of;
use crate::bus::{BusError, Confirms, Destination, Publication, Published};
use crate::dead_letter::Dead;
use crate::wire::WireMessage;

pub(super) struct Publisher {
    channel: Channel,
    generation: u64,
    /// Held by the confirms of every publication started on this channel.
    token: Arc<()>,
}

impl AmqpBus {
    /// Publishes on the confirm channel (frames handed to the connection, in order) and
    /// returns the wait for their confirms, so the relay can publish its next batch meanwhile.
    pub(super) async fn publish_batch(
        &self,
        messages: &[Publication],
    ) -> Result<Confirms, BusError> {
        if messages.is_empty() {
            return Ok(Box::pin(std::future::ready(Ok(Published::default()))));
        }
        // Publish in order under the channel lock (so concurrent callers keep their own order),
        // then await every confirm outside it.
        let confirms = {
            let mut slot = self.inner.publisher.lock().await;
            let publisher = self.publisher(&mut slot).await?;
            let token = publisher.token.clone();
            let channel = publisher.channel.clone();
            // lapin's `basic_publish` registers the confirm and hands the frames to the
            // connection on its first poll, then waits for the I/O thread to have written them.
            // Awaited one by one, that is a round trip to the I/O thread (a wakeup each way, a
            // socket write) per message; so each is polled once, in order, which queues every
            // frame in order, and only then are the writes awaited: one wakeup and a few writes
            // for the whole batch. Should one fail, the publication fails as a whole even if
            // later messages went out: the relay publishes them again and consumers deduplicate.
            let mut handed = Vec::with_capacity(messages.len());
            for publication in messages {
                let mut publish = Box::pin(self.basic_publish(&channel, publication));
                let first = futures::poll!(publish.as_mut());
                handed.push((first, publish));
            }
            let mut confirms = Vec::with_capacity(messages.len());
            for (first, publish) in handed {
                let published = match first {
                    std::task::Poll::Ready(published) => published,
                    std::task::Poll::Pending => publish.await,
                };
                match published {
                    Ok(confirm) => confirms.push(confirm),
                    Err(e) => {
                        *slot = None;
                        return Err(unavailable("publish", e));
                    }
                }
            }
            (confirms, token)
        };
        let (confirms, token) = confirms;
        // One message not confirmed fails the whole publication (all are published again).
        let bus = self.clone();
        // Only a command (mandatory) can come back: keep a copy of those alone, not of every
        // event (a copy is its body and about ten strings).
        let returnable: Vec<Option<(String, WireMessage)>> = messages
            .iter()
            .map(|p| match &p.destination {
                Destination::Queue(queue) => Some((queue.clone(), p.message.clone())),
                Destination::Topic => None,
            })
            .collect();
        Ok(Box::pin(async move {
            let _token = token;
            let mut published = Published::default();
            for (position, confirm) in confirms.into_iter().enumerate() {
                if bus.confirmed(confirm).await?.is_none() {
                    continue;
                }
                // Returned (`basic.return`, then acked): its queue does not exist. Keep it as a
                // dead letter, confirmed there, before the publication counts as done.
                let Some((queue, message)) = &returnable[position] else {
                    continue;
                };
                let dead = dead_letter_of(
                    message,
                    queue,
                    Dead::unroutable(message, Some(bus.inner.user.as_str())),
                );
                let exchange = bus.inner.config.dead_letters.clone();
                bus.publish_confirmed(&exchange, dead.routing_key(), &dead)
                    .await?;
                published.unroutable.push(position);
            }
            Ok(published)
        }))
    }

    /// The properties `message` is published with: its own, and the connection's user as
    /// `user_id` (whatever the message said: the broker accepts no other).
    fn properties(&self, message: &WireMessage) -> lapin::BasicProperties {
        properties::to_properties(message).with_user_id(self.inner.user.clone())
    }

    /// Publishes `publication` on `channel`: an event on the events exchange under its type, a
    /// command (mandatory: the broker returns it when its queue does not exist) on the
    /// commands exchange under its queue's name.
    fn basic_publish<'a>(
        &self,
        channel: &'a Channel,
        publication: &'a Publication,
    ) -> impl std::future::Future<Output = lapin::Result<lapin::PublisherConfirm>> + 'a {
        let message = &publication.message;
        let (exchange, routing_key) = match &publication.destination {
            Destination::Topic => (
                self.inner.config.events_exchange.as_str(),
                message.routing_key(),
            ),
            Destination::Queue(queue) => {
                (self.inner.config.commands_exchange.as_str(), queue.as_str())
            }
        };
        let mandatory = matches!(publication.destination, Destination::Queue(_));
        channel.basic_publish(
            short(exchange),
            short(routing_key),
            BasicPublishOptions {
                mandatory,
                ..BasicPublishOptions::default()
            },
            &message.body,
            self.properties(message),
        )
    }

    /// The publishing channel (in confirm mode) of the current connection.
    async fn publisher<'a>(
        &self,
        slot: &'a mut Option<Publisher>,
    ) -> Result<&'a mut Publisher, BusError> {
        let (connection, generation) = self.connection().await?;
        let usable = slot
            .as_ref()
            .is_some_and(|p| p.generation == generation && p.channel.status().connected());
        if !usable {
            *slot = None;
            // Publications started on the lost channel may yet fail, to be published again by
            // their callers; until they are settled, a new channel would let later ones
            // overtake them.
            let latest = self.inner.latest.lock().map(|w| w.upgrade().is_some());
            if latest.unwrap_or(false) {
                return Err(BusError::Unavailable(
                    "publications of the lost channel are not settled yet".into(),
                ));
            }
            let channel = connection
                .create_channel()
                .await
                .map_err(|e| unavailable("cannot open a channel", e))?;
            channel
                .confirm_select(ConfirmSelectOptions::default())
                .await
                .map_err(|e| unavailable("cannot enable publisher confirms", e))?;
            let token = Arc::new(());
            if let Ok(mut latest) = self.inner.latest.lock() {
                *latest = Arc::downgrade(&token);
            }
            *slot = Some(Publisher {
                channel,
                generation,
                token,
            });
        }
        slot.as_mut().ok_or(BusError::Closed)
    }

    /// Publishes one message on the publishing channel and awaits its confirm.
    pub(super) async fn publish_confirmed(
        &self,
        exchange: &str,
        routing_key: &str,
        message: &WireMessage,
    ) -> Result<(), BusError> {
        let confirm = {
            let mut slot = self.inner.publisher.lock().await;
            let publisher = self.publisher(&mut slot).await?;
            publisher
                .channel
                .basic_publish(
                    short(exchange),
                    short(routing_key),
                    BasicPublishOptions::default(),
                    &message.body,
                    self.properties(message),
                )
                .await
                .map_err(|e| unavailable("publish", e))?
        };
        self.confirmed(confirm).await.map(|_| ())
    }

    /// Awaits a publisher confirm; `Some` when the broker returned the (mandatory) message
    /// before acking it. A confirm that never comes (a channel hung rather than closed) is a
    /// lost channel: it is thrown away and the message counts as not sent.
    async fn confirmed(
        &self,
        confirm: lapin::PublisherConfirm,
    ) -> Result<Option<lapin::message::BasicReturnMessage>, BusError> {
        match tokio::time::timeout(CONFIRM_TIMEOUT, confirm).await {
            Ok(confirmation) => settle(confirmation),
            Err(_) => {
                *self.inner.publisher.lock().await = None;
                Err(BusError::Unavailable(format!(
                    "no publisher confirm within {} s; the channel is dropped",
                    CONFIRM_TIMEOUT.as_secs()
                )))
            }
        }
    }
}

/// How many publications the relay keeps unconfirmed: confirms of persistent messages come
/// after the broker's disk write, and meanwhile the next batches are on their way.
pub(super) const PUBLISH_WINDOW: usize = 4;

/// How long a publisher confirm may take before its channel is taken for lost.
const CONFIRM_TIMEOUT: Duration = Duration::from_secs(30);

/// What a publisher confirm says about its message: taken, or returned as unroutable.
fn settle(
    confirmation: lapin::Result<lapin::Confirmation>,
) -> Result<Option<lapin::message::BasicReturnMessage>, BusError> {
    match confirmation {
        Ok(confirmation) if confirmation.is_nack() => Err(BusError::Refused(
            "the broker nacked the message (negative publisher confirm)".into(),
        )),
        Ok(confirmation) => Ok(confirmation.take_message()),
        Err(e) => Err(unavailable("no publisher confirm", e)),
    }
}
