//! A throwaway copy of the production broker policy: `ops/rabbitmq/definitions.json`, rendered
//! by `ops/rabbitmq/render-definitions.py` (the operators' own tool) with random test passwords
//! into a randomly named vhost (`arcade-sec-<hex>`) whose users carry the same prefix, loaded
//! through the management API, and removed again afterwards (even when the test fails).

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::process::Command;

use futures::FutureExt;
use lapin::{Connection, ConnectionProperties};
use serde_json::Value;

use crate::OpsError;
use crate::management::Management;
use crate::settings::Broker;

/// The repository's `ops/` directory.
pub fn ops_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The committed policy, `ops/rabbitmq/definitions.json`.
pub fn committed_definitions() -> Result<Value, OpsError> {
    let path = ops_dir().join("rabbitmq/definitions.json");
    let file_error = |reason: String| OpsError::File {
        path: path.display().to_string(),
        reason,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| file_error(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| file_error(e.to_string()))
}

/// The user names the committed policy defines, unprefixed.
pub fn policy_users(definitions: &Value) -> Vec<String> {
    definitions["users"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|u| u["name"].as_str().map(String::from))
        .collect()
}

/// The environment variable the renderer reads a user's password from.
pub fn password_variable(user: &str) -> String {
    let upper: String = user
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("ARCADE_BROKER_PASSWORD_{upper}")
}

/// The policy loaded into a test vhost of a live broker.
#[derive(Debug)]
pub struct Deployment {
    broker: Broker,
    management: Management,
    /// The vhost, `arcade-sec-<hex>`.
    pub vhost: String,
    prefix: String,
    passwords: BTreeMap<String, String>,
}

impl Deployment {
    /// Renders the policy (plus a user per race team) into a fresh vhost and loads it.
    pub async fn load(broker: &Broker, race_teams: &[&str]) -> Result<Deployment, OpsError> {
        let tag = format!("{:016x}", rand::random::<u64>());
        let vhost = format!("arcade-sec-{tag}");
        let prefix = format!("arcade-sec-{tag}-");
        let mut users = policy_users(&committed_definitions()?);
        users.extend(race_teams.iter().map(|t| format!("race-team-{t}")));
        let passwords: BTreeMap<String, String> = users
            .into_iter()
            .map(|u| (u, format!("{:032x}", rand::random::<u128>())))
            .collect();

        let script = ops_dir().join("rabbitmq/render-definitions.py");
        let mut command = Command::new("python3");
        command
            .arg(&script)
            .args(["--vhost", &vhost, "--user-prefix", &prefix, "-o", "-"]);
        for team in race_teams {
            command.args(["--race-team", team]);
        }
        for (user, password) in &passwords {
            command.env(password_variable(user), password);
        }
        let output = command.output().map_err(|e| {
            OpsError::Render(format!(
                "python3 {}: {e} (python3 is needed)",
                script.display()
            ))
        })?;
        if !output.status.success() {
            return Err(OpsError::Render(
                String::from_utf8_lossy(&output.stderr).trim().to_string(),
            ));
        }
        let rendered: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| OpsError::Render(format!("its output is not JSON: {e}")))?;

        let deployment = Deployment {
            broker: broker.clone(),
            management: Management::new(broker),
            vhost,
            prefix,
            passwords,
        };
        if let Err(e) = deployment.management.import_definitions(&rendered).await {
            deployment.remove().await;
            return Err(e);
        }
        Ok(deployment)
    }

    /// Runs `test` against a fresh deployment and removes the deployment afterwards, whether
    /// the test passed, failed or panicked.
    pub async fn with<T>(
        broker: &Broker,
        race_teams: &[&str],
        test: impl AsyncFnOnce(&Deployment) -> T,
    ) -> T {
        let deployment = match Deployment::load(broker, race_teams).await {
            Ok(d) => d,
            Err(e) => panic!("loading the ops definitions into the test broker: {e}"),
        };
        let outcome = AssertUnwindSafe(test(&deployment)).catch_unwind().await;
        deployment.remove().await;
        match outcome {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    /// The broker name of a policy user in this deployment.
    pub fn user(&self, user: &str) -> String {
        format!("{}{user}", self.prefix)
    }

    /// Connects as a policy user (e.g. `referee`) with its rendered password.
    pub async fn connect(&self, user: &str) -> Result<Connection, OpsError> {
        let password = self.passwords.get(user).ok_or_else(|| OpsError::Setting {
            name: "ops/rabbitmq/definitions.json",
            reason: format!("no user {user:?} in the policy"),
        })?;
        let url = self
            .broker
            .amqp_url(&self.user(user), password, &self.vhost);
        Connection::connect(&url, ConnectionProperties::default())
            .await
            .map_err(|source| OpsError::Amqp {
                what: format!("connecting as {user}"),
                source,
            })
    }

    /// Deletes the vhost and every user; failures are printed, not raised (a stale vhost is
    /// removed by `ops/ci/prepare-broker.sh`).
    pub async fn remove(&self) {
        if let Err(e) = self.management.delete_vhost(&self.vhost).await {
            eprintln!("cleaning up: {e}");
        }
        for user in self.passwords.keys() {
            if let Err(e) = self.management.delete_user(&self.user(user)).await {
                eprintln!("cleaning up: {e}");
            }
        }
    }
}
