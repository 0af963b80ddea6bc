//! Where the server secret comes from: a file (`--bingo-secret-file` for `arcade run`) or else
//! the environment variable
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

#[cfg(test)]
mod tests {
    use super::*;

    const FLAG: &str = "--bingo-secret-file";

    #[test]
    fn without_file_or_environment_the_error_names_both_settings() {
        let error = load_secret(None, None, FLAG).unwrap_err();
        assert!(error.contains(SECRET_ENV), "{error}");
        assert!(error.contains(FLAG), "{error}");
    }

    #[test]
    fn the_file_wins_over_the_environment_and_loses_its_trailing_line_break() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        std::fs::write(&path, b"a-secret-of-the-file\r\n").unwrap();
        let from_file = load_secret(Some(&path), Some("another-secret-entirely".into()), FLAG);
        let expected = Secret::new(*b"a-secret-of-the-file").unwrap();
        let derive = |s: &Secret| crate::domain::Keys::new(s).label("g", 1);
        assert_eq!(derive(&from_file.unwrap()), derive(&expected));
    }

    #[test]
    fn a_short_secret_or_a_missing_file_is_refused_without_showing_the_secret() {
        let error = load_secret(None, Some("tiny-secret".into()), FLAG).unwrap_err();
        assert!(error.contains(SECRET_ENV) && error.contains("at least 16 bytes"));
        assert!(!error.contains("tiny-secret"));
        let missing = Path::new("/nonexistent/arcade/bingo.secret");
        let error = load_secret(Some(missing), None, FLAG).unwrap_err();
        assert!(
            error.contains("/nonexistent/arcade/bingo.secret"),
            "{error}"
        );
    }
}
