#!/usr/bin/env python3
"""The Summary Cache experiment (Fan, Cao, Almeida, Broder, IEEE/ACM ToN 2000)
on a real cluster: 4 sumcached nodes on loopback, one origin, the same
Zipf-like request streams replayed with cluster.sharing none, icp and summary
(update thresholds 1% and 10%). Prints a markdown table and writes it, with
every raw counter, as <out>.md and <out>.json.

  ninja -C build/release sumcached
  python3 bench/cluster/run.py --out /tmp/cluster

Standard library only. Every loop is bounded in count and time; only the
processes started here are stopped, by PID.
"""
import argparse
import json
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import client  # noqa: E402
import probes  # noqa: E402
import report  # noqa: E402
from cluster import Cluster, ClusterParams, get_json, node_id  # noqa: E402
from origin import Origin  # noqa: E402
from workload import Workload, describe, node_stream  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What a stored object costs the memory budget beyond its body (key, meta, head),
# for sizing the cache; checked against /stats after each run.
OBJECT_OVERHEAD_BYTES = 300
PAPER_FILTER = {"bits_per_entry": 16, "hashes": 4}
# The paper's false positive rate, (1 - e^(-1/4))^4, from the filter that costs
# the fewest bits on the wire (Mitzenmacher, PODC 2001; docs/protocol.md).
WIRE_FILTER = {"target_fpr": 0.0023940562, "objective": "wire"}
# A fingerprint summary at the same rate (filter.kind fingerprint, docs/peers.md
# "Summary kinds"): U = n / p, Rice-coded sorted fingerprints on the wire.
FINGERPRINT_FILTER = {"kind": "fingerprint", "target_fpr": 0.0023940562}
# name: (cluster.sharing, update_threshold_percent, update_max_interval_ms, filter).
# The daemon checks the threshold every update_max_interval_ms / 10 and publishes
# at the interval whatever the threshold. At this replay's rate (~450 new objects
# a second per node, caches of ~4,000), 1% (40 objects) needs a check every 50 ms
# (500 ms); 10% (400 objects, ~0.9 s) needs an interval above 0.9 s (2000 ms),
# or the interval, not the threshold, would set when updates go out.
MODES = {"none": ("none", 1.0, 2000, PAPER_FILTER), "icp": ("icp", 1.0, 2000, PAPER_FILTER),
         "summary-1": ("summary", 1.0, 500, PAPER_FILTER),
         "summary-10": ("summary", 10.0, 2000, PAPER_FILTER),
         "summary-1-wire": ("summary", 1.0, 500, WIRE_FILTER),
         "summary-1-fingerprint": ("summary", 1.0, 500, FINGERPRINT_FILTER)}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", default=os.path.join(REPO, "build/release/daemon/sumcached"))
    p.add_argument("--modes",
                   default="none,icp,summary-1,summary-10,summary-1-wire,summary-1-fingerprint",
                   help="comma-separated, of: " + ", ".join(MODES))
    p.add_argument("--requests", type=int, default=Workload.requests_per_node,
                   help="requests per node")
    p.add_argument("--universe", type=int, default=Workload.universe)
    p.add_argument("--alpha", type=float, default=Workload.alpha)
    p.add_argument("--shared-fraction", type=float, default=Workload.shared_fraction)
    p.add_argument("--seed", type=int, default=Workload.seed)
    p.add_argument("--cache-fraction", type=float, default=1 / 3,
                   help="each node's memory budget as a share of its working set")
    p.add_argument("--update-max-interval-ms", type=int, default=None,
                   help="overrides every mode's cluster.update_max_interval_ms")
    p.add_argument("--workers", type=int, default=1, help="worker threads per node")
    p.add_argument("--repeat", type=int, default=1,
                   help="repetitions of every mode, interleaved; the table shows their mean")
    p.add_argument("--deadline", type=float, default=300.0, help="seconds per mode's replay")
    p.add_argument("--out", default="/tmp/sumcache-cluster/results",
                   help="writes OUT.md and OUT.json; node configs and logs go beside them")
    return p.parse_args()


def cache_sizes(workload, figures, fraction):
    """(memory budget, expected filter entries) so that each node holds `fraction`
    of its working set and the filter is sized for what fits."""
    per_node = figures["per_node"]
    working = sum(n["distinct_body_bytes"] + OBJECT_OVERHEAD_BYTES * n["distinct_urls"]
                  for n in per_node) / len(per_node)
    memory = max(int(working * fraction), 2 << 20)
    per_object = figures["mean_body_bytes"] + OBJECT_OVERHEAD_BYTES
    return memory, int(memory / per_object)


def replay_all(workload, cl, origin_port, deadline):
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workload.nodes) as pool:
        jobs = [pool.apply_async(client.replay, (workload, i, p.http, origin_port, deadline))
                for i, p in enumerate(cl.ports)]
        return [j.get(timeout=deadline + 60) for j in jobs]


def wire_rows(mode, cl):
    """Each node's full summary after the run, read from the message itself."""
    rows = []
    for i, p in enumerate(cl.ports):
        s = probes.full_summary(p.peer, node_id((i + 1) % len(cl.ports)))
        if s is None or not s["entries"]:
            continue
        if s["fingerprints"]:  # exact: 1 - (1 - 1/U)^n
            fpr = 1 - (1 - 1 / s["m"]) ** s["entries"]
        else:
            fpr = (s["set_bits"] / s["m"]) ** s["k"]
        rows.append({"mode": mode, "node": node_id(i), "entries": s["entries"], "m": s["m"],
                     "k": s["k"], "estimated_fpr": fpr,
                     "full_summary_bytes": s["bytes"], "bits_per_url": 8 * s["bytes"] / s["entries"]})
    return rows


def memory_rows(mode, nodes):
    """Per node after the run: the sender's structure (/filter memory_bytes) and
    what it holds for each peer's summary (/peers summary_memory_bytes)."""
    rows = []
    for i, node in enumerate(nodes):
        f = node.get("filter", {})
        peers = node.get("peers", {}).get("peers", [])
        held = [p for p in peers if p.get("has_summary")]
        rows.append({"mode": mode, "node": node_id(i), "kind": f.get("kind", "counting-bloom"),
                     "entries": f.get("entries", 0), "sender_bytes": f.get("memory_bytes", 0),
                     "peers_held": len(held),
                     "peer_entries": sum(p.get("entries", 0) for p in held),
                     "receiver_bytes": sum(p.get("summary_memory_bytes", 0) for p in held),
                     "directory": node.get("peers", {}).get("directory", {})})
    return rows


def run_mode(mode, args, workload, memory, entries, out_dir):
    sharing, threshold, interval_ms, filter_settings = MODES[mode]
    params = ClusterParams(sharing=sharing, threshold_percent=threshold, memory_bytes=memory,
                           expected_entries=entries, filter_settings=filter_settings,
                           update_max_interval_ms=args.update_max_interval_ms or interval_ms,
                           workers=args.workers)
    origin = Origin(workload)
    origin.start()
    cl = Cluster(args.binary, os.path.join(out_dir, mode), workload.nodes, params)
    raw = {"mode": mode, "params": params.__dict__}
    try:
        cl.start()
        raw["peers_ready_seconds"] = cl.wait_peers_ready() if sharing != "none" else 0.0
        start = time.monotonic()
        raw["clients"] = replay_all(workload, cl, origin.port, args.deadline)
        raw["seconds"] = time.monotonic() - start
        time.sleep(0.5)  # pushes and replies in flight land in the counters
        raw["nodes"] = cl.collect()
        raw["origin"] = get_json(origin.port, "/_count")
        if sharing != "none":
            req, res, status = probes.false_hit_exchange_bytes(cl.ports[0].http, origin.port,
                                                               node_id(1))
            raw["false_hit_probe"] = {"request_bytes": req, "response_bytes": res,
                                      "status_line": status}
        raw["wire"] = wire_rows(mode, cl) if sharing == "summary" else []
        raw["memory"] = memory_rows(mode, raw["nodes"]) if sharing == "summary" else []
    finally:
        raw["exit_codes"] = cl.stop()
        origin.stop()
    return raw


def main():
    args = parse_args()
    modes = args.modes.split(",")
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        sys.exit(f"unknown modes {unknown}; known: {', '.join(MODES)}")
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"{args.binary} is not built: ninja -C build/release sumcached")
    workload = Workload(seed=args.seed, universe=args.universe, alpha=args.alpha,
                        requests_per_node=args.requests, shared_fraction=args.shared_fraction)
    figures = describe(workload, [node_stream(workload, i) for i in range(workload.nodes)])
    memory, entries = cache_sizes(workload, figures, args.cache_fraction)
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    print(f"workload: {workload.as_dict()}\nper node: memory {memory} bytes, "
          f"filter sized for {entries} entries", flush=True)
    raws = []
    for rep in range(args.repeat):
        for mode in modes:
            print(f"run {rep + 1}/{args.repeat}: mode {mode} ...", flush=True)
            raws.append(run_mode(mode, args, workload, memory, entries,
                                 os.path.join(out_dir, f"run-{rep + 1}")))
    per_run = [report.mode_figures(r) for r in raws]
    table = [report.aggregate([f for f in per_run if f["mode"] == m]) for m in modes]
    wire = [row for r in raws for row in r["wire"]]
    memory_figures = [row for r in raws for row in r.get("memory", [])]
    text = report.markdown(table) + ("\n\n" + report.wire_markdown(wire) if wire else "")
    if memory_figures:
        text += "\n\n" + report.memory_markdown(memory_figures)
    print(text)
    with open(args.out + ".md", "w") as f:
        f.write(text + "\n")
    with open(args.out + ".json", "w") as f:
        json.dump({"workload": workload.as_dict(), "working_set": figures,
                   "memory_bytes": memory, "expected_entries": entries, "nproc": os.cpu_count(),
                   "figures": table, "figures_per_run": per_run, "wire": wire,
                   "memory": memory_figures, "raw": raws}, f, indent=1)


if __name__ == "__main__":
    main()
