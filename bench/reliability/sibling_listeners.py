#!/usr/bin/env python3
"""Sibling listeners through the proxy: two summary-sharing nodes on loopback that name
each other as peers; a client of node-a's forward proxy asks for node-b's admin /config
and /stats, posts to node-b's peer listener, and tries node-b's object and ICP ports, then
node-b's proxy port. Prints what each got, what node-a counted in
sumcache_upstream_refused_destinations_total{reason="peer_listener"}, and whether node-b's
admin answered anything relayed.

  sibling_listeners.py [--base-port P] [--unnamed-admin-port]
    --base-port P: ports P..P+9 (default: free ports from the kernel)
    --unnamed-admin-port: the peer entries leave admin_port out (for a build from before
      the field existed; node-a then takes node-b's admin port to be its own)"""

import argparse
import os
import re
import socket
import sys
from pathlib import Path

import harness


def free_ports(n, base):
    if base:
        return list(range(base, base + n))
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def node(tmp, name, me, other, secret, name_admin_port):
    peer = {"id": other["id"], "host": "127.0.0.1", "http_port": other["http"],
            "peer_port": other["peer"], "icp_port": other["icp"],
            "object_port": other["object"]}
    if name_admin_port:
        peer["admin_port"] = other["admin"]
    return harness.node_config(
        tmp,
        node={"id": me["id"]},
        listen=[{"address": "127.0.0.1", "port": me["http"]}],
        admin={"address": "127.0.0.1", "port": me["admin"], "allow": ["127.0.0.0/8"]},
        cache={"memory": {"max_bytes": "64MiB"},
               "disk": {"path": str(Path(tmp) / f"cache-{name}"), "max_bytes": "64MiB"}},
        cluster={"sharing": "summary", "secret_file": str(secret),
                 "peer_listen": {"address": "127.0.0.1", "port": me["peer"]},
                 "object_listen": {"address": "127.0.0.1", "port": me["object"]},
                 "icp_port": me["icp"]},
        peers=[peer])


def send(port, method, url, body=b""):
    host = url.split("/")[2]
    head = (f"{method} {url} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    data, _, _ = harness.exchange(port, head + body, 10.0)
    return harness.status_of(data), data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-port", type=int, default=0)
    parser.add_argument("--unnamed-admin-port", action="store_true")
    args = parser.parse_args()
    ports = free_ports(10, args.base_port)
    a = dict(zip(["http", "admin", "peer", "object", "icp"], ports[:5]), id="node-a")
    b = dict(zip(["http", "admin", "peer", "object", "icp"], ports[5:]), id="node-b")
    with harness.temp_dir() as tmp:
        secret = Path(tmp) / "cluster.secret"
        secret.write_text("s" * 64)
        os.chmod(secret, 0o600)
        origin, origin_port = harness.start_origin(tmp)
        node_b, _, _ = harness.start_node(tmp, node(tmp, "b", b, a, secret, not args.unnamed_admin_port), "b.json")
        node_a, port_a, admin_a = harness.start_node(tmp, node(tmp, "a", a, b, secret, not args.unnamed_admin_port), "a.json")
        try:
            cases = [
                ("b admin GET /config", "GET", f"http://127.0.0.1:{b['admin']}/config", b""),
                ("b admin GET /stats", "GET", f"http://127.0.0.1:{b['admin']}/stats", b""),
                ("b admin by name", "GET", f"http://localhost:{b['admin']}/config", b""),
                ("b peer listener POST", "POST",
                 f"http://127.0.0.1:{b['peer']}/sumcache/v1/summary", b"x" * 16),
                ("b object port", "GET", f"http://127.0.0.1:{b['object']}/", b""),
                ("b ICP port", "GET", f"http://127.0.0.1:{b['icp']}/", b""),
            ]
            refused = 0
            leaked = 0
            for name, method, url, body in cases:
                status, data = send(port_a, method, url, body)
                refused += status == 403
                leaked += b'"admin"' in data or b"sumcache_" in data
                print(f"  {name}: {status}")
            status, _ = send(port_a, "GET", f"http://127.0.0.1:{b['http']}/obj/x?size=5")
            print(f"  b proxy port: {status} (answered by node-b, not refused by node-a)")
            _, _, metrics = harness.get(admin_a, f"http://127.0.0.1:{admin_a}/metrics",
                                        proxy=False)
            m = re.search(rb'sumcache_upstream_refused_destinations_total\{reason="peer_listener"\}'
                          rb" (\d+)", metrics)
            counted = int(m.group(1)) if m else -1
            logged = node_a.count(r"refused upstream connect .*peer's private listener")
            print(f"sibling listeners: {refused} of {len(cases)} refused with 403, {leaked} "
                  f"answers carried node-b's admin data, node-b's proxy port answered {status}; "
                  f"node-a counted {counted} peer_listener refusals and logged {logged} line(s)")
            ok = refused == len(cases) and leaked == 0 and status not in (None, 403) and \
                counted == len(cases) and logged >= 1
        finally:
            node_a.stop()
            node_b.stop()
            origin.stop()
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
