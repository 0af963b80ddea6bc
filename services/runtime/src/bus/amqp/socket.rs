//! The TCP connection under AMQP, opened here rather than by lapin so that it has TCP
//! keepalive: the kernel probes a link idle for [`KEEPALIVE_IDLE`], every
//! [`KEEPALIVE_INTERVAL`], and drops it after [`KEEPALIVE_RETRIES`] unanswered probes (10 + 3 ×
//! 5 = 25 s), so a half-open connection is seen within 30 s even where AMQP heartbeats are off
//! (a URL's `heartbeat=0`) or a write is stuck in a full send buffer. TLS (`amqps://`) is then
//! set up on it as lapin does.

use std::time::Duration;

use async_compat::CompatExt;
use lapin::tcp::{AsyncTcpStream, OwnedTLSConfig};
use lapin::uri::{AMQPScheme, AMQPUri};
use lapin::{Connection, ConnectionProperties};

/// Idle time before the first keepalive probe.
pub const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
/// Time between probes.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
/// Unanswered probes before the link is dropped.
pub const KEEPALIVE_RETRIES: u32 = 3;

/// Turns TCP keepalive on for `stream` with the timings above.
pub fn keep_alive(stream: &tokio::net::TcpStream) -> std::io::Result<()> {
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(KEEPALIVE_IDLE)
        .with_interval(KEEPALIVE_INTERVAL);
    #[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd"))]
    let keepalive = keepalive.with_retries(KEEPALIVE_RETRIES);
    socket2::SockRef::from(stream).set_tcp_keepalive(&keepalive)
}

/// Connects to `uri` (TLS settings `tls`) over a TCP connection with keepalive.
pub async fn connect(
    uri: AMQPUri,
    properties: ConnectionProperties,
    tls: OwnedTLSConfig,
) -> lapin::Result<Connection> {
    let runtime = lapin::runtime::default_runtime()?;
    Connection::connector(
        uri,
        runtime,
        async move |uri, _runtime| {
            let host = uri.authority.host.clone();
            let tcp = tokio::net::TcpStream::connect((host.as_str(), uri.authority.port)).await?;
            keep_alive(&tcp)?;
            let stream = AsyncTcpStream::Plain(tcp.compat());
            Ok(match uri.scheme {
                AMQPScheme::AMQP => stream,
                AMQPScheme::AMQPS => stream.into_tls(&host, tls.as_ref()).await?,
            })
        },
        properties,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_socket_has_keepalive_within_30_seconds() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let stream = tokio::net::TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let socket = socket2::SockRef::from(&stream);
        assert!(!socket.keepalive().unwrap(), "off by default");
        keep_alive(&stream).unwrap();
        assert!(socket.keepalive().unwrap());
        #[cfg(target_os = "linux")]
        {
            let idle = socket.tcp_keepalive_time().unwrap();
            let interval = socket.tcp_keepalive_interval().unwrap();
            let retries = socket.tcp_keepalive_retries().unwrap();
            assert_eq!(
                (idle, interval, retries),
                (KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, 3)
            );
            assert!(idle + interval * retries <= Duration::from_secs(30));
        }
    }
}
