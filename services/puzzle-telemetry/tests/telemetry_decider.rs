//! The telemetry decider, given/when/then: given past events, when a session or a tick
//! arrives, then these events — and the state rebuilt from the log equals the live one.

use arcade_contracts::game::{GameSessionCompleted, Outcome};
use arcade_contracts::puzzle::{SessionFlagged, StatsUpdated};
use arcade_contracts::{Catalog, Message};
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::strata::{Puzzle, Stage};
use arcade_puzzle_telemetry::domain::telemetry::{Event, FlagReason, Input, PUBLISH_INTERVAL_MS};
use arcade_puzzle_telemetry::mapping::PuzzleMessage;
use arcade_puzzle_telemetry::service::TelemetryService;
use arcade_runtime::testkit::Scenario;

/// The service's decider, publishing at most every [`PUBLISH_INTERVAL_MS`], given these events.
fn given(events: &[Event]) -> Scenario<TelemetryService> {
    Scenario::given(TelemetryService::new(PUBLISH_INTERVAL_MS), events.to_vec())
}

fn session(seed: i64, stage: u8, outcome: Outcome, turns: u32) -> GameSessionCompleted {
    GameSessionCompleted {
        game_id: format!("g-{seed}-{stage}-{turns}"),
        seed,
        stage,
        outcome,
        turns,
        duration_ms: 30_000,
    }
}

/// The flag of a session, or `None` if it is recorded.
fn verdict(completed: GameSessionCompleted) -> Option<(FlagReason, Option<u8>)> {
    match given(&[])
        .at(1_000)
        .when(Input::Session(completed.into()))
        .events()
        .as_slice()
    {
        [Event::Recorded(_)] => None,
        [Event::Flagged(f)] => Some((f.reason, f.move_limit)),
        other => panic!("one event expected, got {other:?}"),
    }
}

#[test]
fn given_nothing_when_a_valid_session_arrives_then_it_is_recorded_with_its_move_limit() {
    let events = given(&[])
        .at(1_000)
        .when(Input::Session(session(42, 3, Outcome::Won, 6).into()))
        .events();
    let [Event::Recorded(recorded)] = events.as_slice() else {
        panic!("{events:?}")
    };
    assert_eq!(recorded.stage, 3);
    assert_eq!(recorded.move_limit, 6);
    assert_eq!(recorded.recorded_at_ms, 1_000);
    assert_eq!(recorded.game_id, "g-42-3-6");
}

#[test]
fn impossible_sessions_are_flagged_with_the_broken_rule() {
    use FlagReason::*;
    assert_eq!(
        verdict(session(1, 0, Outcome::Won, 2)),
        Some((StageOutOfRange, None))
    );
    assert_eq!(
        verdict(session(1, 6, Outcome::Won, 2)),
        Some((StageOutOfRange, None))
    );
    assert_eq!(
        verdict(session(1, 2, Outcome::Won, 5)),
        Some((TurnsAboveLimit, Some(4)))
    );
    assert_eq!(
        verdict(session(1, 5, Outcome::Abandoned, 11)),
        Some((TurnsAboveLimit, Some(10)))
    );
    assert_eq!(
        verdict(session(1, 4, Outcome::Failed, 7)),
        Some((FailedBeforeBudget, Some(8)))
    );
    assert_eq!(
        verdict(session(1, 4, Outcome::Failed, 0)),
        Some((FailedBeforeBudget, Some(8)))
    );
    assert_eq!(
        verdict(session(1, 3, Outcome::Won, 0)),
        Some((WonWithoutTurn, Some(6)))
    );
    assert_eq!(
        verdict(session(1, 3, Outcome::Abandoned, 6)),
        Some((AbandonedAfterBudget, Some(6)))
    );
}

#[test]
fn consistent_sessions_at_the_edges_are_recorded() {
    assert_eq!(
        verdict(session(1, 3, Outcome::Abandoned, 0)),
        None,
        "opened and left"
    );
    assert_eq!(
        verdict(session(1, 3, Outcome::Abandoned, 5)),
        None,
        "left before the last move"
    );
    assert_eq!(
        verdict(session(1, 3, Outcome::Won, 6)),
        None,
        "won on the last move (the witness)"
    );
    assert_eq!(
        verdict(session(1, 3, Outcome::Failed, 6)),
        None,
        "failed: the whole budget"
    );
    assert_eq!(
        verdict(session(-5, 5, Outcome::Won, 10)),
        None,
        "negative seeds are seeds"
    );
}

#[test]
fn a_one_turn_win_is_recorded_only_on_a_puzzle_that_one_pulse_solves() {
    let stage = Stage::FIRST;
    let solvable = (0..)
        .find(|&s| {
            Puzzle::generate(s, stage)
                .unwrap()
                .start()
                .min_turns_to_win(1)
                == Some(1)
        })
        .unwrap();
    let not = (0..)
        .find(|&s| {
            Puzzle::generate(s, stage)
                .unwrap()
                .start()
                .min_turns_to_win(1)
                .is_none()
        })
        .unwrap();
    assert_eq!(verdict(session(solvable, 1, Outcome::Won, 1)), None);
    assert_eq!(
        verdict(session(not, 1, Outcome::Won, 1)),
        Some((FlagReason::WonFasterThanPossible, Some(2)))
    );
    assert_eq!(
        verdict(session(not, 1, Outcome::Won, 2)),
        None,
        "the witness takes two"
    );
}

#[test]
fn a_flag_is_published_with_its_reason_words_and_the_offending_fields() {
    let events = given(&[])
        .at(9)
        .when(Input::Session(session(77, 5, Outcome::Failed, 14).into()))
        .events();
    let PuzzleMessage::Flagged(flagged) = events[0].to_message() else {
        panic!("{events:?}")
    };
    assert_eq!(
        flagged,
        SessionFlagged {
            game_id: "g-77-5-14".into(),
            reason: arcade_contracts::puzzle::FlagReason::TurnsAboveLimit,
            detail: "14 turns, above the move limit of 10 for seed 77 at stage 5".into(),
            seed: 77,
            stage: 5,
            outcome: Outcome::Failed,
            turns: 14,
            duration_ms: 30_000,
            move_limit: Some(10),
            flagged_at_ms: 9,
            move_index: None,
            move_cell: None,
            source_version: 1,
        }
    );
}

#[test]
fn given_sessions_then_statistics_count_them_per_stage_and_keep_flags_out() {
    let inputs = [
        session(1, 2, Outcome::Won, 4),
        session(2, 2, Outcome::Won, 3),
        session(3, 2, Outcome::Failed, 4),
        session(4, 2, Outcome::Abandoned, 0),
        session(5, 2, Outcome::Failed, 1),
        session(6, 9, Outcome::Won, 1),
    ];
    let mut telemetry = given(&[]).at(100);
    for (n, input) in inputs.into_iter().enumerate() {
        let mut input = input;
        input.duration_ms = 10_000 * (n as u64 + 1);
        telemetry.run(Input::Session(input.into()));
    }
    let stats = telemetry.state().snapshot(500);
    assert_eq!((stats.sessions, stats.flagged), (4, 2));
    let two = &stats.stages[1];
    assert_eq!(
        (
            two.sessions,
            two.won,
            two.failed,
            two.abandoned,
            two.flagged
        ),
        (4, 2, 1, 1, 1)
    );
    assert_eq!(two.win_rate, Some(0.5));
    assert_eq!(two.turns_histogram, vec![1, 0, 0, 1, 2]);
    assert_eq!(two.mean_turns, Some(11.0 / 4.0));
    assert_eq!(two.mean_turns_won, Some(3.5));
    assert_eq!(two.budget_use, Some(11.0 / 16.0));
    assert_eq!(two.exhausted_budget, 2);
    assert_eq!(two.duration.max_ms, Some(40_000));
    assert_eq!(two.duration.mean_ms, Some(25_000));
    let p50 = two.duration.p50_ms.unwrap() as f64;
    assert!((p50 - 20_000.0).abs() <= 20_000.0 / 32.0, "p50 {p50}");
    assert_eq!(two.duration.buckets.iter().map(|b| b.count).sum::<u64>(), 4);
    let one = &stats.stages[0];
    assert_eq!(
        (one.sessions, one.win_rate, one.duration.p50_ms),
        (0, None, None)
    );
    assert_eq!(one.turns_histogram, vec![0, 0, 0]);
}

#[test]
fn given_no_new_session_when_ticked_then_nothing_is_published() {
    assert_eq!(given(&[]).next_deadline(), None);
    assert!(given(&[]).at(50_000).when(Input::Tick).events().is_empty());
}

#[test]
fn statistics_are_published_at_most_once_per_interval_and_only_when_new() {
    let mut telemetry = given(&[]).at(1_000);
    telemetry.run(Input::Session(session(1, 1, Outcome::Won, 2).into()));
    assert_eq!(
        telemetry.next_deadline(),
        Some(1_000),
        "first one right away"
    );
    let published = telemetry.when(Input::Tick).events();
    telemetry.apply(published.clone());
    let [Event::StatsPublished(stats)] = published.as_slice() else {
        panic!("{published:?}")
    };
    assert_eq!((stats.published_at_ms, stats.sessions), (1_000, 1));

    assert_eq!(telemetry.next_deadline(), None);
    telemetry.set_now(2_000);
    telemetry.run(Input::Session(session(2, 1, Outcome::Won, 2).into()));
    telemetry.set_now(2_500);
    telemetry.run(Input::Session(session(3, 1, Outcome::Won, 2).into()));
    assert_eq!(telemetry.next_deadline(), Some(1_000 + PUBLISH_INTERVAL_MS));
    telemetry.set_now(5_999);
    assert!(telemetry.when(Input::Tick).events().is_empty());
    telemetry.set_now(6_000);
    let published = telemetry.when(Input::Tick).events();
    let [Event::StatsPublished(stats)] = published.as_slice() else {
        panic!("{published:?}")
    };
    assert_eq!((stats.published_at_ms, stats.sessions), (6_000, 3));
}

/// Every event through its contract JSON and back, as the runtime's log would replay it.
fn through_the_log(events: &[Event]) -> Vec<Event> {
    let catalog = Catalog::new();
    events
        .iter()
        .map(|event| {
            let message = event.to_message();
            let json = serde_json::to_string(&message.payload().unwrap()).unwrap();
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            catalog
                .validate(message.message_type(), &value)
                .unwrap_or_else(|e| panic!("{e}"));
            Event::from(PuzzleMessage::decode(message.message_type(), &value).unwrap())
        })
        .collect()
}

#[test]
fn given_a_log_of_simulated_and_forged_sessions_then_replay_rebuilds_the_same_statistics() {
    let mut simulator = Simulator::new(2026);
    let mut telemetry = given(&[]);
    for n in 0..1_500u64 {
        let mut completed = simulator.session(None);
        if n % 50 == 0 {
            completed.turns += 20; // a forged session
        }
        telemetry.set_now(1_000 + n * 97);
        for input in [Input::Session(completed.into()), Input::Tick] {
            telemetry.run(input);
        }
    }
    let (replayed, state) = (
        given(&through_the_log(telemetry.history())),
        telemetry.state(),
    );
    assert_eq!(replayed.state(), state);
    assert_eq!(replayed.state().snapshot(7), state.snapshot(7));
    assert_eq!(state.stats().flagged(), 30);
    assert_eq!(state.stats().sessions(), 1_470);
    let published = telemetry
        .history()
        .iter()
        .filter(|e| matches!(e, Event::StatsPublished(_)))
        .count();
    assert!(
        (25..=35).contains(&published),
        "{published} publications over ~145 s"
    );
}

#[test]
fn a_php_producer_payload_with_only_a_type_header_decodes_and_is_recorded() {
    let body = r#"{"gameId":"php-8c1f","seed":421337,"stage":3,"outcome":"won","turns":6,"durationMs":48250,"producer":"symfony"}"#;
    let value: serde_json::Value = serde_json::from_str(body).unwrap();
    Catalog::new()
        .validate(GameSessionCompleted::TYPE, &value)
        .unwrap();
    let completed: GameSessionCompleted = serde_json::from_value(value).unwrap();
    let events = given(&[])
        .at(3)
        .when(Input::Session(completed.into()))
        .events();
    assert!(matches!(events.as_slice(), [Event::Recorded(r)] if r.game_id == "php-8c1f"));
}

#[test]
fn the_published_statistics_match_their_schema() {
    let stats: StatsUpdated = given(&[]).state().snapshot(1);
    let value = serde_json::to_value(&stats).unwrap();
    Catalog::new().validate(StatsUpdated::TYPE, &value).unwrap();
    assert_eq!(
        stats
            .stages
            .iter()
            .map(|s| s.move_limit)
            .collect::<Vec<_>>(),
        [2, 4, 6, 8, 10]
    );
}
