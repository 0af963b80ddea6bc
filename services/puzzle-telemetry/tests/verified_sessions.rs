//! Verified sessions, given/when/then: a `game.session.completed.v2` lists its moves, which are
//! replayed through the puzzle's public pulse rule. Honest sessions are recorded as verified;
//! each way a session can lie is flagged with the first move that disagrees; a session is its
//! `gameId`, whichever version it comes in; the statistics count verified sessions and the
//! share of each version per stage.

use arcade_contracts::Message;
use arcade_contracts::game::{
    GameSessionCompleted, GameSessionCompletedV2, Outcome, Pulse, SessionCompletion,
};
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::strata::{Cell, Puzzle, Stage};
use arcade_puzzle_telemetry::domain::telemetry::{
    Event, FlagReason, Input, MoveAt, PuzzleTelemetry, TelemetryState,
};
use arcade_puzzle_telemetry::mapping::PuzzleMessage;

fn given(events: &[Event]) -> TelemetryState {
    let mut state = TelemetryState::default();
    for event in events {
        PuzzleTelemetry::evolve(&mut state, event);
    }
    state
}

fn when(state: &TelemetryState, input: Input) -> Vec<Event> {
    let Ok(events) = PuzzleTelemetry::default().decide(state, &input, 1_000);
    events
}

fn pulses(cells: &[Cell]) -> Vec<Pulse> {
    cells.iter().map(|c| Pulse([c.x, c.y])).collect()
}

fn v2(seed: i64, stage: u8, outcome: Outcome, moves: &[Cell]) -> GameSessionCompletedV2 {
    GameSessionCompletedV2 {
        game_id: format!("v2-{seed}-{stage}-{}", moves.len()),
        seed,
        stage,
        outcome,
        turns: moves.len() as u32,
        duration_ms: 20_000,
        moves: pulses(moves),
        producer_version: "test 1".into(),
    }
}

fn puzzle(seed: i64, stage: u8) -> Puzzle {
    Puzzle::generate(seed, Stage::new(stage.into()).unwrap()).unwrap()
}

fn witness(seed: i64, stage: u8) -> Vec<Cell> {
    puzzle(seed, stage).witness().collect()
}

/// The flag of a session (reason and move named), or `None` when it is recorded verified.
fn verdict(session: GameSessionCompletedV2) -> Option<(FlagReason, Option<MoveAt>)> {
    match when(&TelemetryState::default(), Input::Session(session.into())).as_slice() {
        [Event::Recorded(r)] => {
            assert!(r.verified, "a recorded v2 session is verified");
            assert_eq!(r.source_version, 2);
            None
        }
        [Event::Flagged(f)] => Some((f.reason, at_move(f))),
        other => panic!("one event expected, got {other:?}"),
    }
}

/// The move a flag names, from its index and cell.
fn at_move(f: &arcade_contracts::puzzle::SessionFlagged) -> Option<MoveAt> {
    let (index, [x, y]) = (f.move_index?, f.move_cell?.0);
    at(index, Cell::new(x, y))
}

fn at(index: u8, cell: Cell) -> Option<MoveAt> {
    Some(MoveAt { index, cell })
}

#[test]
fn honest_v2_sessions_of_every_outcome_are_recorded_verified() {
    let mut simulator = Simulator::new(404);
    let mut outcomes = std::collections::HashSet::new();
    for _ in 0..3_000 {
        let session = simulator.play(None).v2("sim 1");
        outcomes.insert(session.outcome);
        assert_eq!(verdict(session.clone()), None, "{session:?}");
    }
    assert_eq!(
        outcomes.len(),
        3,
        "won, failed and abandoned sessions were all checked"
    );
}

#[test]
fn the_witness_wins_and_is_verified() {
    for stage in 1..=5 {
        assert_eq!(
            verdict(v2(7, stage, Outcome::Won, &witness(7, stage))),
            None
        );
    }
}

#[test]
fn a_move_count_that_is_not_turns_is_flagged() {
    let mut session = v2(7, 3, Outcome::Won, &witness(7, 3));
    session.turns += 1;
    assert_eq!(verdict(session), Some((FlagReason::MovesNotTurns, None)));
}

#[test]
fn a_pulse_on_an_anchor_is_flagged_at_that_move() {
    let mut moves = witness(7, 3);
    let source = puzzle(7, 3).start().source();
    moves[2] = source;
    assert_eq!(
        verdict(v2(7, 3, Outcome::Won, &moves)),
        Some((FlagReason::MoveOnImmutable, at(3, source)))
    );
}

#[test]
fn a_pulse_after_the_win_is_flagged_at_that_move() {
    // Stage 2's witness wins at its fourth and last pulse; a fifth is after the end.
    let mut moves = witness(11, 2)[..].to_vec();
    let extra = moves[0];
    moves.push(extra);
    assert_eq!(
        verdict(v2(11, 2, Outcome::Won, &moves)),
        Some((FlagReason::MoveAfterEnd, at(5, extra)))
    );
}

#[test]
fn a_won_whose_moves_do_not_charge_the_target_is_flagged_at_its_last_move() {
    let moves = &witness(7, 3)[..5];
    assert_eq!(
        verdict(v2(7, 3, Outcome::Won, moves)),
        Some((FlagReason::MovesDisagree, at(5, moves[4])))
    );
}

#[test]
fn a_failed_or_abandoned_whose_moves_win_is_flagged_at_the_winning_move() {
    let moves = witness(7, 2);
    for outcome in [Outcome::Failed, Outcome::Abandoned] {
        assert_eq!(
            verdict(v2(7, 2, outcome, &moves)),
            Some((FlagReason::MovesDisagree, at(4, moves[3]))),
            "{outcome:?}"
        );
    }
}

#[test]
fn a_failed_with_moves_left_is_flagged_before_budget() {
    let moves = &witness(7, 2)[..1];
    assert_eq!(
        verdict(v2(7, 2, Outcome::Failed, moves)),
        Some((FlagReason::FailedBeforeBudget, None))
    );
}

#[test]
fn a_flag_names_the_move_on_the_wire_and_survives_the_log() {
    let mut moves = witness(7, 3);
    let source = puzzle(7, 3).start().source();
    moves[0] = source;
    let events = when(
        &TelemetryState::default(),
        Input::Session(v2(7, 3, Outcome::Won, &moves).into()),
    );
    let message = events[0].to_message();
    let PuzzleMessage::Flagged(flagged) = &message else {
        panic!("{events:?}")
    };
    assert_eq!(
        flagged.reason,
        arcade_contracts::puzzle::FlagReason::MoveOnImmutable
    );
    assert_eq!(flagged.move_index, Some(1));
    assert_eq!(flagged.move_cell, Some(Pulse([source.x, source.y])));
    assert_eq!(flagged.source_version, 2);
    assert!(
        flagged
            .detail
            .starts_with(&format!("move 1 ({}, {}) pulses stone", source.x, source.y)),
        "{}",
        flagged.detail
    );
    let back = PuzzleMessage::decode(message.message_type(), &message.payload().unwrap())
        .map(Event::from)
        .unwrap();
    assert_eq!(back, events[0]);
}

#[test]
fn a_session_is_its_game_id_across_versions_and_resends() {
    let session = Simulator::new(5).play(Some(Stage::new(3).unwrap()));
    let v1: SessionCompletion = session.v1.clone().into();
    let v2: SessionCompletion = session.v2("sim 1").into();
    let first = when(&TelemetryState::default(), Input::Session(v1.clone()));
    assert_eq!(first.len(), 1);
    let state = given(&first);
    for repeat in [v1, v2] {
        let input = Input::Session(repeat);
        assert!(PuzzleTelemetry::is_repeat(&state, &input));
        assert_eq!(when(&state, input), Vec::new());
    }
    let other = Simulator::new(6).play(None).v1;
    assert!(!PuzzleTelemetry::is_repeat(
        &state,
        &Input::Session(other.into())
    ));
}

#[test]
fn statistics_count_verified_sessions_and_the_share_of_each_version_per_stage() {
    let stage = Stage::new(2).unwrap();
    let mut simulator = Simulator::new(77);
    let mut events = Vec::new();
    for i in 0..40 {
        let played = simulator.play(Some(stage));
        let input: SessionCompletion = if i % 4 == 0 {
            played.v1.into()
        } else {
            played.v2("sim 1").into()
        };
        events.extend(when(&given(&events), Input::Session(input)));
    }
    let mut tampered = v2(7, 2, Outcome::Failed, &witness(7, 2));
    tampered.game_id = "tampered".into();
    events.extend(when(&given(&events), Input::Session(tampered.into())));
    let stats = given(&events).snapshot(5);
    let s = &stats.stages[1];
    assert_eq!(s.sessions, 40);
    assert_eq!(s.flagged, 1);
    assert_eq!(s.v1_sessions, 10);
    assert_eq!(s.v2_sessions, 31);
    assert_eq!(s.verified, 30);
    assert_eq!(s.v2_share, Some(31.0 / 41.0));
    assert_eq!(stats.stages[0].v2_share, None);
}

#[test]
fn the_committed_v2_example_is_a_real_session_its_moves_win() {
    let example = GameSessionCompletedV2::example();
    let cells: Vec<Cell> = example
        .moves
        .iter()
        .map(|Pulse([x, y])| Cell::new(*x, *y))
        .collect();
    assert_eq!(
        verdict(example.clone()),
        None,
        "the example must replay; the witness of seed {} stage {} is {:?}",
        example.seed,
        example.stage,
        witness(example.seed, example.stage)
    );
    assert_eq!(cells.len() as u32, example.turns);
    assert_ne!(
        GameSessionCompleted::example().game_id,
        example.game_id,
        "the two examples are two sessions, so they carry two gameIds"
    );
}
