//! Where the server secret comes from: a file (`--secret-file` for the tool,
//! `--bingo-secret-file` for `arcade run`) or else the environment variable
//! [`SECRET_ENV`](crate::SECRET_ENV). Never from a message. The errors name the setting and
//! never the secret.

use std::ffi::OsString;
use std::path::Path;

use crate::SECRET_ENV;
use crate::domain::Secret;

/// Reads the secret from `file` when given, else from `env_value` (the value of
/// [`SECRET_ENV`], `None` when unset). `file_flag` is the flag that names the file, for the
/// message saying there is no secret.
pub fn load_secret(
    file: Option<&Path>,
    env_value: Option<OsString>,
    file_flag: &str,
) -> Result<Secret, String> {
    match (file, env_value) {
        (Some(path), _) => {
            let bytes = std::fs::read(path)
                .map_err(|e| format!("cannot read the secret file {}: {e}", path.display()))?;
            Secret::from_file_contents(bytes)
                .map_err(|e| format!("{e} (secret file {})", path.display()))
        }
        (None, Some(value)) => {
            let text = value
                .into_string()
                .map_err(|_| format!("{SECRET_ENV} is not valid UTF-8"))?;
            Secret::new(text).map_err(|e| format!("{e} ({SECRET_ENV})"))
        }
        (None, None) => Err(format!(
            "no secret: cards are dealt from the server secret; set {SECRET_ENV} or pass \
             {file_flag} FILE"
        )),
    }
}
