//! The `arcade` binary as the command-line tests run it: no broker, no `RUST_LOG`, the console
//! on a port of its own, the operator's token given; a free port; a child killed when the test
//! ends however it ends.

use std::net::TcpListener;
use std::process::{Child, Command};

/// `arcade` on the embedded transport, presenting `token` as the operator's.
pub fn arcade(token: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arcade"));
    command
        .env("ARCADE_CONSOLE_ADDR", "127.0.0.1:0")
        .env_remove("ARCADE_AMQP_URL")
        .env_remove("RUST_LOG")
        .env("ARCADE_ADMIN_TOKEN", token);
    command
}

/// A loopback port nothing listens on.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child killed when the test ends, however it ends.
#[derive(Debug)]
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The log of `service` on a stopped data dir (`arcade log`): its envelopes, in order.
#[allow(dead_code)] // not every test that shares this file reads a log
pub fn envelopes(token: &str, service: &str, data: &std::path::Path) -> Vec<serde_json::Value> {
    let out = arcade(token)
        .args(["log", service, "--data"])
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["envelope"].clone())
        .collect()
}

/// A fresh data dir holding `tests/fixtures/<name>` (a `.tar.gz` of a data dir) unpacked.
#[allow(dead_code)] // only the tests of older data dirs unpack one
pub fn unpacked(name: &str) -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let tarball = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let status = Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(data.path())
        .status()
        .unwrap();
    assert!(status.success(), "unpacking {}", tarball.display());
    data
}
