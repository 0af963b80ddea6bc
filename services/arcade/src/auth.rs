//! Who may use the admin endpoint, and as whom: bearer tokens and the principals they name.
//!
//! - The operator's token comes from `ARCADE_ADMIN_TOKEN` (or `--token`), else from the file
//!   `<data>/admin-token` (0600), generated at the first start and printed once on a terminal.
//!   Clients (`arcade tap`, `send`, `car`, the bingo, referee and puzzle tools) read it from the
//!   same variable or file.
//! - Teams and players are principals with their own secrets: `arcade race team add NAME` and
//!   `arcade bingo player add NAME` ask the endpoint for one (again: a new one, the old one no
//!   longer works). Only their SHA-256 is kept, in `<data>/principals.json` (0600).
//! - Every request but `GET /health` and `GET /ready` (the probes of orchestrators, which
//!   carry no secret) must carry a known token, a `Host` naming the bound address and, if it
//!   has one, an `Origin` of the same: a page of another site (CSRF) or a rebound DNS name is
//!   refused. A browser cannot send a header when it opens a page, so `GET /puzzle` (the
//!   charts page) also takes the token as `?token=` (the page then sends it as a header, and
//!   tells the browser to send no referrer).
//!
//! Tokens are never logged: refusals name the principal, never the token.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use arcade_contracts::principal::{BINGO_PLAYER_PREFIX, OPERATOR, RACE_TEAM_PREFIX};
use arcade_runtime::guard::Hosts;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use crate::json_error::error;

pub mod middleware;
mod token;

use token::digest;
pub use token::{OperatorToken, TOKEN_FILE, http_client, new_token, write_private};

/// The file of the principals' token digests, in the data directory.
pub const PRINCIPALS_FILE: &str = "principals.json";

/// Who a request comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Principal {
    /// The operator: everything.
    Operator,
    /// A race team: its own stream, registrations, answers and queries.
    Team(String),
    /// A bingo player: claims of its own cards.
    Player(String),
}

impl Principal {
    /// Its name, as the envelope's `sender` carries it.
    pub fn name(&self) -> String {
        match self {
            Principal::Operator => OPERATOR.to_string(),
            Principal::Team(team) => format!("{RACE_TEAM_PREFIX}{team}"),
            Principal::Player(player) => format!("{BINGO_PLAYER_PREFIX}{player}"),
        }
    }

    fn from_name(name: &str) -> Option<Principal> {
        if let Some(team) = name.strip_prefix(RACE_TEAM_PREFIX) {
            Some(Principal::Team(team.to_string()))
        } else {
            name.strip_prefix(BINGO_PLAYER_PREFIX)
                .map(|player| Principal::Player(player.to_string()))
        }
    }
}

/// Requests refused, by why (`GET /auth`).
#[derive(Debug, Default, Serialize)]
pub struct Refusals {
    /// No token, or an unknown one.
    pub unauthenticated: AtomicU64,
    /// A known principal asking for what it may not.
    pub forbidden: AtomicU64,
    /// A `Host` or `Origin` that is not this endpoint's.
    pub foreign_origin: AtomicU64,
    /// A second reader of a team's stream.
    pub second_reader: AtomicU64,
    /// A stream of a team nobody added.
    pub unknown_team: AtomicU64,
}

impl Refusals {
    /// Counts one.
    pub fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StoredPrincipals {
    /// Principal name → hex SHA-256 of its token.
    principals: BTreeMap<String, String>,
}

/// The endpoint's principals: the operator's token, the teams' and players' digests, the
/// addresses it answers as, the team streams being read.
#[derive(Debug)]
pub struct Auth {
    operator: [u8; 32],
    operator_source: String,
    store: Option<PathBuf>,
    digests: RwLock<HashMap<[u8; 32], Principal>>,
    names: RwLock<BTreeMap<String, String>>,
    hosts: Hosts,
    readers: Mutex<HashSet<String>>,
    /// What was refused.
    pub refused: Refusals,
}

/// A team stream's reader: the team is free again when it is dropped.
#[derive(Debug)]
pub struct ReaderGuard {
    auth: Arc<Auth>,
    team: String,
}

impl Drop for ReaderGuard {
    fn drop(&mut self) {
        if let Ok(mut readers) = self.auth.readers.lock() {
            readers.remove(&self.team);
        }
    }
}

impl Auth {
    /// The principals of an endpoint bound at `bound` (also answering as each of `hosts`),
    /// kept in `store` (none: in memory only, for tests).
    pub fn open(
        operator: &OperatorToken,
        store: Option<PathBuf>,
        bound: SocketAddr,
        hosts: &[String],
    ) -> anyhow::Result<Auth> {
        let stored: StoredPrincipals = match &store {
            Some(path) => match std::fs::read(path) {
                Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                    anyhow::anyhow!("{}: not a principals file: {e}", path.display())
                })?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => StoredPrincipals::default(),
                Err(e) => anyhow::bail!("{}: cannot read: {e}", path.display()),
            },
            None => StoredPrincipals::default(),
        };
        let mut digests = HashMap::new();
        for (name, hexed) in &stored.principals {
            let mut digest = [0u8; 32];
            hex::decode_to_slice(hexed, &mut digest)
                .map_err(|e| anyhow::anyhow!("{PRINCIPALS_FILE}: {name}: {e}"))?;
            let principal = Principal::from_name(name)
                .ok_or_else(|| anyhow::anyhow!("{PRINCIPALS_FILE}: {name:?} is not a principal"))?;
            digests.insert(digest, principal);
        }
        let allowed = Hosts::new(bound, hosts, "this endpoint", "--admin-host");
        Ok(Auth {
            operator: digest(&operator.token),
            operator_source: operator.source.clone(),
            store,
            digests: RwLock::new(digests),
            names: RwLock::new(stored.principals),
            hosts: allowed,
            readers: Mutex::new(HashSet::new()),
            refused: Refusals::default(),
        })
    }

    /// The principal `token` names, if any.
    pub fn principal(&self, token: &str) -> Option<Principal> {
        let digest = digest(token);
        if digest == self.operator {
            return Some(Principal::Operator);
        }
        self.digests.read().ok()?.get(&digest).cloned()
    }

    /// Gives `principal` a new secret (the old one stops working) and stores its digest.
    pub fn issue(&self, principal: &Principal) -> anyhow::Result<String> {
        let token = new_token();
        let name = principal.name();
        let hexed = hex::encode(digest(&token));
        let mut names = self
            .names
            .write()
            .map_err(|_| anyhow::anyhow!("poisoned"))?;
        let mut digests = self
            .digests
            .write()
            .map_err(|_| anyhow::anyhow!("poisoned"))?;
        let mut next = names.clone();
        next.insert(name.clone(), hexed);
        if let Some(path) = &self.store {
            let text = serde_json::to_vec_pretty(&StoredPrincipals {
                principals: next.clone(),
            })?;
            write_private(path, &text)
                .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
        }
        digests.retain(|_, p| p != principal);
        digests.insert(digest(&token), principal.clone());
        *names = next;
        Ok(token)
    }

    /// Whether a team was added.
    pub fn knows_team(&self, team: &str) -> bool {
        self.names
            .read()
            .is_ok_and(|names| names.contains_key(&Principal::Team(team.to_string()).name()))
    }

    /// The principals' names.
    pub fn names(&self) -> Vec<String> {
        self.names
            .read()
            .map(|names| names.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Takes `team`'s stream for one reader; `None` when another reads it.
    pub fn take_reader(self: &Arc<Self>, team: &str) -> Option<ReaderGuard> {
        let mut readers = self.readers.lock().ok()?;
        if !readers.insert(team.to_string()) {
            return None;
        }
        Some(ReaderGuard {
            auth: self.clone(),
            team: team.to_string(),
        })
    }

    /// The names it answers to (`Host`, `Origin`).
    pub fn hosts(&self) -> &Hosts {
        &self.hosts
    }

    fn unauthenticated(&self, why: &str) -> Response {
        Refusals::count(&self.refused.unauthenticated);
        error(
            StatusCode::UNAUTHORIZED,
            format!(
                "{why}: send `Authorization: Bearer <token>`; the operator's token is in {}, a team's comes from `arcade race team add`, a player's from `arcade bingo player add`",
                self.operator_source
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth() -> Auth {
        let operator = OperatorToken {
            token: "op".into(),
            source: "test".into(),
        };
        Auth::open(&operator, None, "127.0.0.1:7878".parse().unwrap(), &[]).unwrap()
    }

    #[test]
    fn a_rotated_secret_replaces_the_old_one() {
        let auth = auth();
        let red = Principal::Team("red".into());
        let first = auth.issue(&red).unwrap();
        assert_eq!(auth.principal(&first), Some(red.clone()));
        let second = auth.issue(&red).unwrap();
        assert_eq!(auth.principal(&first), None);
        assert_eq!(auth.principal(&second), Some(red));
        assert_eq!(auth.principal("op"), Some(Principal::Operator));
        assert!(auth.knows_team("red") && !auth.knows_team("blue"));
    }
}
