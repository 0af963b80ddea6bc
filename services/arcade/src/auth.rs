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
use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use arcade_contracts::principal::{BINGO_PLAYER_PREFIX, OPERATOR, RACE_TEAM_PREFIX};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::json_error::error;

/// The variable holding the operator's token (server and clients).
pub const TOKEN_ENV: &str = "ARCADE_ADMIN_TOKEN";

/// The file of the operator's generated token, in the data directory.
pub const TOKEN_FILE: &str = "admin-token";

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

/// A fresh secret: 32 random bytes, hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("arc_{}", hex::encode(bytes))
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Writes `text` to `path` readable by its owner only, replacing it atomically.
pub fn write_private(path: &Path, text: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(text)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The operator's token and where it is (for a 401's message).
#[derive(Clone)]
pub struct OperatorToken {
    token: String,
    /// Where a client finds it.
    pub source: String,
}

impl std::fmt::Debug for OperatorToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OperatorToken")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl OperatorToken {
    /// The explicit token, else the one in `<data>/admin-token`, else a new one written there
    /// (0600) and, on a terminal, printed once to stderr.
    pub fn resolve(explicit: Option<&str>, data: &Path) -> anyhow::Result<OperatorToken> {
        if let Some(token) = explicit.map(str::trim).filter(|t| !t.is_empty()) {
            return Ok(OperatorToken {
                token: token.to_string(),
                source: format!("{TOKEN_ENV} (or --token)"),
            });
        }
        let path = data.join(TOKEN_FILE);
        let source = format!("{} (or set {TOKEN_ENV})", path.display());
        match std::fs::read_to_string(&path) {
            Ok(text) if !text.trim().is_empty() => {
                return Ok(OperatorToken {
                    token: text.trim().to_string(),
                    source,
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => anyhow::bail!("{}: cannot read the admin token: {e}", path.display()),
        }
        let token = new_token();
        write_private(&path, format!("{token}\n").as_bytes()).map_err(|e| {
            anyhow::anyhow!("{}: cannot write the admin token: {e}", path.display())
        })?;
        let mut stderr = std::io::stderr();
        if stderr.is_terminal() {
            // Printed once, to the person at the terminal; never to a log.
            let _ = writeln!(stderr, "admin token (also in {}): {token}", path.display());
        } else {
            let _ = writeln!(stderr, "admin token generated into {}", path.display());
        }
        Ok(OperatorToken { token, source })
    }
}

/// The token a client presents: `explicit` (`--token`), else `ARCADE_ADMIN_TOKEN`, else the
/// file `admin-token` in `ARCADE_DATA_DIR` (default `./data`). `None` when none is found (the
/// endpoint's 401 then says where to look).
pub fn client_token(explicit: Option<&str>) -> Option<String> {
    if let Some(token) = explicit.map(str::trim).filter(|t| !t.is_empty()) {
        return Some(token.to_string());
    }
    if let Ok(token) = std::env::var(TOKEN_ENV)
        && !token.trim().is_empty()
    {
        return Some(token.trim().to_string());
    }
    let data =
        std::env::var_os("ARCADE_DATA_DIR").map_or_else(|| PathBuf::from("./data"), PathBuf::from);
    std::fs::read_to_string(data.join(TOKEN_FILE))
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// An HTTP client presenting `token` (see [`client_token`]) to the admin endpoint.
pub fn http_client(token: Option<&str>) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(token) = client_token(token)
        && let Ok(mut value) = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
    {
        value.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap_or_default()
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
    hosts: Vec<String>,
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
        let port = bound.port();
        let mut allowed = vec![bound.to_string()];
        if bound.ip().is_loopback() || bound.ip().is_unspecified() {
            allowed.push(format!("localhost:{port}"));
            allowed.push(format!("127.0.0.1:{port}"));
            allowed.push(format!("[::1]:{port}"));
        }
        for host in hosts {
            allowed.push(host.clone());
            if !host.contains(':') {
                allowed.push(format!("{host}:{port}"));
            }
        }
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

    fn host_allowed(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Why a request's `Host` or `Origin` is not this endpoint's, if it is not.
    fn foreign(&self, headers: &HeaderMap) -> Option<String> {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        match host {
            Some(host) if self.host_allowed(host) => {}
            Some(host) => {
                return Some(format!(
                    "Host {host:?} is not this endpoint's ({}); add it with --admin-host",
                    self.hosts[0]
                ));
            }
            None => return Some("the request has no Host header".into()),
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let allowed = origin
                .strip_prefix("http://")
                .is_some_and(|rest| self.host_allowed(rest));
            if !allowed {
                return Some(format!(
                    "Origin {origin:?} is not this endpoint's: cross-origin requests are refused"
                ));
            }
        }
        None
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

/// Whether a request needs no token: the probes and the puzzle's static page.
fn public(method: &Method, path: &str) -> bool {
    method == Method::GET && matches!(path, "/health" | "/ready")
}

/// Whether a non-operator principal may reach `path` at all (the handlers check the rest).
fn principal_route(principal: &Principal, method: &Method, path: &str) -> bool {
    match principal {
        Principal::Operator => true,
        Principal::Team(team) => {
            (method == Method::POST && path.starts_with("/messages/"))
                || (method == Method::GET && path == format!("/race/teams/{team}/stream"))
        }
        Principal::Player(_) => method == Method::POST && path.starts_with("/messages/"),
    }
}

/// The middleware: checks `Host`/`Origin` and the bearer token, and hands the handlers the
/// [`Principal`] as an extension.
pub async fn authenticate(
    State(auth): State<Arc<Auth>>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_string();
    if public(request.method(), &path) {
        return next.run(request).await;
    }
    if let Some(why) = auth.foreign(request.headers()) {
        Refusals::count(&auth.refused.foreign_origin);
        tracing::warn!(%path, reason = %why, "admin request refused");
        return error(StatusCode::FORBIDDEN, why);
    }
    let query_token = (request.method() == Method::GET && path == "/puzzle")
        .then(|| {
            request.uri().query().and_then(|q| {
                q.split('&')
                    .find_map(|pair| pair.strip_prefix("token="))
                    .map(str::to_string)
            })
        })
        .flatten();
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
        .or(query_token);
    let Some(token) = token else {
        return auth.unauthenticated("no bearer token");
    };
    let Some(principal) = auth.principal(&token) else {
        return auth.unauthenticated("unknown bearer token");
    };
    if !principal_route(&principal, request.method(), &path) {
        Refusals::count(&auth.refused.forbidden);
        tracing::warn!(principal = %principal.name(), %path, "admin request refused: not allowed");
        return error(
            StatusCode::FORBIDDEN,
            format!("{} may not {} {path}", principal.name(), request.method()),
        );
    }
    request.extensions_mut().insert(principal);
    next.run(request).await
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

    #[test]
    fn foreign_hosts_and_origins_are_named() {
        let auth = auth();
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "127.0.0.1:7878".parse().unwrap());
        assert_eq!(auth.foreign(&headers), None);
        headers.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        assert!(auth.foreign(&headers).unwrap().contains("evil.example"));
        headers.remove(header::ORIGIN);
        headers.insert(header::HOST, "evil.example".parse().unwrap());
        assert!(auth.foreign(&headers).unwrap().contains("evil.example"));
    }
}
