#!/usr/bin/env python3
"""Peak resident memory of `arcade run` under hostile clients: 40 clients each sending a 20 MiB
message at once, while 3 stream clients (`GET /stream`) connect and never read, and ordinary
traffic flows. Prints one JSON line per transport: the process's resident memory before, its
peak (`VmHWM`), and what happened to the big messages.

- embedded: the 40 big messages go to the admin endpoint (`POST /messages/{type}`), 20 with a
  Content-Length and 20 chunked, without one.
- rabbitmq: a RabbitMQ node of the script's own (its own ports, data dir and cookie; the machine's
  broker is not touched) with Arcade's broker settings (`ops/rabbitmq/rabbitmq.conf`:
  `max_message_size = 524288`); the 40 big messages are published to `arcade.events` with the
  routing key of a type the telemetry consumes, then 40 of 500 KiB (the most the broker lets
  through), which every consumer and stream gets.

    python3 ops/bench/hostile-rss.py --arcade target/debug/arcade [--transport embedded|rabbitmq|both]

Needs pika (`pip install pika`) for the rabbitmq transport.
"""
import argparse, http.client, json, os, secrets, shutil, signal, socket, subprocess, sys
import tempfile, threading, time

from rabbitnode import Node, free_port

TOKEN = "arc_bench_hostile_rss_operator_token"
BIG = 20 * 1024 * 1024


def memory(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out


def request(port, method, path, body=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request(method, path, body=body, headers={"Authorization": f"Bearer {TOKEN}",
                                                    "Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def wait_ready(port, proc, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"arcade run exited with {proc.returncode}")
        try:
            if request(port, "GET", "/ready", timeout=2)[0] == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.3)
    sys.exit("arcade run not ready")


def non_reading_streams(port, n):
    """n stream clients that send their request and never read a byte of the answer."""
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall((f"GET /stream?pattern=%23 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                   f"Authorization: Bearer {TOKEN}\r\n\r\n").encode())
        socks.append(s)
    return socks


def session(i, pad=0):
    return json.dumps({"gameId": f"rss-{i}", "seed": i, "stage": 1 + i % 5,
                       "outcome": "abandoned", "turns": 1, "durationMs": 1000}).encode()


def ordinary_traffic(port, n):
    for i in range(n):
        request(port, "POST", "/messages/game.session.completed.v1", session(i))


def big_post(port, chunked, outcome, i):
    """Sends a 20 MiB body; records the status, or how the server cut it off."""
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = (f"POST /messages/game.session.completed.v1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n")
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {BIG}\r\n\r\n"
    piece = b"[" + b"1," * (512 * 1024 - 1)
    try:
        s.sendall(head.encode())
        sent = 0
        while sent < BIG:
            chunk = piece[: min(len(piece), BIG - sent)]
            s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            sent += len(chunk)
        if chunked:
            s.sendall(b"0\r\n\r\n")
        answer = s.recv(200).decode(errors="replace")
        outcome[i] = answer.split("\r\n", 1)[0] or "closed"
    except OSError as e:
        try:
            answer = s.recv(200).decode(errors="replace")
            outcome[i] = (answer.split("\r\n", 1)[0] or "closed") + f" (send cut: {e.strerror})"
        except OSError:
            outcome[i] = f"cut: {e.strerror}"
    finally:
        s.close()


def start_arcade(arcade, data, port, amqp=None):
    env = dict(os.environ, ARCADE_ADMIN_TOKEN=TOKEN, RUST_LOG="warn",
               ARCADE_BINGO_SECRET=secrets.token_urlsafe(32))
    env.pop("ARCADE_AMQP_URL", None)
    args = [arcade, "run", "--data", data, "--admin", f"127.0.0.1:{port}"]
    if amqp:
        args += ["--amqp", amqp, "--queue-type", "classic"]
    log = open(os.path.join(data, "arcade.log"), "ab")
    return subprocess.Popen(args, env=env, stdout=log, stderr=log)


def measure(arcade, transport, broker_port=None):
    data = tempfile.mkdtemp(prefix=f"hostile-rss-{transport}-")
    port = free_port()
    amqp = f"amqp://guest:guest@127.0.0.1:{broker_port}/%2f" if broker_port else None
    proc = start_arcade(arcade, data, port, amqp)
    wait_ready(port, proc)
    ordinary_traffic(port, 200)
    before = memory(proc.pid)
    streams = non_reading_streams(port, 3)
    time.sleep(1)
    outcome = {}
    if transport == "embedded":
        threads = [threading.Thread(target=big_post, args=(port, i % 2 == 1, outcome, i))
                   for i in range(40)]
        for t in threads:
            t.start()
        ordinary_traffic(port, 2000)
        for t in threads:
            t.join()
    else:
        outcome = publish_big(broker_port)
        ordinary_traffic(port, 2000)
    time.sleep(3)
    after = memory(proc.pid)
    alive = proc.poll() is None
    for s in streams:
        s.close()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    tally = {}
    for v in outcome.values():
        tally[v] = tally.get(v, 0) + 1
    shutil.rmtree(data, ignore_errors=True)
    return {"transport": transport, "rss_before_kb": before["VmRSS"],
            "peak_rss_kb": after["VmHWM"], "rss_after_kb": after["VmRSS"],
            "alive": alive, "big_messages": tally}


def publish_big(port):
    import pika
    outcome = {}
    params = pika.ConnectionParameters("127.0.0.1", port,
                                       credentials=pika.PlainCredentials("guest", "guest"))
    for i in range(40):
        connection = pika.BlockingConnection(params)
        channel = connection.channel()
        channel.confirm_delivery()
        try:
            channel.basic_publish("arcade.events", "game.session.completed.v1", b"x" * BIG,
                                  pika.BasicProperties(type="game.session.completed.v1",
                                                       message_id=f"big-{i}", delivery_mode=2))
            outcome[i] = "accepted"
        except pika.exceptions.AMQPError as e:
            outcome[i] = f"refused by the broker: {type(e).__name__} {str(e)[:90]}"
        if connection.is_open:
            connection.close()
    connection = pika.BlockingConnection(params)
    channel = connection.channel()
    channel.confirm_delivery()
    for i in range(40):
        channel.basic_publish("arcade.events", "game.session.completed.v1", b"y" * 500 * 1024,
                              pika.BasicProperties(type="game.session.completed.v1",
                                                   message_id=f"half-{i}", delivery_mode=2))
        outcome[40 + i] = "500 KiB accepted"
    connection.close()
    return outcome


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arcade", default="target/debug/arcade")
    ap.add_argument("--transport", choices=["embedded", "rabbitmq", "both"], default="both")
    ap.add_argument("--no-broker-limit", action="store_true",
                    help="leave out max_message_size (RabbitMQ's default: 128 MiB)")
    args = ap.parse_args()
    results = []
    if args.transport in ("embedded", "both"):
        results.append(measure(args.arcade, "embedded"))
        print(json.dumps(results[-1]), flush=True)
    if args.transport in ("rabbitmq", "both"):
        node = Node(limit=not args.no_broker_limit)
        try:
            result = measure(args.arcade, "rabbitmq", node.port)
            result["broker"] = node.settings or "max_message_size: RabbitMQ's default"
            results.append(result)
            print(json.dumps(result), flush=True)
        finally:
            node.stop()
    sys.exit(0 if all(r["alive"] and r["peak_rss_kb"] < 250 * 1024 for r in results) else 1)


if __name__ == "__main__":
    main()
