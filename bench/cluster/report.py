"""From one mode's raw results (clients, admin snapshots, origin, probes) to the
figures of the issue, and the markdown table across modes."""

LOCAL_HITS = ("HIT", "COLLAPSED_HIT", "REFRESH_HIT", "STALE_HIT")


def _peer_sum(nodes, field):
    total = 0
    for node in nodes:
        for peer in node.get("peers", {}).get("peers", []):
            total += peer.get(field, 0)
    return total


def _sum_x_cache(clients, key="x_cache"):
    out = {}
    for c in clients:
        for name, n in c[key].items():
            out[name] = out.get(name, 0) + n
    return out


def _hit_ratio(x_cache):
    requests = sum(x_cache.values())
    hits = sum(x_cache.get(k, 0) for k in LOCAL_HITS) + x_cache.get("PEER-HIT", 0)
    return hits / requests if requests else 0.0


def mode_figures(raw):
    clients, nodes = raw["clients"], raw["nodes"]
    x_cache = _sum_x_cache(clients)
    requests = sum(c["requests"] for c in clients)
    local = sum(x_cache.get(k, 0) for k in LOCAL_HITS)
    remote = x_cache.get("PEER-HIT", 0)
    false_hits = _peer_sum(nodes, "false_hits")
    sent = _peer_sum(nodes, "messages_sent")
    received = _peer_sum(nodes, "messages_received")
    # A message counts once: as sent (ICP datagrams, summary pushes) or, for a
    # summary a node pulled, as received; the larger total covers both.
    protocol_messages = max(sent, received)
    protocol_bytes = max(_peer_sum(nodes, "bytes_sent"), _peer_sum(nodes, "bytes_received"))
    probe = raw.get("false_hit_probe") or {}
    false_hit_bytes = probe.get("request_bytes", 0) + probe.get("response_bytes", 0)
    # A false hit costs a request and its 504: two messages.
    overhead_messages = protocol_messages + 2 * false_hits
    overhead_bytes = protocol_bytes + false_hits * false_hit_bytes
    per = (lambda v: v / requests) if requests else (lambda v: 0.0)
    return {
        "mode": raw["mode"],
        "requests": requests,
        "hit_ratio": _hit_ratio(x_cache),
        "hit_ratio_second_half": _hit_ratio(_sum_x_cache(clients, "x_cache_second_half")),
        "local_hits": local,
        "remote_hits": remote,
        "false_hits": false_hits,
        "origin_requests": raw["origin"]["requests"],
        "protocol_messages": protocol_messages,
        "protocol_messages_sent": sent,
        "protocol_messages_received": received,
        "protocol_bytes": protocol_bytes,
        "overhead_messages": overhead_messages,
        "overhead_messages_per_request": per(overhead_messages),
        "overhead_bytes_per_request": per(overhead_bytes),
        "remote_hit_peer_requests": _peer_sum(nodes, "true_hits"),
        "remote_hit_peer_requests_per_request": per(_peer_sum(nodes, "true_hits")),
        "peer_requests": _peer_sum(nodes, "requests_sent"),
        "peer_request_errors": _peer_sum(nodes, "request_errors"),
        "wrong_bodies": sum(c["wrong_bodies"] for c in clients),
        "transport_errors": sum(c["transport_errors"] for c in clients),
        "x_cache": x_cache,
        "seconds": raw["seconds"],
    }


def aggregate(runs):
    """One mode's repetitions: the mean of every figure, the hit ratio's range."""
    out = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = sum(r[key] for r in runs) / len(runs)
    out["x_cache"] = [r["x_cache"] for r in runs]
    out["repetitions"] = len(runs)
    out["hit_ratio_min"] = min(r["hit_ratio"] for r in runs)
    out["hit_ratio_max"] = max(r["hit_ratio"] for r in runs)
    return out


def _pct(v):
    return f"{100 * v:.2f}%"


def markdown(figures):
    """Modes as columns (each the mean of its repetitions), figures as rows; the
    ICP/summary message ratio below."""
    rows = [
        ("requests", lambda f: f"{f['requests']:.0f}"),
        ("total hit ratio (local + remote)", lambda f: _pct(f["hit_ratio"])),
        ("  lowest and highest run",
         lambda f: f"{_pct(f['hit_ratio_min'])}–{_pct(f['hit_ratio_max'])}"),
        ("  second half of the streams", lambda f: _pct(f["hit_ratio_second_half"])),
        ("local hits", lambda f: f"{f['local_hits']:.0f}"),
        ("remote hits (PEER-HIT)", lambda f: f"{f['remote_hits']:.0f}"),
        ("false hits", lambda f: f"{f['false_hits']:.0f}"),
        ("origin requests", lambda f: f"{f['origin_requests']:.0f}"),
        ("ICP datagrams or summary messages", lambda f: f"{f['protocol_messages']:.0f}"),
        ("overhead messages / request", lambda f: f"{f['overhead_messages_per_request']:.4f}"),
        ("overhead bytes / request", lambda f: f"{f['overhead_bytes_per_request']:.1f}"),
        ("remote-hit peer requests / request",
         lambda f: f"{f['remote_hit_peer_requests_per_request']:.4f}"),
        ("wrong bodies, transport errors",
         lambda f: f"{f['wrong_bodies']:.0f}, {f['transport_errors']:.0f}"),
        ("replay seconds", lambda f: f"{f['seconds']:.1f}"),
    ]
    out = ["| | " + " | ".join(f["mode"] for f in figures) + " |",
           "|---|" + "---:|" * len(figures)]
    for name, cell in rows:
        out.append(f"| {name} | " + " | ".join(cell(f) for f in figures) + " |")
    icp = next((f for f in figures if f["mode"] == "icp"), None)
    if icp:
        for f in figures:
            if f["mode"].startswith("summary") and f["overhead_messages"]:
                ratio = icp["overhead_messages"] / f["overhead_messages"]
                gap = 100 * (icp["hit_ratio"] - f["hit_ratio"])
                out.append(f"\n{f['mode']}: ICP sends {ratio:.1f}x its overhead messages; "
                           f"its hit ratio is {-gap:+.2f} points against ICP's.")
    return "\n".join(out)


def wire_markdown(rows):
    """Per mode, over every node and run: a full summary's size per cached URL."""
    out = ["| mode | summaries | entries (mean) | m/n | k | estimated FPR (mean) "
           "| full summary bytes (mean) | bits per cached URL: mean (min–max) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for mode in dict.fromkeys(r["mode"] for r in rows):
        rs = [r for r in rows if r["mode"] == mode]
        mean = lambda key: sum(r[key] for r in rs) / len(rs)  # noqa: E731
        bits = [r["bits_per_url"] for r in rs]
        out.append(f"| {mode} | {len(rs)} | {mean('entries'):.0f} | "
                   f"{mean('m') / max(mean('entries'), 1):.1f} | {rs[0]['k']} | "
                   f"{100 * mean('estimated_fpr'):.3f}% | {mean('full_summary_bytes'):.0f} | "
                   f"{mean('bits_per_url'):.2f} ({min(bits):.2f}–{max(bits):.2f}) |")
    return "\n".join(out)


def memory_markdown(rows):
    """Per mode, over every node and run: the sender's structure per cached URL
    (/filter memory_bytes / entries) and what a receiver holds per URL of a
    peer's cache (/peers summary_memory_bytes / entries, over the peers held)."""
    out = ["| mode | kind | node snapshots | entries (mean) | sender bytes (mean) "
           "| sender bytes / URL | receiver bytes per peer (mean) | receiver bytes / peer URL |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for mode in dict.fromkeys(r["mode"] for r in rows):
        rs = [r for r in rows if r["mode"] == mode]
        entries = sum(r["entries"] for r in rs)
        held = sum(r["peers_held"] for r in rs)
        receiver = sum(r["receiver_bytes"] for r in rs)
        out.append(f"| {mode} | {rs[0]['kind']} | {len(rs)} | {entries / len(rs):.0f} | "
                   f"{sum(r['sender_bytes'] for r in rs) / len(rs):.0f} | "
                   f"{sum(r['sender_bytes'] for r in rs) / max(entries, 1):.2f} | "
                   f"{receiver / max(held, 1):.0f} | "
                   f"{receiver / max(sum(r['peer_entries'] for r in rs), 1):.2f} |")
    return "\n".join(out)
