//! The one guard of every HTTP surface a process serves to clients — the admin endpoint and the
//! console alike (feature `http`); the read-only metrics listener ([`crate::http`]) has none.
//!
//! - [`Hosts`]: the `Host`/`Origin` check (DNS rebinding, CSRF); [`bearer`]: the token of
//!   `Authorization: Bearer`. The admin endpoint checks both on every route but the probes;
//!   the console on its actions and players' requests (viewing is public).
//! - [`Clients`]: per-client bounds by address — connections (the server counts them at
//!   accept: [`Clients::connect`]), live pages, requests a second — with
//!   [`ClientLimits::trusted_proxies`] naming the reverse proxies whose `X-Forwarded-For` is
//!   believed. An over-limit client gets 429 with `Retry-After`; other addresses are served.
//! - [`layer`]: the middleware on a router: the client's address ([`ClientAddr`], from the
//!   [`Peer`] the server put on the request), its request rate, its live pages, and the
//!   security headers on every response ([`secure`]; an HTML page sets its own
//!   `Content-Security-Policy` with [`page_csp`]).

mod clients;
mod hosts;
#[cfg(feature = "cli")]
pub mod settings;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine as _;
use futures::StreamExt as _;
use sha2::{Digest, Sha256};

pub use clients::{ClientLimits, Clients, OverLimit, PerClientRate, Slot};
pub use hosts::{Hosts, bearer};

/// The peer of the connection a request came on, put on each request by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub SocketAddr);

/// The client a request is counted as (its peer, or the address a trusted proxy forwarded it
/// for), put on each request by [`layer`] for the handlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl ClientAddr {
    /// The client of a request that came with no [`Peer`] (a router called in a test).
    pub const UNKNOWN: ClientAddr = ClientAddr(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
}

/// The policy of every response that does not set its own: nothing may load, frame it, or
/// be sent from it.
pub const DEFAULT_CSP: &str =
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The policy of an HTML page served by this process: its own files (scripts, styles, images,
/// requests, live streams), the inline `scripts` given (by their SHA-256), `style` attributes
/// (the console's pages set custom properties such as a grid's `--size` with them; no text is
/// ever parsed as HTML there), inline `<style>` only if `inline_style`; never framed by another
/// site.
pub fn page_csp(scripts: &[&str], inline_style: bool) -> String {
    let hashes: String = scripts
        .iter()
        .map(|script| {
            let digest = Sha256::digest(script.as_bytes());
            format!(
                " 'sha256-{}'",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
        })
        .collect();
    let style = if inline_style { " 'unsafe-inline'" } else { "" };
    format!(
        "default-src 'self'; script-src 'self'{hashes}; style-src 'self'{style}; \
         style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
         form-action 'self'; frame-ancestors 'none'"
    )
}

/// Adds the security headers a response lacks: `Content-Security-Policy` ([`DEFAULT_CSP`]),
/// `X-Frame-Options: DENY`, `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`.
pub fn secure(headers: &mut HeaderMap) {
    let set = [
        (header::CONTENT_SECURITY_POLICY, DEFAULT_CSP),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    for (name, value) in set {
        headers
            .entry(name)
            .or_insert(HeaderValue::from_static(value));
    }
}

/// `router` behind the guard of `clients` (see the module's documentation).
pub fn layer(router: Router, clients: Arc<Clients>) -> Router {
    router.layer(axum::middleware::from_fn_with_state(clients, guard))
}

/// Whether a request asks for a live stream (what `EventSource` sends).
fn wants_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/event-stream"))
}

async fn guard(State(clients): State<Arc<Clients>>, mut request: Request, next: Next) -> Response {
    let client = match request.extensions().get::<Peer>() {
        Some(peer) => ClientAddr(clients.client_of(peer.0.ip(), request.headers())),
        None => ClientAddr::UNKNOWN,
    };
    let mut live = None;
    let checked = clients.request(client.0).and_then(|()| {
        if wants_stream(request.headers()) {
            live = Some(clients.live(client.0)?);
        }
        Ok(())
    });
    let mut response = match checked {
        Err(over) => {
            tracing::debug!(client = %client.0, reason = %over.why, "request refused");
            axum::response::IntoResponse::into_response(over)
        }
        Ok(()) => {
            request.extensions_mut().insert(client);
            let response = next.run(request).await;
            match live {
                // The live page is counted while its stream is open.
                Some(slot) => response.map(|body| {
                    Body::from_stream(body.into_data_stream().map(move |chunk| {
                        let _held = &slot;
                        chunk
                    }))
                }),
                None => response,
            }
        }
    };
    secure(response.headers_mut());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_policy_names_its_inline_scripts_by_hash() {
        // The hash of `alert(1)` as CSP Level 2 computes it (base64 of its SHA-256).
        let csp = page_csp(&["alert(1)"], false);
        assert!(
            csp.contains("script-src 'self' 'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"),
            "{csp}"
        );
        assert!(csp.contains("frame-ancestors 'none'"));
        assert!(csp.contains("style-src 'self';") && !csp.contains("script-src 'self' 'unsafe"));
        assert!(page_csp(&[], true).contains("style-src 'self' 'unsafe-inline'"));
    }

    #[test]
    fn security_headers_are_added_but_a_page_keeps_its_own_policy() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("x"),
        );
        secure(&mut headers);
        assert_eq!(headers[header::CONTENT_SECURITY_POLICY], "x");
        assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        assert_eq!(headers[header::REFERRER_POLICY], "no-referrer");
    }
}
