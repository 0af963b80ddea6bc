//! A TCP proxy to the broker inside a test, which cuts every connection through it and refuses
//! new ones while closed: the broker goes away for the process under test only, never for the
//! other users of the shared broker.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// A TCP proxy to the broker that can cut every connection through it, and refuse new ones.
pub struct Proxy {
    pub addr: SocketAddr,
    open: Arc<AtomicBool>,
    cut: Arc<Mutex<CancellationToken>>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub async fn start(upstream: String, open: bool) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let open = Arc::new(AtomicBool::new(open));
        let cut = Arc::new(Mutex::new(CancellationToken::new()));
        let (open_flag, cut_token) = (open.clone(), cut.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else {
                    break;
                };
                if !open_flag.load(Ordering::SeqCst) {
                    drop(inbound);
                    continue;
                }
                let cut = cut_token.lock().unwrap().clone();
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(&upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        () = cut.cancelled() => {}
                    }
                });
            }
        });
        Proxy {
            addr,
            open,
            cut,
            task,
        }
    }

    /// Drops every connection now open through the proxy.
    pub fn cut(&self) {
        let old = std::mem::take(&mut *self.cut.lock().unwrap());
        old.cancel();
    }

    pub fn set_open(&self, open: bool) {
        self.open.store(open, Ordering::SeqCst);
    }

    /// `url` with its host and port replaced by the proxy's.
    pub fn url(&self, url: &str) -> String {
        let (scheme, rest) = url.split_once("://").unwrap();
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let userinfo = authority
            .rsplit_once('@')
            .map(|(u, _)| format!("{u}@"))
            .unwrap_or_default();
        format!("{scheme}://{userinfo}{}{path}", self.addr)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
        self.task.abort();
    }
}

/// host:port of the broker in `url`.
pub fn upstream(url: &str) -> String {
    let rest = url.split_once("://").unwrap().1;
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if host.contains(':') {
        host.to_string()
    } else {
        format!("{host}:5672")
    }
}
