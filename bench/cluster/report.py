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


def _pct(v):
    return f"{100 * v:.2f}%"


def markdown(figures):
    """Modes as columns, figures as rows; the ICP/summary message ratio below."""
    rows = [
        ("requests", lambda f: str(f["requests"])),
        ("total hit ratio (local + remote)", lambda f: _pct(f["hit_ratio"])),
        ("  second half of the streams", lambda f: _pct(f["hit_ratio_second_half"])),
        ("local hits", lambda f: str(f["local_hits"])),
        ("remote hits (PEER-HIT)", lambda f: str(f["remote_hits"])),
        ("false hits", lambda f: str(f["false_hits"])),
        ("origin requests", lambda f: str(f["origin_requests"])),
        ("ICP datagrams or summary messages", lambda f: str(f["protocol_messages"])),
        ("overhead messages / request", lambda f: f"{f['overhead_messages_per_request']:.4f}"),
        ("overhead bytes / request", lambda f: f"{f['overhead_bytes_per_request']:.1f}"),
        ("remote-hit peer requests / request",
         lambda f: f"{f['remote_hit_peer_requests_per_request']:.4f}"),
        ("wrong bodies, transport errors",
         lambda f: f"{f['wrong_bodies']}, {f['transport_errors']}"),
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
                           f"its hit ratio is {gap:+.2f} points below ICP's.")
    return "\n".join(out)


def wire_markdown(rows):
    out = ["| mode | node | entries | m | m/n | estimated FPR | full summary bytes | bits per URL |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['mode']} | {r['node']} | {r['entries']} | {r['m']} | "
                   f"{r['m'] / max(r['entries'], 1):.1f} | {100 * r['estimated_fpr']:.3f}% | "
                   f"{r['full_summary_bytes']} | {r['bits_per_url']:.2f} |")
    return "\n".join(out)
