//! Wiring of the bingo service into the `arcade` binary: its settings, how it starts, and the
//! admin routes that read its games and cards (`routes.rs`).
//!
//! The server secret comes from `--bingo-secret-file FILE` (or `ARCADE_BINGO_SECRET_FILE`), else
//! from `ARCADE_BINGO_SECRET`, else from `DATA/bingo-secret`, generated there (0600) at the first
//! start like the admin token. It is never a flag's value (it would show in `ps`) and never
//! printed. A secret is never generated beside an existing bingo log (its cards were dealt from
//! another secret): the service then refuses to start, naming the settings.

use std::path::{Path, PathBuf};

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
    /// The secret these settings give: in code, the file, the environment, else the one kept in
    /// `data` (generated there at the first start when `store` — the bingo log's directory —
    /// does not exist yet). Without a data directory (tests) a secret must be given.
    pub fn secret(&self, data: Option<&Path>, store: &str) -> anyhow::Result<Secret> {
        if let Some(secret) = &self.secret {
            return Ok(secret.clone());
        }
        let env = std::env::var_os(SECRET_ENV);
        let kept = match (&self.secret_file, &env, data) {
            (None, None, Some(dir)) => Some(kept_secret(dir, store)?),
            _ => None,
        };
        let file = self.secret_file.as_deref().or(kept.as_deref());
        arcade_bingo::settings::load_secret(file, env, "--bingo-secret-file")
            .map_err(|problem| anyhow::anyhow!("bingo: {problem}"))
    }
}

/// The file of the secret generated at the first start, in the data directory.
pub const SECRET_FILE: &str = "bingo-secret";

/// `DATA/bingo-secret`, generated (0600, 32 random bytes as hex) when absent and when no bingo
/// log (`DATA/<store>`) exists yet. Beside an existing log a new secret would change every card
/// it dealt: that is refused, naming where the secret must come from.
fn kept_secret(dir: &Path, store: &str) -> anyhow::Result<PathBuf> {
    let path = dir.join(SECRET_FILE);
    if path.exists() {
        return Ok(path);
    }
    let log = dir.join(store);
    if log.exists() {
        anyhow::bail!(
            "bingo: no secret, and the bingo log {} was written with one: its cards were dealt \
             from that secret, so none is generated now; give the same secret in {SECRET_ENV}, \
             with --bingo-secret-file FILE, or put it back in {}",
            log.display(),
            path.display()
        );
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("bingo: cannot create the data directory {}", dir.display()))?;
    let mut bytes = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut bytes);
    crate::auth::write_private(&path, hex::encode(bytes).as_bytes())
        .with_context(|| format!("bingo: cannot write the secret {}", path.display()))?;
    tracing::warn!(
        path = %path.display(),
        "no bingo secret given: generated one into this file (keep it secret and back it up: \
         the cards of this data directory are dealt from it)"
    );
    Ok(path)
}

/// Starts the bingo service (its read model goes to `hosted`, for the routes), with a binder that binds its queue to the message types its games
/// map.
pub fn start(
    runtime: &Runtime,
    args: &BingoArgs,
    operators: &arcade_contracts::principal::Operators,
    hosted: &mut super::Hosted,
) -> anyhow::Result<Vec<Box<dyn Running>>> {
    let secret = args.secret(runtime.data_dir(), &runtime.instance_name(QUEUE))?;
    // A partition binds the mapped types to its own queue: every partition gets them.
    let (binder, _bound) = Binder::spawn(runtime.bus().clone(), &runtime.instance_name(QUEUE));
    let service = BingoService::new(&secret)
        .with_binder(binder)
        .with_operators(operators.clone());
    let view = service.view();
    let handle = runtime
        .start(service)
        .context("bingo: cannot start the service")?;
    hosted.bingo = Some(view);
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
        assert!(run.bingo.secret(None, QUEUE).is_ok());
        let missing = dir.path().join("absent");
        let run =
            Run::try_parse_from(["run", "--bingo-secret-file", missing.to_str().unwrap()]).unwrap();
        let error = run.bingo.secret(None, QUEUE).unwrap_err().to_string();
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
        assert!(args.secret(None, QUEUE).is_ok());
        assert!(!format!("{args:?}").contains("a-secret-given-in-code"));
    }

    #[test]
    fn a_secret_is_generated_once_into_a_new_data_dir_and_never_beside_an_old_log() {
        if std::env::var_os(SECRET_ENV).is_some() {
            return; // the environment's secret comes first: nothing kept to test
        }
        let dir = tempfile::tempdir().unwrap();
        let args = BingoArgs::default();
        let derive = |s: &Secret| arcade_bingo::domain::Keys::new(s).label("g", 1);
        let first = args.secret(Some(dir.path()), QUEUE).unwrap();
        let path = dir.path().join(SECRET_FILE);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // A restart reads the same secret: the same cards.
        std::fs::create_dir(dir.path().join(QUEUE)).unwrap();
        let again = args.secret(Some(dir.path()), QUEUE).unwrap();
        assert_eq!(derive(&first), derive(&again));
        // A log without its secret: refused, naming the settings, nothing generated.
        std::fs::remove_file(&path).unwrap();
        let error = args
            .secret(Some(dir.path()), QUEUE)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(SECRET_ENV) && error.contains("--bingo-secret-file"),
            "{error}"
        );
        assert!(!path.exists());
    }
}
