#!/usr/bin/env python3
"""Summary Cache at scale (issue 17): clusters of 4, 16 and 32 sumcached nodes,
one worker each, with links of a fixed delay, in modes none, icp, summary over
the mesh and summary over Redis. Per mode and size: hit ratio, overhead messages
and bytes per request, summary convergence time, each node's CPU on the
protocol, client latency, memory for the peers' summaries. Prints markdown and
writes it, with every raw figure, as <out>.md and <out>.json.

  cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release
  cmake --build build/release -j2 --target sumcached delay_relay
  python3 bench/cluster/scale.py --sizes 4,16,32 --modes none,icp,summary,redis \\
      --out /tmp/scale/results

The kernel has no netem: every node-to-node, node-to-Redis and node-to-origin
path crosses delay_relay (delay_relay.cc), which holds each TCP chunk and UDP
datagram back a fixed one-way delay. Each node listens on 127.0.0.1 and is seen
by its peers at a face of its own, 127.0.1.N, with the same port numbers, where
the relay listens; Redis is seen at 127.0.2.1, the origin at 127.0.3.1. Clients
talk to their node directly. Standard library only; every loop is bounded in
count and time; only the processes started here are stopped, by PID.
"""
import argparse
import http.client
import json
import multiprocessing
import os
import sys
import threading
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import client  # noqa: E402
import scale_report  # noqa: E402
from cluster import (Cluster, ClusterParams, face_address, free_ports, get_json,  # noqa: E402
                     http_get, node_id)
from origin import Origin  # noqa: E402
from redis_server import RedisServer  # noqa: E402
from relay import Relay, process_cpu_seconds, thread_cpu_seconds  # noqa: E402
from run import PAPER_FILTER, cache_sizes  # noqa: E402
from workload import Workload, describe, node_stream  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REDIS_FACE = "127.0.2.1"
ORIGIN_FACE = "127.0.3.1"
# name: (cluster.sharing, cluster.transport)
MODES = {"none": ("none", "mesh"), "icp": ("icp", "mesh"), "summary": ("summary", "mesh"),
         "redis": ("summary", "redis")}
# The streams of the current size, inherited by the forked clients.
_STREAMS = []


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", default=os.path.join(REPO, "build/release/daemon/sumcached"))
    p.add_argument("--relay", default=os.path.join(REPO, "build/release/bench/cluster/delay_relay"))
    p.add_argument("--sizes", default="4,16,32", help="comma-separated node counts")
    p.add_argument("--modes", default="none,icp,summary,redis",
                   help="comma-separated, of: " + ", ".join(MODES))
    p.add_argument("--requests", type=int, default=2000,
                   help="requests per node (run.py's 4-node experiment: 25,000; scaled down "
                        "so that 4 modes at 4, 16 and 32 nodes take about 10 minutes)")
    p.add_argument("--universe-per-node", type=int, default=0,
                   help="URLs per node (the universe is this times the nodes); "
                        "0: requests / 2.5, the ratio of run.py's 4-node experiment")
    p.add_argument("--alpha", type=float, default=Workload.alpha)
    p.add_argument("--shared-fraction", type=float, default=Workload.shared_fraction)
    p.add_argument("--seed", type=int, default=Workload.seed)
    p.add_argument("--cache-fraction", type=float, default=1 / 3,
                   help="each node's memory budget as a share of its working set")
    p.add_argument("--link-delay-ms", type=float, default=2.0,
                   help="one-way delay between nodes, and between a node and Redis")
    p.add_argument("--origin-delay-ms", type=float, default=20.0,
                   help="one-way delay between a node and the origin (a WAN origin)")
    p.add_argument("--relay-nice", type=int, default=-10,
                   help="the relay's nice value (0: as the nodes)")
    p.add_argument("--threshold", type=float, default=1.0, help="update_threshold_percent")
    # The daemon checks the threshold every interval / 10 and publishes at the
    # interval whatever the threshold. A node here stores about 20 new documents a
    # second and 1% is 5: a check every 200 ms keeps updates near 1% (1-2%), and a
    # quiet node's publication every 2 s costs a 32-node mesh 500 pushes a second
    # (at run.py's 500 ms, 2,000: half of what the mesh sent under load).
    p.add_argument("--update-max-interval-ms", type=int, default=2000)
    p.add_argument("--convergence-samples", type=int, default=3)
    p.add_argument("--idle-seconds", type=float, default=3.0,
                   help="an idle window before the replay (summary modes): the protocol's "
                        "cost with no requests")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs of every mode at each size, interleaved; the tables show their "
                        "mean (convergence: every sample)")
    p.add_argument("--deadline", type=float, default=240.0, help="seconds per replay")
    p.add_argument("--out", default="/tmp/sumcache-scale/results",
                   help="writes OUT.md and OUT.json; configs and logs go beside them")
    return p.parse_args()


def _replay(i, proxy_port, origin_port, deadline, workload):
    return client.replay(workload, i, proxy_port, origin_port, deadline, stream=_STREAMS[i],
                         origin_host=ORIGIN_FACE)


def replay_all(workload, cl, origin_port, deadline):
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workload.nodes) as pool:
        jobs = [pool.apply_async(_replay, (i, p.http, origin_port, deadline, workload))
                for i, p in enumerate(cl.ports)]
        return [j.get(timeout=deadline + 60) for j in jobs]


def metrics_sums(port):
    """/metrics summed per family and, for families with a direction label, per
    family:direction (the Redis counters scale.py reads)."""
    status, _, body = http_get(port, "/metrics")
    out = {}
    if status != 200:
        return out
    for line in body.decode(errors="replace").splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, _, value = line.rpartition(" ")
        name, _, labels = name_labels.partition("{")
        try:
            v = float(value)
        except ValueError:
            continue
        out[name] = out.get(name, 0.0) + v
        if 'direction="' in labels:
            d = labels.split('direction="', 1)[1].split('"', 1)[0]
            out[f"{name}:{d}"] = out.get(f"{name}:{d}", 0.0) + v
    return out


def snapshot(cl):
    """Per node: /peers, /metrics sums and CPU seconds per thread name."""
    out = []
    for i, p in enumerate(cl.ports):
        node = {"id": node_id(i)}
        try:
            node["peers"] = get_json(p.admin, "/peers")
            node["metrics"] = metrics_sums(p.admin)
        except (OSError, RuntimeError, ValueError) as e:
            node["error"] = str(e)
        try:
            node["cpu"] = thread_cpu_seconds(cl.procs[i].pid)
        except OSError as e:
            node["cpu"] = {"error": str(e)}
        out.append(node)
    return out


def _x_cache(port, url, host):
    """X-Cache of a GET through the node at `port`."""
    status, headers, _ = http_get(port, url, headers={"Host": host})
    return headers.get("X-Cache", "NONE") if status == 200 else f"status {status}"


def convergence(cl, origin_port, samples, batch, timeout_s=10.0):
    """For each sample: `batch` new URLs stored at one node (GETs through it, one
    after the other), enough to pass the update threshold, so that the node
    publishes at its next check rather than at update_max_interval_ms; then every
    other node asked for the last of them, all at once, every 20 ms, until it
    answers PEER-HIT (its summary of the storing node claims the URL and it fetched
    it from there). The seconds from the last stored response to each node's first
    PEER-HIT. The origin serves a /obj/once- URL as cacheable only the first time,
    so a node asked before its summary claims the URL fetches it from the origin
    and keeps nothing (MISS), and is asked again. The URLs name the origin directly
    (no WAN delay), so that such a miss costs little."""
    host = f"127.0.0.1:{origin_port}"
    out = []
    n = len(cl.ports)
    for s in range(samples):
        src = (s * 7) % n
        for b in range(batch):
            url = f"http://{host}/obj/once-convergence-{os.getpid()}-{s}-{b}"
            status, headers, _ = http_get(cl.ports[src].http, url, headers={"Host": host})
        stored = time.monotonic()
        times = {}
        lock = threading.Lock()

        def poll(j):
            deadline = stored + timeout_s
            polls = 0
            while time.monotonic() < deadline and polls < 2000:
                polls += 1
                try:
                    x = _x_cache(cl.ports[j].http, url, host)
                except (OSError, http.client.HTTPException):
                    x = "ERROR"
                if x.startswith("PEER-HIT"):
                    with lock:
                        times[j] = time.monotonic() - stored
                    return
                time.sleep(0.02)

        threads = [threading.Thread(target=poll, args=(j,)) for j in range(n) if j != src]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout_s + 10)
        seconds = sorted(times.values())
        out.append({"source": node_id(src), "batch": batch, "store_status": status,
                    "store_x_cache": headers.get("X-Cache", ""), "reached": len(times),
                    "nodes": n - 1, "first_s": seconds[0] if seconds else None,
                    "median_s": seconds[len(seconds) // 2] if seconds else None,
                    "all_s": seconds[-1] if len(seconds) == n - 1 else None})
        time.sleep(0.2)
    return out


def run_mode(mode, size, args, workload, memory, entries, run_dir):
    sharing, transport = MODES[mode]
    os.makedirs(run_dir, exist_ok=True)
    params = ClusterParams(sharing=sharing, threshold_percent=args.threshold,
                           memory_bytes=memory, expected_entries=entries,
                           filter_settings=PAPER_FILTER,
                           update_max_interval_ms=args.update_max_interval_ms, workers=1,
                           faces=True, transport=transport)
    redis = None
    if transport == "redis":
        redis = RedisServer(free_ports(1)[0], run_dir)
        params = replace(params, redis={"servers": [{"address": REDIS_FACE,
                                                      "port": redis.port}]})
    origin = Origin(workload)
    cl = Cluster(args.binary, run_dir, size, params)
    raw = {"mode": mode, "size": size, "params": params.__dict__}
    relay = None
    try:
        origin.start()
        if redis:
            redis.start()
        d = args.link_delay_ms
        tcp = [(ORIGIN_FACE, origin.port, origin.port, args.origin_delay_ms)]
        if redis:
            tcp.append((REDIS_FACE, redis.port, redis.port, d))
        udp = []
        for i, p in enumerate(cl.ports):
            tcp += [(face_address(i), p.http, p.http, d), (face_address(i), p.peer, p.peer, d)]
            udp.append((face_address(i), p.icp, p.icp))
        relay = Relay(args.relay, tcp, udp, d, os.path.join(run_dir, "relay.log"),
                      nice=args.relay_nice)
        relay.start()
        cl.start(timeout_s=20.0 + size)
        raw["peers_ready_seconds"] = (cl.wait_peers_ready(timeout_s=30.0 + size)
                                      if sharing != "none" else 0.0)
        if sharing == "summary":
            # An idle window: what the protocol costs with no requests at all
            # (mesh: a publication every update_max_interval_ms; Redis: heartbeats
            # and blocking reads too).
            raw["idle_start"] = snapshot(cl)
            time.sleep(args.idle_seconds)
            raw["idle_seconds"] = args.idle_seconds
        raw["before"] = snapshot(cl)
        relay_cpu = relay.cpu_seconds()
        redis_cpu = redis_cpu_seconds(redis)
        start = time.monotonic()
        raw["clients"] = replay_all(workload, cl, origin.port, args.deadline)
        raw["seconds"] = time.monotonic() - start
        time.sleep(0.5)  # pushes and replies in flight land in the counters
        raw["after"] = snapshot(cl)
        raw["relay_cpu_seconds"] = relay.cpu_seconds() - relay_cpu
        raw["relay_nice"] = os.getpriority(os.PRIO_PROCESS, relay.proc.pid)
        raw["redis_cpu_seconds"] = (redis_cpu_seconds(redis) - redis_cpu) if redis else 0.0
        if redis:
            raw["redis_memory"] = redis.info("memory")
            raw["redis_keyspace"] = redis.info("keyspace")
        raw["origin"] = get_json(origin.port, "/_count")
        # 1% of the entries and one more: past the threshold (cluster.update_threshold_percent).
        batch = int(args.threshold / 100 * entries) + 1
        raw["convergence"] = (convergence(cl, origin.port, args.convergence_samples, batch)
                              if sharing == "summary" else [])
    finally:
        raw["exit_codes"] = cl.stop()
        raw["relay"] = relay.stop() if relay else {}
        if redis:
            redis.stop()
        origin.stop()
    return raw


def redis_cpu_seconds(redis):
    if redis is None or redis.proc is None:
        return 0.0
    return process_cpu_seconds(redis.proc.pid)


def from_json(path):
    """The tables again from a run's OUT.json (after a change to scale_report)."""
    with open(path) as f:
        saved = json.load(f)
    setups = {s["size"]: s for s in saved["setups"]}
    rows = []
    for raw, old in zip(saved["raw"], saved["figures"]):
        row = scale_report.figures(raw, setups[raw["size"]])
        if not any(c.get("latencies_ms") for c in raw["clients"]):
            # Runs before the latencies were kept: their quantiles as computed then.
            row.update({k: v for k, v in old.items() if "latency" in k})
        rows.append(row)
    print(scale_report.markdown(scale_report.aggregate(rows), saved["setups"]))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--from-json":
        from_json(sys.argv[2])
        return
    args = parse_args()
    modes = args.modes.split(",")
    sizes = [int(s) for s in args.sizes.split(",")]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        sys.exit(f"unknown modes {unknown}; known: {', '.join(MODES)}")
    for path, target in ((args.binary, "sumcached"), (args.relay, "delay_relay")):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} is not built: cmake --build build/release -j2 --target {target}")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    upn = args.universe_per_node or int(args.requests / 2.5)
    started = time.time()
    load_before = os.getloadavg()
    raws, figures, setups = [], [], []
    for size in sizes:
        workload = Workload(seed=args.seed, universe=upn * size, alpha=args.alpha, nodes=size,
                            requests_per_node=args.requests,
                            shared_fraction=args.shared_fraction)
        _STREAMS[:] = [node_stream(workload, i) for i in range(size)]
        described = describe(workload, _STREAMS)
        memory, entries = cache_sizes(workload, described, args.cache_fraction)
        setup = {"size": size, "workload": workload.as_dict(), "memory_bytes": memory,
                 "expected_entries": entries,
                 "distinct_urls_per_node": sum(n["distinct_urls"] for n in described["per_node"])
                 / size, "distinct_urls_all_nodes": described["distinct_urls_all_nodes"]}
        setups.append(setup)
        print(f"size {size}: {setup}", flush=True)
        for rep, mode in ((r, m) for r in range(args.repeat) for m in modes):
            t = time.monotonic()
            raw = run_mode(mode, size, args, workload, memory, entries,
                           os.path.join(out_dir, f"n{size}", mode + (f"-{rep + 1}" if rep else "")))
            raw["repetition"] = rep + 1
            figures.append(scale_report.figures(raw, setup))
            for c in raw["clients"]:  # kept, rounded, so that --from-json can redo them
                c["latencies_ms"] = {k: [round(v, 3) for v in vs]
                                     for k, vs in c.get("latencies_ms", {}).items()}
            raws.append(raw)
            f = figures[-1]
            print(f"  {mode}: {time.monotonic() - t:.0f} s; hit {100 * f['hit_ratio']:.2f}%, "
                  f"overhead {f['overhead_messages_per_request']:.4f} msg/req, "
                  f"latency mean {f['latency_mean_ms']:.1f} ms, ready "
                  f"{raw['peers_ready_seconds']}", flush=True)
    text = scale_report.markdown(scale_report.aggregate(figures), setups)
    load_after = os.getloadavg()
    text = (f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}, "
            f"{time.time() - started:.0f} s, {os.cpu_count()} CPUs; load average (1, 5, 15 min) "
            f"{' '.join(f'{v:.2f}' for v in load_before)} before, "
            f"{' '.join(f'{v:.2f}' for v in load_after)} after\n\n") + text
    print(text)
    with open(args.out + ".md", "w") as f:
        f.write(text + "\n")
    with open(args.out + ".json", "w") as f:
        json.dump({"args": vars(args), "setups": setups, "figures": figures, "raw": raws,
                   "nproc": os.cpu_count()}, f, indent=1)


if __name__ == "__main__":
    main()
