//! How `arcade bingo show` and `print` reach the process hosting bingo: its admin endpoint.
//! Reads are `GET /bingo/…`; `print`'s batches are published with `POST /messages/{type}` (on
//! whatever bus that process uses, embedded or RabbitMQ), and their answers are read from
//! `GET /stream`, opened before the request is sent, by the request's `requestId`. The other
//! requests wait for their answers as every organiser command does (`crate::reply::ask`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use arcade_contracts::Envelope;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::connection::{json_answer, successful};

/// How long a tool waits for the service's answer to one request.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Prints `error: message` and returns the exit code of a refusal by the service (1).
pub fn refused(message: impl std::fmt::Display) -> ExitCode {
    crate::exit::print(crate::exit::REFUSED, message)
}

/// The admin endpoint of the process hosting bingo.
#[derive(Debug, Clone)]
pub struct Admin {
    addr: SocketAddr,
    http: reqwest::Client,
}

/// An answer the endpoint gave instead of what was asked (no such game, a missing token…):
/// its error text and exit code.
#[derive(Debug)]
pub struct Refused {
    /// The `error` of the answer.
    pub error: String,
    /// Its exit code ([`crate::exit::for_status`]).
    pub code: u8,
}

impl Refused {
    /// Prints `error: …` and returns its exit code.
    pub fn exit(&self) -> ExitCode {
        crate::exit::print(self.code, &self.error)
    }
}

impl Admin {
    /// The endpoint at `addr`.
    pub fn new(addr: SocketAddr) -> Admin {
        Admin {
            addr,
            http: crate::auth::http_client(None),
        }
    }

    fn unreachable(&self, error: &reqwest::Error) -> anyhow::Error {
        crate::exit::Failure::undelivered(format_args!(
            "no `arcade run` hosting bingo answers at {} ({error}); start one (`arcade run bingo`) or pass --admin ADDR",
            self.addr
        ))
    }

    /// `GET path`: the body as `T`, or what the endpoint answered instead.
    pub async fn get<T: DeserializeOwned>(&self, path: &str) -> anyhow::Result<Result<T, Refused>> {
        let url = format!("http://{}{path}", self.addr);
        let response = self
            .http
            .get(&url)
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        let (status, body) = json_answer(response, &url).await?;
        if !status.is_success() {
            let error = body["error"].as_str().unwrap_or("refused").to_string();
            let code = crate::exit::for_status(status);
            return Ok(Err(Refused { error, code }));
        }
        Ok(Ok(serde_json::from_value(body).map_err(|e| {
            anyhow::anyhow!("{url}: unexpected answer: {e}")
        })?))
    }

    /// Publishes a request; the endpoint validates it against its schema first.
    pub async fn send(&self, message_type: &str, payload: &Value) -> anyhow::Result<()> {
        let url = format!("http://{}/messages/{message_type}", self.addr);
        let response = self
            .http
            .post(&url)
            .query(&[("producer", "arcade-bingo-tool")])
            .json(payload)
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            // No queue takes it: not delivered.
            let (_, body) = json_answer(response, &url).await?;
            let why = body["error"].as_str().unwrap_or("nobody consumes it");
            return Err(crate::exit::Failure::undelivered(format_args!(
                "{message_type} was not sent: {why}"
            )));
        }
        successful(
            response,
            |_| format!("{message_type} was not sent"),
            "refused",
        )
        .await?;
        Ok(())
    }

    /// Starts reading the bingo service's facts; requests sent after this returns have their
    /// answers in it.
    pub async fn answers(&self) -> anyhow::Result<Answers> {
        let url = format!("http://{}/stream", self.addr);
        let response = self
            .http
            .get(&url)
            .query(&[("pattern", "bingo.#")])
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?
            .error_for_status()?;
        Ok(Answers {
            response,
            pending: Vec::new(),
        })
    }
}

/// The stream of the bingo service's facts.
#[derive(Debug)]
pub struct Answers {
    response: reqwest::Response,
    pending: Vec<u8>,
}

impl Answers {
    async fn next(&mut self) -> anyhow::Result<Envelope> {
        loop {
            if let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                return Ok(serde_json::from_slice(&line)?);
            }
            match self.response.chunk().await? {
                Some(chunk) => self.pending.extend_from_slice(&chunk),
                None => anyhow::bail!("the admin endpoint closed the stream of answers"),
            }
        }
    }

    /// The service's answer to the request `request_id`: the first fact that echoes it.
    pub async fn answer(&mut self, request_id: &str) -> anyhow::Result<Envelope> {
        let wait = async {
            loop {
                let envelope = self.next().await?;
                if envelope.payload["requestId"] == request_id {
                    return Ok(envelope);
                }
            }
        };
        tokio::time::timeout(PATIENCE, wait).await.map_err(|_| {
            crate::exit::Failure::undelivered(format_args!(
                "the bingo service did not answer within {PATIENCE:?}"
            ))
        })?
    }
}
