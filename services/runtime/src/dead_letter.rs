//! What a dead letter records, and how a replay of one is checked as its sender.
//!
//! A dead letter is the message as it came, with headers saying why it is there. Format 2
//! (header [`HEADER_DEAD_FORMAT`] = `2`) adds who sent it ([`HEADER_DEAD_SENDER`]: the sender
//! the consumer took it from, `""` for none proven) and whether the consumer refused it
//! ([`HEADER_DEAD_KIND`]): on RabbitMQ a dead letter is published by the consumer that gave up
//! on it, so its own `user_id` names that consumer, not the sender. A format-1 dead letter
//! (none of these headers) is still read ([`Recorded::read`]): its kind follows from its
//! reason; its sender is its `user_id` on the embedded bus (which keeps the message as sent),
//! and on RabbitMQ only for an `unroutable` one (published back by its own sender), else it is
//! unknown and the dead letter is not replayed.
//!
//! A replay never makes the operator the sender. On the embedded bus it is delivered with the
//! recorded sender as its `user_id`; on RabbitMQ, where the broker stamps the replaying
//! connection's user, it carries the recorded sender in [`HEADER_REPLAY_SENDER`], which a
//! consumer honours only from a principal allowed to replay ([`replayed`]), and then checks the
//! message as from that sender.

use crate::wire::{HEADER_DEAD_QUEUE, HEADER_DEAD_REASON, HEADER_DEAD_ROUTING_KEY, WireMessage};

/// The dead-letter reason of a command whose queue does not exist.
pub const UNROUTABLE: &str = "unroutable";

/// The dead-letter reason of a message whose type differs from the routing key it was published
/// with: the broker's topic permissions check the routing key, so the type must be it.
pub const TYPE_NOT_ROUTING_KEY: &str = "type does not match routing key";

/// The dead-letter reason of a message with no proven sender, when the host requires one.
pub const NO_PROVEN_SENDER: &str =
    "no proven sender (no user_id the broker validated) and --require-proven-sender is set";

/// The start of the dead-letter reason of a signed message whose signature is refused
/// ([`crate::signing`]): what failed follows (`signature refused: no signing key of producer
/// "shop" verifies it: …`), never a key.
pub const BAD_SIGNATURE: &str = "signature refused";

/// The dead-letter reason of a message whose id its sender used before for another body.
pub const ID_REUSED: &str = "message id reused with a different body";

/// Header carrying the dead-letter format (absent: format 1).
pub const HEADER_DEAD_FORMAT: &str = "x-arcade-dead-format";
/// Header carrying a dead letter's sender: the principal it was taken from, `""` for none.
pub const HEADER_DEAD_SENDER: &str = "x-arcade-dead-sender";
/// Header saying whether the consumer refused the message ([`DeadKind`]).
pub const HEADER_DEAD_KIND: &str = "x-arcade-dead-kind";
/// Header of a replayed message on RabbitMQ: the sender it is replayed for (`""`: none
/// proven), honoured only from a principal that may replay.
pub const HEADER_REPLAY_SENDER: &str = "x-arcade-replay-sender";

/// The dead-letter format written now.
pub const FORMAT: &str = "2";

/// The part of a refusal's reason that [`crate::MappingError::Refused`] writes.
const REFUSED_MARK: &str = " is refused: ";

/// Why a message is a dead letter, as far as a replay is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadKind {
    /// Its consumer said no to it (its sender may not send it, or not that way): a replay,
    /// checked as the same sender, would be refused again, so it is not replayed.
    Refused,
    /// Its consumer could not take it (unreadable, unknown type, invalid values).
    Failed,
    /// Sent to a queue that did not exist.
    Unroutable,
}

impl DeadKind {
    /// Its header value.
    pub fn as_str(self) -> &'static str {
        match self {
            DeadKind::Refused => "refused",
            DeadKind::Failed => "failed",
            DeadKind::Unroutable => "unroutable",
        }
    }

    fn parse(text: &str) -> Option<DeadKind> {
        [DeadKind::Refused, DeadKind::Failed, DeadKind::Unroutable]
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }

    /// The kind of a format-1 dead letter, from its reason.
    fn of_reason(reason: &str) -> DeadKind {
        if reason == UNROUTABLE {
            DeadKind::Unroutable
        } else if [TYPE_NOT_ROUTING_KEY, NO_PROVEN_SENDER, ID_REUSED].contains(&reason)
            || reason.contains(REFUSED_MARK)
            || reason.starts_with(NOT_A_REPLAYER)
            || reason.starts_with(BAD_SIGNATURE)
        {
            DeadKind::Refused
        } else {
            DeadKind::Failed
        }
    }
}

/// What a message goes to the dead letters with: why, of which kind, and its sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dead<'a> {
    /// The reason, for people.
    pub reason: &'a str,
    /// Refused or failed (or unroutable).
    pub kind: DeadKind,
    /// The sender the consumer took it from (`None`: none proven).
    pub sender: Option<&'a str>,
}

impl<'a> Dead<'a> {
    /// Refused by its consumer.
    pub fn refused(reason: &'a str, sender: Option<&'a str>) -> Self {
        Dead {
            reason,
            kind: DeadKind::Refused,
            sender,
        }
    }

    /// A command sent to a queue that does not exist, by `publisher` (the user its transport
    /// vouches for): its sender, or for a replay this process sends, the sender it is replayed
    /// for.
    pub fn unroutable(message: &'a WireMessage, publisher: Option<&'a str>) -> Self {
        let sender = match message.headers.get(HEADER_REPLAY_SENDER) {
            Some(replayed) => Some(replayed.as_str()).filter(|s| !s.is_empty()),
            None => publisher.filter(|s| !s.is_empty()),
        };
        Dead {
            reason: UNROUTABLE,
            kind: DeadKind::Unroutable,
            sender,
        }
    }

    /// Not taken by its consumer: it could not be.
    pub fn failed(reason: &'a str, sender: Option<&'a str>) -> Self {
        Dead {
            reason,
            kind: DeadKind::Failed,
            sender,
        }
    }
}

/// `message` as a dead letter (format 2): a copy naming why, the queue it was in or was sent
/// to, its routing key, its sender and its kind. A replay header it carried is left out: the
/// sender it named is the recorded sender now.
pub fn dead_letter_of(message: &WireMessage, queue: &str, dead: Dead<'_>) -> WireMessage {
    let mut copy = message.clone();
    copy.headers.remove(HEADER_REPLAY_SENDER);
    let headers = [
        (HEADER_DEAD_REASON, dead.reason),
        (HEADER_DEAD_QUEUE, queue),
        (HEADER_DEAD_ROUTING_KEY, message.routing_key()),
        (HEADER_DEAD_FORMAT, FORMAT),
        (HEADER_DEAD_SENDER, dead.sender.unwrap_or("")),
        (HEADER_DEAD_KIND, dead.kind.as_str()),
    ];
    for (key, value) in headers {
        copy.headers.insert(key.to_string(), value.to_string());
    }
    copy
}

/// The sender of a message as its transport vouches for it: its `user_id`, none when absent
/// or empty.
pub fn proven(message: &WireMessage) -> Option<&str> {
    message.user_id.as_deref().filter(|user| !user.is_empty())
}

/// A dead letter's sender as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sender {
    /// This principal.
    Proven(String),
    /// No proven sender.
    Anonymous,
    /// Not known (a format-1 dead letter on RabbitMQ): why.
    Unknown(String),
}

impl Sender {
    /// As shown: the principal, `""` for none, `null` when unknown.
    pub fn shown(&self) -> Option<&str> {
        match self {
            Sender::Proven(name) => Some(name),
            Sender::Anonymous => Some(""),
            Sender::Unknown(_) => None,
        }
    }
}

/// Which transport's dead letters are read (format 1 recorded the sender differently).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// The embedded bus: a dead letter keeps the message's `user_id`.
    Embedded,
    /// RabbitMQ: a dead letter's `user_id` is whoever published it to the dead letters.
    Broker,
}

/// What a dead letter records about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// Its format (1 or 2).
    pub format: u8,
    /// Who sent the message.
    pub sender: Sender,
    /// Refused, failed or unroutable.
    pub kind: DeadKind,
}

impl Recorded {
    /// Reads a dead letter of either format; an unknown format is an error naming it.
    pub fn read(message: &WireMessage, transport: Transport) -> Result<Recorded, String> {
        let header = |key: &str| message.headers.get(key).map(String::as_str);
        match header(HEADER_DEAD_FORMAT) {
            Some(FORMAT) => {
                let sender = match header(HEADER_DEAD_SENDER) {
                    Some("") => Sender::Anonymous,
                    Some(name) => Sender::Proven(name.to_string()),
                    None => Sender::Unknown(format!(
                        "a format-2 dead letter without {HEADER_DEAD_SENDER}"
                    )),
                };
                let kind = header(HEADER_DEAD_KIND)
                    .and_then(DeadKind::parse)
                    .ok_or_else(|| {
                        format!(
                            "{HEADER_DEAD_KIND} {:?} is none of refused, failed, unroutable",
                            header(HEADER_DEAD_KIND).unwrap_or("")
                        )
                    })?;
                Ok(Recorded {
                    format: 2,
                    sender,
                    kind,
                })
            }
            Some(other) => Err(format!(
                "dead-letter format {other:?} is not one this version reads (1 or 2)"
            )),
            None => {
                let kind = DeadKind::of_reason(header(HEADER_DEAD_REASON).unwrap_or(""));
                let from_user_id = || match proven(message) {
                    Some(name) => Sender::Proven(name.to_string()),
                    None => Sender::Anonymous,
                };
                let sender = match (transport, kind) {
                    (Transport::Embedded, _) | (Transport::Broker, DeadKind::Unroutable) => {
                        from_user_id()
                    }
                    (Transport::Broker, _) => Sender::Unknown(
                        "dead-lettered before dead letters recorded their sender: its user_id names the consumer that dead-lettered it, not who sent it".into(),
                    ),
                };
                Ok(Recorded {
                    format: 1,
                    sender,
                    kind,
                })
            }
        }
    }
}

/// The start of the reason a message is refused with when it carries [`HEADER_REPLAY_SENDER`]
/// from a principal that may not replay.
pub const NOT_A_REPLAYER: &str = "a replay header from a sender that may not replay";

/// A delivered message as its consumer must check it: `Ok(None)` when it is no replay (check
/// it as it is); `Ok(Some(copy))` for a replay by one of `replayers` (the copy's `user_id` is
/// the sender it is replayed for, none when `""`); `Err` for a replay header from anyone else.
pub fn replayed(
    message: &WireMessage,
    replayers: &[String],
) -> Result<Option<WireMessage>, String> {
    let Some(sender) = message.headers.get(HEADER_REPLAY_SENDER) else {
        return Ok(None);
    };
    let by = proven(message);
    if !by.is_some_and(|by| replayers.iter().any(|r| r == by)) {
        return Err(format!(
            "{NOT_A_REPLAYER} ({HEADER_REPLAY_SENDER} from {})",
            by.unwrap_or("no proven sender")
        ));
    }
    let mut copy = message.clone();
    copy.headers.remove(HEADER_REPLAY_SENDER);
    copy.user_id = Some(sender.clone()).filter(|s| !s.is_empty());
    Ok(Some(copy))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(user: Option<&str>) -> WireMessage {
        WireMessage {
            message_type: Some("race.budget.grant.v1".into()),
            message_id: Some("m-1".into()),
            user_id: user.map(Into::into),
            ..WireMessage::default()
        }
    }

    #[test]
    fn a_dead_letter_records_its_sender_and_kind_and_reads_back() {
        let dead = dead_letter_of(
            &message(Some("race-team-red")),
            "race-master",
            Dead::refused(
                "race.budget.grant.v1 is refused: not an operator",
                Some("race-team-red"),
            ),
        );
        for transport in [Transport::Embedded, Transport::Broker] {
            assert_eq!(
                Recorded::read(&dead, transport),
                Ok(Recorded {
                    format: 2,
                    sender: Sender::Proven("race-team-red".into()),
                    kind: DeadKind::Refused,
                })
            );
        }
        let anonymous = dead_letter_of(&message(None), "bingo", Dead::failed("bad", None));
        assert_eq!(
            Recorded::read(&anonymous, Transport::Broker)
                .unwrap()
                .sender,
            Sender::Anonymous
        );
        let mut strange = dead.clone();
        strange
            .headers
            .insert(HEADER_DEAD_FORMAT.into(), "9".into());
        assert!(
            Recorded::read(&strange, Transport::Embedded)
                .unwrap_err()
                .contains("\"9\"")
        );
    }

    #[test]
    fn a_format_1_dead_letter_is_read_by_its_reason_and_transport() {
        let old = |user: Option<&str>, reason: &str| {
            let mut m = message(user);
            m.headers.insert(HEADER_DEAD_REASON.into(), reason.into());
            m.headers
                .insert(HEADER_DEAD_QUEUE.into(), "race-master".into());
            m
        };
        let refused = old(Some("race-team-red"), "race.budget.grant.v1 is refused: no");
        let embedded = Recorded::read(&refused, Transport::Embedded).unwrap();
        assert_eq!(embedded.format, 1);
        assert_eq!(embedded.kind, DeadKind::Refused);
        assert_eq!(embedded.sender, Sender::Proven("race-team-red".into()));
        // On RabbitMQ its user_id is the consumer that dead-lettered it.
        let broker = Recorded::read(&old(Some("race-master"), "store busy"), Transport::Broker);
        assert!(matches!(broker.unwrap().sender, Sender::Unknown(_)));
        let returned = Recorded::read(&old(Some("race-master"), UNROUTABLE), Transport::Broker);
        assert_eq!(
            returned.unwrap().sender,
            Sender::Proven("race-master".into())
        );
        for reason in [
            TYPE_NOT_ROUTING_KEY,
            NO_PROVEN_SENDER,
            ID_REUSED,
            "signature refused: no signing key of producer \"shop\" verifies it",
        ] {
            assert_eq!(DeadKind::of_reason(reason), DeadKind::Refused, "{reason}");
        }
        assert_eq!(
            DeadKind::of_reason("unknown message type \"x\""),
            DeadKind::Failed
        );
    }

    #[test]
    fn a_replay_is_the_recorded_sender_and_only_from_a_replayer() {
        let replayers = vec!["arcade-admin".to_string()];
        let mut replay = message(Some("arcade-admin"));
        replay
            .headers
            .insert(HEADER_REPLAY_SENDER.into(), "race-team-red".into());
        let checked = replayed(&replay, &replayers).unwrap().unwrap();
        assert_eq!(checked.user_id.as_deref(), Some("race-team-red"));
        assert!(!checked.headers.contains_key(HEADER_REPLAY_SENDER));
        replay
            .headers
            .insert(HEADER_REPLAY_SENDER.into(), String::new());
        assert_eq!(
            replayed(&replay, &replayers).unwrap().unwrap().user_id,
            None
        );
        // A team naming the operator as the sender it replays for.
        let mut forged = message(Some("race-team-red"));
        forged
            .headers
            .insert(HEADER_REPLAY_SENDER.into(), "arcade-admin".into());
        let refused = replayed(&forged, &replayers).unwrap_err();
        assert!(refused.starts_with(NOT_A_REPLAYER), "{refused}");
        assert_eq!(DeadKind::of_reason(&refused), DeadKind::Refused);
        assert_eq!(
            replayed(&message(Some("arcade-admin")), &replayers),
            Ok(None)
        );
        // Its dead letter names the sender it was taken from, not the replay header.
        let dead = dead_letter_of(
            &forged,
            "race-master",
            Dead::refused(&refused, Some("race-team-red")),
        );
        assert!(!dead.headers.contains_key(HEADER_REPLAY_SENDER));
        assert_eq!(dead.headers[HEADER_DEAD_SENDER], "race-team-red");
    }
}
