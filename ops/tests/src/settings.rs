//! The broker under test, from the environment, as every broker test of the workspace reads it:
//! `ARCADE_AMQP_URL` (unset: the test prints that it was skipped, unless
//! `ARCADE_REQUIRE_BROKER=1`, then it fails), and the management API next to it
//! (`ARCADE_RABBITMQ_MANAGEMENT_URL`, default `http://<amqp host>:15672`, with the credentials of
//! `ARCADE_RABBITMQ_MANAGEMENT_USER` / `_PASSWORD` or else those of the AMQP URL), the same
//! variables `ops/ci/prepare-broker.sh` reads.

use reqwest::Url;

use crate::OpsError;

/// The broker the tests load definitions into and connect to.
#[derive(Debug, Clone)]
pub struct Broker {
    /// AMQP URL of the broker (its vhost and credentials are replaced per test user).
    pub amqp: Url,
    /// Base URL of the management API.
    pub management: Url,
    /// User of the management API (an administrator).
    pub management_user: String,
    /// Its password.
    pub management_password: String,
}

impl Broker {
    /// The broker from the environment, or `None` when `ARCADE_AMQP_URL` is unset.
    pub fn from_env() -> Result<Option<Broker>, OpsError> {
        let Some(url) = std::env::var("ARCADE_AMQP_URL")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            return Ok(None);
        };
        let amqp = Url::parse(&url).map_err(|e| OpsError::Setting {
            name: "ARCADE_AMQP_URL",
            reason: format!("{url:?} is not a URL: {e}"),
        })?;
        if !matches!(amqp.scheme(), "amqp" | "amqps") {
            return Err(OpsError::Setting {
                name: "ARCADE_AMQP_URL",
                reason: format!("scheme {:?} is neither amqp nor amqps", amqp.scheme()),
            });
        }
        let host = amqp.host_str().ok_or_else(|| OpsError::Setting {
            name: "ARCADE_AMQP_URL",
            reason: "no host".into(),
        })?;
        let management = match std::env::var("ARCADE_RABBITMQ_MANAGEMENT_URL") {
            Ok(m) if !m.is_empty() => Url::parse(&m).map_err(|e| OpsError::Setting {
                name: "ARCADE_RABBITMQ_MANAGEMENT_URL",
                reason: format!("{m:?} is not a URL: {e}"),
            })?,
            _ => Url::parse(&format!("http://{host}:15672")).map_err(|e| OpsError::Setting {
                name: "ARCADE_AMQP_URL",
                reason: format!("host {host:?} gives no management URL: {e}"),
            })?,
        };
        let decode = |s: &str| {
            percent_decode(s).map_err(|reason| OpsError::Setting {
                name: "ARCADE_AMQP_URL",
                reason,
            })
        };
        let url_user = decode(amqp.username())?;
        let url_password = decode(amqp.password().unwrap_or(""))?;
        let management_user = env_or("ARCADE_RABBITMQ_MANAGEMENT_USER", &url_user, "guest");
        let management_password = env_or(
            "ARCADE_RABBITMQ_MANAGEMENT_PASSWORD",
            &url_password,
            "guest",
        );
        Ok(Some(Broker {
            amqp,
            management,
            management_user,
            management_password,
        }))
    }

    /// The broker for a test, or `None` after printing that `test` was skipped. Fails when
    /// `ARCADE_REQUIRE_BROKER=1` and no broker is set, or when a setting is unusable.
    pub fn for_test(test: &str) -> Option<Broker> {
        match Broker::from_env() {
            Ok(Some(broker)) => Some(broker),
            Ok(None) => {
                assert!(
                    std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
                    "{test}: ARCADE_REQUIRE_BROKER=1 but ARCADE_AMQP_URL is unset"
                );
                println!("{test}: skipped: ARCADE_AMQP_URL unset");
                None
            }
            Err(e) => panic!("{test}: {e}"),
        }
    }

    /// The AMQP URL logging in as `user` into `vhost`.
    pub fn amqp_url(&self, user: &str, password: &str, vhost: &str) -> String {
        let mut url = self.amqp.clone();
        // A URL with a host always accepts credentials and a path.
        let _ = url.set_username(&percent_encode(user));
        let _ = url.set_password(Some(&percent_encode(password)));
        url.set_path(&format!("/{}", percent_encode(vhost)));
        url.to_string()
    }
}

fn env_or(name: &str, from_url: &str, default: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v,
        _ if !from_url.is_empty() => from_url.to_string(),
        _ => default.to_string(),
    }
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
pub fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn percent_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .ok_or_else(|| format!("truncated escape in {s:?}"))?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| format!("bad escape %{hex}"))?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("{s:?} is not UTF-8 once decoded"))
}
