//! The Symfony signing test vectors (`tests/fixtures/symfony-sign/vectors.json`, made by
//! `vectors.php` as Symfony Messenger signs), and each case as a RabbitMQ delivery's properties
//! and as the message the runtime reads from them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use arcade_runtime::WireMessage;
use arcade_runtime::bus::amqp::properties::from_properties;
use arcade_runtime::signing::SigningKeys;
use lapin::BasicProperties;
use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};
use serde_json::Value;

/// The directory of the vectors and of the PHP script that makes them.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/symfony-sign")
}

/// What a case must come to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Accepted, from this proven sender.
    Sender(String),
    /// Refused: the kind of failure ([`arcade_runtime::signing::SignatureError::kind`]).
    Refused(String),
}

/// One signed message.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub app_id: String,
    /// Which key signed it: `PRODUCER/INDEX` in `keys`, or `unlisted`.
    pub signed_with: String,
    pub body: String,
    /// Its headers, in the order the producer wrote them.
    pub headers: Vec<(String, String)>,
    /// PHP's `serialize([body, covered headers])`, what the signature covers.
    pub signed_payload: String,
    pub expect: Expect,
}

/// The vectors.
#[derive(Debug, Clone)]
pub struct Vectors {
    /// The keys of each producer, the current one first.
    pub keys: Vec<(String, Vec<String>)>,
    /// A key no keys file lists.
    pub unlisted_key: String,
    pub cases: Vec<Case>,
    /// The whole file, as JSON.
    pub json: Value,
}

fn text(value: &Value, field: &str) -> String {
    value[field]
        .as_str()
        .unwrap_or_else(|| panic!("vectors: {field} is not a string in {value}"))
        .to_string()
}

/// Reads the checked-in vectors.
pub fn vectors() -> Vectors {
    let path = fixtures().join("vectors.json");
    let json: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let keys = json["keys"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, keys)| {
            let keys = keys
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap().to_string())
                .collect();
            (name.clone(), keys)
        })
        .collect();
    let cases = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            // serde_json keeps no order; the header order is the producer's only in the file,
            // and the signature must not depend on it anyway.
            let headers = case["headers"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect();
            let expect = match (case["expect"].get("sender"), case["expect"].get("refused")) {
                (Some(sender), None) => Expect::Sender(sender.as_str().unwrap().into()),
                (None, Some(kind)) => Expect::Refused(kind.as_str().unwrap().into()),
                _ => panic!("vectors: a case expects neither a sender nor a refusal: {case}"),
            };
            Case {
                name: text(case, "name"),
                app_id: text(case, "app_id"),
                signed_with: text(case, "signed_with"),
                body: text(case, "body"),
                headers,
                signed_payload: text(case, "signed_payload"),
                expect,
            }
        })
        .collect();
    Vectors {
        keys,
        unlisted_key: text(&json, "unlisted_key"),
        cases,
        json,
    }
}

impl Vectors {
    /// The keys of every producer, as the runtime holds them.
    pub fn signing_keys(&self) -> SigningKeys {
        self.keys_but(None)
    }

    /// The keys of every producer, without `removed` (`PRODUCER/INDEX`).
    pub fn keys_but(&self, removed: Option<&str>) -> SigningKeys {
        SigningKeys::from_keys(self.keys.iter().map(|(name, keys)| {
            let kept = keys
                .iter()
                .enumerate()
                .filter(|(i, _)| removed != Some(format!("{name}/{i}").as_str()))
                .map(|(_, k)| k.as_str())
                .collect();
            (name.as_str(), kept)
        }))
        .unwrap()
    }

    /// A keys file of these producers' keys, as an operator writes it.
    pub fn keys_file(&self, dir: &Path, removed: Option<&str>) -> PathBuf {
        let producers: serde_json::Map<String, Value> = self
            .keys
            .iter()
            .map(|(name, keys)| {
                let kept: Vec<&String> = keys
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| removed != Some(format!("{name}/{i}").as_str()))
                    .map(|(_, k)| k)
                    .collect();
                (name.clone(), serde_json::json!(kept))
            })
            .collect();
        let path = dir.join("signing-keys.json");
        std::fs::write(
            &path,
            serde_json::to_vec_pretty(&serde_json::json!({ "producers": producers })).unwrap(),
        )
        .unwrap();
        path
    }

    /// The key a case was signed with.
    pub fn key_of(&self, case: &Case) -> &str {
        if case.signed_with == "unlisted" {
            return &self.unlisted_key;
        }
        let (name, index) = case.signed_with.split_once('/').unwrap();
        let keys = &self.keys.iter().find(|(n, _)| n == name).unwrap().1;
        &keys[index.parse::<usize>().unwrap()]
    }

    /// The case named `name`.
    pub fn case(&self, name: &str) -> &Case {
        self.cases
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no vector named {name:?}"))
    }
}

impl Case {
    /// The AMQP properties a Symfony producer sends it with: its headers (the type among them,
    /// not as the `type` property), its `app_id`, persistent.
    pub fn properties(&self) -> BasicProperties {
        let mut headers = FieldTable::default();
        for (name, value) in &self.headers {
            headers.insert(
                ShortString::from(name.clone()),
                AMQPValue::LongString(LongString::from(value.clone())),
            );
        }
        BasicProperties::default()
            .with_app_id(ShortString::from(self.app_id.clone()))
            .with_delivery_mode(2)
            .with_headers(headers)
    }

    /// The message the runtime reads from such a delivery.
    pub fn wire(&self) -> WireMessage {
        from_properties(&self.properties(), self.body.as_bytes().to_vec())
    }

    /// Its type header.
    pub fn message_type(&self) -> &str {
        &self.headers.iter().find(|(k, _)| k == "type").unwrap().1
    }
}
