//! Publishing: persistent messages on one channel in confirm mode, each publication awaited to
//! its last confirm (a new channel's first message alone, before the rest); commands mandatory,
//! and one the broker returns kept as an `unroutable` dead letter.

use std::sync::Arc;
use std::time::Duration;

use lapin::Channel;
use lapin::options::{BasicPublishOptions, ConfirmSelectOptions};
use tracing::{info, warn};

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
    /// Whether the broker has taken a publication's first message on this channel yet.
    proven: bool,
}

/// A message's publisher confirm: awaited already (a new channel's first message), or to come.
enum Confirm {
    Settled(Option<Box<lapin::message::BasicReturnMessage>>),
    Pending(lapin::PublisherConfirm),
}

impl AmqpBus {
    /// Publishes on the confirm channel (frames handed to the connection, in order) and
    /// returns the wait for their confirms, so the relay can publish its next batch meanwhile.
    ///
    /// On a new channel the first message goes alone, and the rest only once the broker has
    /// taken it. RabbitMQ refuses (nacks) a new channel's messages to a quorum queue without
    /// its majority one by one, each after a wait, and takes the next one as soon as the queue
    /// is back: later messages in flight behind a refused one would reach consumers before its
    /// copy published again, out of order. A channel the broker took a message from holds its
    /// publications while the queue is away and takes them in order once it is back. (Per
    /// queue: a proven channel's first message to another queue without its majority can still
    /// be refused ahead of later ones taken.)
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
            let mut confirms = Vec::with_capacity(messages.len());
            let mut rest = messages;
            if !publisher.proven {
                // The first message alone, under the lock: nothing else goes on this channel
                // before the broker has taken it.
                let confirm = match self.basic_publish(&channel, &messages[0]).await {
                    Ok(confirm) => confirm,
                    Err(e) => {
                        *slot = None;
                        return Err(unavailable("publish", e));
                    }
                };
                let returned = self.confirmed(&channel, confirm).await?;
                // Taken by a queue (not returned as unroutable): the channel is proven.
                if returned.is_none()
                    && let Some(publisher) = slot.as_mut()
                {
                    publisher.proven = true;
                }
                confirms.push(Confirm::Settled(returned.map(Box::new)));
                rest = &messages[1..];
            }
            // lapin's `basic_publish` registers the confirm and hands the frames to the
            // connection on its first poll, then waits for the I/O thread to have written them.
            // Awaited one by one, that is a round trip to the I/O thread (a wakeup each way, a
            // socket write) per message; so each is polled once, in order, which queues every
            // frame in order, and only then are the writes awaited: one wakeup and a few writes
            // for the whole batch. Should one fail, the publication fails as a whole even if
            // later messages went out: the relay publishes them again and consumers deduplicate.
            let mut handed = Vec::with_capacity(rest.len());
            for publication in rest {
                let mut publish = Box::pin(self.basic_publish(&channel, publication));
                let first = futures::poll!(publish.as_mut());
                handed.push((first, publish));
            }
            for (first, publish) in handed {
                let published = match first {
                    std::task::Poll::Ready(published) => published,
                    std::task::Poll::Pending => publish.await,
                };
                match published {
                    Ok(confirm) => confirms.push(Confirm::Pending(confirm)),
                    Err(e) => {
                        *slot = None;
                        return Err(unavailable("publish", e));
                    }
                }
            }
            (confirms, token, channel)
        };
        let (confirms, token, channel) = confirms;
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
                let returned = match confirm {
                    Confirm::Settled(returned) => returned.map(|returned| *returned),
                    Confirm::Pending(confirm) => bus.confirmed(&channel, confirm).await?,
                };
                if returned.is_none() {
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
                proven: false,
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
        let (channel, confirm) = {
            let mut slot = self.inner.publisher.lock().await;
            let publisher = self.publisher(&mut slot).await?;
            let channel = publisher.channel.clone();
            let confirm = channel
                .basic_publish(
                    short(exchange),
                    short(routing_key),
                    BasicPublishOptions::default(),
                    &message.body,
                    self.properties(message),
                )
                .await
                .map_err(|e| unavailable("publish", e))?;
            (channel, confirm)
        };
        self.confirmed(&channel, confirm).await.map(|_| ())
    }

    /// Awaits the publisher confirm of a message published on `channel`; `Some` when the broker
    /// returned the (mandatory) message before acking it.
    ///
    /// A late confirm is waited for as long as the channel lives: a quorum queue without its
    /// majority holds the channel's publications and takes them, in order, once it is back. A
    /// channel given up instead still holds them; closing it makes the broker take what it
    /// holds with gaps (those it had to send again to a new leader are lost, later ones kept),
    /// after the copies published again on a new channel: an earlier message after a later one.
    /// A lost connection fails the confirm (a dead peer is found by heartbeats).
    async fn confirmed(
        &self,
        channel: &Channel,
        confirm: lapin::PublisherConfirm,
    ) -> Result<Option<lapin::message::BasicReturnMessage>, BusError> {
        let mut confirm = std::pin::pin!(confirm);
        let mut waited = Duration::ZERO;
        loop {
            match tokio::time::timeout(CONFIRM_PATIENCE, confirm.as_mut()).await {
                Ok(confirmation) => {
                    if !waited.is_zero() {
                        info!(node = %self.node_shown(), waited_s = waited.as_secs(), "publisher confirm came; publishing goes on");
                    }
                    return settle(confirmation);
                }
                Err(_) if !channel.status().connected() => {
                    return Err(BusError::Unavailable(
                        "the publishing channel closed before its publisher confirm".into(),
                    ));
                }
                Err(_) => {
                    waited += CONFIRM_PATIENCE;
                    if waited == CONFIRM_PATIENCE {
                        warn!(node = %self.node_shown(), waited_s = waited.as_secs(), "no publisher confirm yet (a queue without its majority?); waiting on the same channel, events wait in the log");
                    }
                }
            }
        }
    }
}

/// How many publications the relay keeps unconfirmed: confirms of persistent messages come
/// after the broker's disk write, and meanwhile the next batches are on their way.
pub(super) const PUBLISH_WINDOW: usize = 4;

/// How long a publisher confirm may take before it is said to be late (and the channel is
/// checked), again after each as long.
const CONFIRM_PATIENCE: Duration = Duration::from_secs(30);

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
