#!/usr/bin/env python3
"""Replayed invalidation batches (issue 27, item 2): two summary-sharing nodes on
loopback, node-a's peer channel to node-b through a recording relay in this script.
node-a runs three times (three epochs), purging once in each run; the batches of its
first two runs are captured off the wire. node-b then stores N objects, and the
captured batches are posted to node-b again, byte for byte: first the first run's,
then the two in turn. Prints, per replay, node-b's answer and how many of the N
objects went from HIT to something else (a revalidation), and node-b's
stale_epoch refusals. Bounded: N objects, R replays, 60 s of waiting at most.

  replay.py [--objects N] [--rounds R] [--port-base P]

--port-base 0 (the default) takes free ephemeral ports; otherwise P..P+9."""

import argparse
import re
import socket
import sys
import threading
import time
from pathlib import Path

import harness

INVALIDATIONS = b"POST /sumcache/v1/invalidations "


class Relay:
    """Forwards each connection to 127.0.0.1:target, recording what the client sent."""

    def __init__(self, port, target):
        self.target = target
        self.recorded = []
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped:
            try:
                client, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client):
        sent = b""
        try:
            server = socket.create_connection(("127.0.0.1", self.target), timeout=5)
        except OSError:
            client.close()
            return
        for s in (client, server):
            s.settimeout(10)

        def back():
            try:
                while True:
                    data = server.recv(65536)
                    if not data:
                        break
                    client.sendall(data)
            except OSError:
                pass
            client.close()

        t = threading.Thread(target=back, daemon=True)
        t.start()
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                sent += data
                server.sendall(data)
        except OSError:
            pass
        t.join(10)
        server.close()
        with self.lock:
            self.recorded.append(sent)

    def batches(self):
        with self.lock:
            return [r for r in self.recorded if r.startswith(INVALIDATIONS)]

    def stop(self):
        self.stopped = True
        self.sock.close()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def metric(admin, name):
    _, _, body = harness.get(admin, f"http://127.0.0.1:{admin}/metrics", proxy=False)
    m = re.search(re.escape(name) + r" (\d+)", body.decode(errors="replace"))
    return int(m.group(1)) if m else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--port-base", type=int, default=0)
    args = parser.parse_args()
    ports = ([args.port_base + i for i in range(10)] if args.port_base
             else [free_port() for _ in range(10)])
    a_http, a_peer, b_http, b_peer, relay_port, a_icp, b_icp, a_obj, b_obj, _ = ports
    deadline = time.monotonic() + 60
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        relay = Relay(relay_port, b_peer)

        def config(me, http, peer, icp, obj, other):
            c = harness.node_config(
                tmp,
                node={"id": me},
                listen=[{"address": "127.0.0.1", "port": http}],
                cluster={"sharing": "summary", "secret": "replay-probe-secret-0123456789",
                         "peer_listen": {"address": "127.0.0.1", "port": peer},
                         "icp_port": icp,
                         "object_listen": {"address": "127.0.0.1", "port": obj},
                         "update_max_interval_ms": 200},
                peers=[other])
            c["cache"]["disk"]["path"] = str(Path(tmp) / me)
            return c

        peer_b = {"id": "node-b", "host": "127.0.0.1", "http_port": b_http,
                  "peer_port": relay_port, "icp_port": b_icp, "object_port": b_obj}
        peer_a = {"id": "node-a", "host": "127.0.0.1", "http_port": a_http,
                  "peer_port": a_peer, "icp_port": a_icp, "object_port": a_obj}
        node_b, _, b_admin = harness.start_node(
            tmp, config("node-b", b_http, b_peer, b_icp, b_obj, peer_a), "b.json")
        node_a = None
        objects = [f"http://127.0.0.1:{origin_port}/obj/replay-{i}?max_age=600&size=2000"
                   for i in range(args.objects)]

        def run_a_and_purge(n):
            nonlocal node_a
            if node_a:
                node_a.stop()
            time.sleep(1.1)  # a new second: a higher epoch
            node_a, _, _ = harness.start_node(
                tmp, config("node-a", a_http, a_peer, a_icp, a_obj, peer_b), "a.json")
            before = len(relay.batches())
            purge = (f"PURGE http://127.0.0.1:{origin_port}/obj/purged-{n} HTTP/1.1\r\n"
                     f"Host: 127.0.0.1\r\nConnection: close\r\n\r\n").encode()
            harness.exchange(a_http, purge, timeout=5)
            while len(relay.batches()) == before and time.monotonic() < deadline:
                time.sleep(0.05)
            return relay.batches()[-1] if len(relay.batches()) > before else None

        def hits():
            return sum(1 for url in objects
                       if harness.get(b_http, url)[1].get("x-cache") == "HIT")

        try:
            first = run_a_and_purge(1)
            second = run_a_and_purge(2)
            run_a_and_purge(3)
            if first is None or second is None:
                print("no batch captured: nothing measured")
                return 1
            time.sleep(1.1)  # stored times are compared with the watermark in whole seconds
            for url in objects:
                harness.get(b_http, url)
            print(f"node-b holds {hits()} of {args.objects} objects as HITs; "
                  f"3 epochs of node-a, 2 captured batches ({len(first)} and {len(second)} bytes)")
            turned = []
            sequence = [("first", first)] + [p for _ in range(args.rounds)
                                             for p in (("second", second), ("first", first))]
            for name, captured in sequence:
                if time.monotonic() > deadline:
                    break
                answer, _, _ = harness.exchange(b_peer, captured, timeout=5)
                lost = args.objects - hits()
                turned.append(lost)
                print(f"replayed the {name} run's batch: node-b answered "
                      f"{harness.status_of(answer)}; {lost} of {args.objects} objects no longer HIT")
                time.sleep(1.1)  # past the watermark's second, then stored again
                for url in objects:
                    harness.get(b_http, url)
            refused = metric(b_admin,
                             'sumcache_peer_listener_refused_total{reason="stale_epoch"}')
            print(f"{len(turned)} replays: {sum(turned)} HIT->revalidation in all "
                  f"(max {max(turned) if turned else 0} per replay); node-b stale_epoch refusals: "
                  f"{refused if refused is not None else 'no such series'}")
            return 0 if turned and max(turned) == 0 else 1
        finally:
            if node_a:
                node_a.stop()
            node_b.stop()
            relay.stop()
            origin.stop()


if __name__ == "__main__":
    sys.exit(main())
