//! Who a request says it is for, and who it says it is: the `Host`/`Origin` check against the
//! names a server answers to (a page of another site, CSRF, or a rebound DNS name is refused),
//! and the bearer token of `Authorization`.

use std::net::SocketAddr;

use axum::http::{HeaderMap, header};

/// The `Host` names a server answers to, and how a refusal names the server and the setting
/// that adds a name.
#[derive(Debug, Clone)]
pub struct Hosts {
    allowed: Vec<String>,
    /// What the server is, in a refusal (`this endpoint`, `this console`).
    what: &'static str,
    /// The setting that adds a name (`--admin-host`).
    setting: &'static str,
}

impl Hosts {
    /// The names of a server bound to `bound`, also answering to `hosts`
    /// ([`crate::web::allowed_hosts`]); `what` names it and `setting` adds a name, in refusals.
    pub fn new(
        bound: SocketAddr,
        hosts: &[String],
        what: &'static str,
        setting: &'static str,
    ) -> Hosts {
        Hosts {
            allowed: crate::web::allowed_hosts(bound, hosts),
            what,
            setting,
        }
    }

    fn allowed(&self, host: &str) -> bool {
        self.allowed.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Why a request's `Host` or `Origin` is not this server's, if it is not: a `Host` must be
    /// one of its names; an `Origin`, if there is one, `http://` and one of them.
    pub fn foreign(&self, headers: &HeaderMap) -> Option<String> {
        let what = self.what;
        match headers.get(header::HOST).map(|h| h.to_str()) {
            Some(Ok(host)) if self.allowed(host) => {}
            Some(host) => {
                let host = host.unwrap_or("(not text)");
                return Some(format!(
                    "Host {host:?} is not {what}'s ({}); add it with {}",
                    self.allowed[0], self.setting
                ));
            }
            None => return Some("the request has no Host header".into()),
        }
        let origin = headers.get(header::ORIGIN)?;
        let origin = origin.to_str().unwrap_or("");
        let same = origin
            .strip_prefix("http://")
            .is_some_and(|rest| self.allowed(rest));
        (!same).then(|| {
            format!("Origin {origin:?} is not {what}'s: cross-origin requests are refused")
        })
    }
}

/// The token of `Authorization: Bearer <token>`, if the request carries a non-blank one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
        .filter(|token| !token.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_hosts_and_origins_are_named_with_the_setting() {
        let hosts = Hosts::new(
            "127.0.0.1:7878".parse().unwrap(),
            &[],
            "this endpoint",
            "--admin-host",
        );
        let mut headers = HeaderMap::new();
        assert_eq!(
            hosts.foreign(&headers).as_deref(),
            Some("the request has no Host header")
        );
        headers.insert(header::HOST, "localhost:7878".parse().unwrap());
        assert_eq!(hosts.foreign(&headers), None);
        headers.insert(header::ORIGIN, "http://LOCALHOST:7878".parse().unwrap());
        assert_eq!(hosts.foreign(&headers), None);
        headers.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        let why = hosts.foreign(&headers).unwrap();
        assert!(
            why.contains("evil.example") && why.contains("cross-origin"),
            "{why}"
        );
        headers.remove(header::ORIGIN);
        headers.insert(header::HOST, "evil.example".parse().unwrap());
        let why = hosts.foreign(&headers).unwrap();
        assert!(
            why.contains("evil.example") && why.contains("--admin-host"),
            "{why}"
        );
    }

    #[test]
    fn only_a_non_blank_bearer_token_is_one() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, "Bearer   ".parse().unwrap());
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, "Bearer arc_1 ".parse().unwrap());
        assert_eq!(bearer(&headers), Some("arc_1"));
    }
}
