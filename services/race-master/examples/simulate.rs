//! `cargo run -p arcade-race-master --example simulate -- --seed 1 --teams 8 --cars 5 --turns 200
//! --events race.jsonl`: the `arcade race simulate` command before it is mounted in `arcade`.

use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: arcade_race_master::cli::Command,
}

fn main() -> std::process::ExitCode {
    let args = std::env::args()
        .take(1)
        .chain(std::iter::once("simulate".to_string()))
        .chain(std::env::args().skip(1));
    let cli = Cli::parse_from(args);
    let code =
        arcade_race_master::cli::run(cli.command, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::ExitCode::from(code)
}
