//! TLS against a real listener: the test makes a CA and a server certificate signed by it for
//! localhost (`openssl`), plus an unrelated CA, and starts a RabbitMQ node of its own (own node
//! name, ports and data dir; the shared node on 5672 is never touched) with a TLS listener.
//! Arcade's bus connects with `amqps://` trusting the CA and a message round-trips; trusting
//! the unrelated CA, the connection is refused with a certificate error. Needs `rabbitmq-server`
//! and `openssl`; without them the test is skipped, or fails under `ARCADE_REQUIRE_BROKER=1`.

#[path = "support/broker.rs"]
mod broker;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arcade_runtime::bus::amqp::AmqpBus;
use arcade_runtime::{Bus, Destination, Publication, SubscriptionSpec, WireMessage};

const RABBIT_BIN: &str = "/usr/lib/rabbitmq/bin";

fn enabled() -> bool {
    let present = Path::new(RABBIT_BIN).join("rabbitmq-server").exists()
        && Command::new("openssl")
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !present {
        assert!(
            std::env::var("ARCADE_REQUIRE_BROKER").as_deref() != Ok("1"),
            "ARCADE_REQUIRE_BROKER=1 but rabbitmq-server or openssl is missing"
        );
        eprintln!("skipped: rabbitmq-server or openssl is not installed");
    }
    present
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA (`NAME-ca.pem`, `NAME-ca.key`) in `dir`.
fn make_ca(dir: &Path, name: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            &format!("{name}-ca.key"),
            "-out",
            &format!("{name}-ca.pem"),
            "-subj",
            &format!("/CN=Arcade test CA {name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
}

/// `server.pem`/`server.key` for localhost and 127.0.0.1, signed by CA `ca`.
fn make_server_cert(dir: &Path, ca: &str) {
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
    );
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            &format!("{ca}-ca.pem"),
            "-CAkey",
            &format!("{ca}-ca.key"),
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    );
}

/// A RabbitMQ node of the test's own, stopped when dropped.
struct Node {
    dir: PathBuf,
    name: String,
    child: Child,
}

impl Node {
    fn env(dir: &Path, name: &str, cmd: &mut Command) {
        cmd.env("HOME", dir)
            .env("RABBITMQ_NODENAME", name)
            .env("RABBITMQ_CONF_ENV_FILE", dir.join("rabbitmq-env.conf"))
            .env("RABBITMQ_CONFIG_FILE", dir.join("rabbitmq"))
            .env("RABBITMQ_ADVANCED_CONFIG_FILE", dir.join("advanced.config"))
            .env("RABBITMQ_ENABLED_PLUGINS_FILE", dir.join("enabled_plugins"))
            .env("RABBITMQ_MNESIA_BASE", dir.join("mnesia"))
            .env("RABBITMQ_LOG_BASE", dir.join("log"))
            .env("RABBITMQ_PID_FILE", dir.join("pid"))
            .env("ERL_EPMD_ADDRESS", "127.0.0.1")
            .env("ERL_FLAGS", "-kernel inet_dist_use_interface {127,0,0,1}");
    }

    fn start(dir: &Path, tls_port: u16) -> Node {
        let name = format!("arcade-tls-{}@localhost", std::process::id());
        let cookie = dir.join(".erlang.cookie");
        std::fs::write(&cookie, broker::random()).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cookie, std::fs::Permissions::from_mode(0o400)).unwrap();
        std::fs::write(dir.join("rabbitmq-env.conf"), "").unwrap();
        std::fs::write(dir.join("enabled_plugins"), "[].\n").unwrap();
        std::fs::write(dir.join("advanced.config"), "[].\n").unwrap();
        let d = dir.display();
        std::fs::write(
            dir.join("rabbitmq.conf"),
            format!(
                "log.console = false\nlog.file.level = info\ndisk_free_limit.absolute = 50MB\n\
                 listeners.tcp.default = {tcp}\n\
                 listeners.ssl.default = {tls_port}\n\
                 ssl_options.cacertfile = {d}/good-ca.pem\n\
                 ssl_options.certfile = {d}/server.pem\n\
                 ssl_options.keyfile = {d}/server.key\n\
                 ssl_options.verify = verify_none\n\
                 ssl_options.fail_if_no_peer_cert = false\n",
                tcp = free_port()
            ),
        )
        .unwrap();
        let mut cmd = Command::new(Path::new(RABBIT_BIN).join("rabbitmq-server"));
        Node::env(dir, &name, &mut cmd);
        cmd.env("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1")
            .env("RABBITMQ_DIST_PORT", free_port().to_string())
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(dir.join("stdout.log")).unwrap())
            .stderr(std::fs::File::create(dir.join("stderr.log")).unwrap());
        let child = cmd.spawn().expect("rabbitmq-server starts");
        Node {
            dir: dir.to_path_buf(),
            name,
            child,
        }
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_none()
    }

    fn logs(&self) -> String {
        let mut out = String::new();
        for f in ["stdout.log", "stderr.log"] {
            out += &std::fs::read_to_string(self.dir.join(f)).unwrap_or_default();
        }
        out
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let mut cmd = Command::new(Path::new(RABBIT_BIN).join("rabbitmqctl"));
        Node::env(&self.dir, &self.name, &mut cmd);
        let _ = cmd.args(["-n", &self.name, "stop"]).output();
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.running() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200));
        }
        if self.running() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn bus(port: u16, ca: &Path) -> AmqpBus {
    let mut config = broker::config(&format!("amqps://guest:guest@localhost:{port}/%2f"));
    config.ca_file = Some(ca.to_path_buf());
    config.connect_timeout = Duration::from_secs(20);
    AmqpBus::new(config).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn amqps_trusts_the_given_ca_and_refuses_another() {
    if !enabled() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    make_ca(dir.path(), "good");
    make_ca(dir.path(), "other");
    make_server_cert(dir.path(), "good");
    let port = free_port();
    let mut node = Node::start(dir.path(), port);

    // Up when a TLS connection trusting the CA succeeds (a loaded machine: generous deadline).
    let good = bus(port, &dir.path().join("good-ca.pem"));
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        match good.connect_now().await {
            Ok(()) => break,
            Err(e) => {
                assert!(node.running(), "the TLS node exited: {}", node.logs());
                assert!(
                    Instant::now() < deadline,
                    "no TLS connection within 180 s: {e}\n{}",
                    node.logs()
                );
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }

    let queue = format!("test.tls.{}", broker::random());
    let spec = SubscriptionSpec::durable(queue.clone(), vec!["tls.ping.v1".to_string()]);
    let mut consumer = good.subscribe(&spec).await.unwrap();
    good.publish(&[Publication {
        destination: Destination::Topic,
        message: WireMessage {
            message_type: Some("tls.ping.v1".to_string()),
            message_id: Some("tls-1".to_string()),
            app_id: Some("amqp_tls".to_string()),
            body: br#"{"over":"tls"}"#.to_vec(),
            ..Default::default()
        },
    }])
    .await
    .unwrap();
    let delivery = tokio::time::timeout(Duration::from_secs(60), consumer.next())
        .await
        .expect("the message came back within 60 s")
        .unwrap();
    assert_eq!(delivery.message.body, br#"{"over":"tls"}"#.to_vec());
    delivery.ack().await.unwrap();
    good.close().await;

    // The unrelated CA did not sign the server's certificate: refused, and the error says so.
    let other = bus(port, &dir.path().join("other-ca.pem"));
    let error = other.connect_now().await.unwrap_err().to_string();
    let lower = error.to_lowercase();
    assert!(
        lower.contains("certificate") || lower.contains("tls"),
        "the refusal names the certificate: {error}"
    );
    assert!(
        !error.contains("guest:guest"),
        "no password in the error: {error}"
    );

    // A missing CA file is named.
    let missing = bus(port, &dir.path().join("absent.pem"));
    let error = missing.connect_now().await.unwrap_err().to_string();
    assert!(error.contains("absent.pem"), "{error}");
    drop(node);
}
