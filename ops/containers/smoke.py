#!/usr/bin/env python3
"""Arcade's containers, run as users run them: the whole docker-compose.yml brought up with
podman-compose (the broker first, then every service), driven from the host through the broker's
published port, killed and restarted.

Called by ops/containers/smoke.sh once the images exist (localhost/arcade:latest, and the broker
image named by --rabbitmq-image). What it does, failing with the reason at the first miss:

1. renders the broker definitions and an env file with fresh secrets into a temporary
   directory (never into the repository, never printed) and picks free host ports, so a broker
   already on the host (5672, 15672) is left alone;
2. `podman-compose up -d rabbitmq`, waits until its health check passes, then `up -d` the rest
   and waits for each service's health check (GET /ready, ops/healthcheck.sh);
3. from inside the compose network (a shell in the console's container), GET /ready and
   /metrics of every target ops/prometheus/prometheus.yml scrapes, /metrics parsed with
   Prometheus's own text parser (prometheus_client) where installed; the console's page from
   the host;
4. a table game (start, five goals), a bingo game (open, draws) and puzzle sessions
   (`arcade puzzle simulate`), sent as the operator with the host's arcade binary;
5. SIGKILL of the puzzle telemetry's container while a second batch of sessions is in its
   queue, the first batch sent again (same ids), then `podman start` of the container;
6. the counts before and after, read from the broker's history stream (every event published)
   and dead-letter queue: every input applied once (one result event per input), none twice
   (a result event republished with its own id after the kill is counted apart: consumers
   deduplicate it), no dead letter; the services' deduplicated count covers the 60 resent.
"""

import argparse
import base64
import json
import os
import re
import secrets
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ["referee", "bingo", "race-master", "puzzle-telemetry", "console"]
TABLE = "t1"


class SmokeError(Exception):
    """What went wrong, said for the reader of the CI log."""


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def read_env(path):
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values


class Deployment:
    """One compose project in a temporary directory, and how to reach it."""

    def __init__(self, binary, rabbitmq_image, keep):
        self.binary = str(Path(binary).resolve())
        self.dir = Path(tempfile.mkdtemp(prefix="arcade-containers-"))
        self.keep = keep
        self.project = f"arcade-smoke-{secrets.token_hex(3)}"
        self.env_file = self.dir / ".env"
        definitions = self.dir / "definitions.rendered.json"
        render = subprocess.run(
            [sys.executable, str(ROOT / "ops/rabbitmq/render-definitions.py"),
             "--env-file", str(self.env_file), "--generate-missing", "--file-mode", "0644",
             "-o", str(definitions)],
            capture_output=True, text=True)
        if render.returncode != 0:
            raise SmokeError(f"render-definitions.py: {render.stderr.strip()}")
        self.ports = {name: free_port() for name in ("amqp", "ui", "console")}
        with open(self.env_file, "a", encoding="utf-8") as out:
            out.write(f"ARCADE_BINGO_SECRET={secrets.token_urlsafe(32)}\n")
            out.write(f"ARCADE_RACE_SEED={secrets.randbits(63)}\n")
            out.write(f"ARCADE_ADMIN_TOKEN={secrets.token_urlsafe(32)}\n")
            out.write(f"ARCADE_RABBITMQ_IMAGE={rabbitmq_image}\n")
            out.write(f"ARCADE_BROKER_DEFINITIONS={definitions}\n")
            out.write(f"ARCADE_AMQP_PORT={self.ports['amqp']}\n")
            out.write(f"ARCADE_RABBITMQ_UI_PORT={self.ports['ui']}\n")
            out.write(f"ARCADE_CONSOLE_PORT={self.ports['console']}\n")
        env = read_env(self.env_file)
        self.secrets = [v for k, v in env.items()
                        if k.startswith("ARCADE_BROKER_PASSWORD_") or k in
                        ("ARCADE_BINGO_SECRET", "ARCADE_RACE_SEED", "ARCADE_ADMIN_TOKEN")]
        self.admin_password = env["ARCADE_BROKER_PASSWORD_ARCADE_ADMIN"]
        self.amqp_url = (f"amqp://arcade-admin:{self.admin_password}"
                         f"@127.0.0.1:{self.ports['amqp']}/arcade")

    def redact(self, text):
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def run(self, args, what, timeout=300, env=None, check=True):
        try:
            done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True,
                                  timeout=timeout, env=env)
        except subprocess.TimeoutExpired as error:
            raise SmokeError(f"{what}: no answer within {timeout} s") from error
        if check and done.returncode != 0:
            raise SmokeError(f"{what}: exit {done.returncode}\n"
                             f"{self.redact(done.stdout + done.stderr).strip()}")
        return done

    def compose(self, *args, timeout=300):
        return self.run(["podman-compose", "--env-file", str(self.env_file), "-p", self.project,
                         "-f", str(ROOT / "docker-compose.yml"), *args],
                        f"podman-compose {' '.join(args)}", timeout=timeout)

    def container(self, service):
        done = self.run(["podman", "ps", "-a", "--format", "{{.Names}}",
                         "--filter", f"label=io.podman.compose.project={self.project}",
                         "--filter", f"label=com.docker.compose.service={service}"],
                        f"finding the container of {service}")
        names = done.stdout.split()
        if len(names) != 1:
            raise SmokeError(f"service {service}: containers {names}, expected one")
        return names[0]

    def wait_healthy(self, service, timeout=180):
        """Runs the container's health check until it passes (podman without systemd runs
        none on its own)."""
        name = self.container(service)
        deadline = time.monotonic() + timeout
        while True:
            check = self.run(["podman", "healthcheck", "run", name], f"health check of {name}",
                             check=False, timeout=30)
            if check.returncode == 0:
                return
            if time.monotonic() > deadline:
                logs = self.run(["podman", "logs", "--tail", "20", name], "logs",
                                check=False).stderr
                raise SmokeError(f"{service}: not healthy after {timeout} s: "
                                 f"{self.redact(check.stdout + check.stderr).strip()}\n"
                                 f"{self.redact(logs)}")
            time.sleep(1)

    def http_in_network(self, host, port, path):
        """GET http://host:port/path from a shell in the console's container (the compose
        network, as Prometheus scrapes): (status, body)."""
        script = ('exec 3<>"/dev/tcp/$0/$1" && printf "GET %s HTTP/1.0\\r\\nHost: %s\\r\\n\\r\\n" '
                  '"$2" "$0" >&3 && timeout 5 cat <&3')
        done = self.run(["podman", "exec", self.container("console"), "bash", "-c", script,
                         host, str(port), path], f"GET http://{host}:{port}{path} in the network",
                        timeout=30)
        # (text mode turned the answer's CRLF into LF)
        head, _, body = done.stdout.partition("\n\n")
        match = re.match(r"HTTP/1\.[01] (\d{3})", head)
        if not match:
            raise SmokeError(f"GET http://{host}:{port}{path}: no HTTP answer: {head[:200]!r}")
        return int(match.group(1)), body

    def arcade(self, *args, stdin=None, timeout=120):
        env = dict(os.environ, ARCADE_AMQP_URL=self.amqp_url, RUST_LOG="warn", NO_COLOR="1")
        try:
            done = subprocess.run([self.binary, *args], cwd=ROOT, input=stdin, env=env,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as error:
            raise SmokeError(f"arcade {args[0]}: no answer within {timeout} s") from error
        if done.returncode != 0:
            raise SmokeError(f"arcade {' '.join(args)}: exit {done.returncode}\n"
                             f"{self.redact(done.stdout + done.stderr).strip()}")
        return done.stdout

    def management(self, path):
        request = urllib.request.Request(f"http://127.0.0.1:{self.ports['ui']}/api{path}")
        token = base64.b64encode(f"arcade-admin:{self.admin_password}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.load(answer)
        except (urllib.error.URLError, OSError) as error:
            raise SmokeError(f"management API {path}: {error}") from error

    def history(self, quiet_for=2.0, timeout=60):
        """Every event the broker's history stream holds: `arcade tap '#' --from first`, read
        until nothing more comes for `quiet_for` seconds."""
        env = dict(os.environ, ARCADE_AMQP_URL=self.amqp_url, RUST_LOG="warn", NO_COLOR="1")
        tap = subprocess.Popen([self.binary, "tap", "#", "--from", "first"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        events, buffer = [], b""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([tap.stdout], [], [], quiet_for)
                if not ready:
                    if events:
                        return events
                    continue
                chunk = os.read(tap.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise SmokeError("arcade tap --from first ended early")
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                events.extend(json.loads(line) for line in lines if line.strip())
            raise SmokeError(f"the history did not go quiet within {timeout} s")
        finally:
            tap.kill()
            tap.wait()

    def down(self):
        if self.keep:
            print(f"kept: podman-compose -p {self.project} --env-file {self.env_file} "
                  f"-f docker-compose.yml down -v")
            return
        try:
            self.compose("down", "-v", "-t", "5", timeout=180)
        except SmokeError as error:
            print(f"cleaning up: {error}", file=sys.stderr)
        shutil.rmtree(self.dir, ignore_errors=True)


def prometheus_targets():
    """The targets of ops/prometheus/prometheus.yml, by job."""
    text = (ROOT / "ops/prometheus/prometheus.yml").read_text(encoding="utf-8")
    jobs, job = {}, None
    for line in text.splitlines():
        name = re.match(r"\s*- job_name:\s*(\S+)", line)
        if name:
            job = name.group(1)
            jobs[job] = {"path": "/metrics", "targets": []}
            continue
        path = re.match(r"\s*metrics_path:\s*(\S+)", line)
        if path and job:
            jobs[job]["path"] = path.group(1)
        target = re.match(r"\s*- ([A-Za-z0-9.-]+:\d+)\s*$", line)
        if target and job:
            jobs[job]["targets"].append(target.group(1))
    return jobs


def parse_metrics(text, where):
    """The samples of a /metrics page, with Prometheus's own parser where installed."""
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        samples = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                samples[name] = float(value)
        return samples
    samples = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
                samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    except ValueError as error:
        raise SmokeError(f"{where}: Prometheus's parser refuses it: {error}") from error
    return samples


def metric_sum(samples, name):
    return sum(v for k, v in samples.items() if k == name or k.startswith(name + "{"))


def scrape_everything(deployment):
    """/ready and /metrics of every Arcade target, RabbitMQ's /metrics: the deduplicated
    messages summed over the services."""
    jobs = prometheus_targets()
    arcade = jobs.get("arcade", {}).get("targets", [])
    hosts = {t.split(":")[0] for t in arcade}
    if hosts != set(SERVICES):
        raise SmokeError(f"ops/prometheus/prometheus.yml scrapes {sorted(hosts)}, "
                         f"the compose file starts {SERVICES}")
    deduplicated = 0.0
    for target in arcade:
        host, port = target.split(":")
        status, body = deployment.http_in_network(host, port, "/ready")
        if status != 200 or '"status":"ready"' not in body:
            raise SmokeError(f"{target}/ready: {status} {body[:300]}")
        status, body = deployment.http_in_network(host, port, "/metrics")
        if status != 200:
            raise SmokeError(f"{target}/metrics: {status}")
        samples = parse_metrics(body, f"{target}/metrics")
        if not any(k.startswith("arcade_") for k in samples):
            raise SmokeError(f"{target}/metrics: no arcade_* metric")
        deduplicated += metric_sum(samples, "arcade_messages_deduplicated_total")
    for job in ("rabbitmq",):
        for target in jobs.get(job, {}).get("targets", []):
            host, port = target.split(":")
            status, body = deployment.http_in_network(host, port, jobs[job]["path"])
            if status != 200 or "rabbitmq_" not in body:
                raise SmokeError(f"{target}{jobs[job]['path']}: {status}")
    return int(deduplicated)


def counts(deployment, sent, deduplicated):
    """What the history and the dead letters say: per kind of input, how many were applied
    (distinct causations of its result events) and how many applied twice."""
    events = deployment.history()
    results = {"table goals": "table.goal.scored.v1", "bingo draws": "bingo.square.called.v1",
               "puzzle sessions": ("puzzle.session.recorded.v1", "puzzle.session.flagged.v1")}
    applied, twice, republished = {}, {}, {}
    for kind, types in results.items():
        types = (types,) if isinstance(types, str) else types
        # A result event published again with its own id (a relay killed before it recorded
        # the broker's confirm) is one event, which consumers deduplicate; a second result of
        # one input, with another id, is an input applied twice.
        by_cause = {}
        ids = [e["message_id"] for e in events if e["type"] in types]
        for event in (e for e in events if e["type"] in types):
            by_cause.setdefault(event.get("causation_id"), set()).add(event["message_id"])
        applied[kind] = len(by_cause)
        twice[kind] = sum(len(found) - 1 for found in by_cause.values())
        republished[kind] = len(ids) - len(set(ids))
    finished = [e for e in events if e["type"] == "table.game.finished.v1"]
    dead = deployment.management("/queues/arcade/arcade.dead")
    return {"sent": dict(sent), "applied": applied, "twice": twice, "republished": republished,
            "dead": dead.get("messages", 0), "deduplicated": deduplicated,
            "games finished": len(finished)}


def report(title, figures):
    kinds = list(figures["sent"])
    print(f"--- {title}")
    print(f"    {'':16} {'sent':>6} {'applied':>8} {'applied twice':>14} {'republished':>12}")
    for kind in kinds:
        print(f"    {kind:16} {figures['sent'][kind]:>6} {figures['applied'][kind]:>8} "
              f"{figures['twice'][kind]:>14} {figures['republished'][kind]:>12}")
    print(f"    duplicates deduplicated by the services (since each container started): "
          f"{figures['deduplicated']}; dead letters: {figures['dead']}; "
          f"table games finished: {figures['games finished']}")


def wait_for(deployment, what, predicate, timeout=90):
    deadline = time.monotonic() + timeout
    while True:
        figures = predicate()
        if figures is not None:
            return figures
        if time.monotonic() > deadline:
            raise SmokeError(f"{what}: not within {timeout} s")
        time.sleep(1)


def settled(deployment, sent, expected):
    """The counts once every input has its result, or None."""
    def check():
        figures = counts(deployment, sent, 0)
        if all(figures["applied"][k] >= expected[k] for k in expected):
            return figures
        return None
    return check


def drive(deployment):
    started = time.monotonic()
    step = lambda text: print(f"[{time.monotonic() - started:5.1f} s] {text}", flush=True)
    step("broker up")
    deployment.compose("up", "-d", "--no-build", "rabbitmq")
    deployment.wait_healthy("rabbitmq")
    step("services up")
    deployment.compose("up", "-d", "--no-build")
    for service in SERVICES:
        deployment.wait_healthy(service)
    step("every container healthy (GET /ready)")

    scrape_everything(deployment)
    step("/ready and /metrics of every target of ops/prometheus/prometheus.yml, from the network")
    with urllib.request.urlopen(f"http://127.0.0.1:{deployment.ports['console']}/tables",
                                timeout=10) as page:
        html = page.read().decode("utf-8", "replace")
        if page.status != 200 or "<html" not in html.lower():
            raise SmokeError(f"the console's /tables: {page.status}")
    step("the console's page /tables from the host")

    sent = {"table goals": 0, "bingo draws": 0, "puzzle sessions": 0}
    game = f"smoke-{secrets.token_hex(3)}"
    deployment.arcade("referee", "start", "--table", TABLE, "--game", game, "--rules",
                      "services/referee/examples/bar.rules.json", "--hinge", "alice",
                      "--lock", "bob")
    for _ in range(5):
        deployment.arcade("referee", "goal", "--table", TABLE, "--side", "hinge", "--kind", "goal")
        sent["table goals"] += 1
    bingo = f"smoke-{secrets.token_hex(3)}"
    deployment.arcade("send", "bingo.game.open.v1", "-", stdin=json.dumps({
        "gameId": bingo, "requestId": "open", "grid": {"size": 3}, "tickMode": "called",
        "patterns": [{"kind": "line"}],
        "pool": [{"id": n, "label": f"square {n}"} for n in range(1, 13)]}))
    for n in range(6):
        deployment.arcade("send", "bingo.square.draw.v1", "-",
                          stdin=json.dumps({"gameId": bingo, "requestId": f"draw-{n}"}))
        sent["bingo draws"] += 1
    first_seed, second_seed = secrets.randbits(31), secrets.randbits(31)
    deployment.arcade("puzzle", "simulate", "--sessions", "60", "--seed", str(first_seed))
    sent["puzzle sessions"] += 60
    expected = dict(sent)
    before = wait_for(deployment, "every input applied", settled(deployment, sent, expected))
    before["deduplicated"] = scrape_everything(deployment)
    step("a table game, a bingo game and 60 puzzle sessions applied")
    report("before the SIGKILL", before)

    telemetry = deployment.container("puzzle-telemetry")
    deployment.arcade("puzzle", "simulate", "--sessions", "300", "--seed", str(second_seed))
    sent["puzzle sessions"] += 300
    expected["puzzle sessions"] += 300
    deployment.run(["podman", "kill", "--signal", "KILL", telemetry], "SIGKILL")
    step("300 more sessions sent, puzzle-telemetry killed (SIGKILL)")
    deployment.arcade("puzzle", "simulate", "--sessions", "60", "--seed", str(first_seed))
    sent["puzzle sessions"] += 60
    step("the first 60 sessions sent again (the same message ids) while it is down")
    deployment.run(["podman", "start", telemetry], "restarting puzzle-telemetry")
    deployment.wait_healthy("puzzle-telemetry")
    step("puzzle-telemetry restarted and healthy")

    def drained():
        queue = deployment.management("/queues/arcade/puzzle-telemetry")
        if queue.get("messages", 1) != 0:
            return None
        return settled(deployment, sent, expected)()
    after = wait_for(deployment, "every session applied after the restart", drained)
    after["deduplicated"] = scrape_everything(deployment)
    step("the queue drained, every session applied")
    report("after the SIGKILL and restart", after)

    problems = []
    for figures, when in ((before, "before"), (after, "after")):
        for kind, count in expected.items():
            wanted = count if figures is after else before["sent"][kind]
            if figures["applied"][kind] != wanted:
                problems.append(f"{when}: {kind}: {figures['applied'][kind]} applied, "
                                f"{wanted} distinct sent")
            if figures["twice"][kind]:
                problems.append(f"{when}: {kind}: {figures['twice'][kind]} applied twice")
        if figures["dead"]:
            problems.append(f"{when}: {figures['dead']} dead letter(s)")
        if figures["games finished"] != 1:
            problems.append(f"{when}: {figures['games finished']} table games finished, not 1")
    if after["deduplicated"] < 60:
        problems.append(f"the 60 sessions sent again: {after['deduplicated']} deduplicated")
    if problems:
        raise SmokeError("; ".join(problems))
    step("nothing lost, nothing applied twice")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True, help="the arcade binary the image holds")
    parser.add_argument("--rabbitmq-image", default="localhost/arcade-rabbitmq:bookworm")
    parser.add_argument("--keep", action="store_true", help="leave the deployment running")
    args = parser.parse_args(argv)
    deployment = Deployment(args.binary, args.rabbitmq_image, args.keep)
    try:
        drive(deployment)
    except SmokeError as error:
        print(f"container test: FAILED: {error}", file=sys.stderr)
        for service in ["rabbitmq", *SERVICES]:
            try:
                name = deployment.container(service)
                logs = deployment.run(["podman", "logs", "--tail", "15", name], "logs",
                                      check=False)
                print(f"--- logs of {name}\n{deployment.redact(logs.stdout + logs.stderr)}",
                      file=sys.stderr)
            except SmokeError:
                pass
        return 1
    finally:
        deployment.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
