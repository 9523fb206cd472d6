#!/usr/bin/env python3
"""Strangers holding a peer's slot (issue 27, item 3): two summary-sharing nodes, node-a and
node-b, on loopback; N slow connections to node-a's peer listener claim node-b, half on the
invalidations route and half on the summary route, each sending a byte every 100 ms and
reopened as soon as node-a closes it. Three kinds: a complete head without
Sumcache-Channel-Auth, one with a forged header, and a head never finished. For each, node-b
purges a URL node-a holds; the probe prints whether node-a acknowledged within the purge's
wait, how long the purge answer took, whether node-a still serves the URL from its store,
and how many of node-b's summaries node-a took while the strangers stayed.

  slot_hold.py [--connections 40] [--seconds 6]"""

import argparse
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import harness

SECRET = "slot-hold-probe-secret-0123456789"
TOKEN = "slot-hold-admin-token"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def opening(kind, i):
    path = "/sumcache/v1/invalidations" if i % 2 == 0 else "/sumcache/v1/summary"
    head = f"POST {path} HTTP/1.1\r\nHost: peer\r\n"
    if kind == "head-never-finished":
        return head.encode()
    head += ("X-Sumcache-Node: node-b\r\nContent-Type: application/octet-stream\r\n"
             "Content-Length: 2000\r\n")
    if kind == "forged-auth":
        head += ("Sumcache-Channel-Auth: " +
                 harness.channel_auth("POST", path, "node-b", "node-a", 2000, "x" * 32) + "\r\n")
    return (head + "\r\n").encode()


class Holder:
    """Keeps `count` connections claiming node-b open until stopped (`limit` s at most)."""

    def __init__(self, port, kind, count, limit):
        self.port, self.kind, self.limit = port, kind, limit
        self.socks = [None] * count
        self.opened = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        end = time.monotonic() + self.limit
        trickle = b"X" if self.kind == "head-never-finished" else b"\0"
        while not self._stop.is_set() and time.monotonic() < end:
            for i, s in enumerate(self.socks):
                if s is None:
                    try:
                        s = socket.create_connection(("127.0.0.1", self.port), timeout=1)
                        s.sendall(opening(self.kind, i))
                        s.setblocking(False)
                        self.socks[i] = s
                        self.opened += 1
                    except OSError:
                        continue
                    continue
                try:
                    if s.recv(4096) is not None:  # answered or closed: claim it again
                        raise OSError
                except BlockingIOError:
                    try:
                        s.send(trickle)
                        continue
                    except OSError:
                        pass
                except OSError:
                    pass
                s.close()
                self.socks[i] = None
            time.sleep(0.1)

    def stop(self):
        self._stop.set()
        self._thread.join(10)
        for s in self.socks:
            if s is not None:
                s.close()


def admin_json(port, path):
    status, _, body = harness.get(port, f"http://127.0.0.1/{path.lstrip('/')}", proxy=False)
    return json.loads(body) if status == 200 else {}


def purge(port, url):
    body = json.dumps({"url": url}).encode()
    head = (f"POST /purge HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n").encode()
    start = time.monotonic()
    data, _, _ = harness.exchange(port, head + body, timeout=10)
    took = time.monotonic() - start
    end = data.find(b"\r\n\r\n")
    try:
        return json.loads(data[end + 4:]), took
    except ValueError:
        return {}, took


def received_from(admin_port, peer):
    for p in admin_json(admin_port, "/peers").get("peers", []):
        if p.get("id") == peer:
            return p.get("messages_received", 0)
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    args.connections = max(1, min(args.connections, 200))
    args.seconds = max(2.0, min(args.seconds, 20.0))
    failures = 0
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        secret = Path(tmp) / "cluster.secret"
        secret.write_text(SECRET)
        os.chmod(secret, 0o600)
        ports = {n: {"http": free_port(), "peer": free_port()} for n in ("node-a", "node-b")}
        nodes = {}
        try:
            for name, other in (("node-a", "node-b"), ("node-b", "node-a")):
                config = harness.node_config(
                    tmp,
                    node={"id": name},
                    listen=[{"address": "127.0.0.1", "port": ports[name]["http"]}],
                    admin={"address": "127.0.0.1", "port": 0, "allow": ["127.0.0.0/8"],
                           "token": TOKEN},
                    cache={"memory": {"max_bytes": "64MiB"},
                           "disk": {"path": str(Path(tmp) / f"{name}-cache"),
                                    "max_bytes": "64MiB"}},
                    cluster={"sharing": "summary", "secret_file": str(secret),
                             "update_max_interval_ms": 200, "update_threshold_percent": 0.1,
                             "peer_listen": {"address": "127.0.0.1",
                                             "port": ports[name]["peer"]}},
                    peers=[{"id": other, "host": "127.0.0.1", "http_port": ports[other]["http"],
                            "peer_port": ports[other]["peer"]}])
                nodes[name] = harness.start_node(tmp, config, name=f"{name}.json")
            a_proxy, a_admin = nodes["node-a"][1], nodes["node-a"][2]
            b_proxy, b_admin = nodes["node-b"][1], nodes["node-b"][2]
            time.sleep(1.5)
            for kind in ("no-auth", "forged-auth", "head-never-finished"):
                url = f"http://127.0.0.1:{origin_port}/obj/slot-hold-{kind}?max_age=600"
                harness.get(a_proxy, url)
                holder = Holder(ports["node-a"]["peer"], kind, args.connections,
                                args.seconds + 15)
                time.sleep(1.5)
                before = received_from(a_admin, "node-b")
                answer, took = purge(b_admin, url)
                acked = answer.get("nodes", {}).get("acked")
                # only-if-cached: from node-a's store or 504 (RFC 9111 §5.2.1.7).
                status, fields, _ = harness.get(a_proxy, url, headers={"Cache-Control":
                                                                      "only-if-cached"})
                still = fields.get("x-cache", "")
                end = time.monotonic() + args.seconds
                n = 0
                while time.monotonic() < end:  # changes at node-b, so it has summaries to push
                    harness.get(b_proxy, f"http://127.0.0.1:{origin_port}/obj/push-{kind}-{n}"
                                         "?max_age=600")
                    n += 1
                    time.sleep(0.2)
                summaries = received_from(a_admin, "node-b") - before
                holder.stop()
                ok = acked == 2 and still != "HIT" and summaries >= 1
                failures += not ok
                print(f"{args.connections} connections claiming node-b ({kind}, "
                      f"{holder.opened} opened): purge acked by {acked} of 2 nodes, answered in "
                      f"{took * 1000:.0f} ms; node-a then answered the purged URL (only-if-cached) "
                      f"{status} {still}; {summaries} summaries of node-b taken "
                      f"in {args.seconds:.0f} s; {'ok' if ok else 'FAILED'}")
        finally:
            for node, _, _ in nodes.values():
                node.stop()
            origin.stop()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
