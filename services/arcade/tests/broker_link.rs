//! The link to RabbitMQ as an operator meets it: the broker password appears at no log level,
//! lapin's frame dumps included (`RUST_LOG=trace` printed the `Connection.StartOk` with the
//! password as a byte array on every connection), and a half-open link (a proxy that stops
//! forwarding without closing anything) makes `/ready` answer 503 within 30 s, after which the
//! process connects again and is ready again.
//!
//! Each test runs in a vhost of its own (made with `rabbitmqctl`, deleted after), the log test
//! as a throwaway user with a distinctive password. Skipped without `ARCADE_AMQP_URL` unless
//! `ARCADE_REQUIRE_BROKER=1`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

#[path = "support/broker.rs"]
mod broker;
#[path = "support/process.rs"]
mod process;
use broker::{Vhost, broker_url, rabbitmqctl};
use process::{Killed, free_port};

const TOKEN: &str = "arcade-test-operator-token";

/// A broker user of the test's own, allowed everything on one vhost, deleted after.
struct User {
    name: String,
}

impl User {
    fn new(password: &str, vhost: &str) -> User {
        let name = format!("arcade-logs-{}", uuid::Uuid::new_v4().simple());
        let made = rabbitmqctl(&["add_user", &name, password]);
        assert!(made.status.success(), "add_user {name}: {made:?}");
        let user = User { name };
        let allowed = rabbitmqctl(&["set_permissions", "-p", vhost, &user.name, ".*", ".*", ".*"]);
        assert!(allowed.status.success(), "set_permissions: {allowed:?}");
        user
    }
}

impl Drop for User {
    fn drop(&mut self) {
        let _ = rabbitmqctl(&["delete_user", &self.name]);
    }
}

/// Closes every client connection to `vhost` (its clients see a lost connection).
fn close_connections(vhost: &str) {
    let closed = rabbitmqctl(&["close_all_connections", "-p", vhost, "closed by the test"]);
    assert!(closed.status.success(), "close_all_connections: {closed:?}");
}

/// `amqp://USER:PASSWORD@HOST:PORT/VHOST` from the broker URL's host and port.
fn url_as(broker: &str, user: &str, password: &str, vhost: &str) -> String {
    let host = host_port(broker);
    format!("amqp://{user}:{password}@{host}/{vhost}")
}

/// The `host:port` of an `amqp://user:pass@host:port/vhost` URL.
fn host_port(url: &str) -> String {
    let rest = url.split_once('@').map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest).to_string()
}

/// `arcade run bingo` on `url` at `RUST_LOG=level`, its stderr lines sent to the returned
/// channel as they come.
fn run_bingo(url: &str, level: &str, data: &Path, admin: &str) -> (Killed, mpsc::Receiver<String>) {
    let mut child = process::arcade(TOKEN)
        .args(["run", "bingo", "--amqp", url, "--admin", admin])
        .arg("--data")
        .arg(data)
        .env("RUST_LOG", level)
        .env("NO_COLOR", "1")
        .env("ARCADE_BINGO_SECRET", "broker-link-test-secret-0123456789")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (Killed(child), rx)
}

/// Collects lines from `rx` into `all` until one contains `needle` (counting `times` of them);
/// fails after `patience`.
fn wait_for(rx: &mpsc::Receiver<String>, all: &mut Vec<String>, needle: &str, times: usize) {
    let patience = Duration::from_secs(90);
    let deadline = Instant::now() + patience;
    let mut seen = all.iter().filter(|l| l.contains(needle)).count();
    while seen < times {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx.recv_timeout(left).unwrap_or_else(|_| {
            panic!(
                "no line with {needle:?} ({seen} of {times}) within {patience:?}; the last lines:\n{}",
                all.iter().rev().take(20).rev().cloned().collect::<Vec<_>>().join("\n")
            )
        });
        if line.contains(needle) {
            seen += 1;
        }
        all.push(line);
    }
}

/// The password as the logs could show it: as text, and as lapin's `Debug` of its bytes
/// (decimal, as `LongString([..])` prints them) and in hex.
fn forms(password: &str) -> Vec<String> {
    let bytes = password.as_bytes();
    let join =
        |f: &dyn Fn(&u8) -> String, sep: &str| bytes.iter().map(f).collect::<Vec<_>>().join(sep);
    vec![
        password.to_string(),
        join(&|b| b.to_string(), ", "),
        join(&|b| b.to_string(), ","),
        join(&|b| format!("{b:#04x}"), ", "),
        join(&|b| format!("{b:02x}"), ""),
        join(&|b| format!("{b:02x}"), " "),
        join(&|b| format!("{b:02X}"), ""),
    ]
}

#[test]
fn the_broker_password_appears_at_no_log_level() {
    let Some(url) = broker_url() else { return };
    let vhost = Vhost::new("logs", &url);
    let password = format!("Zq9{}Frobnitz", uuid::Uuid::new_v4().simple());
    let user = User::new(&password, &vhost.name);
    let amqp = url_as(&url, &user.name, &password, &vhost.name);
    let dir = tempfile::tempdir().unwrap();
    let forms = forms(&password);
    for level in [
        "trace",
        "debug",
        "info",
        "lapin=trace,trace",
        "info,lapin::io_loop=trace",
    ] {
        let admin = format!("127.0.0.1:{}", free_port());
        let data = dir.path().join(level.replace([':', ',', '='], "_"));
        let (child, rx) = run_bingo(&amqp, level, &data, &admin);
        let mut lines = Vec::new();
        // The first connection, then a second one after the broker closes it.
        wait_for(&rx, &mut lines, "connected to RabbitMQ", 1);
        wait_for(&rx, &mut lines, "arcade ready", 1);
        close_connections(&vhost.name);
        wait_for(&rx, &mut lines, "connected to RabbitMQ", 2);
        drop(child);
        lines.extend(rx.try_iter());
        if level.starts_with("trace") || level.ends_with(",trace") {
            // The levels are really on: the AMQP client's debug lines are there.
            assert!(
                lines
                    .iter()
                    .any(|l| l.contains("DEBUG") && l.contains("lapin")),
                "RUST_LOG={level}: no lapin DEBUG line at all"
            );
        }
        for line in &lines {
            for form in &forms {
                assert!(
                    !line.contains(form.as_str()),
                    "RUST_LOG={level}: the password (as {form:?}) in: {line}"
                );
            }
        }
    }
}

/// A TCP proxy to the broker that can freeze the links it holds: they stay open, and it forwards
/// nothing more either way (a half-open link, as a dropped NAT entry or a peer's lost power
/// leaves one). While frozen it also closes every new link at once (the broker is out of
/// reach), so the process cannot get ready again before [`Proxy::thaw`]; links accepted after
/// that forward normally.
struct Proxy {
    port: u16,
    links: Arc<Mutex<Vec<Arc<AtomicBool>>>>,
    accepted: Arc<AtomicUsize>,
    refusing: Arc<AtomicBool>,
}

impl Proxy {
    fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let links: Arc<Mutex<Vec<Arc<AtomicBool>>>> = Arc::default();
        let accepted = Arc::new(AtomicUsize::new(0));
        let refusing = Arc::new(AtomicBool::new(false));
        let (held, count, refuse) = (links.clone(), accepted.clone(), refusing.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if refuse.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                count.fetch_add(1, Ordering::SeqCst);
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                let frozen = Arc::new(AtomicBool::new(false));
                held.lock().unwrap().push(frozen.clone());
                pump(
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    frozen.clone(),
                );
                pump(server, client, frozen);
            }
        });
        Proxy {
            port,
            links,
            accepted,
            refusing,
        }
    }

    /// Stops forwarding on every link open now, closing none, and closes new ones at once.
    fn freeze(&self) {
        self.refusing.store(true, Ordering::SeqCst);
        for link in self.links.lock().unwrap().iter() {
            link.store(true, Ordering::SeqCst);
        }
    }

    /// Forwards new links again (the frozen ones stay silent).
    fn thaw(&self) {
        self.refusing.store(false, Ordering::SeqCst);
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

/// Copies `from` to `to` until either closes; once `frozen`, holds both open and copies nothing.
fn pump(mut from: TcpStream, mut to: TcpStream, frozen: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        from.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut buffer = [0u8; 16 * 1024];
        loop {
            if frozen.load(Ordering::SeqCst) {
                // Both sockets stay open for the rest of the test process, silent.
                loop {
                    std::thread::park();
                }
            }
            match from.read(&mut buffer) {
                Ok(0) => {
                    let _ = to.shutdown(Shutdown::Write);
                    return;
                }
                Ok(n) => {
                    if frozen.load(Ordering::SeqCst) {
                        continue;
                    }
                    if to.write_all(&buffer[..n]).is_err() {
                        return;
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => {
                    let _ = to.shutdown(Shutdown::Both);
                    return;
                }
            }
        }
    });
}

/// The status `GET /ready` answers, `None` when it does not answer.
fn ready(client: &reqwest::blocking::Client, admin: &str) -> Option<u16> {
    client
        .get(format!("http://{admin}/ready"))
        .send()
        .ok()
        .map(|r| r.status().as_u16())
}

/// Polls `/ready` until it answers `status`; how long that took, or a failure after `patience`.
fn until_ready_is(
    client: &reqwest::blocking::Client,
    admin: &str,
    status: u16,
    patience: Duration,
) -> Duration {
    let start = Instant::now();
    loop {
        if ready(client, admin) == Some(status) {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < patience,
            "/ready did not answer {status} within {patience:?}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn a_half_open_link_makes_ready_503_within_30_s_and_is_replaced() {
    let Some(url) = broker_url() else { return };
    let vhost = Vhost::new("halfopen", &url);
    let broker = host_port(&url);
    let proxy = Proxy::start(broker.clone());
    let amqp = vhost
        .url
        .replacen(&broker, &format!("127.0.0.1:{}", proxy.port), 1);
    let dir = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let (_child, rx) = run_bingo(&amqp, "info", dir.path(), &admin);
    let mut lines = Vec::new();
    wait_for(&rx, &mut lines, "arcade ready", 1);
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    until_ready_is(&client, &admin, 200, Duration::from_secs(60));

    let links = proxy.accepted();
    proxy.freeze();
    // The heartbeat (10 s, both ways) is missed twice: the link is given up within ~20 s.
    let seen = until_ready_is(&client, &admin, 503, Duration::from_secs(60));
    assert!(
        seen <= Duration::from_secs(30),
        "/ready answered 503 only {seen:?} after the link went silent"
    );
    // The broker within reach again: a new link, ready again.
    proxy.thaw();
    until_ready_is(&client, &admin, 200, Duration::from_secs(90));
    assert!(
        proxy.accepted() > links,
        "ready again without a new connection"
    );
    lines.extend(rx.try_iter());
    eprintln!("/ready 503 {seen:?} after the link went silent");
}
