"""Replays one node's stream through that node as a forward proxy: one
keep-alive HTTP/1.1 connection, absolute-form request targets, every body
checked against the URL's, each request's latency (request sent to body read)
kept. Bounded by the stream's length and a deadline."""
import http.client
import time
from collections import Counter

from workload import body_bytes, node_stream


def replay(workload, node, proxy_port, origin_port, deadline_s, stream=None,
           origin_host="127.0.0.1"):
    """`stream` defaults to node_stream(workload, node); `origin_host` is the
    address the URLs name (scale.py's origin sits behind a delaying relay)."""
    if stream is None:
        stream = node_stream(workload, node)
    host = f"{origin_host}:{origin_port}"
    halves = [Counter(), Counter()]  # X-Cache per half of the stream: cold start, then warm
    wrong_bodies = 0
    transport_errors = 0
    statuses = Counter()
    conn = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=10)
    start = time.monotonic()
    done = 0
    latencies_ms = {}  # X-Cache's first word: [ms, ...]
    for i, path in enumerate(stream):
        if time.monotonic() - start > deadline_s:
            break
        try:
            sent = time.perf_counter()
            conn.request("GET", f"http://{host}{path}", headers={"Host": host})
            r = conn.getresponse()
            body = r.read()
            took_ms = 1000 * (time.perf_counter() - sent)
        except (OSError, http.client.HTTPException):
            transport_errors += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=10)
            done += 1
            continue
        statuses[r.status] += 1
        if r.status != 200 or body != body_bytes(workload, path):
            wrong_bodies += 1
        x_cache = r.getheader("X-Cache", "NONE")
        halves[0 if i < len(stream) // 2 else 1][x_cache] += 1
        latencies_ms.setdefault(x_cache.split()[0] if x_cache else "NONE", []).append(took_ms)
        done += 1
        if r.getheader("Connection", "").lower() == "close":
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=10)
    conn.close()
    return {
        "node": node,
        "requests": done,
        "complete": done == len(stream),
        "seconds": time.monotonic() - start,
        "x_cache": dict(halves[0] + halves[1]),
        "x_cache_first_half": dict(halves[0]),
        "x_cache_second_half": dict(halves[1]),
        "statuses": {str(k): v for k, v in statuses.items()},
        "wrong_bodies": wrong_bodies,
        "transport_errors": transport_errors,
        "latencies_ms": latencies_ms,
    }
