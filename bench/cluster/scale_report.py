"""From one scale.py run (a mode at a size) to its figures, and the markdown tables.
Counters are differences over the replay (a snapshot before it, one after), so the
start-up's full summaries and Redis bootstrap are not charged to the requests."""
from report import LOCAL_HITS, _hit_ratio, _sum_x_cache

# A false hit costs a request and its 504: two messages and, from run.py's measured
# only-if-cached exchange (docs/evidence.md), 373 bytes.
FALSE_HIT_BYTES = 373
PEER_FIELDS = ("messages_sent", "messages_received", "bytes_sent", "bytes_received",
               "false_hits", "true_hits", "requests_sent", "request_errors")
REDIS_COUNTERS = ("sumcache_redis_commands_total", "sumcache_redis_bytes_total:sent",
                  "sumcache_redis_messages_total:published",
                  "sumcache_redis_bytes_total:received", "sumcache_redis_messages_total",
                  "sumcache_redis_resyncs_total", "sumcache_redis_messages_refused_total")


def _peer_totals(snapshot):
    out = dict.fromkeys(PEER_FIELDS, 0)
    for node in snapshot:
        for peer in node.get("peers", {}).get("peers", []):
            for f in PEER_FIELDS:
                out[f] += peer.get(f, 0)
    return out


def _metric_total(snapshot, name):
    return sum(node.get("metrics", {}).get(name, 0.0) for node in snapshot)


def _quantile(sorted_values, q):
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def _cpu(before, after, name):
    """Per node: the CPU seconds threads named `name` spent over the replay."""
    out = []
    for b, a in zip(before, after):
        out.append(max(0.0, a.get("cpu", {}).get(name, 0.0) - b.get("cpu", {}).get(name, 0.0)))
    return out


def figures(raw, setup):
    clients, before, after = raw["clients"], raw["before"], raw["after"]
    size = raw["size"]
    x_cache = _sum_x_cache(clients)
    requests = sum(c["requests"] for c in clients)
    per = (lambda v: v / requests) if requests else (lambda v: 0.0)
    b, a = _peer_totals(before), _peer_totals(after)
    peer = {f: a[f] - b[f] for f in PEER_FIELDS}
    redis = {n: _metric_total(after, n) - _metric_total(before, n) for n in REDIS_COUNTERS}
    # Mesh and ICP: a message counts once, as sent or (a pulled summary) as received.
    mesh_messages = max(peer["messages_sent"], peer["messages_received"])
    mesh_bytes = max(peer["bytes_sent"], peer["bytes_received"])
    redis_bytes = redis["sumcache_redis_bytes_total:sent"] + redis[
        "sumcache_redis_bytes_total:received"]
    if raw["params"].get("transport") == "redis":
        # /peers counts the messages read from the streams as received: they came
        # inside XREAD replies, which the Redis counters already hold.
        protocol_messages, protocol_bytes = redis["sumcache_redis_commands_total"], redis_bytes
    else:
        protocol_messages, protocol_bytes = mesh_messages, mesh_bytes
    overhead_messages = protocol_messages + 2 * peer["false_hits"]
    overhead_bytes = protocol_bytes + FALSE_HIT_BYTES * peer["false_hits"]
    by_class = {}
    for c in clients:
        for name, values in c.get("latencies_ms", {}).items():
            by_class.setdefault(name, []).extend(values)
    latencies = sorted(v for values in by_class.values() for v in values)
    misses = sorted(by_class.get("MISS", []))
    local = sorted(v for k in LOCAL_HITS for v in by_class.get(k, []))
    remote = sorted(by_class.get("PEER-HIT", []))
    peer_cpu = _cpu(before, after, "sc-peer")
    process_cpu = _cpu(before, after, "process")
    memory = []
    estimate = []
    for node in after:
        d = node.get("peers", {}).get("directory", {})
        memory.append(d.get("bloom_directory_bytes", 0) + d.get("bloom_copies_bytes", 0) +
                      d.get("fingerprint_directory_bytes", 0))
        # The paper's estimate: each peer's summary as a bit array of m bits.
        estimate.append(sum(p.get("m", 0) / 8 for p in node.get("peers", {}).get("peers", [])
                            if p.get("has_summary")))
    conv = [c for c in raw.get("convergence", [])]
    conv_all = [c["all_s"] for c in conv if c["all_s"] is not None]
    conv_median = [c["median_s"] for c in conv if c["median_s"] is not None]
    relay = raw.get("relay", {})
    idle = {}
    if raw.get("idle_start"):
        i0, i1, secs = raw["idle_start"], before, raw["idle_seconds"]
        p0, p1 = _peer_totals(i0), _peer_totals(i1)
        idle = {
            "idle_mesh_messages_per_s": max(p1["messages_sent"] - p0["messages_sent"],
                                            p1["messages_received"] - p0["messages_received"])
            / secs,
            "idle_redis_commands_per_s": (_metric_total(i1, "sumcache_redis_commands_total") -
                                          _metric_total(i0, "sumcache_redis_commands_total"))
            / secs,
            "idle_peer_cpu_s_per_s": sum(_cpu(i0, i1, "sc-peer")) / secs,
        }
    # Publications (summary versions a node put out): mesh, pushes over N - 1;
    # Redis, the messages each node published.
    if raw["mode"] == "summary":
        publications = peer["messages_sent"] / max(size - 1, 1)
    else:
        publications = redis["sumcache_redis_messages_total:published"]
    update_messages = overhead_messages - 2 * peer["false_hits"]
    return {
        **idle,
        "publications": publications,
        "requests_per_publication": requests / publications if publications else 0.0,
        "messages_per_publication": update_messages / publications if publications else 0.0,
        "update_messages_per_request": per(update_messages),
        "false_hit_messages_per_request": per(2 * peer["false_hits"]),
        "mode": raw["mode"], "size": size, "requests": requests,
        "hit_ratio": _hit_ratio(x_cache),
        "local_hits": sum(x_cache.get(k, 0) for k in LOCAL_HITS),
        "remote_hits": x_cache.get("PEER-HIT", 0),
        "false_hits": peer["false_hits"],
        "origin_requests": raw["origin"]["requests"],
        "mesh_messages": mesh_messages, "mesh_bytes": mesh_bytes,
        "redis_commands": redis["sumcache_redis_commands_total"],
        "redis_bytes": redis_bytes,
        "redis_messages": redis["sumcache_redis_messages_total"],
        "redis_resyncs": redis["sumcache_redis_resyncs_total"],
        "redis_refused": redis["sumcache_redis_messages_refused_total"],
        "overhead_messages": overhead_messages,
        "overhead_messages_per_request": per(overhead_messages),
        "overhead_bytes_per_request": per(overhead_bytes),
        "peer_requests_per_request": per(peer["requests_sent"]),
        "peer_request_errors": peer["request_errors"],
        "wrong_bodies": sum(c["wrong_bodies"] for c in clients),
        "transport_errors": sum(c["transport_errors"] for c in clients),
        "incomplete_clients": sum(1 for c in clients if not c["complete"]),
        "latency_mean_ms": sum(latencies) / len(latencies) if latencies else 0.0,
        "latency_p50_ms": _quantile(latencies, 0.5),
        "latency_p99_ms": _quantile(latencies, 0.99),
        # By where the answer came from: a miss pays ICP's query round (or a false
        # hit) before the origin; a local hit pays only the node's own CPU.
        "miss_latency_mean_ms": sum(misses) / len(misses) if misses else 0.0,
        "miss_latency_p50_ms": _quantile(misses, 0.5),
        "local_hit_latency_p50_ms": _quantile(local, 0.5),
        "remote_hit_latency_p50_ms": _quantile(remote, 0.5),
        "peer_cpu_s_total": sum(peer_cpu), "peer_cpu_s_max": max(peer_cpu, default=0.0),
        "process_cpu_s_total": sum(process_cpu),
        "peer_cpu_ms_per_1k_requests": 1e6 * sum(peer_cpu) / requests if requests else 0.0,
        "summary_memory_bytes_per_node": sum(memory) / len(memory) if memory else 0,
        "summary_memory_estimate_per_node": sum(estimate) / len(estimate) if estimate else 0,
        "convergence_all_s": conv_all, "convergence_median_s": conv_median,
        "convergence_reached": [f"{c['reached']}/{c['nodes']}" for c in conv],
        "relay_cpu_s": raw.get("relay_cpu_seconds", 0.0),
        "relay_late_over_1ms": relay.get("late_over_1ms", 0),
        "relay_deliveries": relay.get("deliveries", 0),
        "relay_late_mean_us": relay.get("late_mean_us", 0.0),
        "redis_cpu_s": raw.get("redis_cpu_seconds", 0.0),
        "peers_ready_seconds": raw.get("peers_ready_seconds"),
        "seconds": raw["seconds"],
        "x_cache": x_cache,
    }


def aggregate(rows):
    """One row per (size, mode): the mean of each figure over its repetitions,
    every convergence sample, the hit ratio's range."""
    groups = {}
    for r in rows:
        groups.setdefault((r["size"], r["mode"]), []).append(r)
    out = []
    for runs in groups.values():
        row = dict(runs[0])
        for key, value in runs[0].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key != "size":
                row[key] = sum(r[key] for r in runs) / len(runs)
            elif isinstance(value, list):
                row[key] = [v for r in runs for v in r[key]]
        row["repetitions"] = len(runs)
        row["hit_ratio_min"] = min(r["hit_ratio"] for r in runs)
        row["hit_ratio_max"] = max(r["hit_ratio"] for r in runs)
        out.append(row)
    return out


def _ratio(v, ref):
    return f"{v / ref:.2f}×" if ref else "–"


def _seconds_list(values):
    return ", ".join(f"{v:.2f}" for v in values) if values else "–"


def markdown(rows, setups):
    out = ["| nodes | requests / node | URLs per node (distinct) | cache bytes / node "
           "| filter entries |", "|---:|---:|---:|---:|---:|"]
    for s in setups:
        out.append(f"| {s['size']} | {s['workload']['requests_per_node']} | "
                   f"{s['distinct_urls_per_node']:.0f} | {s['memory_bytes']} | "
                   f"{s['expected_entries']} |")
    if any(r.get("repetitions", 1) > 1 for r in rows):
        out += ["", f"Each row: the mean of {rows[0]['repetitions']} runs (hit ratio: lowest and "
                "highest run in brackets); convergence: every sample."]
    out += ["", "| nodes | mode | hit ratio | local, remote hits | false hits "
            "| overhead msgs / req | overhead bytes / req | peer requests / req "
            "| wrong bodies, errors |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        spread = (f" ({100 * r['hit_ratio_min']:.2f}–{100 * r['hit_ratio_max']:.2f})"
                  if r.get("repetitions", 1) > 1 else "")
        out.append(f"| {r['size']} | {r['mode']} | {100 * r['hit_ratio']:.2f}%{spread} | "
                   f"{r['local_hits']:.0f}, {r['remote_hits']:.0f} | {r['false_hits']:.0f} | "
                   f"{r['overhead_messages_per_request']:.4f} | "
                   f"{r['overhead_bytes_per_request']:.1f} | "
                   f"{r['peer_requests_per_request']:.4f} | "
                   f"{r['wrong_bodies']:.0f}, {r['transport_errors']:.0f} |")
    out += ["", "| nodes | mode | latency mean ms (vs none) | p50 ms (vs none) "
            "| p99 ms (vs none) | sc-peer CPU s, all nodes (max node) | CPU ms / 1k req "
            "| process CPU s, all nodes | relay CPU s (late mean ms) | redis CPU s |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        ref = next((x for x in rows if x["size"] == r["size"] and x["mode"] == "none"), None)

        def cell(key, r=r, ref=ref):
            return f"{r[key]:.2f} ({_ratio(r[key], ref[key])})" if ref else f"{r[key]:.2f}"
        out.append(f"| {r['size']} | {r['mode']} | {cell('latency_mean_ms')} | "
                   f"{cell('latency_p50_ms')} | {cell('latency_p99_ms')} | "
                   f"{r['peer_cpu_s_total']:.2f} ({r['peer_cpu_s_max']:.2f}) | "
                   f"{r['peer_cpu_ms_per_1k_requests']:.1f} | {r['process_cpu_s_total']:.1f} | "
                   f"{r['relay_cpu_s']:.2f} ({r['relay_late_mean_us'] / 1000:.2f}) | "
                   f"{r['redis_cpu_s']:.2f} |")
    out += ["", "| nodes | mode | origin misses: mean ms (vs none) | p50 ms (vs none) "
            "| local hits p50 ms | remote hits p50 ms |", "|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        ref = next((x for x in rows if x["size"] == r["size"] and x["mode"] == "none"), None)

        def cell(key, r=r, ref=ref):
            return f"{r[key]:.2f} ({_ratio(r[key], ref[key])})" if ref else f"{r[key]:.2f}"
        out.append(f"| {r['size']} | {r['mode']} | {cell('miss_latency_mean_ms')} | "
                   f"{cell('miss_latency_p50_ms')} | {r['local_hit_latency_p50_ms']:.2f} | "
                   f"{r['remote_hit_latency_p50_ms']:.2f} |")
    out += ["", "| nodes | mode | convergence to every node, s (per sample) | median node, s "
            "| reached | peers' summaries held per node, bytes | paper's estimate (m/8 per peer) "
            "| summaries delivered | redis commands, bytes "
            "| idle: msgs or commands / s, sc-peer CPU s / s |",
            "|---:|---|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["mode"] in ("none", "icp"):
            continue
        out.append(f"| {r['size']} | {r['mode']} | {_seconds_list(r['convergence_all_s'])} | "
                   f"{_seconds_list(r['convergence_median_s'])} | "
                   f"{', '.join(r['convergence_reached'])} | "
                   f"{r['summary_memory_bytes_per_node']:.0f} | "
                   f"{r['summary_memory_estimate_per_node']:.0f} | {r['mesh_messages']:.0f} | "
                   f"{r['redis_commands']:.0f}, {r['redis_bytes']:.0f} | "
                   f"{r.get('idle_mesh_messages_per_s', 0) + r.get('idle_redis_commands_per_s', 0):.1f}"
                   f", {r.get('idle_peer_cpu_s_per_s', 0):.3f} |")
    out += ["", "The paper's scaling claim (under 0.06 messages per request at a 1% threshold): "
            "messages per request = messages per publication / requests per publication "
            "+ 2 per false hit. The paper's 8 GB caches (1M pages) put 10,000 requests "
            "between 1% updates; the last column puts this run's messages per publication "
            "and false hits there.", "",
            "| nodes | mode | publications | requests per publication | messages per publication "
            "| update msgs / req | false-hit msgs / req | total | at 10,000 requests per "
            "publication |", "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["mode"] in ("none", "icp"):
            continue
        at_paper = r["messages_per_publication"] / 10000 + r["false_hit_messages_per_request"]
        out.append(f"| {r['size']} | {r['mode']} | {r['publications']:.0f} | "
                   f"{r['requests_per_publication']:.1f} | {r['messages_per_publication']:.1f} | "
                   f"{r['update_messages_per_request']:.4f} | "
                   f"{r['false_hit_messages_per_request']:.4f} | "
                   f"{r['overhead_messages_per_request']:.4f} | {at_paper:.4f} |")
    return "\n".join(out)
