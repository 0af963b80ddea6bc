//! Wiring of the bingo service into the `arcade` binary: its settings, how it starts, and the
//! admin routes that read its games and cards (`routes.rs`).
//!
//! The server secret comes from `--bingo-secret-file FILE` (or `ARCADE_BINGO_SECRET_FILE`), else
//! from `ARCADE_BINGO_SECRET`; it is never a flag's value (it would show in `ps`) and never
//! printed. Without a secret the service does not start: the error names both settings.

use std::path::PathBuf;

use anyhow::Context as _;
use arcade_bingo::{Binder, BingoService, SECRET_ENV, Secret};
use arcade_contracts::bingo::QUEUE;
use arcade_runtime::{Running, Runtime};
use clap::Args;

#[cfg(test)]
mod examples;
mod routes;

pub use routes::routes;

/// Settings of the bingo service.
#[derive(Debug, Clone, Default, Args)]
pub struct BingoArgs {
    /// File holding the bingo server secret, at least 16 bytes (one trailing line break is
    /// ignored). Absent: the secret is read from ARCADE_BINGO_SECRET.
    #[arg(
        long = "bingo-secret-file",
        env = "ARCADE_BINGO_SECRET_FILE",
        value_name = "FILE"
    )]
    pub secret_file: Option<PathBuf>,
    /// A secret given in code (the demo's); takes precedence over the file and the environment.
    #[arg(skip)]
    pub secret: Option<Secret>,
}

impl BingoArgs {
    /// The secret these settings give.
    pub fn secret(&self) -> anyhow::Result<Secret> {
        if let Some(secret) = &self.secret {
            return Ok(secret.clone());
        }
        arcade_bingo::settings::load_secret(
            self.secret_file.as_deref(),
            std::env::var_os(SECRET_ENV),
            "--bingo-secret-file",
        )
        .map_err(|problem| anyhow::anyhow!("bingo: {problem}"))
    }
}

/// Starts the bingo service, with a binder that binds its queue to the message types its games
/// map.
pub fn start(
    runtime: &Runtime,
    args: &BingoArgs,
    operators: &arcade_contracts::principal::Operators,
) -> anyhow::Result<Vec<Box<dyn Running>>> {
    let secret = args.secret()?;
    // A partition binds the mapped types to its own queue: every partition gets them.
    let (binder, _bound) = Binder::spawn(runtime.bus().clone(), &runtime.instance_name(QUEUE));
    let service = BingoService::new(&secret)
        .with_binder(binder)
        .with_operators(operators.clone());
    let view = service.view();
    let handle = runtime
        .start(service)
        .context("bingo: cannot start the service")?;
    routes::host(view);
    Ok(vec![Box::new(handle)])
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Run {
        #[command(flatten)]
        bingo: BingoArgs,
    }

    #[test]
    fn the_secret_file_flag_is_read_and_a_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bingo.secret");
        std::fs::write(&path, "a-secret-from-the-file\n").unwrap();
        let flag = path.to_str().unwrap();
        let run = Run::try_parse_from(["run", "--bingo-secret-file", flag]).unwrap();
        assert!(run.bingo.secret().is_ok());
        let missing = dir.path().join("absent");
        let run =
            Run::try_parse_from(["run", "--bingo-secret-file", missing.to_str().unwrap()]).unwrap();
        let error = run.bingo.secret().unwrap_err().to_string();
        assert!(
            error.starts_with("bingo: cannot read the secret file") && error.contains("absent"),
            "{error}"
        );
    }

    #[test]
    fn a_secret_given_in_code_comes_first_and_is_never_shown() {
        let args = BingoArgs {
            secret: Secret::new(*b"a-secret-given-in-code").ok(),
            secret_file: Some("/nonexistent/bingo.secret".into()),
        };
        assert!(args.secret().is_ok());
        assert!(!format!("{args:?}").contains("a-secret-given-in-code"));
    }
}
