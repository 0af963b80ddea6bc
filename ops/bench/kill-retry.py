#!/usr/bin/env python3
"""Sends N sessions through the admin endpoint of `arcade run` from C clients while the process
is killed with SIGKILL K times (and restarted each time). Every client retries each send that got
no 202, with the same Idempotency-Key, until it gets one. Prints the sessions counted at the end:
exactly N when retries are applied once.

    python3 ops/bench/kill-retry.py --arcade target/debug/arcade --sessions 20000 --clients 8 --kills 15
"""
import argparse, http.client, json, os, signal, socket, subprocess, sys, tempfile, threading, time

from rabbitnode import free_port

TOKEN = "arc_bench_kill_retry_operator_token"


def start(arcade, data, port, log):
    env = dict(os.environ, ARCADE_ADMIN_TOKEN=TOKEN, RUST_LOG="warn")
    env.pop("ARCADE_AMQP_URL", None)
    return subprocess.Popen(
        [arcade, "run", "puzzle-telemetry", "--data", data, "--admin", f"127.0.0.1:{port}"],
        env=env, stdout=log, stderr=log)


def request(port, method, path, body=None, key=None, timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arcade", default="target/debug/arcade")
    ap.add_argument("--sessions", type=int, default=20000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--kills", type=int, default=15)
    args = ap.parse_args()
    data = tempfile.mkdtemp(prefix="trust-admin-kill-")
    port = free_port()
    log = open(os.path.join(data, "arcade.log"), "ab")
    proc = [start(args.arcade, data, port, log)]
    retries = [0] * args.clients
    done = [0] * args.clients

    def client(c):
        for i in range(c, args.sessions, args.clients):
            body = json.dumps({"gameId": f"kill-{i}", "seed": i, "stage": 1 + i % 5,
                               "outcome": "abandoned", "turns": 1, "durationMs": 1000})
            key = f"kill-retry-{i}"
            while True:
                try:
                    status, _ = request(port, "POST", "/messages/game.session.completed.v1", body, key)
                    if status == 202:
                        break
                    if status in (400, 403):
                        sys.exit(f"refused: {status}")
                except (OSError, http.client.HTTPException):
                    pass
                retries[c] += 1
                time.sleep(0.05)
            done[c] += 1

    threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
    started = time.time()
    for t in threads:
        t.start()
    kills = 0
    while kills < args.kills and any(t.is_alive() for t in threads):
        # Kill when a slice of the sessions has gone since the last kill.
        target = (kills + 1) * args.sessions // (args.kills + 1)
        while sum(done) < target and any(t.is_alive() for t in threads):
            time.sleep(0.02)
        proc[0].send_signal(signal.SIGKILL)
        proc[0].wait()
        kills += 1
        proc[0] = start(args.arcade, data, port, log)
    for t in threads:
        t.join()
    # Wait until the telemetry has counted everything it will count.
    deadline = time.time() + 300
    counted = -1
    while time.time() < deadline:
        try:
            status, body = request(port, "GET", "/puzzle/stats")
            if status == 200:
                counted = json.loads(body)["sessions"]
                if counted >= args.sessions:
                    time.sleep(2)
                    counted = json.loads(request(port, "GET", "/puzzle/stats")[1])["sessions"]
                    break
        except (OSError, http.client.HTTPException, ValueError, KeyError):
            pass
        time.sleep(0.5)
    proc[0].send_signal(signal.SIGTERM)
    proc[0].wait()
    print(json.dumps({"sessions_sent": args.sessions, "clients": args.clients, "kills": kills,
                      "retries": sum(retries), "counted": counted,
                      "seconds": round(time.time() - started, 1), "data": data}))
    sys.exit(0 if counted == args.sessions else 1)


if __name__ == "__main__":
    main()
