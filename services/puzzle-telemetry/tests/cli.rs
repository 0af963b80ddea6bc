//! `arcade puzzle generate` (exact lines, exit codes) and the statistics table.

use arcade_contracts::Message;
use arcade_contracts::puzzle::StatsUpdated;
use arcade_puzzle_telemetry::cli::{self, Command, EXIT_OK, EXIT_USAGE, render_stats_table};
use clap::Parser;

#[derive(Parser)]
struct Puzzle {
    #[command(subcommand)]
    command: Command,
}

fn parse(args: &[&str]) -> Result<Command, clap::Error> {
    Puzzle::try_parse_from(std::iter::once("puzzle").chain(args.iter().copied())).map(|p| p.command)
}

fn run(command: Command) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli::run(command, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn generate_prints_one_json_line_per_seed_with_the_keys_in_order() {
    let (code, out, err) = run(parse(&["generate", "--stage", "3", "--seeds", "42..44"]).unwrap());
    assert_eq!((code, err.as_str()), (EXIT_OK, ""));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        concat!(
            r#"{"seed":42,"stage":3,"levels":[2,0,0,2,1,1,2,2,1,0,2,0,2,2,0,0,2,0,2,1,2,2,2,2,2],"#,
            r#""immutable":[false,false,false,false,false,true,false,false,false,false,false,false,false,false,true,false,false,false,false,true,true,false,false,false,false],"#,
            r#""source":[0,1],"target":[4,3],"movesLeft":6,"witness":[[2,1],[2,1],[4,1],[4,1],[3,2],[3,2]]}"#
        )
    );
    assert!(lines[1].starts_with(r#"{"seed":43,"stage":3,"levels":["#));
}

#[test]
fn generate_takes_inclusive_ranges_single_seeds_and_negative_seeds() {
    let count = |seeds: &str| {
        let (code, out, _) = run(parse(&["generate", "--stage", "1", "--seeds", seeds]).unwrap());
        assert_eq!(code, EXIT_OK);
        out.lines().count()
    };
    assert_eq!(count("0..=4"), 5);
    assert_eq!(count("7"), 1);
    assert_eq!(count("-3..-1"), 2);
}

#[test]
fn generate_refuses_a_stage_out_of_range_and_an_empty_range() {
    let err = parse(&["generate", "--stage", "6", "--seeds", "1..3"])
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("--stage"), "{err}");
    let err = parse(&["generate", "--stage", "2", "--seeds", "5..5"])
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("the seed range 5..5 is empty"), "{err}");
    let command = Command::Generate {
        stage: 0,
        seeds: "1".parse().unwrap(),
    };
    let (code, out, err) = run(command);
    assert_eq!((code, out.as_str()), (EXIT_USAGE, ""));
    assert_eq!(
        err,
        "arcade puzzle generate: --stage: stage 0 does not exist; stages are 1 to 5\n"
    );
}

#[test]
fn the_statistics_table_has_a_row_per_stage_a_total_and_the_turns_histograms() {
    let table = render_stats_table(&StatsUpdated::example());
    let expected = "\
stage  limit  sessions  won  failed  abandoned  flagged  verified     v2  win rate  turns  won in  budget    p50     p90     p99
    1      2        12    9       1          2        0         6  50.0%     75.0%   1.67    2.00   83.3%  12.0s   20.0s   31.0s
    2      4        10    7       2          1        0         5  50.0%     70.0%   3.60    4.00   90.0%  24.0s   40.0s   62.0s
    3      6         8    4       3          1        0         4  50.0%     50.0%   5.25    6.00   87.5%  36.0s   60.0s   93.0s
    4      8         6    2       3          1        0         3  50.0%     33.3%   6.67    8.00   83.3%  48.0s   80.0s  124.0s
    5     10         4    1       2          1        0         2  50.0%     25.0%   7.50   10.00   75.0%  60.0s  100.0s  155.0s
  all               40   23      11          6        1        20  50.0%     57.5%

turns played (sessions with 0, 1, 2 … turns, up to the move limit)
  stage 1: 2 0 10
  stage 2: 1 0 0 0 9
  stage 3: 1 0 0 0 0 0 7
  stage 4: 1 0 0 0 0 0 0 0 5
  stage 5: 1 0 0 0 0 0 0 0 0 0 3
";
    assert_eq!(table, expected);
}

#[test]
fn an_empty_statistics_table_shows_dashes() {
    let mut stats = StatsUpdated::example();
    for s in &mut stats.stages {
        s.win_rate = None;
        s.duration.p50_ms = None;
    }
    let table = render_stats_table(&stats);
    let row = table.lines().nth(1).unwrap();
    assert!(row.contains("  -  "), "{row}");
}
