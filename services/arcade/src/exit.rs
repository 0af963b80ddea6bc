//! The exit codes of the `arcade` command line, one per cause, and the error that carries one
//! up to `main`.
//!
//! - 0: done.
//! - 1 ([`REFUSED`]): refused: by the service (a `*.rejected.v1`, no such game), or for a
//!   missing or wrong token; also any failure that is none of the others.
//! - 2 ([`INVALID`]): bad usage or input (clap's own usage errors exit 2 too).
//! - 3 ([`UNDELIVERED`]): the message could not be delivered (nothing answers at the address,
//!   no queue takes it, the bus did not confirm), or no answer came within `--timeout`. It may
//!   still apply: running the command again with the same `--id` applies it once.

use std::process::ExitCode;

/// Refused by the service, or a missing or wrong token.
pub const REFUSED: u8 = 1;
/// Bad usage or input.
pub const INVALID: u8 = 2;
/// Not delivered, or no answer in time.
pub const UNDELIVERED: u8 = 3;

/// What `arcade --help` says about them.
pub const HELP: &str = "Exit codes: 0 done; 1 refused (by the service, or a missing or wrong token); \
2 bad usage or input; 3 not delivered, or no answer within --timeout (it may still apply: \
run the command again with the same --id and it applies once).";

/// A failure with its exit code; its message is printed as `error: …`.
#[derive(Debug)]
pub struct Failure {
    /// The exit code.
    pub code: u8,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl Failure {
    /// Refused by the service or for the token: exit 1.
    pub fn refused(message: impl std::fmt::Display) -> anyhow::Error {
        Failure::with(REFUSED, message)
    }

    /// Bad usage or input: exit 2.
    pub fn invalid(message: impl std::fmt::Display) -> anyhow::Error {
        Failure::with(INVALID, message)
    }

    /// Not delivered, or no answer in time: exit 3.
    pub fn undelivered(message: impl std::fmt::Display) -> anyhow::Error {
        Failure::with(UNDELIVERED, message)
    }

    fn with(code: u8, message: impl std::fmt::Display) -> anyhow::Error {
        anyhow::Error::new(Failure {
            code,
            message: message.to_string(),
        })
    }
}

/// The exit code of an HTTP status the admin endpoint answered with: 2 for a request it
/// could not take as sent (400, 413, 415, 422), 3 when it could not deliver (502, 503, 504),
/// else 1 (401 and 403: the token; 404: no such thing; 409: a conflict).
pub fn for_status(status: reqwest::StatusCode) -> u8 {
    match status.as_u16() {
        400 | 413 | 415 | 422 => INVALID,
        408 | 502..=504 => UNDELIVERED,
        _ => REFUSED,
    }
}

/// Prints `error: message` and returns `code`.
pub fn print(code: u8, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

/// The exit code of an error that reached `main`: a [`Failure`]'s own, 3 for an admin
/// endpoint or broker that could not be reached, else 1.
pub fn code_of(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if let Some(failure) = cause.downcast_ref::<Failure>() {
            return failure.code;
        }
        if let Some(http) = cause.downcast_ref::<reqwest::Error>()
            && (http.is_connect() || http.is_timeout())
        {
            return UNDELIVERED;
        }
        if cause.downcast_ref::<arcade_runtime::BusError>().is_some() {
            return UNDELIVERED;
        }
    }
    REFUSED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_has_its_code() {
        assert_eq!(code_of(&Failure::refused("no")), 1);
        assert_eq!(code_of(&Failure::invalid("bad")), 2);
        let wrapped = Failure::undelivered("lost").context("sending g1");
        assert_eq!(code_of(&wrapped), 3);
        assert_eq!(code_of(&anyhow::anyhow!("anything else")), 1);
        assert_eq!(for_status(reqwest::StatusCode::UNAUTHORIZED), 1);
        assert_eq!(for_status(reqwest::StatusCode::FORBIDDEN), 1);
        assert_eq!(for_status(reqwest::StatusCode::BAD_REQUEST), 2);
        assert_eq!(for_status(reqwest::StatusCode::SERVICE_UNAVAILABLE), 3);
    }
}
