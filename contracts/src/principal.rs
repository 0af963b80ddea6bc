//! Principals: the names a transport vouches for in [`crate::Envelope::sender`]. The admin
//! endpoint of `arcade run` stamps the bearer token's principal; on RabbitMQ it is the
//! broker-validated AMQP `user_id` (the connection's user).
//!
//! | principal              | who                              |
//! |------------------------|----------------------------------|
//! | `operator`             | the operator's admin token       |
//! | `arcade-admin`         | the operator's RabbitMQ user     |
//! | `console`              | the console's RabbitMQ user: it acts for the operator or a player only after checking their token |
//! | `race-team-<team>`     | a race team (its secret / user)  |
//! | `bingo-player-<name>`  | a bingo player's app             |

/// The operator, as the admin endpoint names it.
pub const OPERATOR: &str = "operator";

/// The operator's RabbitMQ user.
pub const OPERATOR_BROKER_USER: &str = "arcade-admin";

/// The console's RabbitMQ user. On RabbitMQ the broker stamps a connection's user on every
/// message it publishes, so the commands the console sends for the operator (or for a player,
/// a claim on their own card) carry `console`; the console sends one only after checking the
/// operator's token (or that player's), so the services trust it as an operator.
pub const CONSOLE_BROKER_USER: &str = "console";

/// The principals a service treats as the operator unless configured otherwise
/// (`ARCADE_OPERATOR_PRINCIPALS`).
pub const DEFAULT_OPERATORS: [&str; 3] = [OPERATOR, OPERATOR_BROKER_USER, CONSOLE_BROKER_USER];

/// Prefix of a race team's principal.
pub const RACE_TEAM_PREFIX: &str = "race-team-";

/// Prefix of a bingo player's principal.
pub const BINGO_PLAYER_PREFIX: &str = "bingo-player-";

/// The principal of race team `team`: `race-team-<team>`.
pub fn race_team(team: &str) -> String {
    format!("{RACE_TEAM_PREFIX}{team}")
}

/// The principal of bingo player `player`: `bingo-player-<player>`.
pub fn bingo_player(player: &str) -> String {
    format!("{BINGO_PLAYER_PREFIX}{player}")
}

/// A set of operator principals (configurable: `ARCADE_OPERATOR_PRINCIPALS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operators(Vec<String>);

impl Default for Operators {
    fn default() -> Self {
        Operators(DEFAULT_OPERATORS.iter().map(|s| s.to_string()).collect())
    }
}

impl Operators {
    /// Exactly these principals.
    pub fn new(names: impl IntoIterator<Item = String>) -> Operators {
        Operators(names.into_iter().collect())
    }

    /// Whether `sender` is one of them.
    pub fn contains(&self, sender: Option<&str>) -> bool {
        sender.is_some_and(|sender| self.0.iter().any(|op| op == sender))
    }

    /// Whether `sender` may act for the principal `owner`: it is `owner` or an operator.
    pub fn may_act_for(&self, sender: Option<&str>, owner: &str) -> bool {
        sender == Some(owner) || self.contains(sender)
    }

    /// Their names.
    pub fn names(&self) -> &[String] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_owner_or_an_operator_acts_for_a_principal() {
        let ops = Operators::default();
        assert!(ops.may_act_for(Some("race-team-red"), &race_team("red")));
        assert!(ops.may_act_for(Some("operator"), &race_team("red")));
        assert!(ops.may_act_for(Some("arcade-admin"), &race_team("red")));
        assert!(
            ops.contains(Some(CONSOLE_BROKER_USER)),
            "the console's broker user"
        );
        assert!(!ops.may_act_for(Some("race-team-blue"), &race_team("red")));
        assert!(!ops.may_act_for(None, &race_team("red")));
        assert!(ops.contains(Some("console")), "the console's broker user");
        assert!(!ops.contains(Some("race-team-console")));
        assert!(!Operators::new(["guest".to_string()]).contains(Some("operator")));
    }
}
