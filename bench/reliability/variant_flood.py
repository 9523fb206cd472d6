#!/usr/bin/env python3
"""A flood of User-Agent variants of one URL (issue 27 item 4), against a forward node with
one worker, so that every request below shares that worker.

1. Hits on an unrelated cached URL, alone: the baseline latency.
2. N variants of one URL (`Vary: User-Agent`, a distinct User-Agent each), bounded in time.
3. Hits on that URL (a variant still stored): requests per second and latency.
4. The unrelated hits again while another connection keeps hitting the flooded URL: their
   latency next to the flooded URL's hits on the same worker.

Prints the variants stored and evicted (/metrics) and each phase's figures. Loopback only;
every phase is bounded in count and time.

  variant_flood.py [--variants 10000] [--seconds 5] [--flood-seconds 120] [--cap N]"""

import argparse
import re
import socket
import statistics
import sys
import threading
import time

import harness

FLOOD = "/obj/flood?max_age=3600&size=256&vary=User-Agent"
PLAIN = "/obj/plain?max_age=3600&size=256"


class Connection:
    """One keep-alive connection to the proxy; GETs with Content-Length answers."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def get(self, url, agent):
        host = url.split("/")[2]
        self.sock.sendall(f"GET {url} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {agent}\r\n\r\n"
                          .encode())
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
        while len(self.buf) < length:
            self._fill()
        body, self.buf = self.buf[:length], self.buf[length:]
        x_cache = re.search(rb"(?i)\r\nx-cache: *([A-Z_]+)", head)
        return int(head[9:12]), x_cache.group(1).decode() if x_cache else "", body

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed by the proxy")
        self.buf += chunk

    def close(self):
        self.sock.close()


def timed_hits(port, url, agent, seconds, limit=200000):
    """Hits on one connection for `seconds` (at most `limit`): latencies in ms, non-HITs."""
    conn = Connection(port)
    latencies, not_hits = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end and len(latencies) < limit:
        start = time.perf_counter()
        status, x_cache, _ = conn.get(url, agent)
        latencies.append((time.perf_counter() - start) * 1000)
        if status != 200 or x_cache != "HIT":
            not_hits += 1
    conn.close()
    return latencies, not_hits


def describe(name, latencies, not_hits, seconds):
    mean = statistics.fmean(latencies) if latencies else 0
    print(f"{name}: {len(latencies)} requests, {len(latencies) / seconds:,.0f} req/s, "
          f"mean {mean:.3f} ms, max {max(latencies, default=0):.1f} ms, {not_hits} not HIT")
    return mean


def metric(admin, name):
    _, _, body = harness.get(admin, f"http://127.0.0.1:{admin}/metrics", proxy=False)
    m = re.search(rf"^{re.escape(name)} (\d+)$", body.decode(), re.M)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", type=int, default=10000)
    ap.add_argument("--seconds", type=float, default=5.0, help="length of each hit phase")
    ap.add_argument("--flood-seconds", type=float, default=120.0)
    ap.add_argument("--cap", type=int, help="cache.max_variants_per_key (default: the node's)")
    args = ap.parse_args()
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        config = harness.node_config(tmp)
        config["cache"]["memory"]["max_bytes"] = "512MiB"
        config["cache"]["disk"]["max_bytes"] = "1GiB"
        if args.cap is not None:
            config["cache"]["max_variants_per_key"] = args.cap
        node, port, admin = harness.start_node(tmp, config)
        try:
            base = f"http://127.0.0.1:{origin_port}"
            plain, flood = base + PLAIN, base + FLOOD
            conn = Connection(port)
            conn.get(plain, "probe")
            conn.get(flood, "agent-0")
            lat, bad = timed_hits(port, plain, "probe", args.seconds)
            before = describe("unrelated hits, alone", lat, bad, args.seconds)

            start = time.monotonic()
            sent = 1
            while sent < args.variants and time.monotonic() - start < args.flood_seconds:
                status, _, _ = conn.get(flood, f"agent-{sent}")
                if status != 200:
                    print(f"variant {sent}: status {status}")
                    return 1
                sent += 1
            took = time.monotonic() - start
            conn.close()
            in_memory = metric(admin, 'sumcache_store_objects{tier="memory"}')
            evicted = metric(admin, "sumcache_store_variants_evicted_total")
            print(f"flood: {sent} variants of one URL in {took:.1f} s "
                  f"({sent / took:,.0f} misses/s); {in_memory} objects in memory, "
                  f"variants evicted: {evicted}")

            recent = f"agent-{sent - 1}"
            lat, bad = timed_hits(port, flood, recent, args.seconds)
            flood_mean = describe("hits on the flooded URL", lat, bad, args.seconds)

            stop = threading.Event()
            background = []

            def hammer():
                c = Connection(port)
                while not stop.is_set():
                    c.get(flood, recent)
                    background.append(1)
                c.close()

            t = threading.Thread(target=hammer, daemon=True)
            t.start()
            lat, bad = timed_hits(port, plain, "probe", args.seconds)
            stop.set()
            t.join(30)
            after = describe("unrelated hits beside them", lat, bad, args.seconds)
            print(f"  (the other connection made {len(background)} flooded-URL hits meanwhile)")
            print(f"summary: flooded-URL hit {flood_mean:.3f} ms; unrelated hit {before:.3f} ms "
                  f"alone, {after:.3f} ms beside the flooded URL's hits")
            return 0
        finally:
            node.stop()
            origin.stop()


if __name__ == "__main__":
    sys.exit(main())
