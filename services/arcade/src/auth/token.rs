//! Tokens: fresh secrets, the operator's token (given, or generated into the data directory),
//! and the token a client presents to the admin endpoint.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use rand::RngCore;
use sha2::{Digest, Sha256};

/// The variable holding the operator's token (server and clients).
pub const TOKEN_ENV: &str = "ARCADE_ADMIN_TOKEN";

/// The file of the operator's generated token, in the data directory.
pub const TOKEN_FILE: &str = "admin-token";

/// A fresh secret: 32 random bytes, hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("arc_{}", hex::encode(bytes))
}

pub(super) fn digest(token: &str) -> [u8; 32] {
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
    pub(super) token: String,
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
