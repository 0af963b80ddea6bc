//! The few calls of the RabbitMQ management HTTP API the tests need: import a definitions
//! document (users, vhost, permissions, topic permissions, exchanges, queues, bindings,
//! policies), read a queue (its arguments and the policy in effect), delete a vhost (with
//! everything in it) and a user.

use reqwest::{Client, Method, Url};
use serde_json::Value;

use crate::OpsError;
use crate::settings::{Broker, percent_encode};

/// A client of the management API, logged in as an administrator.
#[derive(Debug, Clone)]
pub struct Management {
    client: Client,
    base: Url,
    user: String,
    password: String,
}

impl Management {
    /// The management API of `broker`.
    pub fn new(broker: &Broker) -> Self {
        Management {
            client: Client::new(),
            base: broker.management.clone(),
            user: broker.management_user.clone(),
            password: broker.management_password.clone(),
        }
    }

    /// `POST /api/definitions`: imports a whole definitions document.
    pub async fn import_definitions(&self, definitions: &Value) -> Result<(), OpsError> {
        self.call(Method::POST, "api/definitions", Some(definitions))
            .await
    }

    /// `DELETE /api/vhosts/{vhost}`: removes the vhost, its queues, exchanges and permissions.
    pub async fn delete_vhost(&self, vhost: &str) -> Result<(), OpsError> {
        let path = format!("api/vhosts/{}", percent_encode(vhost));
        self.call(Method::DELETE, &path, None).await
    }

    /// `DELETE /api/users/{user}`.
    pub async fn delete_user(&self, user: &str) -> Result<(), OpsError> {
        let path = format!("api/users/{}", percent_encode(user));
        self.call(Method::DELETE, &path, None).await
    }

    /// `GET /api/queues/{vhost}/{queue}`: the queue as the broker holds it (`arguments`,
    /// `policy`, `effective_policy_definition`, …).
    pub async fn queue(&self, vhost: &str, queue: &str) -> Result<Value, OpsError> {
        let path = format!(
            "api/queues/{}/{}",
            percent_encode(vhost),
            percent_encode(queue)
        );
        let what = format!("GET /{path}");
        let fail = |reason: String| OpsError::Management {
            what: what.clone(),
            reason,
        };
        let url = self.base.join(&path).map_err(|e| fail(e.to_string()))?;
        let response = self
            .client
            .get(url)
            .basic_auth(&self.user, Some(&self.password))
            .send()
            .await
            .map_err(|e| fail(e.to_string()))?;
        let status = response.status();
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            return Err(fail(format!("{status}: {text}")));
        }
        response.json().await.map_err(|e| fail(e.to_string()))
    }

    async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Result<(), OpsError> {
        let what = format!("{method} /{path}");
        let url = self.base.join(path).map_err(|e| OpsError::Management {
            what: what.clone(),
            reason: e.to_string(),
        })?;
        let mut request = self
            .client
            .request(method, url)
            .basic_auth(&self.user, Some(&self.password));
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| OpsError::Management {
            what: what.clone(),
            reason: format!(
                "{e} (is the management plugin enabled? ops/ci/prepare-broker.sh enables it)"
            ),
        })?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let text = response.text().await.unwrap_or_default();
        Err(OpsError::Management {
            what,
            reason: format!("{status}: {text}"),
        })
    }
}
