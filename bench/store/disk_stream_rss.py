#!/usr/bin/env python3
"""A large object on disk only, served to many clients at once: the daemon's RSS.

  disk_stream_rss.py [--size-mib 1024] [--clients 16] [--memory-mib 64]

Starts this checkout's Release sumcached (SUMCACHE_BUILD, default build/release)
with a memory tier smaller than the object and a disk tier, and the test origin.
One client fetches the object (a MISS: written to disk as it streams), then
--clients clients fetch it at once (disk hits, streamed in 256 KiB chunks). Every
body is hashed and compared with the first one's; the daemon's VmRSS is sampled
every 10 ms. Prints the RSS before, its peak, and the growth. Issue 13's target:
a 1 GiB object to 16 clients raises the RSS by no more than a few MiB.
Not a CI test: it moves (clients + 1) x size bytes through loopback."""

import argparse
import hashlib
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reliability"))
import harness  # noqa: E402


def fetch(port, url, timeout=120.0):
    """GET through the proxy; returns (head, body length, sha256 of the body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"GET {url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 65536:
            piece = s.recv(65536)
            if not piece:
                break
            data += piece
        head, _, rest = data.partition(b"\r\n\r\n")
        digest = hashlib.sha256(rest)
        n = len(rest)
        while True:
            piece = s.recv(1 << 20)
            if not piece:
                break
            digest.update(piece)
            n += len(piece)
    return head.decode(errors="replace"), n, digest.hexdigest()


def x_cache_of_head(port, url):
    """X-Cache of a HEAD through the proxy (no body moves)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"HEAD {url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = s.recv(65536).decode(errors="replace")
    for line in data.split("\r\n"):
        if line.lower().startswith("x-cache:"):
            return line.split(":", 1)[1].strip()
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mib", type=int, default=1024)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--memory-mib", type=int, default=64)
    args = ap.parse_args()
    size = args.size_mib << 20
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        config = harness.node_config(tmp, workers=2)
        config["cache"] = {"memory": {"max_bytes": f"{args.memory_mib}MiB"},
                           "disk": {"path": str(Path(tmp) / "cache"),
                                    "max_bytes": f"{2 * args.size_mib + 64}MiB"},
                           "max_object_bytes": f"{args.size_mib + 1}MiB"}
        node, port, _ = harness.start_node(tmp, config)
        try:
            url = f"http://127.0.0.1:{origin_port}/obj/large?size={size}&max_age=3600"
            head, n, first = fetch(port, url)
            if n != size or "X-Cache: MISS" not in head:
                sys.exit(f"fill failed: {n} bytes, head {head!r}")
            for _ in range(200):  # until the writer has placed the file
                if x_cache_of_head(port, url) == "HIT":
                    break
                time.sleep(0.05)
            before = harness.rss_kib(node.pid)
            peak = [before]
            done = threading.Event()

            def sample():
                while not done.is_set():
                    peak[0] = max(peak[0], harness.rss_kib(node.pid))
                    time.sleep(0.01)

            sampler = threading.Thread(target=sample)
            sampler.start()
            results = [None] * args.clients
            start = time.monotonic()

            def client(i):
                results[i] = fetch(port, url)

            threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(600)
            seconds = time.monotonic() - start
            done.set()
            sampler.join()
            bad = [i for i, r in enumerate(results)
                   if r is None or r[1] != size or r[2] != first or "X-Cache: HIT" not in r[0]]
            print(f"object {args.size_mib} MiB, {args.clients} clients, memory tier "
                  f"{args.memory_mib} MiB: {seconds:.1f} s, "
                  f"{args.clients * size / seconds / (1 << 30):.2f} GiB/s")
            print(f"RSS before {before / 1024:.1f} MiB, peak {peak[0] / 1024:.1f} MiB, "
                  f"growth {(peak[0] - before) / 1024:.1f} MiB")
            print(f"bodies byte-exact (sha256 equal to the fill's): {args.clients - len(bad)} "
                  f"of {args.clients}")
            if bad:
                sys.exit(1)
        finally:
            node.stop()
            origin.stop()


if __name__ == "__main__":
    main()
