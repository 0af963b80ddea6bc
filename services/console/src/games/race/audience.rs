//! Who looks at the race, and what each may see. The console is an analytics consumer: it
//! gets every race fact, every team's money and points included. The rule book lets a team
//! know only its own while the race runs (the standings come at the end, or through hints),
//! so the public pages (`/race`, `/race/turns/{turn}`: the TV, the players' phones) show no
//! team's points or money before `race.finished.v1`: no standings, no turn's leader, no
//! achievement (each says its points and money). The operator's token shows everything; a
//! team's own page (`/race/teams/{team}`) shows the team its own.

use axum::http::HeaderMap;
use serde_json::{Value, json};

use super::state::Status;
use crate::web::Web;

/// Who asks for a race page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// Anyone: no team's points or money before the finish.
    Public,
    /// The operator (its token): everything.
    Operator,
}

impl Audience {
    /// The operator when the request carries the operator's token, else the public (a page
    /// asked without a token, or with a team's or a player's, is the public's).
    pub fn of(web: &Web, headers: &HeaderMap) -> Audience {
        if headers.contains_key(axum::http::header::AUTHORIZATION)
            && web.gate.operator(headers).is_ok()
        {
            Audience::Operator
        } else {
            Audience::Public
        }
    }

    /// Its name, for the live feed its pages' clients share (`""`: the public's).
    pub fn name(self) -> &'static str {
        match self {
            Audience::Public => "",
            Audience::Operator => "operator",
        }
    }

    /// Whether this audience sees the teams' accounts (points, money) of a race at `status`.
    pub fn sees_accounts(self, status: Status) -> bool {
        self == Audience::Operator || status == Status::Finished
    }
}

/// `/race`'s view without any team's points or money: the standings empty, no turn's leader,
/// no achievement (listed or in the turn's story). `accountsHidden` says so to the page.
pub fn hide_accounts(view: &mut Value) {
    view["standings"] = json!([]);
    view["achievements"] = json!([]);
    view["accountsHidden"] = Value::Bool(true);
    if let Some(turns) = view["turns"].as_array_mut() {
        for turn in turns {
            turn["leader"] = Value::Null;
        }
    }
    hide_in_turn(&mut view["current"]);
}

/// A turn's story (a serialized `Turn`, or null) without the standings after it and without
/// its achievement lines.
pub fn hide_in_turn(turn: &mut Value) {
    if !turn.is_object() {
        return;
    }
    turn["standings"] = Value::Null;
    if let Some(lines) = turn["lines"].as_array_mut() {
        lines.retain(|line| line["kind"] != "achievement");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_sees_accounts_only_once_the_race_is_over() {
        for status in [Status::Registration, Status::Running] {
            assert!(!Audience::Public.sees_accounts(status));
            assert!(Audience::Operator.sees_accounts(status));
        }
        assert!(Audience::Public.sees_accounts(Status::Finished));
    }

    #[test]
    fn hidden_accounts_leave_the_track_and_drop_points_and_money() {
        let mut view = json!({
            "standings": [{"team": "red", "points": 3, "budget": 80}],
            "achievements": [{"title": "Mad Max", "text": "red-1 earned it (+1 point(s), +$1)"}],
            "turns": [{"turn": 1, "leader": {"team": "red", "points": 3}}],
            "current": {"turn": 2, "standings": [{"team": "red"}], "lines": [
                {"kind": "move", "text": "red-1 moved"},
                {"kind": "achievement", "text": "red-1 earned “Mad Max” (+1 point(s), +$1)"}
            ]},
            "cars": [{"car": "red-1", "square": 4}],
        });
        hide_accounts(&mut view);
        let text = view.to_string();
        assert!(!text.contains("points") && !text.contains("budget") && !text.contains('$'));
        assert_eq!(view["cars"][0]["square"], 4, "the track stays public");
        assert_eq!(view["current"]["lines"].as_array().unwrap().len(), 1);
        assert_eq!(view["accountsHidden"], true);
    }
}
