#!/usr/bin/env python3
"""Resident memory and disk of `arcade run` over a long stream of distinct messages, with a short
deduplication window: does the inbox stay bounded once the window is full?

A RabbitMQ node of the script's own (rabbitnode.py); `arcade run bingo --dedupe-window 1m`
consumes N distinct `activity.recorded.v1` messages (no game is open: each is handled, deduplicated
by its id, and changes nothing else), published at a steady rate (`--rate`). At each
checkpoint of messages consumed, prints the process's VmRSS, the inbox keys it reports, and the
bytes of its data dir.

    python3 ops/bench/inbox-rss.py --arcade target/debug/arcade --messages 2000000

Needs pika (`pip install pika`).
"""
import argparse, json, os, re, secrets, shutil, signal, subprocess, sys, tempfile, threading, time
import urllib.request

from rabbitnode import Node, free_port

TOKEN = "arc_bench_inbox_rss_operator_token"


def metric(port, name, service="bingo"):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics",
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    text = urllib.request.urlopen(request, timeout=10).read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and f'service="{service}"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def disk_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def publish(port, n, rate, done):
    import pika
    params = pika.ConnectionParameters("127.0.0.1", port,
                                       credentials=pika.PlainCredentials("guest", "guest"))
    connection = pika.BlockingConnection(params)
    channel = connection.channel()
    started = time.time()
    for i in range(n):
        if rate and i % 100 == 0:
            ahead = started + i / rate - time.time()
            if ahead > 0:
                time.sleep(ahead)
        body = json.dumps({"entryId": f"act-{i}", "member": f"m{i % 997}", "object": "bench",
                           "verb": "talk.hello"}).encode()
        channel.basic_publish("arcade.events", "activity.recorded.v1", body,
                              pika.BasicProperties(type="activity.recorded.v1",
                                                   message_id=f"inbox-rss-{i}", app_id="bench",
                                                   delivery_mode=2))
        if i % 20000 == 0:
            connection.process_data_events(0)
    connection.close()
    done.set()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arcade", default="target/debug/arcade")
    ap.add_argument("--messages", type=int, default=2_000_000)
    ap.add_argument("--window", default="1m")
    ap.add_argument("--rate", type=float, default=2000,
                    help="messages a second (0: as fast as the broker takes them); at 2,000/s the "
                         "first 200,000 take 100 s, past a 1-minute window")
    ap.add_argument("--every", type=int, default=200_000, help="messages between two readings")
    args = ap.parse_args()
    checkpoints = list(range(args.every, args.messages + 1, args.every))
    node = Node()
    data = tempfile.mkdtemp(prefix="inbox-rss-")
    admin = free_port()
    env = dict(os.environ, ARCADE_ADMIN_TOKEN=TOKEN, RUST_LOG="warn",
               ARCADE_BINGO_SECRET=secrets.token_urlsafe(32))
    env.pop("ARCADE_AMQP_URL", None)
    log = open(os.path.join(data, "arcade.log"), "ab")
    proc = subprocess.Popen(
        [args.arcade, "run", "bingo", "--data", os.path.join(data, "d"), "--admin",
         f"127.0.0.1:{admin}", "--amqp", f"amqp://guest:guest@127.0.0.1:{node.port}/%2f",
         "--queue-type", "classic", "--dedupe-window", args.window],
        env=env, stdout=log, stderr=log)
    try:
        deadline = time.time() + 120
        while True:
            try:
                if metric(admin, "arcade_consuming") >= 1:
                    break
            except OSError:
                pass
            if time.time() > deadline or proc.poll() is not None:
                sys.exit("arcade run did not start consuming")
            time.sleep(0.5)
        done = threading.Event()
        threading.Thread(target=publish, args=(node.port, args.messages, args.rate, done),
                         daemon=True).start()
        started = time.time()
        for checkpoint in checkpoints:
            while metric(admin, "arcade_messages_consumed_total") < checkpoint:
                if proc.poll() is not None:
                    sys.exit(f"arcade run exited with {proc.returncode}")
                time.sleep(0.5)
            consumed = metric(admin, "arcade_messages_consumed_total")
            print(json.dumps({
                "consumed": int(consumed), "seconds": round(time.time() - started, 1),
                "rss_kb": rss_kb(proc.pid), "inbox_keys": int(metric(admin, "arcade_inbox_keys")),
                "data_dir_bytes": disk_bytes(os.path.join(data, "d")),
                "bytes_per_message": round(disk_bytes(os.path.join(data, "d")) / consumed, 1),
            }), flush=True)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        node.stop()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
