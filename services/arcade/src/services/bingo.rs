//! Wiring of the bingo service into the `arcade` binary: its settings and how it starts.
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
pub fn start(runtime: &Runtime, args: &BingoArgs) -> anyhow::Result<Vec<Box<dyn Running>>> {
    let secret = args.secret()?;
    let (binder, _bound) = Binder::spawn(runtime.bus().clone(), QUEUE);
    let service = BingoService::new(&secret).with_binder(binder);
    let handle = runtime
        .start(service)
        .context("bingo: cannot start the service")?;
    Ok(vec![Box::new(handle)])
}
