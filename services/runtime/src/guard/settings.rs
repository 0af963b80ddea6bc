//! The flags of the per-client bounds (feature `cli`), shared by the admin endpoint and the
//! console of one process.

use std::net::IpAddr;

use super::ClientLimits;

/// What one client address may cost the admin endpoint and the console (each counts its own).
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ClientArgs {
    /// Connections one client address may hold open at once; beyond, a new one gets 429 with
    /// `Retry-After` and is closed (a trusted proxy's are not counted).
    #[arg(
        long = "client-connections",
        env = "ARCADE_CLIENT_CONNECTIONS",
        default_value_t = 64,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "N"
    )]
    pub connections: u32,
    /// Live pages (event streams) one client address may hold open at once.
    #[arg(
        long = "client-live-pages",
        env = "ARCADE_CLIENT_LIVE_PAGES",
        default_value_t = 32,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "N"
    )]
    pub live: u32,
    /// Requests a second one client address may make, sustained; twice as many at once.
    #[arg(
        long = "client-rate",
        env = "ARCADE_CLIENT_RATE",
        default_value_t = 200,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "N"
    )]
    pub rate: u32,
    /// A reverse proxy (repeatable): requests from it are counted as the client's address it
    /// names in `X-Forwarded-For`. From any other peer that header is ignored.
    #[arg(
        long = "trusted-proxy",
        env = "ARCADE_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_name = "ADDR"
    )]
    pub trusted_proxies: Vec<IpAddr>,
}

impl Default for ClientArgs {
    fn default() -> Self {
        ClientArgs {
            connections: 64,
            live: 32,
            rate: 200,
            trusted_proxies: Vec::new(),
        }
    }
}

impl ClientArgs {
    /// The limits these settings give.
    pub fn limits(&self) -> ClientLimits {
        ClientLimits {
            connections: self.connections as usize,
            live: self.live as usize,
            rate: f64::from(self.rate),
            burst: 2.0 * f64::from(self.rate),
            trusted_proxies: self.trusted_proxies.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Run {
        #[command(flatten)]
        clients: ClientArgs,
    }

    #[test]
    fn the_defaults_are_the_limits_defaults_and_proxies_repeat() {
        let run = Run::try_parse_from(["run"]).unwrap();
        assert_eq!(run.clients, ClientArgs::default());
        assert_eq!(run.clients.limits(), ClientLimits::default());
        let run = Run::try_parse_from([
            "run",
            "--trusted-proxy",
            "10.0.0.1",
            "--trusted-proxy",
            "::1",
        ])
        .unwrap();
        assert_eq!(run.clients.trusted_proxies.len(), 2);
        assert!(Run::try_parse_from(["run", "--trusted-proxy", "proxy.lan"]).is_err());
    }
}
