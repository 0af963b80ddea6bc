//! The window of `gameId`s, given/when/then: a session resent within the window counts once;
//! resent after it (once sessions that much newer have come) counts again; and over a long
//! stream the set holds one window of sessions, not the history.

use arcade_contracts::game::SessionCompletion;
use arcade_puzzle_telemetry::domain::bot::Simulator;
use arcade_puzzle_telemetry::domain::telemetry::{
    Event, Input, PuzzleTelemetry, SESSION_WINDOW_MS, TelemetryState,
};

const HOUR: u64 = 3_600_000;
const DAY: u64 = 24 * HOUR;

/// Decides `input` at `now_ms` as the host does (a repeat is absorbed, nothing decided) and
/// folds what it gives into `state`.
fn handle(state: &mut TelemetryState, input: Input, now_ms: u64) -> Vec<Event> {
    if PuzzleTelemetry::is_repeat(state, &input) {
        return Vec::new();
    }
    let Ok(events) = PuzzleTelemetry::default().decide(state, &input, now_ms);
    for event in &events {
        PuzzleTelemetry::evolve(state, event);
    }
    events
}

fn counted(state: &TelemetryState) -> u64 {
    state.stats().sessions() + state.stats().flagged()
}

fn session(simulator: &mut Simulator) -> SessionCompletion {
    simulator.session(None).into()
}

#[test]
fn the_default_window_is_seven_days() {
    assert_eq!(SESSION_WINDOW_MS, 7 * DAY);
    assert_eq!(
        TelemetryState::default().sessions().window_ms(),
        SESSION_WINDOW_MS
    );
}

#[test]
fn given_a_session_when_it_is_resent_within_the_window_then_it_counts_once() {
    let mut simulator = Simulator::new(5);
    let mut state = TelemetryState::default();
    let first = session(&mut simulator);
    let id = first.game_id.clone();
    assert_eq!(
        handle(&mut state, Input::Session(first.clone()), DAY).len(),
        1
    );
    // Other sessions keep coming for almost a week; the resend is still a repeat.
    for hour in 1..(7 * 24) {
        handle(
            &mut state,
            Input::Session(session(&mut simulator)),
            DAY + hour * HOUR,
        );
    }
    let before = counted(&state);
    let resent = Input::Session(first.clone());
    assert!(PuzzleTelemetry::is_repeat(&state, &resent));
    assert!(handle(&mut state, resent, 8 * DAY - 1).is_empty());
    // In another version too: the identity is the gameId.
    let mut v2 = first;
    v2.version = 2;
    assert!(handle(&mut state, Input::Session(v2), 8 * DAY - 1).is_empty());
    assert_eq!(counted(&state), before);
    assert!(state.has_session(&id));
}

#[test]
fn given_a_session_when_it_is_resent_after_the_window_then_it_counts_again() {
    let window = 2 * HOUR;
    let mut simulator = Simulator::new(6);
    let mut state = TelemetryState::with_session_window(window);
    let first = session(&mut simulator);
    handle(&mut state, Input::Session(first.clone()), 10 * HOUR);
    // Sessions counted more than the window (plus one bucket, a 64th of it) later.
    handle(
        &mut state,
        Input::Session(session(&mut simulator)),
        11 * HOUR,
    );
    assert!(state.has_session(&first.game_id), "within the window");
    handle(
        &mut state,
        Input::Session(session(&mut simulator)),
        12 * HOUR + window / 64 + 1,
    );
    assert!(!state.has_session(&first.game_id), "forgotten after it");
    let again = Input::Session(first.clone());
    assert!(!PuzzleTelemetry::is_repeat(&state, &again));
    let events = handle(&mut state, again, 12 * HOUR + window / 64 + 2);
    assert!(
        matches!(events.as_slice(),
            [Event::Recorded(r)] if r.game_id == first.game_id)
            || matches!(events.as_slice(),
            [Event::Flagged(f)] if f.game_id == first.game_id),
        "{events:?}"
    );
    assert_eq!(counted(&state), 4);
    // And it is remembered again from then on.
    assert!(
        handle(
            &mut state,
            Input::Session(first),
            12 * HOUR + window / 64 + 3
        )
        .is_empty()
    );
}

#[test]
fn over_a_long_stream_the_set_holds_one_window_of_sessions() {
    // 60,000 sessions, one a minute (about 42 days), with a one-day window: the set holds one
    // day of sessions (1,440, plus at most one bucket of 22) whatever the history's length.
    let mut simulator = Simulator::new(7);
    let mut state = TelemetryState::with_session_window(DAY);
    let per_window = 1_440usize;
    let mut largest = 0;
    for minute in 0..60_000u64 {
        handle(
            &mut state,
            Input::Session(session(&mut simulator)),
            1_700_000_000_000 + minute * 60_000,
        );
        largest = largest.max(state.sessions().len());
        if minute == 1_000 {
            assert_eq!(state.sessions().len(), 1_001, "nothing forgotten yet");
        }
    }
    assert_eq!(counted(&state), 60_000);
    assert!(
        (per_window..=per_window + per_window / 64 + 2).contains(&largest),
        "{largest} gameIds held"
    );
    assert!(state.sessions().len() >= per_window);
}
