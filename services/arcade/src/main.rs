//! The `arcade` binary: parse the command line, start telemetry, run the command.

mod admin;
mod auth;
#[cfg(test)]
mod bingo_trust_tests;
mod cli;
mod client;
mod connection;
mod dead;
mod demo;
mod exit;
mod hosted;
mod json_error;
mod observe;
mod oplog;
mod pipe;
mod reply;
mod run;
mod serve;
mod shell;
mod tools;
mod traced;
#[cfg(test)]
mod trust_tests;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

/// mimalloc, for the many short-lived allocations of the durable paths (envelopes, sled's page
/// copies); the pipeline bench (`cargo bench -p arcade-runtime --bench pipeline`) runs with it
/// too, so that it measures what this binary runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    pipe::exit_quietly_on_closed_stdout();
    let cli = Cli::parse();
    arcade_runtime::app::block_on(
        &mut tokio::runtime::Builder::new_multi_thread(),
        async move {
            run(cli).await.or_else(|error| {
                // The reader closed stdout (`| head`): it has what it wanted.
                if pipe::is_broken_pipe(&error) {
                    Ok::<_, anyhow::Error>(ExitCode::SUCCESS)
                } else {
                    // One exit code per cause (`exit`), the cause chain on one line.
                    Ok(exit::print(
                        exit::code_of(&error),
                        format_args!("{error:#}"),
                    ))
                }
            })
        },
    )
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // One service name per process: the hosted service's, else `arcade` (spans then say which
    // service in `arcade.service`); OTEL_SERVICE_NAME wins. Tools that print to stdout keep
    // logs quiet unless RUST_LOG asks for them; spans are exported either way.
    let config = match &cli.command {
        Command::Run(args) => {
            arcade_runtime::telemetry::TelemetryConfig::from_env(&run::process_name(args))?
        }
        _ => arcade_runtime::telemetry::TelemetryConfig::from_env("arcade")?.quiet(),
    };
    let _telemetry = arcade_runtime::telemetry::init_with(cli.logs.apply(config))?;
    match cli.command {
        Command::Run(args) => run::run(*args).await,
        Command::Tap(args) => client::tap(args).await,
        Command::Send(args) => client::send(args).await,
        Command::Demo(args) => demo::run(args).await,
        Command::Types(args) => client::types(args),
        Command::Car(args) => tools::car::run(args).await,
        Command::Referee(command) => tools::referee::run(command).await,
        Command::Bingo(command) => tools::bingo::run(command).await,
        Command::Race(cli::RaceCommand::Master(command)) => Ok(pipe::tool(|out, err| {
            arcade_race_master::cli::run(command, out, err)
        })),
        Command::Race(cli::RaceCommand::Team(command)) => tools::principals::team(command).await,
        Command::Puzzle(command) => tools::puzzle::run(command).await,
        Command::Completions(args) => shell::completions(&args),
        Command::Man(args) => shell::man(&args),
        Command::Schemas(command) => Ok(tools::schemas::run(command)),
        Command::Dead(command) => dead::run(command).await,
        Command::Log(args) => oplog::run(args).await,
        Command::Docs(args) => tools::reference::run(&args),
    }
}
