#!/usr/bin/env python3
"""False hits of a Squid cache digest beside sumcache's own summary at the same
memory, measured through one mixed cluster: two sumcached nodes (A, B) and one
Squid (S) from Debian's package, all on 127.0.0.1, stopped by PID.

S and B each get `--objects` distinct objects through their own proxy port, so
S's digest (5 bits per entry, k = 4) and B's summary describe the same number
of URLs. B's filter is sized to the same memory (`filter.bits_per_entry` =
--bits, k = 4, `expected_entries` = --objects), then once more at the default
16 bits. A peers with both (B over the summary protocol, S with
"protocol": "squid-digest") and, once it holds both, gets `--probes` URLs that
no cache holds: every peer A asks about one of them is a false hit (a 504 to
only-if-cached), so false hits / probes is each structure's false positive
rate as the cluster sees it. A then asks for objects S and B do hold, to show
the true hits. Then Squid is reconfigured (SIGHUP to its PID) with A and B as
digest siblings and gets `--probes` URLs no cache holds: every one it sends
to A or B (a 504 in their access logs) is a false hit of the Squid-format
digest sumcached serves, sized as Squid sizes its own.

    bench/interop/mixed_false_hits.py [--objects 20000] [--probes 20000] [--bits 5 16]

Needs a Release build (SUMCACHE_BUILD, default build/release: sumcached and
test_origin_server) and squid. Every loop is bounded in count and time."""

import argparse
import concurrent.futures
import email.utils
import http.client
import json
import math
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reliability"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cluster"))
from cluster import free_ports, get_json  # noqa: E402
from harness import ORIGIN, SUMCACHED, Process, start_origin  # noqa: E402

SQUID = "/usr/sbin/squid"
THREADS = 8
DEADLINE_S = 300.0


def squid_config(d, http_port, peers, objects):
    # minimum_direct_*: else Squid, having measured the loopback origin at 1 ms,
    # goes DIRECT without consulting any peer (docs/interop.md).
    peer_lines = "".join(f"cache_peer 127.0.0.1 sibling {p} 0 no-query no-netdb-exchange "
                         f"name=sumcache{i}\n" for i, p in enumerate(peers))
    if peers:
        peer_lines += "minimum_direct_rtt 0\nminimum_direct_hops 0\n"
    return f"""http_port 127.0.0.1:{http_port}
icp_port 0
htcp_port 0
snmp_port 0
pinger_enable off
dns_nameservers 127.0.0.1
visible_hostname squid-bench
pid_filename {d}/squid.pid
cache_log {d}/cache.log
access_log stdio:{d}/access.log squid
cache_store_log none
coredump_dir {d}
cache_mem {max(64, objects // 1000 * 2)} MB
maximum_object_size_in_memory 64 KB
cache_dir ufs {d}/cache {max(256, objects // 1000 * 8)} 16 64
digest_rebuild_period 2 seconds
digest_rewrite_period 2 seconds
shutdown_lifetime 0 seconds
http_access allow localhost
http_access deny all
refresh_pattern . 60 50% 600
{peer_lines}"""


def start_squid(d, http_port, objects, peers=()):
    """Squid on its directory d: made and initialised (squid -z) on the first start, reused
    (with the objects it stored) on the next."""
    conf = Path(d) / "squid.conf"
    fresh = not (Path(d) / "cache").exists()
    os.makedirs(f"{d}/cache", exist_ok=True)
    conf.write_text(squid_config(d, http_port, list(peers), objects))
    if os.geteuid() == 0:  # Squid drops to `proxy`, which must own its directory
        pw = pwd.getpwnam("proxy")
        for root, dirs, files in os.walk(d):
            for name in dirs + files:
                os.lchown(os.path.join(root, name), pw.pw_uid, pw.pw_gid)
        os.chown(d, pw.pw_uid, pw.pw_gid)
    if fresh:
        subprocess.run([SQUID, "-z", "-N", "-f", str(conf)], cwd=d, check=True, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    squid = Process([SQUID, "-N", "-f", str(conf)], d)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            http.client.HTTPConnection("127.0.0.1", http_port, timeout=1).connect()
            return squid
        except OSError:
            time.sleep(0.1)
    squid.stop()
    raise RuntimeError(f"squid did not listen on {http_port}: see {d}/cache.log")


def node_config(name, ports, me, other, squid_port, bits, objects):
    return {
        "node": {"id": name},
        "mode": "forward",
        "workers": 1,
        "listen": [{"address": "127.0.0.1", "port": ports[me]["http"]}],
        "admin": {"address": "127.0.0.1", "port": ports[me]["admin"], "allow": ["127.0.0.0/8"]},
        "access": {"allow_clients": ["127.0.0.0/8"]},
        "cache": {"memory": {"max_bytes": "256MiB"}, "disk": {"enabled": False}},
        "filter": {"bits_per_entry": bits, "hashes": 4, "expected_entries": objects},
        "log": {"access_log": f"{name}.access.log", "error_log": "-", "level": "info"},
        "cluster": {
            "sharing": "summary",
            "secret": "interop-bench-secret-0123456789",
            "peer_listen": {"address": "127.0.0.1", "port": ports[me]["peer"]},
            "update_threshold_percent": 1.0,
            "update_max_interval_ms": 1000,
            "store_peer_hits": False,
            "squid_digest": {"enabled": True, "rebuild_interval_ms": 1000},
        },
        "peers": [
            {"id": other, "host": "127.0.0.1", "http_port": ports[other]["http"],
             "peer_port": ports[other]["peer"]},
            {"id": "squid", "host": "127.0.0.1", "http_port": squid_port,
             "protocol": "squid-digest"},
        ],
    }


def fetch_all(proxy_port, origin_port, paths, deadline):
    """GETs every path through the proxy on THREADS keep-alive connections;
    returns X-Cache -> count. Bounded by the list and the deadline."""
    def run(chunk):
        seen = {}
        conn = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=10)
        for p in chunk:
            if time.monotonic() > deadline:
                break
            url = f"http://127.0.0.1:{origin_port}{p}"
            try:
                conn.request("GET", url)
                r = conn.getresponse()
                r.read()
                x = r.getheader("X-Cache", "NONE").split(" ")[0]
                seen[f"{r.status} {x}"] = seen.get(f"{r.status} {x}", 0) + 1
            except (OSError, http.client.HTTPException):
                seen["error"] = seen.get("error", 0) + 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=10)
        conn.close()
        return seen
    chunks = [paths[i::THREADS] for i in range(THREADS)]
    total = {}
    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        for seen in pool.map(run, chunks):
            for k, v in seen.items():
                total[k] = total.get(k, 0) + v
    return total


def peer_rows(admin_port):
    return {p["id"]: p for p in get_json(admin_port, "/peers")["peers"]}


def wait_until(what, check, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise RuntimeError(f"timed out waiting for {what}")


def one_run(bits, objects, probes):
    d = tempfile.mkdtemp(prefix="sumcache-interop-")
    os.chmod(d, 0o755)  # Squid, run as `proxy`, must reach its own directory inside
    procs = []
    try:
        origin, origin_port = start_origin(d)
        procs.append(origin)
        names = ["A", "B"]
        raw = free_ports(7)
        ports = {n: {"http": raw[3 * i], "admin": raw[3 * i + 1], "peer": raw[3 * i + 2]}
                 for i, n in enumerate(names)}
        squid_port = raw[6]
        squid_dir = Path(d) / "squid"
        squid_dir.mkdir()
        squid = start_squid(str(squid_dir), squid_port, objects)
        procs.append(squid)
        for n, other in (("A", "B"), ("B", "A")):
            path = Path(d) / f"{n}.json"
            path.write_text(json.dumps(node_config(n, ports, n, other, squid_port, bits,
                                                   objects), indent=2))
            node = Process([str(SUMCACHED), "--config", str(path)], d)
            procs.append(node)
            node.wait_for(r"admin listening on", timeout=20)
        deadline = time.monotonic() + DEADLINE_S
        q = "?max_age=3600&size=512"
        fill_s = fetch_all(squid_port, origin_port, [f"/obj/s{i}{q}" for i in range(objects)],
                           deadline)
        fill_b = fetch_all(ports["B"]["http"], origin_port,
                           [f"/obj/b{i}{q}" for i in range(objects)], deadline)

        filled_at = time.time()

        def a_holds_both():
            rows = peer_rows(ports["A"]["admin"])
            digest = rows["squid"].get("squid_digest", {})
            built = digest.get("last_modified") or ""  # an HTTP date, as Squid served it
            return (digest.get("held", False) and built and
                    email.utils.parsedate_to_datetime(built).timestamp() > filled_at + 1
                    and rows["B"].get("entries", 0) >= objects)
        wait_until("A to hold S's digest and B's summary", a_holds_both, 120)
        before = peer_rows(ports["A"]["admin"])
        probe = fetch_all(ports["A"]["http"], origin_port,
                          [f"/obj/p{i}{q}" for i in range(probes)], deadline)
        after = peer_rows(ports["A"]["admin"])
        hits = 1000
        true_s = fetch_all(ports["A"]["http"], origin_port,
                           [f"/obj/s{i}{q}" for i in range(hits)], deadline)
        true_b = fetch_all(ports["A"]["http"], origin_port,
                           [f"/obj/b{i}{q}" for i in range(hits)], deadline)
        out = {"bits": bits, "objects": objects, "probes": probes, "fill_squid": fill_s,
               "fill_b": fill_b, "probe": probe, "true_hits_squid": true_s,
               "true_hits_b": true_b, "peers": {}}
        for peer in ("squid", "B"):
            fh = after[peer]["false_hits"] - before[peer]["false_hits"]
            out["peers"][peer] = {"false_hits": fh, "rate": fh / probes, "row": after[peer]}

        # Squid's side: restarted on its store with A and B as its digest siblings.
        def digest_current(n):
            f = get_json(ports[n]["admin"], "/filter")
            return f["squid_digest"]["entries"] == f["store_objects"] > 0
        wait_until("A's and B's digests to hold their stores", lambda: all(
            digest_current(n) for n in names), 30)
        squid.stop()
        procs.remove(squid)
        squid = start_squid(str(squid_dir), squid_port, objects,
                            [ports[n]["http"] for n in names])
        procs.append(squid)
        # Squid fetches a peer's digest when a selection first needs it, and
        # then no other peer's for a minute (GlobDigestReqMinGap): a warm-up
        # request a second until both were fetched.
        warm = iter(range(150))

        def squid_fetched_digests():
            fetch_all(squid_port, origin_port, [f"/obj/warm{next(warm)}{q}"], deadline)
            time.sleep(0.8)
            return all(get_json(ports[n]["admin"], "/filter")["squid_digest"]["served"] >= 1
                       for n in names)
        try:
            wait_until("Squid to fetch A's and B's digests", squid_fetched_digests, 120)
        except (RuntimeError, StopIteration):
            print((squid_dir / "cache.log").read_text()[-3000:], file=sys.stderr)
            raise
        squid_probe = fetch_all(squid_port, origin_port,
                                [f"/obj/q{i}{q}" for i in range(probes)], deadline)
        out["squid_probe"] = squid_probe
        out["digests"] = {}
        for n in names:
            log = (Path(d) / f"{n}.access.log").read_text()
            fh = sum(1 for line in log.splitlines() if "/obj/q" in line and "/504 " in line)
            out["digests"][n] = {"false_hits": fh, "rate": fh / probes,
                                 "digest": get_json(ports[n]["admin"], "/filter")["squid_digest"]}
        return out
    finally:
        for p in reversed(procs):
            p.stop()
        if os.environ.get("KEEP"):
            print(f"kept {d}", file=sys.stderr)
        else:
            shutil.rmtree(d, ignore_errors=True)


def expected_fpr(bits_per_entry, k=4):
    return (1 - math.exp(-k / bits_per_entry)) ** k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--objects", type=int, default=20000)
    ap.add_argument("--probes", type=int, default=20000)
    ap.add_argument("--bits", type=int, nargs="+", default=[5, 16])
    ap.add_argument("--json", help="write the raw results here")
    args = ap.parse_args()
    for b in (SUMCACHED, ORIGIN, Path(SQUID)):
        if not b.exists():
            sys.exit(f"no {b}: build Release (sumcached test_origin_server) and install squid")
    runs = [one_run(bits, args.objects, args.probes) for bits in args.bits]
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2))
    print("| B's filter | peer | structure | bits per held URL | expected FPR | false hits / probes |")
    print("|---|---|---|---:|---:|---:|")
    for r in runs:
        for peer, v in r["peers"].items():
            print(f"| {r['bits']} bits/entry, k=4 | {peer} | {structure(v['row'])} | "
                  f"{bits_per_url(v['row'], r['objects']):.2f} | "
                  f"{100 * expected_fpr(bits_per_url(v['row'], r['objects'])):.2f}% | "
                  f"{v['false_hits']}/{r['probes']} = {100 * v['rate']:.2f}% |")
    print()
    print("| Squid asks | structure | bits per held URL | false hits / probes |")
    print("|---|---|---:|---:|")
    for r in runs[:1]:
        for n, v in r["digests"].items():
            d = v["digest"]
            print(f"| {n} | sumcached's Squid digest: capacity {d['capacity']}, "
                  f"{d['entries']} entries, {d['bytes']} B | "
                  f"{8 * (d['bytes'] - 128) / max(1, d['entries']):.2f} | "
                  f"{v['false_hits']}/{r['probes']} = {100 * v['rate']:.2f}% |")
    for r in runs:
        print(f"B at {r['bits']} bits: true hits from Squid {r['true_hits_squid']}, "
              f"from B {r['true_hits_b']}; A's probes {r['probe']}; "
              f"Squid's probes {r['squid_probe']}")


def structure(row):
    if "squid_digest" in row:
        d = row["squid_digest"]
        return f"Squid's digest: capacity {d['capacity']}, {d['mask_bytes']} B of mask"
    return f"summary: m={row.get('m')}, k={row.get('k')}, {row.get('entries')} entries"


def bits_per_url(row, objects):
    if "squid_digest" in row:
        return 8 * row["squid_digest"]["mask_bytes"] / max(1, objects)
    return row.get("m", 0) / max(1, objects)


if __name__ == "__main__":
    main()
