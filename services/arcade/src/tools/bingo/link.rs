//! How `arcade bingo show` and `print` read what the service holds: `GET /bingo/…` on the admin
//! endpoint of the process hosting bingo. Requests wait for their answers as every organiser
//! command does (`crate::reply::ask`).

use std::net::SocketAddr;
use std::process::ExitCode;

use serde::de::DeserializeOwned;

use crate::connection::json_answer;

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
}
