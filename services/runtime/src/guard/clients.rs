//! What one client may cost, by its address: connections open at once, live pages (streams)
//! open at once, and requests per second (a token bucket: `rate` a second, up to `burst` at
//! once). One map holds the three for each address that has a connection or a stream open or a
//! bucket not yet full again, so it is bounded by what clients hold now, not by how many came.
//!
//! Behind a reverse proxy every connection comes from the proxy: a peer named with
//! `--trusted-proxy` is not counted per connection, and its requests are counted as the
//! client's, the last address of `X-Forwarded-For` that is not a trusted proxy's. From any
//! other peer the header is ignored (a client cannot choose the address it is counted as).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// What one client address may cost.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientLimits {
    /// Connections open at once from one address.
    pub connections: usize,
    /// Live pages (event streams) open at once for one address.
    pub live: usize,
    /// Requests a second one address may make, sustained.
    pub rate: f64,
    /// Requests one address may make at once (the bucket's size).
    pub burst: f64,
    /// Peers whose `X-Forwarded-For` names the client (reverse proxies).
    pub trusted_proxies: Vec<IpAddr>,
}

impl Default for ClientLimits {
    fn default() -> Self {
        ClientLimits {
            connections: 64,
            live: 32,
            rate: 200.0,
            burst: 400.0,
            trusted_proxies: Vec::new(),
        }
    }
}

/// A request refused because its client is over a limit: 429 with `Retry-After`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverLimit {
    /// When to try again.
    pub retry_after: Duration,
    /// Which limit, and the address.
    pub why: String,
}

impl OverLimit {
    /// `Retry-After` in whole seconds, at least 1.
    pub fn retry_after_secs(&self) -> u64 {
        self.retry_after.as_secs_f64().ceil().max(1.0) as u64
    }

    /// The response, with `status` (429, or 503 for a store that is full).
    pub fn response(&self, status: StatusCode) -> Response {
        let mut response =
            (status, axum::Json(serde_json::json!({ "error": self.why }))).into_response();
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(self.retry_after_secs()),
        );
        response
    }
}

impl IntoResponse for OverLimit {
    fn into_response(self) -> Response {
        self.response(StatusCode::TOO_MANY_REQUESTS)
    }
}

/// A token bucket per address: `rate` a second, `burst` at most.
#[derive(Debug)]
pub struct PerClientRate {
    rate: f64,
    burst: f64,
    what: &'static str,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

/// Buckets kept before the full ones are dropped.
const SWEEP_AT: usize = 4_096;

impl PerClientRate {
    /// `rate` a second, up to `burst` at once, of `what` (`requests`, `new games`).
    pub fn new(rate: f64, burst: f64, what: &'static str) -> PerClientRate {
        PerClientRate {
            rate: rate.max(f64::MIN_POSITIVE),
            burst: burst.max(1.0),
            what,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one for `client` at `now`, or says when one will be there.
    pub fn take_at(&self, client: IpAddr, now: Instant) -> Result<(), OverLimit> {
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() >= SWEEP_AT {
            let (rate, burst) = (self.rate, self.burst);
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.saturating_duration_since(*at).as_secs_f64() * rate < burst
            });
        }
        let (tokens, at) = buckets.entry(client).or_insert((self.burst, now));
        *tokens = (*tokens + now.saturating_duration_since(*at).as_secs_f64() * self.rate)
            .min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            return Ok(());
        }
        Err(OverLimit {
            retry_after: Duration::from_secs_f64((1.0 - *tokens) / self.rate),
            why: format!(
                "too many {} from {client}: at most {} a second ({} at once); try again later",
                self.what, self.rate, self.burst
            ),
        })
    }

    /// [`PerClientRate::take_at`] now.
    pub fn take(&self, client: IpAddr) -> Result<(), OverLimit> {
        self.take_at(client, Instant::now())
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Held {
    connections: usize,
    live: usize,
}

/// The clients of one server (or of several sharing limits).
#[derive(Debug)]
pub struct Clients {
    limits: ClientLimits,
    held: Mutex<HashMap<IpAddr, Held>>,
    requests: PerClientRate,
}

/// What a refused connection or stream should retry after.
const HELD_RETRY: Duration = Duration::from_secs(5);

/// A connection or a live page of one client, counted until it is dropped.
#[derive(Debug)]
pub struct Slot {
    clients: Arc<Clients>,
    client: IpAddr,
    live: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.clients.lock();
        if let Some(entry) = held.get_mut(&self.client) {
            if self.live {
                entry.live = entry.live.saturating_sub(1);
            } else {
                entry.connections = entry.connections.saturating_sub(1);
            }
            if entry.live == 0 && entry.connections == 0 {
                held.remove(&self.client);
            }
        }
    }
}

impl Clients {
    /// The clients of a server bounded by `limits`.
    pub fn new(limits: ClientLimits) -> Arc<Clients> {
        Arc::new(Clients {
            requests: PerClientRate::new(limits.rate, limits.burst, "requests"),
            limits,
            held: Mutex::new(HashMap::new()),
        })
    }

    /// The limits.
    pub fn limits(&self) -> &ClientLimits {
        &self.limits
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Held>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `peer` is a trusted proxy.
    pub fn is_trusted_proxy(&self, peer: IpAddr) -> bool {
        self.limits.trusted_proxies.contains(&peer)
    }

    /// The client a request from `peer` comes from: `peer`, or from a trusted proxy the last
    /// address of `X-Forwarded-For` that is not a trusted proxy's.
    pub fn client_of(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.is_trusted_proxy(peer) {
            return peer;
        }
        let mut chain: Vec<IpAddr> = Vec::new();
        for value in headers.get_all("x-forwarded-for") {
            let Ok(text) = value.to_str() else {
                return peer;
            };
            for part in text.split(',') {
                match part.trim().parse::<IpAddr>() {
                    Ok(addr) => chain.push(addr),
                    Err(_) => return peer,
                }
            }
        }
        chain
            .into_iter()
            .rev()
            .find(|addr| !self.is_trusted_proxy(*addr))
            .unwrap_or(peer)
    }

    fn hold(self: &Arc<Self>, client: IpAddr, live: bool) -> Result<Slot, OverLimit> {
        let mut held = self.lock();
        let entry = held.entry(client).or_default();
        let (count, cap, what) = if live {
            (&mut entry.live, self.limits.live, "live pages")
        } else {
            (
                &mut entry.connections,
                self.limits.connections,
                "connections",
            )
        };
        if *count >= cap.max(1) {
            return Err(OverLimit {
                retry_after: HELD_RETRY,
                why: format!(
                    "{client} has {count} {what} open, the most one address may: close one first"
                ),
            });
        }
        *count += 1;
        Ok(Slot {
            clients: self.clone(),
            client,
            live,
        })
    }

    /// Counts a connection from `peer` until the slot is dropped, or refuses it; a trusted
    /// proxy's are not counted (`None`).
    pub fn connect(self: &Arc<Self>, peer: IpAddr) -> Result<Option<Slot>, OverLimit> {
        if self.is_trusted_proxy(peer) {
            return Ok(None);
        }
        self.hold(peer, false).map(Some)
    }

    /// Counts a live page of `client` until the slot is dropped, or refuses it.
    pub fn live(self: &Arc<Self>, client: IpAddr) -> Result<Slot, OverLimit> {
        self.hold(client, true)
    }

    /// Counts a request of `client`, or refuses it.
    pub fn request(&self, client: IpAddr) -> Result<(), OverLimit> {
        self.requests.take(client)
    }

    /// Addresses holding a connection or a live page now.
    pub fn holding(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn connections_and_live_pages_are_capped_per_address_and_freed_on_drop() {
        let clients = Clients::new(ClientLimits {
            connections: 2,
            live: 1,
            ..ClientLimits::default()
        });
        let a = ip("127.0.0.2");
        let first = clients.connect(a).unwrap();
        let _second = clients.connect(a).unwrap();
        let refused = clients.connect(a).unwrap_err();
        assert!(
            refused.why.contains("127.0.0.2 has 2 connections"),
            "{}",
            refused.why
        );
        assert_eq!(refused.retry_after_secs(), 5);
        assert!(
            clients.connect(ip("127.0.0.3")).is_ok(),
            "another address is served"
        );
        drop(first);
        assert!(clients.connect(a).is_ok());
        let page = clients.live(a).unwrap();
        assert!(clients.live(a).is_err());
        drop(page);
        assert!(clients.live(a).is_ok());
    }

    #[test]
    fn the_rate_refills_and_says_when_to_retry() {
        let rate = PerClientRate::new(2.0, 3.0, "requests");
        let (a, b) = (ip("127.0.0.2"), ip("127.0.0.3"));
        let start = Instant::now();
        for _ in 0..3 {
            rate.take_at(a, start).unwrap();
        }
        let refused = rate.take_at(a, start).unwrap_err();
        assert_eq!(refused.retry_after, Duration::from_millis(500));
        assert_eq!(refused.retry_after_secs(), 1);
        assert!(
            rate.take_at(b, start).is_ok(),
            "another address has its own bucket"
        );
        assert!(rate.take_at(a, start + Duration::from_millis(500)).is_ok());
    }

    #[test]
    fn forwarded_for_counts_only_from_a_trusted_proxy() {
        let proxy = ip("127.0.0.9");
        let clients = Clients::new(ClientLimits {
            trusted_proxies: vec![proxy],
            ..ClientLimits::default()
        });
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "203.0.113.7, 198.51.100.2".parse().unwrap(),
        );
        assert_eq!(
            clients.client_of(ip("127.0.0.2"), &headers),
            ip("127.0.0.2")
        );
        assert_eq!(clients.client_of(proxy, &headers), ip("198.51.100.2"));
        headers.insert(
            "x-forwarded-for",
            "198.51.100.2, 127.0.0.9".parse().unwrap(),
        );
        assert_eq!(clients.client_of(proxy, &headers), ip("198.51.100.2"));
        headers.insert("x-forwarded-for", "not an address".parse().unwrap());
        assert_eq!(clients.client_of(proxy, &headers), proxy);
        assert!(
            clients.connect(proxy).unwrap().is_none(),
            "a proxy is not capped"
        );
    }
}
