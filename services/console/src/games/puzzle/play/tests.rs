//! The bound on games in progress: a new board never takes the place of a game being played.

use super::*;

fn start(id: &str) -> PlayCommand {
    PlayCommand::Start {
        request: format!("request-{id}"),
        game_id: id.to_string(),
        seed: 7,
        stage: 1,
    }
}

/// Decides and applies `command` at `now_ms`.
fn play(plays: &mut Plays, command: &PlayCommand, now_ms: u64) -> Result<(), PlayRefused> {
    for record in plays.decide(command, now_ms)? {
        plays.apply(&record);
    }
    Ok(())
}

/// A playable cell of game `id` (not stone, not an anchor).
fn pulse(plays: &Plays, id: &str) -> PlayCommand {
    let state = plays.get(id).unwrap().state().unwrap();
    let immutable = state.immutable_cells();
    let cell = (0..5u8)
        .flat_map(|y| (0..5u8).map(move |x| Cell::new(x, y)))
        .find(|cell| !immutable.contains(*cell))
        .unwrap();
    PlayCommand::Pulse {
        request: format!("pulse-{id}"),
        game_id: id.to_string(),
        x: i64::from(cell.x),
        y: i64::from(cell.y),
    }
}

#[test]
fn a_full_console_refuses_new_boards_and_replaces_only_an_abandoned_one() {
    let mut plays = Plays::default();
    for n in 0..MAX_PLAYING {
        play(&mut plays, &start(&format!("g{n}")), 1_000).unwrap();
    }
    // Every game is being played: the next board is refused, none is dropped.
    let refused = play(&mut plays, &start("late"), 2_000).unwrap_err();
    assert_eq!(refused, PlayRefused::Full(MAX_PLAYING));
    assert_eq!(refused.code(), "full");
    assert_eq!(plays.len(), MAX_PLAYING);
    // Half an hour later every game but g0 (pulsed meanwhile) is abandoned: the new board
    // takes the place of the one left longest, never g0.
    let later = 1_000 + ABANDONED_MS;
    let g0 = pulse(&plays, "g0");
    play(&mut plays, &g0, later - 1).unwrap();
    play(&mut plays, &start("late"), later).unwrap();
    assert!(plays.get("late").is_some() && plays.get("g0").is_some());
    assert!(
        plays.get("g1").is_none(),
        "the first abandoned one made room"
    );
    assert_eq!(plays.len(), MAX_PLAYING);
}

#[test]
fn a_log_written_before_the_rule_still_drops_the_oldest_beyond_the_cap() {
    let mut plays = Plays::default();
    for n in 0..=MAX_PLAYING {
        let record = record(
            STARTED,
            &format!("r{n}"),
            1,
            json!({"requestId": format!("r{n}"), "gameId": format!("g{n}"), "seed": 7, "stage": 1, "atMs": 1}),
        );
        plays.apply(&record);
    }
    assert_eq!(plays.len(), MAX_PLAYING);
    assert!(plays.get("g0").is_none() && plays.get("g1").is_some());
}
