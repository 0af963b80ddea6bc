#!/usr/bin/env python3
"""The growth bench: does a long-running `arcade run` stay bounded by its settings, not by its
history?

Starts `arcade run` with every service on the embedded bus, on a fresh data dir, with the default
settings except the client request rate (raised, so that one address may load sessions in bulk);
feeds it puzzle sessions with `arcade puzzle simulate` from 16 clients at once (the bot plays each
session and posts it to the admin endpoint as `game.session.completed.v2`), and at each checkpoint, once the pipeline
is idle (no service's counters moved for a few seconds), records:

- the process's resident memory (VmRSS, and its peak VmHWM, from /proc/PID/status; the anonymous
  part from /proc/PID/smaps_rollup);
- the inbox keys the services hold (`arcade_inbox_keys` on /metrics);
- the bytes of the data dir;
- restart to ready: SIGTERM, wait for the exit, start again, time until `/ready` answers 200;
  and the memory of the restarted process once ready.

Then it goes on feeding the restarted process to the next checkpoint. Prints one table.

    cargo build --release -p arcade
    python3 ops/bench/growth.py --arcade target/release/arcade --checkpoints 10000,100000,300000

Extra `arcade run` flags go after `--` (e.g. `-- --dedupe-window 1m`). Needs only Python 3.
"""
import argparse, http.client, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

TOKEN = "arc_bench_growth_operator_token"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path, timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(rf"{field}:\s+(\d+)", f.read()).group(1))


def anon_kb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            return int(re.search(r"Anonymous:\s+(\d+)", f.read()).group(1))
    except (OSError, AttributeError):
        return 0


def disk_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def metric_sum(port, name):
    _, text = get(port, "/metrics")
    total = 0.0
    for line in text.decode().splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            total += float(line.rsplit(" ", 1)[1])
    return total


class Arcade:
    def __init__(self, args, data, extra):
        self.args, self.data, self.extra = args, data, extra
        self.admin = free_port()
        self.console = free_port()
        self.log = open(os.path.join(args.logs, "arcade.log"), "ab")
        self.proc = None

    def env(self):
        env = dict(os.environ, ARCADE_ADMIN_TOKEN=TOKEN, ARCADE_CLIENT_RATE=str(self.args.client_rate),
                   RUST_LOG="warn")
        for name in ("ARCADE_AMQP_URL", "ARCADE_DEDUPE_WINDOW", "ARCADE_DATA_DIR"):
            env.pop(name, None)
        return env

    def start(self):
        """Starts `arcade run` and returns the seconds until /ready answered 200."""
        started = time.monotonic()
        self.proc = subprocess.Popen(
            [self.args.arcade, "run", "--data", self.data, "--admin", f"127.0.0.1:{self.admin}",
             "--console", f"127.0.0.1:{self.console}", *self.extra],
            env=self.env(), stdout=self.log, stderr=self.log)
        deadline = started + 600
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                sys.exit(f"arcade run exited with {self.proc.returncode}: see {self.log.name}")
            try:
                status, _ = get(self.admin, "/ready", timeout=2)
                if status == 200:
                    return time.monotonic() - started
            except OSError:
                pass
            time.sleep(0.005)
        sys.exit("arcade run was not ready within 600 s")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=120)
        if code != 0:
            sys.exit(f"arcade run stopped with {code}: see {self.log.name}")

    def counters(self):
        _, body = get(self.admin, "/counters")
        return body

    def wait_idle(self, quiet=3.0):
        """Waits until no service's counters moved for `quiet` seconds."""
        last, since = None, time.monotonic()
        while True:
            now = self.counters()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return
            time.sleep(0.5)

    def feed(self, sessions, seed):
        """Plays and posts `sessions` sessions from `--clients` simulators at once (each posts
        one session at a time), each with seeds of its own; returns the next seed."""
        env = self.env()
        clients = self.args.clients

        def simulate(n, seed):
            return subprocess.Popen(
                [self.args.arcade, "puzzle", "simulate", "--admin", f"127.0.0.1:{self.admin}",
                 "--sessions", str(n), "--seed", str(seed)],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        runs = []
        for c in range(clients):
            n = sessions // clients + (1 if c < sessions % clients else 0)
            if n:
                runs.append((n, seed + c, simulate(n, seed + c), 0))
        while runs:
            n, s, proc, tries = runs.pop(0)
            if proc.wait() != 0:
                # The same seed plays the same sessions under the same ids: sending them again
                # counts each once.
                if tries >= 3:
                    sys.exit(f"arcade puzzle simulate --seed {s} failed {tries + 1} times")
                runs.append((n, s, simulate(n, s), tries + 1))
        return seed + clients


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arcade", default="target/release/arcade")
    ap.add_argument("--checkpoints", default="10000,100000,300000",
                    help="sessions fed before each measurement, comma-separated")
    ap.add_argument("--client-rate", type=int, default=1_000_000)
    ap.add_argument("--clients", type=int, default=16,
                    help="simulators posting at once (each waits for its session's answer)")
    ap.add_argument("--keep", action="store_true", help="keep the data dir")
    ap.add_argument("extra", nargs="*", help="more `arcade run` flags, after --")
    args = ap.parse_args()
    checkpoints = [int(c) for c in args.checkpoints.split(",")]
    data = tempfile.mkdtemp(prefix="arcade-growth-")
    args.logs = tempfile.mkdtemp(prefix="arcade-growth-logs-")
    arcade = Arcade(args, os.path.join(data, "data"), args.extra)
    print(f"data dir {arcade.data}, log {args.logs}/arcade.log", file=sys.stderr)
    arcade.start()
    rows, fed, seed = [], 0, 1
    started = time.monotonic()
    for checkpoint in checkpoints:
        seed = arcade.feed(checkpoint - fed, seed)
        fed = checkpoint
        arcade.wait_idle()
        pid = arcade.proc.pid
        row = {
            "sessions": fed,
            "rss": status_kb(pid, "VmRSS") / 1024,
            "hwm": status_kb(pid, "VmHWM") / 1024,
            "anon": anon_kb(pid) / 1024,
            "keys": metric_sum(arcade.admin, "arcade_inbox_keys"),
            "disk": disk_bytes(arcade.data) / 1e6,
        }
        arcade.stop()
        row["restart"] = arcade.start()
        arcade.wait_idle(quiet=2.0)
        row["rss_restarted"] = status_kb(arcade.proc.pid, "VmRSS") / 1024
        rows.append(row)
        print(f"{fed} sessions after {time.monotonic() - started:.0f} s: {row}", file=sys.stderr)
    arcade.stop()
    print("| sessions | VmRSS MB | VmHWM MB | anonymous MB | inbox keys | data dir MB "
          "| restart to ready s | VmRSS after restart MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['sessions']:,} | {r['rss']:.0f} | {r['hwm']:.0f} | {r['anon']:.0f} "
              f"| {r['keys']:,.0f} | {r['disk']:.0f} | {r['restart']:.2f} | {r['rss_restarted']:.0f} |")
    if not args.keep:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
