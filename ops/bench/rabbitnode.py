"""A RabbitMQ node of a bench script's own: its own ports, data dir and Erlang cookie (the
machine's broker is not touched), with Arcade's `max_message_size` from ops/rabbitmq/rabbitmq.conf
unless told otherwise, and no plugin.

Run as a script (tests do), it starts a node, prints its AMQP port once it listens, and stops it
when its standard input closes:

    python3 ops/bench/rabbitnode.py [--definitions FILE]   # FILE: load_definitions at boot
"""
import os, secrets, shutil, signal, socket, subprocess, sys, tempfile, time

RABBIT_BIN = os.environ.get("RABBITMQ_BIN_DIR", "/usr/lib/rabbitmq/bin")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Node:
    """A RabbitMQ node of this script's own, with Arcade's broker settings."""

    def __init__(self, limit=True, definitions=None):
        self.dir = tempfile.mkdtemp(prefix="hostile-rss-rabbit-")
        self.port = free_port()
        self.name = f"arcade-rss-{os.getpid()}@localhost"
        d = self.dir
        cookie = os.path.join(d, ".erlang.cookie")
        with open(cookie, "w") as f:
            f.write(secrets.token_hex(16))
        os.chmod(cookie, 0o400)
        for name, text in [("rabbitmq-env.conf", ""), ("enabled_plugins", "[].\n"),
                           ("advanced.config", "[].\n")]:
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        settings = [line for line in open(os.path.join(os.path.dirname(__file__), "..",
                                                       "rabbitmq", "rabbitmq.conf"))
                    if limit and line.startswith("max_message_size")]
        with open(os.path.join(d, "rabbitmq.conf"), "w") as f:
            f.write("log.console = false\ndisk_free_limit.absolute = 50MB\n"
                    f"listeners.tcp.default = {self.port}\n" + "".join(settings))
            if definitions:
                f.write(f"load_definitions = {os.path.abspath(definitions)}\n")
        self.env = dict(os.environ, HOME=d, RABBITMQ_NODENAME=self.name,
                        RABBITMQ_CONF_ENV_FILE=f"{d}/rabbitmq-env.conf",
                        RABBITMQ_CONFIG_FILE=f"{d}/rabbitmq",
                        RABBITMQ_ADVANCED_CONFIG_FILE=f"{d}/advanced.config",
                        RABBITMQ_ENABLED_PLUGINS_FILE=f"{d}/enabled_plugins",
                        RABBITMQ_MNESIA_BASE=f"{d}/mnesia", RABBITMQ_LOG_BASE=f"{d}/log",
                        RABBITMQ_PID_FILE=f"{d}/pid", ERL_EPMD_ADDRESS="127.0.0.1",
                        RABBITMQ_NODE_IP_ADDRESS="127.0.0.1",
                        RABBITMQ_DIST_PORT=str(free_port()))
        out = open(os.path.join(d, "server.log"), "ab")
        self.proc = subprocess.Popen([os.path.join(RABBIT_BIN, "rabbitmq-server")], env=self.env,
                                     cwd=d, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        self.settings = "".join(settings).strip()
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    sys.exit(f"rabbitmq-server exited: see {d}/server.log")
                time.sleep(0.5)
        sys.exit("rabbitmq-server did not listen")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        subprocess.run(["pkill", "-f", self.dir], check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="a RabbitMQ node until stdin closes")
    parser.add_argument("--definitions", help="definitions file the node loads at boot")
    args = parser.parse_args()
    node = Node(definitions=args.definitions)
    try:
        print(node.port, flush=True)
        sys.stdin.read()
    finally:
        node.stop()
