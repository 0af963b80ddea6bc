//! The players' desk: how a page's request to play reaches the console's decider and gets its
//! answer. A request is a local input of the console service ([`ConsoleInput::Play`]); its
//! answer is the record the decider wrote for it (a game started, a pulse accepted, or why the
//! rules refused), handed back once durable (`Service::effect`), so a page never sees a move
//! the console could lose in a crash.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use crate::games::puzzle::play::{PULSED, PlayCommand, REFUSED, STARTED};
use crate::input::ConsoleInput;
use crate::observed::Observed;

/// Requests waiting for their answer at most (beyond this, a new one is refused as busy).
pub const MAX_WAITING: usize = 1_024;

/// Why a request got no answer from the rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeskError {
    /// The rules refused it: what went wrong ([`PlayRefused::code`]) and why, naming what.
    ///
    /// [`PlayRefused::code`]: crate::games::puzzle::play::PlayRefused::code
    #[error("{message}")]
    Refused {
        /// `stage`, `unplayable`, `exists`, `unknown`, `finished`, `outside` or `immutable`.
        code: String,
        /// Why.
        message: String,
    },
    /// The console service is not running (stopping, or not started in this process).
    #[error("the console's service is not running")]
    NotRunning,
    /// Too many requests wait at once.
    #[error("too many requests at once; try again")]
    Busy,
    /// No answer within the time given (the service is overloaded or stopping).
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

type Answer = Result<(), (String, String)>;
type Waiters = HashMap<String, oneshot::Sender<Answer>>;

/// The desk (cheap to clone: shared).
#[derive(Debug, Clone, Default)]
pub struct Desk {
    local: Arc<OnceLock<mpsc::Sender<ConsoleInput>>>,
    waiters: Arc<Mutex<Waiters>>,
}

impl Desk {
    /// Connects the desk to the running service's local inputs.
    pub fn connect(&self, local: mpsc::Sender<ConsoleInput>) {
        let _ = self.local.set(local);
    }

    /// Hands `command` to the decider and waits (at most `timeout`) for its durable answer.
    pub async fn ask(&self, command: PlayCommand, timeout: Duration) -> Result<(), DeskError> {
        let local = self.local.get().ok_or(DeskError::NotRunning)?;
        let request = command.request().to_string();
        let (tx, rx) = oneshot::channel();
        {
            let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
            if waiters.len() >= MAX_WAITING {
                return Err(DeskError::Busy);
            }
            waiters.insert(request.clone(), tx);
        }
        let forget = || {
            self.waiters
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&request);
        };
        if local.send(ConsoleInput::Play(command)).await.is_err() {
            forget();
            return Err(DeskError::NotRunning);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err((code, message)))) => Err(DeskError::Refused { code, message }),
            Ok(Err(_)) => Err(DeskError::NotRunning),
            Err(_) => {
                forget();
                Err(DeskError::Timeout(timeout))
            }
        }
    }

    /// Answers the request a durable record of the console's own answers, if one waits.
    pub fn answer(&self, event: &Observed) {
        let outcome = match event.message_type.as_str() {
            STARTED | PULSED => Ok(()),
            REFUSED => Err((
                event.payload["code"].as_str().unwrap_or("").to_string(),
                event.payload["error"]
                    .as_str()
                    .unwrap_or("refused")
                    .to_string(),
            )),
            _ => return,
        };
        let waiter = self
            .waiters
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&event.message_id);
        if let Some(waiter) = waiter {
            let _ = waiter.send(outcome);
        }
    }
}
