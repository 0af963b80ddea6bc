//! `arcade-referee` stops within 2 s of SIGTERM, exit 0, whatever its HTTP clients do — one
//! holding a request half-sent, another a keep-alive connection — and the same data directory
//! opens again at once.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Generous deadlines: CI shares two cores with other work. The 2 s bound is the property.
const PATIENCE: Duration = Duration::from_secs(60);
const STOP_WITHIN: Duration = Duration::from_secs(2);

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child killed (SIGKILL) if the test fails before it stops it.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn referee(data: &std::path::Path, metrics: &str) -> Guard {
    Guard(
        Command::new(env!("CARGO_BIN_EXE_arcade-referee"))
            .env_remove("ARCADE_AMQP_URL")
            .env_remove("RUST_LOG")
            .arg("--data")
            .arg(data)
            .args(["--metrics-addr", metrics, "--table", "shutdown-t1"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// The status code of `GET path` on a fresh connection, if it answers.
fn get(addr: &str, path: &str) -> Option<u16> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream.set_read_timeout(Some(PATIENCE)).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    answer.split_whitespace().nth(1)?.parse().ok()
}

fn wait_ready(child: &mut Guard, addr: &str) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            panic!("arcade-referee exited before it was ready: {status}");
        }
        if get(addr, "/ready") == Some(200) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "/ready not 200 within {PATIENCE:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn terminate(child: &mut Guard) -> (std::process::ExitStatus, Duration) {
    let status = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let start = Instant::now();
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            return (status, start.elapsed());
        }
        assert!(
            start.elapsed() < PATIENCE,
            "still running {PATIENCE:?} after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn sigterm_with_clients_holding_connections_stops_within_two_seconds() {
    let data = tempfile::tempdir().unwrap();
    let metrics = format!("127.0.0.1:{}", free_port());
    let mut first = referee(data.path(), &metrics);
    wait_ready(&mut first, &metrics);

    // A keep-alive connection that has had its answer and stays open.
    let mut kept = TcpStream::connect(&metrics).unwrap();
    kept.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(kept, "GET /health HTTP/1.1\r\nHost: {metrics}\r\n\r\n").unwrap();
    let mut head = [0u8; 12];
    kept.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // A request whose headers never end, on a connection the server has accepted (the
    // keep-alive one above was served first, on the same listener).
    let mut half = TcpStream::connect(&metrics).unwrap();
    write!(half, "GET /metrics HTTP/1.1\r\nHost: {metrics}\r\nX-Slow: ").unwrap();
    half.flush().unwrap();

    let (status, took) = terminate(&mut first);
    assert_eq!(status.code(), Some(0), "a clean stop exits 0: {status}");
    assert!(
        took < STOP_WITHIN,
        "arcade-referee took {took:?} to stop with two clients connected"
    );
    eprintln!("arcade-referee stopped in {took:?}");

    // The log and the embedded bus open again at once.
    let metrics = format!("127.0.0.1:{}", free_port());
    let mut second = referee(data.path(), &metrics);
    wait_ready(&mut second, &metrics);
    let (status, took) = terminate(&mut second);
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(took < STOP_WITHIN, "the second start took {took:?} to stop");
}
