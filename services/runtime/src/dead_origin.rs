//! Whose dead letter is it? On RabbitMQ the consuming services publish their dead letters to
//! `arcade.dead` themselves (with the reason in [`HEADER_DEAD_REASON`] and the queue it was
//! taken from in [`HEADER_DEAD_QUEUE`]), so each of them may write there, and nothing in the
//! broker's model can stop one of them from writing a dead letter with made-up headers. What the
//! broker does vouch for is the `user_id` (it refuses one that is not the connection's user).
//! So a dead letter is Arcade's own only if its `user_id` is the principal that consumes its
//! origin queue (the one that may dead-letter from it) or the operator's: a service can then
//! plant nothing but a dead letter of its own queue, which a replay sends back to that queue
//! only, where its consumer is the same service. The embedded bus's store is written by the
//! process alone and needs no such check.

use crate::wire::{HEADER_DEAD_QUEUE, WireMessage};

/// The operator's broker user (as `ops/rabbitmq/definitions.json` names it).
pub const OPERATOR: &str = "arcade-admin";

/// Why a dead letter is not taken to be Arcade's own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForeignDeadLetter {
    /// It carries no origin queue.
    #[error("no origin queue ({HEADER_DEAD_QUEUE})")]
    NoQueue,
    /// Its sender may not dead-letter from the queue it names.
    #[error(
        "not dead-lettered by Arcade: its sender {sender:?} neither consumes {queue:?} nor is the operator"
    )]
    NotTheConsumer {
        /// The broker-vouched `user_id` ("" when absent).
        sender: String,
        /// The origin queue the dead letter names.
        queue: String,
    },
}

/// The principals (broker users, before a deployment's user prefix) that dead-letter what they
/// take from `queue`: the one service consuming it, and for a team queue the race master, whose
/// commands to a team with no queue come back as its dead letters (`unroutable`).
pub fn dead_letterers_of(queue: &str) -> Vec<String> {
    if let Some(table) = queue.strip_prefix("referee.") {
        return vec!["referee".into(), format!("referee-{table}")];
    }
    if queue.starts_with("race.team.") {
        return vec!["race-master".into()];
    }
    match queue {
        "bingo" | "race-master" | "puzzle-telemetry" => vec![queue.to_string()],
        _ => Vec::new(),
    }
}

/// Checks that `message` (read from the RabbitMQ dead letters) was dead-lettered by Arcade: its
/// `user_id` is `prefix` + the operator, or `prefix` + a dead-letterer of its origin queue.
pub fn check_dead_letter_origin(
    message: &WireMessage,
    prefix: &str,
) -> Result<(), ForeignDeadLetter> {
    let queue = message
        .headers
        .get(HEADER_DEAD_QUEUE)
        .map(String::as_str)
        .filter(|q| !q.is_empty())
        .ok_or(ForeignDeadLetter::NoQueue)?;
    let sender = message.user_id.as_deref().unwrap_or("");
    let trusted = sender
        .strip_prefix(prefix)
        .is_some_and(|name| name == OPERATOR || dead_letterers_of(queue).iter().any(|d| d == name));
    if trusted {
        Ok(())
    } else {
        Err(ForeignDeadLetter::NotTheConsumer {
            sender: sender.to_string(),
            queue: queue.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dead(sender: Option<&str>, queue: &str) -> WireMessage {
        let mut message = WireMessage {
            user_id: sender.map(Into::into),
            ..WireMessage::default()
        };
        message
            .headers
            .insert(HEADER_DEAD_QUEUE.into(), queue.into());
        message
    }

    #[test]
    fn only_the_consumer_of_the_origin_queue_or_the_operator_vouches_for_a_dead_letter() {
        let ok = |s: Option<&str>, q: &str| check_dead_letter_origin(&dead(s, q), "");
        assert_eq!(ok(Some("bingo"), "bingo"), Ok(()));
        assert_eq!(ok(Some("referee-t1"), "referee.t1"), Ok(()));
        assert_eq!(ok(Some("referee"), "referee.t2"), Ok(()));
        assert_eq!(ok(Some("race-master"), "race.team.red"), Ok(()));
        assert_eq!(ok(Some("arcade-admin"), "anything"), Ok(()));
        // A service planting a dead letter for another service's queue.
        for (sender, queue) in [
            ("bingo", "race-master"),
            ("referee-t1", "referee.t2"),
            ("puzzle-telemetry", "bingo"),
            ("race-team-red", "race.team.red"),
            ("race-master", "bingo"),
        ] {
            let refused = ok(Some(sender), queue).unwrap_err();
            assert!(
                refused.to_string().contains("not dead-lettered by Arcade"),
                "{sender} for {queue}: {refused}"
            );
        }
        assert!(ok(None, "bingo").is_err(), "no sender, no trust");
        let mut nowhere = dead(Some("bingo"), "bingo");
        nowhere.headers.clear();
        assert_eq!(
            check_dead_letter_origin(&nowhere, ""),
            Err(ForeignDeadLetter::NoQueue)
        );
        // A deployment's user prefix: the prefixed names only.
        let prefixed = |s: &str, q: &str| check_dead_letter_origin(&dead(Some(s), q), "t9-");
        assert_eq!(prefixed("t9-bingo", "bingo"), Ok(()));
        assert_eq!(prefixed("t9-arcade-admin", "race-master"), Ok(()));
        assert!(prefixed("bingo", "bingo").is_err());
        assert!(prefixed("t9-bingo", "race-master").is_err());
    }
}
