#!/usr/bin/env python3
"""Slowloris and idle connections against a reverse-mode node.

1. N slowloris connections (a partial head, one more byte a second): each must be cut
   at the head timeout with 408, while good traffic keeps working.
2. M idle keep-alive connections after one request each: the node's RSS growth per
   connection, and hit throughput (wrk, bounded) beside a run without them.

  slow_clients.py [--slow N] [--idle M] [--seconds S]"""

import argparse
import re
import resource
import selectors
import shutil
import socket
import subprocess
import sys
import time

import harness

HEAD_TIMEOUT_MS = 5000


def raise_fd_limit(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(need, soft)), hard))


def slowloris(port, count, url):
    sel = selectors.DefaultSelector()
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(f"GET {url} HTTP/1.1\r\nHost: x\r\n".encode())
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        socks.append(s)
    start = time.monotonic()
    statuses = {}
    cut_at = []
    open_socks = set(socks)
    deadline = start + HEAD_TIMEOUT_MS / 1000 * 3
    next_drip = start + 1
    while open_socks and time.monotonic() < deadline:
        if time.monotonic() >= next_drip:
            for s in list(open_socks):
                try:
                    s.send(b"X")
                except OSError:
                    pass
            next_drip += 1
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if data:
                m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
                code = int(m.group(1)) if m else 0
                statuses[code] = statuses.get(code, 0) + 1
            sel.unregister(s)
            s.close()
            open_socks.discard(s)
            cut_at.append(time.monotonic() - start)
    for s in open_socks:
        sel.unregister(s)
        s.close()
    return statuses, len(open_socks), cut_at


def idle_connections(port, count, path):
    socks = []
    request = f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += s.recv(65536)
        m = re.search(rb"Content-Length: (\d+)", data)
        want = data.index(b"\r\n\r\n") + 4 + int(m.group(1))
        while len(data) < want:
            data += s.recv(65536)
        socks.append(s)
    return socks


def wrk(port, path, seconds):
    if shutil.which("wrk") is None:
        return None
    out = subprocess.run(["wrk", "-t1", "-c16", f"-d{seconds}s", f"http://127.0.0.1:{port}{path}"],
                         capture_output=True, text=True, timeout=seconds + 30).stdout
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return float(m.group(1)) if m else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--idle", type=int, default=5000)
    parser.add_argument("--seconds", type=int, default=5)
    args = parser.parse_args()
    raise_fd_limit(args.slow + args.idle + 1024)
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        config = harness.node_config(
            tmp, mode="reverse", reverse={"origin": f"http://127.0.0.1:{origin_port}"},
            limits={"client_request_timeout_ms": HEAD_TIMEOUT_MS, "max_connections": 20000})
        node, port, _ = harness.start_node(tmp, config)
        failures = 0
        try:
            path = "/obj/hit?max_age=600"
            harness.get(port, f"http://127.0.0.1:{port}{path}")
            traffic = harness.GoodTraffic(port, f"http://127.0.0.1:{port}{path}")
            statuses, still_open, cut = slowloris(port, args.slow, path)
            good, bad = traffic.stop()
            cut.sort()
            median = cut[len(cut) // 2] if cut else float("nan")
            print(f"slowloris: {args.slow} connections, answered {statuses}, "
                  f"still open after {HEAD_TIMEOUT_MS * 3} ms: {still_open}, median cut at "
                  f"{median:.2f} s (head timeout {HEAD_TIMEOUT_MS / 1000:.0f} s); good traffic "
                  f"meanwhile {good} ok, {bad} failed")
            failures += still_open > 0 or bad > 0 or statuses.get(408, 0) != args.slow

            wrk(port, path, 1)  # warm-up: the first connections and the hit path's caches
            base = wrk(port, path, args.seconds)
            rss_before = harness.rss_kib(node.pid)
            socks = idle_connections(port, args.idle, path)
            rss_after = harness.rss_kib(node.pid)
            loaded = wrk(port, path, args.seconds)
            per_conn = (rss_after - rss_before) * 1024 / max(1, args.idle)
            print(f"idle: {args.idle} keep-alive connections: RSS {rss_before // 1024} -> "
                  f"{rss_after // 1024} MiB ({per_conn:.0f} B each); hits/s {base} without, "
                  f"{loaded} with them" + (f" ({loaded / base:.2f}x)" if base and loaded else ""))
            for s in socks:
                s.close()
        finally:
            node.stop()
            origin.stop()
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
