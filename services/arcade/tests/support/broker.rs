//! Broker support shared by the `arcade` crate's broker tests: the URL (skipping without a
//! broker unless `ARCADE_REQUIRE_BROKER=1`) and a vhost of the test's own.

use std::process::{Command, Output};

pub fn broker_url() -> Option<String> {
    match std::env::var("ARCADE_AMQP_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
                "ARCADE_REQUIRE_BROKER=1 but ARCADE_AMQP_URL is unset: broker tests must run"
            );
            eprintln!("skipped: ARCADE_AMQP_URL unset");
            None
        }
    }
}

pub fn rabbitmqctl(args: &[&str]) -> Output {
    let program = std::env::var("RABBITMQCTL").unwrap_or_else(|_| "rabbitmqctl".into());
    Command::new(&program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} {args:?}: {e} (set RABBITMQCTL)"))
}

/// A vhost of the test's own on the broker, deleted when the test ends.
pub struct Vhost {
    pub name: String,
    pub url: String,
}

impl Vhost {
    /// A new vhost named `arcade-PREFIX-<uuid>`, guest-like permissions for the URL's user.
    pub fn new(prefix: &str, url: &str) -> Vhost {
        let name = format!("arcade-{prefix}-{}", uuid::Uuid::new_v4().simple());
        let (authority, _) = url
            .rsplit_once('/')
            .filter(|(a, _)| a.contains('@'))
            .expect("ARCADE_AMQP_URL is amqp://user:pass@host:port/vhost");
        let user = authority
            .split_once("://")
            .and_then(|(_, rest)| rest.split_once([':', '@']))
            .map(|(user, _)| user)
            .expect("ARCADE_AMQP_URL names its user");
        let made = rabbitmqctl(&["add_vhost", &name]);
        assert!(made.status.success(), "add_vhost {name}: {made:?}");
        let vhost = Vhost {
            url: format!("{authority}/{name}"),
            name,
        };
        let allowed = rabbitmqctl(&["set_permissions", "-p", &vhost.name, user, ".*", ".*", ".*"]);
        assert!(allowed.status.success(), "set_permissions: {allowed:?}");
        vhost
    }
}

impl Drop for Vhost {
    fn drop(&mut self) {
        let _ = rabbitmqctl(&["delete_vhost", &self.name]);
    }
}

/// The URL of a broker with `plugin` enabled (`rabbitmq-plugins is_enabled`): a broker as
/// Debian installs it has none. Without it the test is skipped saying what is missing and how
/// to enable it (`ops/ci/prepare-broker.sh` does for CI), or fails under
/// `ARCADE_REQUIRE_BROKER=1`.
#[allow(dead_code)] // not every test that includes this file needs a plugin
pub fn broker_url_with_plugin(plugin: &str) -> Option<String> {
    let url = broker_url()?;
    let program = std::env::var("RABBITMQ_PLUGINS").unwrap_or_else(|_| "rabbitmq-plugins".into());
    let enabled = Command::new(&program)
        .args(["-q", "is_enabled", plugin])
        .output()
        .is_ok_and(|out| out.status.success());
    if enabled {
        return Some(url);
    }
    let why = format!(
        "the broker lacks the plugin {plugin} ({program} is_enabled {plugin} says no): \
         enable it with `rabbitmq-plugins enable {plugin}` (ops/ci/prepare-broker.sh does)"
    );
    assert!(
        std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
        "ARCADE_REQUIRE_BROKER=1: {why}"
    );
    eprintln!("skipped: {why}");
    None
}
