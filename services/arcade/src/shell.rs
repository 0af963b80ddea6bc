//! `arcade completions SHELL` (clap_complete) and `arcade man [--dir DIR]` (clap_mangen): both
//! generated from the command line's own definition, so they never drift from it.

use std::io::Write;
use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, ManArgs};

/// Prints the completion script of `shell` on standard output.
pub fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    // Generated in memory: clap_complete panics on a write error, and a closed stdout is
    // the reader's choice (see `pipe`).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "arcade", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the manual page, or writes every page into a directory.
pub fn man(args: &ManArgs) -> anyhow::Result<ExitCode> {
    let command = Cli::command();
    match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("--dir {}: cannot create it: {e}", dir.display()))?;
            clap_mangen::generate_to(command, dir)
                .map_err(|e| anyhow::anyhow!("--dir {}: {e}", dir.display()))?;
        }
        None => {
            let mut out = std::io::stdout().lock();
            clap_mangen::Man::new(command).render(&mut out)?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
