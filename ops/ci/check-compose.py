#!/usr/bin/env python3
"""Static check of docker-compose.yml where `docker compose config` is unavailable (no compose
plugin or engine): parses the YAML (PyYAML), resolves the YAML merges and ${VAR:-x}/${VAR:?x}
interpolation like compose, and checks what the deployment relies on:

- the broker loads the rendered definitions and has a health check;
- one container per service of `arcade run`, built from ops/Dockerfile, whose command is the
  service's name, configured only through environment variables, whose ARCADE_AMQP_URL logs in
  as the service's own broker user on vhost `arcade`, and that waits for a healthy broker;
- each service keeps its data dir on a named volume of its own;
- bind-mounted files exist (the rendered definitions excepted: render-definitions.py makes it);
- observability: each service serves /metrics on a non-loopback ARCADE_METRICS_ADDR, its health
  check asks /ready, ops/prometheus/prometheus.yml scrapes exactly those addresses and RabbitMQ's
  rabbitmq_prometheus port, and ops/grafana/arcade.json is a dashboard of Arcade metrics (that
  each is one Arcade exports, services/runtime/tests/observe.rs checks on a live scrape).

Run from the repository root: python3 ops/ci/check-compose.py [docker-compose.yml [prometheus.yml]]
"""

import json
import os
import re
import sys
from pathlib import Path

import yaml

SERVICES = ["referee", "bingo", "race-master", "puzzle-telemetry", "console"]
RENDERED = "./ops/rabbitmq/definitions.rendered.json"
PROMETHEUS = "ops/prometheus/prometheus.yml"
DATA_DIR = "/var/lib/arcade"


def interpolate(value, env, problems):
    if isinstance(value, dict):
        return {k: interpolate(v, env, problems) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env, problems) for v in value]
    if not isinstance(value, str):
        return value

    def sub(match):
        name, op, arg = match.group(1), match.group(2), match.group(3) or ""
        current = env.get(name, "")
        if op == ":?" and not current:
            problems.append(f"${{{name}}} is required: {arg}")
        if op == ":-" and not current:
            return arg
        return current

    return re.sub(r"\$\{([A-Za-z0-9_]+)(?:(:[-?])([^}]*))?\}", sub, value)


def check(path, prometheus=PROMETHEUS):
    problems = []
    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    # Every ${VAR:?} must name its fix; give them values to check the rest.
    env = dict(os.environ)
    for name in re.findall(r"\$\{([A-Z0-9_]+):\?", Path(path).read_text(encoding="utf-8")):
        env.setdefault(name, f"<{name}>")
    doc = interpolate(doc, env, problems)
    services = doc.get("services", {})
    volumes = set((doc.get("volumes") or {}).keys())

    broker = services.get("rabbitmq")
    if broker is None:
        problems.append("no rabbitmq service")
    else:
        if "management" not in broker.get("image", ""):
            problems.append("rabbitmq: the image has no management UI")
        mounts = broker.get("volumes", [])
        if not any(m.startswith(RENDERED + ":") for m in mounts):
            problems.append(f"rabbitmq: does not mount {RENDERED}")
        if "healthcheck" not in broker:
            problems.append("rabbitmq: no health check")

    for name in SERVICES:
        svc = services.get(name)
        if svc is None:
            problems.append(f"no container for the service {name}")
            continue
        if svc.get("build", {}).get("dockerfile") != "ops/Dockerfile":
            problems.append(f"{name}: not built from ops/Dockerfile")
        if svc.get("command") != [name]:
            problems.append(f"{name}: command {svc.get('command')} is not [{name!r}]")
        env_vars = svc.get("environment", {})
        if not isinstance(env_vars, dict):
            problems.append(f"{name}: environment must be a mapping")
            env_vars = {}
        url = env_vars.get("ARCADE_AMQP_URL", "")
        if not re.match(rf"^amqps?://{re.escape(name)}:[^@]+@[^/]+/arcade$", url):
            problems.append(f"{name}: ARCADE_AMQP_URL {url!r} does not log in as {name} on vhost arcade")
        if env_vars.get("ARCADE_DATA_DIR") != DATA_DIR:
            problems.append(f"{name}: ARCADE_DATA_DIR is not {DATA_DIR}")
        data_mounts = [m for m in svc.get("volumes", []) if m.split(":")[1:2] == [DATA_DIR]]
        if len(data_mounts) != 1 or data_mounts[0].split(":")[0] not in volumes:
            problems.append(f"{name}: {DATA_DIR} is not on a named volume")
        if svc.get("depends_on", {}).get("rabbitmq", {}).get("condition") != "service_healthy":
            problems.append(f"{name}: does not wait for a healthy broker")
        for key in ("env_file", "configs"):
            if key in svc:
                problems.append(f"{name}: configuration must come from environment variables, not {key}")

    data_volumes = [m.split(":")[0] for n in SERVICES for m in services.get(n, {}).get("volumes", [])]
    if len(data_volumes) != len(set(data_volumes)):
        problems.append(f"services share a data volume: {data_volumes}")
    for name, svc in services.items():
        for mount in svc.get("volumes", []):
            source = mount.split(":")[0]
            if source.startswith(".") and source != RENDERED and not Path(source).exists():
                problems.append(f"{name}: bind mount source {source} does not exist")
    arcade = sorted(n for n, svc in services.items()
                    if (svc.get("build") or {}).get("dockerfile") == "ops/Dockerfile")
    if arcade != sorted(SERVICES):
        problems.append(f"the Arcade processes are {arcade}, this check knows {SERVICES}")
    problems.extend(check_observability(services, prometheus))
    dockerfile = Path("ops/Dockerfile").read_text(encoding="utf-8")
    for needed in ("USER ", "HEALTHCHECK", 'ENTRYPOINT ["arcade", "run"]'):
        if needed not in dockerfile:
            problems.append(f"ops/Dockerfile: no {needed.strip()}")
    if dockerfile.count("FROM ") < 2:
        problems.append("ops/Dockerfile: not multi-stage")
    return problems


def check_observability(services, prometheus):
    problems = []
    addresses = {}
    for name in SERVICES:
        env_vars = services.get(name, {}).get("environment", {}) or {}
        addr = str(env_vars.get("ARCADE_METRICS_ADDR", ""))
        host, _, port = addr.rpartition(":")
        if not port.isdigit() or host in ("", "127.0.0.1", "localhost", "[::1]"):
            problems.append(f"{name}: ARCADE_METRICS_ADDR {addr!r} is not reachable by a scraper")
        addresses[name] = port
        if "OTEL_EXPORTER_OTLP_ENDPOINT" not in env_vars:
            problems.append(f"{name}: no OTEL_EXPORTER_OTLP_ENDPOINT (empty means no export)")
        test = (services.get(name, {}).get("healthcheck") or {}).get("test")
        if test != ["CMD", "arcade-healthcheck"]:
            problems.append(f"{name}: the health check is {test}, not arcade-healthcheck (GET /ready)")
    if "GET /ready " not in Path("ops/healthcheck.sh").read_text(encoding="utf-8"):
        problems.append("ops/healthcheck.sh: does not ask /ready")

    scrape = yaml.safe_load(Path(prometheus).read_text(encoding="utf-8"))
    jobs = {job["job_name"]: job for job in scrape.get("scrape_configs", [])}
    targets = lambda job: {t for c in jobs.get(job, {}).get("static_configs", []) for t in c.get("targets", [])}
    expected = {f"{name}:{port}" for name, port in addresses.items()}
    if targets("arcade") != expected:
        problems.append(f"{prometheus}: job arcade scrapes {sorted(targets('arcade'))}, not {sorted(expected)}")
    if targets("rabbitmq") != {"rabbitmq:15692"}:
        problems.append(f"{prometheus}: job rabbitmq does not scrape rabbitmq:15692")
    if "rabbitmq_prometheus" not in Path("ops/rabbitmq/enabled_plugins").read_text(encoding="utf-8"):
        problems.append("ops/rabbitmq/enabled_plugins: rabbitmq_prometheus is not enabled")

    dashboard = json.loads(Path("ops/grafana/arcade.json").read_text(encoding="utf-8"))
    if not any("arcade_" in t.get("expr", "") for p in dashboard.get("panels", []) for t in p.get("targets", [])):
        problems.append("ops/grafana/arcade.json: plots no Arcade metric")
    return problems


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "docker-compose.yml"
    problems = check(path, *sys.argv[2:3])
    for problem in problems:
        print(f"{path}: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"{path}: ok ({', '.join(SERVICES)} + rabbitmq)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
