#!/usr/bin/env python3
"""Disk hits: sumcached builds beside nginx's proxy_cache (which serves every hit from
a file), side by side in one run, with a working set ten times sumcached's memory tier.

    disk_hits.py [-r ROUNDS] [-d SECS] [-c CONNS] [-s 1k,16k,1m] LABEL=BINARY...  (1 to 3)
    disk_hits.py --report RUN/raw.tsv     (the tables of an earlier run)

For each size (1 KiB, 16 KiB, 1 MiB) the run starts every server at once (each sumcached
build, and nginx), fills each with all of the size's URLs, checks that a second pass
reaches the origin for none of them, then lets the servers take turns, ROUNDS times, under
wrk with uniform-random URLs over the working set. It records req/s, p50, p99, the server's
CPU time per request (steadier than req/s on a shared machine), the share of sumcached's
hits that came from disk, and the origin's requests during each run (must be 0). With 1m
in the sizes, a second workload follows in the same servers: the p50/p99 of one small
memory-resident URL on a single worker, alone and while other connections fetch 1 MiB disk
hits. Servers run on CPU 1 (sumcached with workers: 1, nginx with one worker process), wrk
-t1 on CPU 0. Everything listens on 127.0.0.1:19300-19349; scratch state goes to --run
(default /tmp/sumcache-disk-bench; the origin's files are kept there for the next run,
the servers' caches are removed at the end). Prints markdown tables of medians; every
run's figures go to RUN/raw.tsv. See docs/performance.md, "Disk hits"."""

import argparse
import http.client
import os
import shutil
import signal
import subprocess
import sys
import time

from procs import HZ, busy_ticks, children_cpu_secs, group_ticks, log, pid_ticks, port_open, stop
from report import read_raw, report
from servers import (CLIENT_CPU, FIRST_PORT, HOT_PATH, ORIGIN_PORT, SIZES, Origin, Server,
                     object_path, url_count)

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "random_urls.lua")


# --- clients ---


def fetch_all(port, paths, size):
    """GETs every path once on one keep-alive connection; each must be a 200 of `size` bytes."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for path in paths:
        for attempt in range(2):
            try:
                conn.request("GET", path)
                resp = conn.getresponse()
                body = resp.read()
                break
            except (ConnectionError, http.client.HTTPException):
                conn.close()  # the server closed an idle connection: reconnect once
                if attempt == 1:
                    raise
        if resp.status != 200 or len(body) != size:
            raise RuntimeError(f"GET {path} on port {port}: {resp.status}, {len(body)} bytes")
    conn.close()


def wrk_start(port, secs, conns, env):
    argv = ["taskset", "-c", CLIENT_CPU, "wrk", "-t1", f"-c{conns}", f"-d{secs}s",
            "--timeout", "5s", "-s", LUA, f"http://127.0.0.1:{port}"]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **env})


def wrk_result(proc, secs):
    out, _ = proc.communicate(timeout=secs + 30)
    for line in out.splitlines():
        if line.startswith("RESULT "):
            return {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    raise RuntimeError(f"wrk gave no result: {out[-500:]}")


def random_env(size):
    return {"DISK_PREFIX": f"/d/{size}/", "DISK_COUNT": str(url_count(size))}


def measured(server, origin, secs, conns, env, load=None):
    """One timed wrk run against `server`, with the server's CPU, its hit sources, the
    origin's requests and the CPU used by anything else (the machine may be shared).
    `load`: (conns, env) of a second wrk started a second before and ending after."""
    background = wrk_start(server.port, secs + 2, load[0], load[1]) if load else None
    if background:
        time.sleep(1)
    o0, h0 = origin.requests(), server.hits()
    l0 = pid_ticks(background.pid) if background else 0
    t0, b0, c0, w0 = group_ticks(server.proc.pid), busy_ticks(), children_cpu_secs(), time.time()
    res = wrk_result(wrk_start(server.port, secs, conns, env), secs)
    t1, b1, c1, w1 = group_ticks(server.proc.pid), busy_ticks(), children_cpu_secs(), time.time()
    l1 = pid_ticks(background.pid) if background else 0
    o1, h1 = origin.requests(), server.hits()
    if background:
        res["load_rps"] = wrk_result(background, secs + 2)["rps"]
    server_secs = (t1 - t0) / HZ
    res["cpu_us"] = server_secs * 1e6 / max(res["requests"], 1)
    res["server_cpu_pct"] = 100 * server_secs / (w1 - w0)
    foreign = (b1 - b0) / HZ - server_secs - (c1 - c0) - (l1 - l0) / HZ
    res["foreign_cpu_pct"] = max(0.0, 100 * foreign / (w1 - w0))
    res["origin_requests"] = o1 - o0
    if h0 and h1:
        mem, disk = h1[0] - h0[0], h1[1] - h0[1]
        res["disk_share"] = disk / max(mem + disk, 1)
    return res


# --- one size: start, fill, verify, then timed rounds ---


def fill(servers, origin, size, paths, body):
    for s in servers:
        log(f"{s.label}: filling {len(paths)} URLs of {size}")
        fetch_all(s.port, paths, body)
    for s in servers:
        if not s.is_nginx:
            s.wait_disk_writes(len(paths))
    for s in servers:  # a second pass must not reach the origin (queued writes may be lost)
        for attempt in range(3):
            before = origin.requests()
            fetch_all(s.port, paths, body)
            missed = origin.requests() - before
            if missed == 0:
                break
            log(f"{s.label}: {missed} URLs reached the origin on pass {attempt + 2}, again")
            if not s.is_nginx:
                s.wait_disk_writes(len(paths))
        else:
            raise RuntimeError(f"{s.label}: the {size} working set does not stay cached")
    started = time.monotonic()
    os.sync()  # the fill's dirty pages are written now, not during a timed run
    log(f"{size}: every URL cached in every server; sync took {time.monotonic() - started:.0f} s")


def run_size(size, servers, origin, args, rows, raw):
    body = SIZES[size][0]
    paths = [object_path(size, i) for i in range(url_count(size))]
    for s in servers:
        s.start(size, args.run)
    try:
        fill(servers, origin, size, paths, body)
        for s in servers:  # connections and page cache warm; sumcached's memory tier mixed
            wrk_result(wrk_start(s.port, 1, args.conns, random_env(size)), 1)
        for rnd in range(1, args.rounds + 1):
            for s in servers:
                res = measured(s, origin, args.secs, args.conns, random_env(size))
                record(rows, raw, ("disk", size, s.label, rnd), res)
        if size == "1m" and not args.no_contention:
            contention(servers, origin, args, rows, raw)
    finally:
        for s in servers:
            s.stop()


def contention(servers, origin, args, rows, raw):
    """Memory hits of one small hot URL, alone and beside 1 MiB disk hits, same worker."""
    for s in servers:
        fetch_all(s.port, [HOT_PATH] * 3, 1024)
    hot = {"DISK_PATH": HOT_PATH}
    load = (args.load_conns, random_env("1m"))
    for rnd in range(1, args.rounds + 1):
        for s in servers:
            res = measured(s, origin, args.secs, args.hot_conns, hot)
            record(rows, raw, ("hot-alone", "1k", s.label, rnd), res)
            res = measured(s, origin, args.secs, args.hot_conns, hot, load)
            record(rows, raw, ("hot-loaded", "1k", s.label, rnd), res)


RAW_FIELDS = ["rps", "p50_us", "p99_us", "requests", "errors", "non2xx", "cpu_us",
              "server_cpu_pct", "foreign_cpu_pct", "origin_requests", "disk_share", "load_rps"]


def record(rows, raw, key, res):
    rows.setdefault(key[:3], []).append(res)
    raw.write("\t".join(map(str, key)) + "\t" +
              "\t".join(f"{res[f]:.6g}" if f in res else "-" for f in RAW_FIELDS) + "\n")
    raw.flush()
    share = f", disk hits {100 * res['disk_share']:.0f}%" if "disk_share" in res else ""
    load = f", load {res['load_rps']:.0f} req/s" if "load_rps" in res else ""
    log(f"{key[0]} {key[1]} {key[2]} round {key[3]}: {res['rps']:.0f} req/s, "
        f"p99 {res['p99_us'] / 1000:.2f} ms, {res['cpu_us']:.1f} us CPU/req{share}{load}, "
        f"origin {res['origin_requests']}, foreign CPU {res['foreign_cpu_pct']:.0f}%")
    if res["errors"] or res["non2xx"]:
        log(f"  errors {res['errors']:.0f}, non-2xx {res['non2xx']:.0f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("builds", nargs="*", metavar="LABEL=BINARY",
                   help="sumcached binaries, e.g. before=/path/build/release/daemon/sumcached")
    p.add_argument("-r", "--rounds", type=int, default=3)
    p.add_argument("-d", "--secs", type=int, default=6, help="seconds per timed run")
    p.add_argument("-c", "--conns", type=int, default=64, help="wrk connections, disk-hit rows")
    p.add_argument("-s", "--sizes", default="1k,16k,1m")
    p.add_argument("--hot-conns", type=int, default=4)
    p.add_argument("--load-conns", type=int, default=2)
    p.add_argument("--no-contention", action="store_true")
    p.add_argument("--run", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                 "sumcache-disk-bench"))
    p.add_argument("--report", metavar="RAW_TSV", help="only print the tables of an earlier run "
                   "(give the --hot-conns and --load-conns it ran with)")
    args = p.parse_args()
    if args.report:
        print(report(*read_raw(args.report), args))
        return
    if not args.builds:
        p.error("no sumcached binary given")
    sizes = args.sizes.split(",")
    if any(s not in SIZES for s in sizes) or not 1 <= args.rounds <= 9 or not 1 <= args.secs <= 60:
        p.error("sizes among 1k,16k,1m; 1-9 rounds; 1-60 s")
    builds = [b.split("=", 1) if "=" in b else (b, b) for b in args.builds]
    for label, binary in builds:
        if label == "nginx" or not os.access(binary, os.X_OK):
            p.error(f"{label}: no executable at {binary} (or the label nginx, which is taken)")
    if len(builds) > 3 or os.cpu_count() < 2:
        p.error("at most 3 builds; needs 2 CPUs")
    for port in [ORIGIN_PORT] + [FIRST_PORT + 10 * i + j for i in range(4) for j in (0, 1)]:
        if port_open(port):
            sys.exit(f"127.0.0.1:{port} is in use")
    os.makedirs(args.run, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # run the finally blocks

    servers = [Server(label, binary, i, args.run) for i, (label, binary) in enumerate(builds)]
    servers.append(Server("nginx", None, len(builds), args.run))
    labels = [s.label for s in servers]
    origin = Origin(args.run)
    origin.make_files(sizes)
    rows = {}
    with open(os.path.join(args.run, "raw.tsv"), "w") as raw:
        raw.write("workload\tsize\tserver\tround\t" + "\t".join(RAW_FIELDS) + "\n")
        origin.start(args.run)
        try:
            for size in sizes:
                run_size(size, servers, origin, args, rows, raw)
        finally:
            for s in servers:
                s.stop()
            stop(origin.proc)
            try:
                text = report(rows, labels, sizes, args)
                with open(os.path.join(args.run, "report.md"), "w") as f:
                    f.write(text + "\n")
                print(text, flush=True)
            except (KeyError, TypeError, ZeroDivisionError):
                log(f"an incomplete run: its runs are in {args.run}/raw.tsv")
            finally:
                log("removing the servers' caches (minutes: one unlink per object)")
                for s in servers:
                    for size in sizes:
                        shutil.rmtree(f"{s.base}-{size}", ignore_errors=True)


if __name__ == "__main__":
    main()
