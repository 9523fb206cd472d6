#!/usr/bin/env python3
"""Flash crowd: cluster.miss_policy origin against owner (docs/peers.md, "Miss
policy"). Four sumcached nodes on loopback, 16 clients at each, receive the
same never-seen URL at the same moment, round after round; the origin counts
its fetches per URL. Then one client alone misses on new URLs, to time the
owner hop: a miss through the owner (X-Cache OWNER) against a direct origin
miss. Prints a markdown table and writes it, with the raw figures, as
<out>.md and <out>.json.

  ninja -C build/release sumcached
  python3 bench/cluster/flash_crowd.py --out /tmp/flash/results

Standard library only. Every loop is bounded in count and time; only the
processes started here are stopped, by PID.
"""
import argparse
import hashlib
import http.client
import json
import multiprocessing
import os
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cluster import Cluster, ClusterParams  # noqa: E402
from origin import OriginProcess  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODES = 4
BODY_BYTES = 16 * 1024
POLICIES = ("origin", "owner")


def body_of(path):
    """BODY_BYTES derived from the path, so that every client checks what it got."""
    seed = hashlib.sha256(path.encode()).digest()
    return (seed * (BODY_BYTES // len(seed) + 1))[:BODY_BYTES]


# --- the origin: its own process, counts per path, holds answers back delay_ms ---

def _origin_handler(counts, lock):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self):  # noqa: N802 (the standard library's name)
            target = self.path
            if "://" in target:
                target = "/" + target.split("://", 1)[1].split("/", 1)[-1]
            parts = urlsplit(target)
            if parts.path == "/_counts":
                with lock:
                    body = json.dumps(dict(counts)).encode()
                self._send(body, "no-store")
                return
            delay_ms = int(parse_qs(parts.query).get("delay_ms", ["0"])[0])
            with lock:
                counts[parts.path] = counts.get(parts.path, 0) + 1
            if delay_ms > 0:
                time.sleep(min(delay_ms, 10_000) / 1000)
            self._send(body_of(parts.path), "max-age=3600")

        def _send(self, body, cache_control):
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", cache_control)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return Handler


def _serve_origin(conn):
    counts, lock = {}, threading.Lock()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _origin_handler(counts, lock))
    server.daemon_threads = True
    server.request_queue_size = 256
    conn.send(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        conn.recv()
    except EOFError:
        pass
    server.shutdown()


class CountingOrigin(OriginProcess):
    def __init__(self):
        super().__init__(_serve_origin)

    def counts(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            conn.request("GET", "/_counts")
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()


# --- clients ---

def _get(conn, url, host):
    """(status, X-Cache, body ok, seconds); conn is reused (keep-alive)."""
    start = time.perf_counter()
    conn.request("GET", url, headers={"Host": host})
    r = conn.getresponse()
    body = r.read()
    seconds = time.perf_counter() - start
    path = urlsplit(url).path
    return r.status, r.getheader("X-Cache", "NONE"), body == body_of(path), seconds


def _crowd_node(proxy_port, origin_port, urls, clients, barrier, out, deadline_s):
    """One node's clients: each requests every URL in turn, all nodes' clients
    released together per URL by `barrier`."""
    host = f"127.0.0.1:{origin_port}"
    results = []
    lock = threading.Lock()

    def one_client():
        conn = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=10)
        mine = []
        for url in urls:
            try:
                barrier.wait(timeout=deadline_s)
            except threading.BrokenBarrierError:
                break
            try:
                mine.append(_get(conn, url, host))
            except (OSError, http.client.HTTPException) as e:
                mine.append((0, type(e).__name__, False, 0.0))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=10)
        conn.close()
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=one_client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(deadline_s + 30)
    out.put(results)


def flash_crowd(cl, origin, policy, rounds, clients, delay_ms, deadline_s):
    urls = [f"http://127.0.0.1:{origin.port}/crowd/{policy}-{i}?delay_ms={delay_ms}"
            for i in range(rounds)]
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(NODES * clients)
    out = ctx.Queue()
    procs = [ctx.Process(target=_crowd_node,
                         args=(p.http, origin.port, urls, clients, barrier, out, deadline_s))
             for p in cl.ports]
    for p in procs:
        p.start()
    results = []
    for _ in procs:
        results.extend(out.get(timeout=deadline_s + 60))
    for p in procs:
        p.join(10)
    counts = origin.counts()
    fetches = [counts.get(urlsplit(u).path, 0) for u in urls]
    return {"urls": len(urls), "requests": len(results),
            "ok": sum(1 for r in results if r[0] == 200 and r[2]),
            "x_cache": {k: sum(1 for r in results if r[1] == k) for k in {r[1] for r in results}},
            "origin_fetches_per_url": fetches,
            "latencies_ms": sorted(1000 * r[3] for r in results if r[0] == 200)}


def single_misses(cl, origin, policy, count, deadline_s):
    """One client, new URLs one at a time, each at the next node in turn."""
    host = f"127.0.0.1:{origin.port}"
    conns = [http.client.HTTPConnection("127.0.0.1", p.http, timeout=10) for p in cl.ports]
    by_x_cache = {}
    start = time.monotonic()
    for i in range(count):
        if time.monotonic() - start > deadline_s:
            break
        url = f"http://127.0.0.1:{origin.port}/single/{policy}-{i}"
        status, x_cache, ok, seconds = _get(conns[i % len(conns)], url, host)
        if status == 200 and ok:
            by_x_cache.setdefault(x_cache, []).append(1000 * seconds)
    for c in conns:
        c.close()
    return {k: sorted(v) for k, v in by_x_cache.items()}


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def run_policy(policy, args, out_dir):
    origin = CountingOrigin()
    origin.start()
    params = ClusterParams(sharing="summary", miss_policy=policy, memory_bytes=64 << 20,
                           update_max_interval_ms=500, workers=args.workers)
    cl = Cluster(args.binary, os.path.join(out_dir, policy), NODES, params)
    raw = {"policy": policy}
    try:
        cl.start()
        raw["peers_ready_seconds"] = cl.wait_peers_ready()
        if raw["peers_ready_seconds"] is None:
            raise RuntimeError(f"{policy}: peers not ready; see {cl.run_dir}")
        raw["crowd"] = flash_crowd(cl, origin, policy, args.rounds, args.clients, args.delay_ms,
                                   args.deadline)
        raw["single"] = single_misses(cl, origin, policy, args.singles, args.deadline)
        raw["nodes"] = cl.collect()
    finally:
        raw["exit_codes"] = cl.stop()
        origin.stop()
    return raw


def markdown(raws):
    lines = ["| miss_policy | new URLs | requests | correct bodies | origin fetches per URL: mean "
             "(min–max) | X-Cache |", "|---|---:|---:|---:|---|---|"]
    for r in raws:
        c = r["crowd"]
        f = c["origin_fetches_per_url"]
        x = ", ".join(f"{k} {v}" for k, v in sorted(c["x_cache"].items()))
        lines.append(f"| {r['policy']} | {c['urls']} | {c['requests']} | {c['ok']} | "
                     f"{statistics.mean(f):.2f} ({min(f)}–{max(f)}) | {x} |")
    by = {r["policy"]: r for r in raws}
    if "origin" in by and "owner" in by:
        direct = by["origin"]["single"].get("MISS", [])
        via = by["owner"]["single"].get("OWNER", [])
        own = by["owner"]["single"].get("MISS", [])
        lines += ["", "| a single miss | count | median ms | p99 ms |", "|---|---:|---:|---:|"]
        for name, v in (("direct to the origin (origin policy, MISS)", direct),
                        ("through the owner (owner policy, OWNER)", via),
                        ("at its owner (owner policy, MISS)", own)):
            lines.append(f"| {name} | {len(v)} | {percentile(v, 0.5):.2f} | "
                         f"{percentile(v, 0.99):.2f} |")
        if direct and via:
            lines.append("")
            lines.append(f"Owner hop: median {percentile(via, 0.5) / percentile(direct, 0.5):.2f}× "
                         f"a direct miss (+{percentile(via, 0.5) - percentile(direct, 0.5):.2f} ms), "
                         f"p99 {percentile(via, 0.99) / percentile(direct, 0.99):.2f}×.")
        fo = statistics.mean(by["origin"]["crowd"]["origin_fetches_per_url"])
        fw = statistics.mean(by["owner"]["crowd"]["origin_fetches_per_url"])
        lines.append(f"Origin fetches per new URL: owner / origin = {fw / fo:.3f}.")
    return "\n".join(lines)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", default=os.path.join(REPO, "build/release/daemon/sumcached"))
    p.add_argument("--rounds", type=int, default=20, help="new URLs, one crowd each")
    p.add_argument("--clients", type=int, default=16, help="clients per node")
    p.add_argument("--delay-ms", type=int, default=100, help="the origin's answer time in a crowd")
    p.add_argument("--singles", type=int, default=400, help="single misses timed per policy")
    p.add_argument("--workers", type=int, default=1, help="worker threads per node")
    p.add_argument("--deadline", type=float, default=120.0, help="seconds per phase")
    p.add_argument("--out", default="/tmp/sumcache-flash/results",
                   help="writes OUT.md and OUT.json; node configs and logs go beside them")
    return p.parse_args()


def main():
    args = parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary} is not built: ninja -C build/release sumcached")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    raws = []
    for policy in POLICIES:
        print(f"miss_policy {policy} ...", flush=True)
        raws.append(run_policy(policy, args, out_dir))
    text = markdown(raws)
    print(text)
    with open(args.out + ".md", "w") as f:
        f.write(text + "\n")
    with open(args.out + ".json", "w") as f:
        json.dump({"args": vars(args), "nproc": os.cpu_count(), "raw": raws}, f, indent=1)


if __name__ == "__main__":
    main()
