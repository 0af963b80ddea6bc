//! Checks of the deployment files in `ops/` against the contracts and a real RabbitMQ.
//!
//! - [`settings`]: which broker to test against (`ARCADE_AMQP_URL`, skip or require);
//! - [`management`]: the RabbitMQ management API (import definitions, delete a vhost or user);
//! - [`deployment`]: `ops/rabbitmq/definitions.json` rendered by its own renderer with test
//!   passwords into a randomly named vhost with prefixed users, loaded, and removed after;
//! - [`probe`]: what one broker user tries (publish, consume, declare), and whether the broker
//!   allowed it or refused it.
//!
//! The tests are in `tests/`: `definitions.rs` (the committed policy against the contract
//! catalog, no broker) and `security.rs` (the broker refuses what the policy forbids).

pub mod deployment;
pub mod management;
pub mod probe;
pub mod settings;

/// What can go wrong while preparing or probing a test deployment.
#[derive(Debug, thiserror::Error)]
pub enum OpsError {
    /// A setting from the environment is unusable; names the variable.
    #[error("{name}: {reason}")]
    Setting {
        /// The environment variable.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// `ops/rabbitmq/render-definitions.py` could not run or refused.
    #[error("rendering ops/rabbitmq/definitions.json failed: {0}")]
    Render(String),
    /// A file of the repository could not be read or parsed.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: String,
        /// Why it could not be used.
        reason: String,
    },
    /// The management API answered with an error or could not be reached.
    #[error("RabbitMQ management API, {what}: {reason}")]
    Management {
        /// The request.
        what: String,
        /// The failure.
        reason: String,
    },
    /// An AMQP operation failed for another reason than the broker refusing access.
    #[error("AMQP, {what}: {source}")]
    Amqp {
        /// The operation.
        what: String,
        /// The client's error.
        source: lapin::Error,
    },
    /// A delivery the test waited for did not come.
    #[error("timed out: {0}")]
    Timeout(String),
}

/// Who may publish each domain's events on `arcade.events`, as `ops/rabbitmq/definitions.json`
/// grants it: the first word of a message type names its domain.
pub const PUBLISHERS: [(&str, &str); 6] = [
    ("table", "referee"),
    ("bingo", "bingo"),
    ("race", "race-master"),
    ("puzzle", "puzzle-telemetry"),
    ("game", "strata-relay"),
    ("activity", "activity-feed"),
];

/// The user allowed to publish a message type, if its domain has one.
pub fn publisher_of(message_type: &str) -> Option<&'static str> {
    let domain = message_type.split('.').next()?;
    PUBLISHERS
        .iter()
        .find(|(d, _)| *d == domain)
        .map(|(_, user)| *user)
}

/// Each service user and a queue that is its own (a referee's queue is named after its table).
pub const SERVICE_QUEUES: [(&str, &str); 5] = [
    ("referee", "referee.t1"),
    ("bingo", "bingo"),
    ("race-master", "race-master"),
    ("puzzle-telemetry", "puzzle-telemetry"),
    ("console", "console"),
];
