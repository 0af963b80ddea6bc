//! Signatures as Symfony Messenger's signed transports write them (`Body-Sign`, `Sign-Algo`,
//! `Sign-Trust`), checked against test vectors that `tests/fixtures/symfony-sign/vectors.php`
//! computes in PHP as Symfony's `SigningSerializer` does: the vectors are what PHP computes now
//! (the script runs; `php` missing skips that test unless `ARCADE_REQUIRE_PHP=1`, as in CI); the
//! runtime builds the same signed payload and signature; every vector is accepted with its
//! proven sender or refused for what failed; a key removed from the file no longer verifies;
//! and on the embedded bus a signed message is applied as proven while a tampered one is
//! dead-lettered with the reason, and a signed but invalid one records its signed sender.

#[path = "support/signing.rs"]
mod signing;

use std::sync::Arc;
use std::time::Duration;

use arcade_contracts::Message;
use arcade_runtime::bus::embedded::EmbeddedBus;
use arcade_runtime::dead_letter::{BAD_SIGNATURE, HEADER_DEAD_KIND, HEADER_DEAD_SENDER};
use arcade_runtime::signing::{Algorithm, HEADER_BODY_SIGN, HEADER_SIGN_ALGO};
use arcade_runtime::testkit::{self, ItemEmitted, Tally};
use arcade_runtime::wire::HEADER_DEAD_REASON;
use arcade_runtime::{Bus as _, Destination, HostConfig, Publication};
use signing::Expect;

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn php_computes_the_checked_in_vectors() {
    let script = signing::fixtures().join("vectors.php");
    let output = match std::process::Command::new("php").arg(&script).output() {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                std::env::var("ARCADE_REQUIRE_PHP").as_deref() != Ok("1"),
                "ARCADE_REQUIRE_PHP=1 but php is not installed"
            );
            eprintln!("skipped: php is not installed (apt-get install php-cli)");
            return;
        }
        Err(e) => panic!("php {}: {e}", script.display()),
    };
    assert!(
        output.status.success(),
        "php {}: {}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let computed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        computed,
        signing::vectors().json,
        "vectors.json is not what vectors.php computes: run `php vectors.php > vectors.json` in {}",
        signing::fixtures().display()
    );
}

#[test]
fn the_runtime_signs_the_payload_symfony_signs() {
    let vectors = signing::vectors();
    for case in &vectors.cases {
        let wire = case.wire();
        assert_eq!(
            String::from_utf8(arcade_runtime::signing::signed_payload(&wire)).unwrap(),
            case.signed_payload,
            "{}",
            case.name
        );
        // The accepted ones: signing them again gives Symfony's signature, byte for byte.
        if let Expect::Sender(_) = case.expect {
            let algorithm = Algorithm::from_name(&wire.headers[HEADER_SIGN_ALGO]).unwrap();
            let mut again = wire.clone();
            arcade_runtime::signing::sign(&mut again, vectors.key_of(case).as_bytes(), algorithm);
            assert_eq!(
                again.headers[HEADER_BODY_SIGN], wire.headers[HEADER_BODY_SIGN],
                "{}",
                case.name
            );
        }
    }
}

#[test]
fn every_vector_is_accepted_or_refused_as_expected() {
    let vectors = signing::vectors();
    let keys = vectors.signing_keys();
    for case in &vectors.cases {
        let got = match keys.verify(&case.wire()) {
            Ok(Some(producer)) => Expect::Sender(arcade_runtime::signing::signed_sender(&producer)),
            Ok(None) => panic!("{}: read as unsigned", case.name),
            Err(error) => {
                let reason = error.reason();
                assert!(reason.starts_with(BAD_SIGNATURE), "{reason}");
                for (_, key) in vectors
                    .keys
                    .iter()
                    .flat_map(|(n, ks)| ks.iter().map(move |k| (n, k)))
                {
                    assert!(!reason.contains(key.as_str()), "{reason}");
                }
                Expect::Refused(error.kind().to_string())
            }
        };
        assert_eq!(got, case.expect, "{}", case.name);
    }
}

#[test]
fn a_removed_key_no_longer_verifies_and_the_others_still_do() {
    let vectors = signing::vectors();
    let previous = vectors.case("signed with the previous key, still listed");
    let current = vectors.case("signed with the current key");
    let rotated = vectors.keys_but(Some("shop/1"));
    assert_eq!(
        rotated.verify(&previous.wire()).unwrap_err().kind(),
        "mismatch"
    );
    assert_eq!(rotated.verify(&current.wire()), Ok(Some("shop".into())));
    // Loaded from a file as an operator writes it, the same.
    let dir = tempfile::tempdir().unwrap();
    let file = vectors.keys_file(dir.path(), Some("shop/1"));
    let loaded = arcade_runtime::signing::SigningKeys::load(&file).unwrap();
    assert_eq!(loaded, rotated);
    assert!(!format!("{loaded:?}").contains(vectors.key_of(current)));
}

/// The cases of the tally's type (the others go to no queue of the test).
fn tallied(vectors: &signing::Vectors) -> Vec<&signing::Case> {
    vectors
        .cases
        .iter()
        .filter(|c| c.message_type() == ItemEmitted::TYPE)
        .collect()
}

async fn wait_dead_letters(bus: &EmbeddedBus, n: usize) -> Vec<arcade_runtime::WireMessage> {
    tokio::time::timeout(WAIT, async {
        loop {
            let dead = bus.dead_letters();
            if dead.len() >= n {
                return dead;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{n} dead letters within 30 s"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_embedded_bus_signed_is_proven_and_tampered_is_dead_lettered() {
    let vectors = signing::vectors();
    let bus = Arc::new(EmbeddedBus::temporary().unwrap());
    let dir = tempfile::tempdir().unwrap();
    // Signed messages count as proven: an unsigned one is refused, the signed ones applied.
    let runtime = testkit::runtime(bus.clone(), dir.path()).with_config(HostConfig {
        require_proven_sender: true,
        signing: arcade_runtime::signing::SigningKeys::load(&vectors.keys_file(dir.path(), None))
            .unwrap(),
        ..testkit::batches(16, 16)
    });
    let tally = runtime
        .start(Tally {
            name: "tally".into(),
        })
        .unwrap();
    let cases = tallied(&vectors);
    let publish = |message: arcade_runtime::WireMessage| {
        let bus = bus.clone();
        async move {
            bus.publish(&[Publication {
                destination: Destination::Topic,
                message,
            }])
            .await
            .unwrap();
        }
    };
    for case in &cases {
        publish(case.wire()).await;
    }
    let unsigned = arcade_runtime::WireMessage {
        message_type: Some(ItemEmitted::TYPE.into()),
        app_id: Some("shop".into()),
        body: br#"{"producer":"plain","n":1}"#.to_vec(),
        ..Default::default()
    };
    publish(unsigned).await;
    // Signed by shop but not a valid item (no `n`): a dead letter recording its signed sender.
    let mut invalid = arcade_runtime::WireMessage {
        message_type: Some(ItemEmitted::TYPE.into()),
        app_id: Some("shop".into()),
        body: br#"{"producer":"shop"}"#.to_vec(),
        ..Default::default()
    };
    let shop_key = vectors.key_of(vectors.case("signed with the current key"));
    arcade_runtime::signing::sign(&mut invalid, shop_key.as_bytes(), Algorithm::Sha256);
    publish(invalid).await;

    let accepted = cases
        .iter()
        .filter(|c| matches!(c.expect, Expect::Sender(_)))
        .count();
    let refused: Vec<_> = cases
        .iter()
        .filter(|c| matches!(c.expect, Expect::Refused(_)))
        .collect();
    tokio::time::timeout(WAIT, tally.wait_for_events(accepted as u64))
        .await
        .expect("the signed messages applied within 30 s");
    let dead = wait_dead_letters(&bus, refused.len() + 2).await;
    assert_eq!(dead.len(), refused.len() + 2);
    for case in &refused {
        let letter = dead
            .iter()
            .find(|d| d.body == case.body.as_bytes())
            .unwrap_or_else(|| panic!("{}: no dead letter", case.name));
        let reason = &letter.headers[HEADER_DEAD_REASON];
        let expected = vectors
            .signing_keys()
            .verify(&case.wire())
            .unwrap_err()
            .reason();
        assert_eq!(reason, &expected, "{}", case.name);
        assert_eq!(letter.headers[HEADER_DEAD_KIND], "refused", "{}", case.name);
    }
    assert!(
        dead.iter()
            .any(|d| d.dead_reason() == Some(arcade_runtime::inbound::NO_PROVEN_SENDER)),
        "the unsigned message is refused"
    );
    let invalid = dead
        .iter()
        .find(|d| d.body == br#"{"producer":"shop"}"#)
        .expect("the invalid signed message is a dead letter");
    assert_eq!(invalid.headers[HEADER_DEAD_SENDER], "signed:shop");
    assert_eq!(invalid.headers[HEADER_DEAD_KIND], "failed");
    let host = tally.stop(Duration::from_secs(5)).await.unwrap();
    let applied: Vec<_> = host.state().applied.keys().cloned().collect();
    assert_eq!(applied.len(), accepted, "{applied:?}");
    assert!(applied.contains(&("shop".to_string(), 2)), "{applied:?}");

    // The previous key removed: what it signs is dead-lettered now.
    let dir = tempfile::tempdir().unwrap();
    let runtime = testkit::runtime(bus.clone(), dir.path()).with_config(HostConfig {
        signing: vectors.keys_but(Some("shop/1")),
        ..testkit::batches(16, 16)
    });
    let tally = runtime
        .start(Tally {
            name: "rotated".into(),
        })
        .unwrap();
    let before = bus.dead_letters().len();
    publish(
        vectors
            .case("signed with the previous key, still listed")
            .wire(),
    )
    .await;
    publish(vectors.case("signed with the current key").wire()).await;
    tokio::time::timeout(WAIT, tally.wait_for_events(1))
        .await
        .expect("the current key's message applied");
    let dead = wait_dead_letters(&bus, before + 1).await;
    let reason = dead[before].dead_reason().unwrap();
    assert!(
        reason.starts_with(&format!(
            "{BAD_SIGNATURE}: no signing key of producer \"shop\" verifies it"
        )),
        "{reason}"
    );
    tally.stop(Duration::from_secs(5)).await.unwrap();
    bus.close().await.unwrap();
}
