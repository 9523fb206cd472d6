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
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "random_urls.lua")
ORIGIN_PORT = 19300
FIRST_PORT = 19310  # server i listens on FIRST_PORT + 10 i, its admin endpoint on + 1
SERVER_CPU, CLIENT_CPU = "1", "0"
MIB = 1 << 20
# size -> (body bytes, sumcached memory tier). Each size has 10 x memory tier / body URLs,
# so that at most a tenth of the working set fits in memory and most hits are disk hits.
SIZES = {"1k": (1024, 2 * MIB), "16k": (16 * 1024, 4 * MIB), "1m": (MIB, 64 * MIB)}
WORKING_SET_FACTOR = 10
MAX_OBJECT = 2 * MIB  # today the memory tier must hold max_object_bytes (configuration.md)
HOT_PATH = "/hot/1k.bin"
HZ = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def url_count(size):
    body, memory = SIZES[size]
    return WORKING_SET_FACTOR * memory // body


def object_path(size, i):
    return f"/d/{size}/{i:05d}.bin"


# --- processes: each server in a session of its own (pgid = pid), stopped by that id ---


def start(name, argv, run):
    with open(os.path.join(run, name + ".out"), "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    log(f"started {name} pid {proc.pid}")
    return proc


def group_pids(pgid):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            pids.append((int(entry), int(fields[11]) + int(fields[12])))
    return pids


def group_ticks(pgid):
    """CPU ticks (user + system, all threads) used so far by the process group."""
    return sum(ticks for _, ticks in group_pids(pgid))


def stop(proc):
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        except ProcessLookupError:
            pass
    for _ in range(50):  # nginx's worker may outlive its master briefly
        if not group_pids(proc.pid):
            return
        time.sleep(0.1)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def port_open(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_port(port, proc, secs=30):
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:
        if port_open(port):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"pid {proc.pid} exited ({proc.returncode}) before listening")
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {secs} s")


def pid_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def busy_ticks():
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return int(fields[1]) + int(fields[2]) + int(fields[3])  # user, nice, system: all CPUs


def children_cpu_secs():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# --- the origin: nginx serving files, Cache-Control max-age=3600, one access log line each ---


class Origin:
    def __init__(self, run):
        self.dir = os.path.join(run, "origin")
        self.log = os.path.join(self.dir, "access.log")
        self.proc = None

    def make_files(self, sizes):
        for size in sizes:
            body, _ = SIZES[size]
            n = url_count(size)
            d = os.path.join(self.dir, "www", "d", size)
            os.makedirs(d, exist_ok=True)
            last = os.path.join(d, f"{n - 1:05d}.bin")
            if os.path.exists(last) and os.path.getsize(last) == body:
                continue
            log(f"creating {n} origin objects of {body} bytes")
            for i in range(n):
                with open(os.path.join(d, f"{i:05d}.bin"), "wb") as f:
                    f.write(os.urandom(body))
        os.makedirs(os.path.join(self.dir, "www", "hot"), exist_ok=True)
        with open(os.path.join(self.dir, "www", "hot", "1k.bin"), "wb") as f:
            f.write(os.urandom(1024))

    def start(self, run):
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log {self.log};
  sendfile on; tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path {self.dir}/tmp; proxy_temp_path {self.dir}/tmp;
  fastcgi_temp_path {self.dir}/tmp; uwsgi_temp_path {self.dir}/tmp; scgi_temp_path {self.dir}/tmp;
  default_type application/octet-stream;
  server {{
    listen 127.0.0.1:{ORIGIN_PORT};
    root {self.dir}/www;
    add_header Cache-Control "max-age=3600";
  }}
}}
""")
        open(self.log, "w").close()
        self.proc = start("origin", ["nginx", "-p", self.dir, "-e", f"{self.dir}/error.log",
                                     "-c", conf, "-g", "daemon off;"], run)
        wait_port(ORIGIN_PORT, self.proc)

    def requests(self):
        with open(self.log, "rb") as f:
            return f.read().count(b"\n")


# --- the servers under test ---


class Server:
    """One server under test: a sumcached build (binary given) or nginx (binary None)."""

    def __init__(self, label, binary, index, run):
        self.label, self.binary = label, binary
        self.port = FIRST_PORT + 10 * index
        self.base = os.path.join(run, f"server{index}")
        self.dir = None
        self.proc = None

    @property
    def is_nginx(self):
        return self.binary is None

    def start(self, size, run):
        # One directory per size, all removed at the end: unlinking tens of thousands of
        # cache files takes minutes here (ext4 mounted with discard) and would load the
        # machine during the next size's timed runs.
        self.dir = f"{self.base}-{size}"
        shutil.rmtree(self.dir, ignore_errors=True)  # left over by an interrupted run
        os.makedirs(os.path.join(self.dir, "tmp"))
        argv = self._nginx_argv() if self.is_nginx else self._sumcached_argv(size)
        self.proc = start(f"{self.label}-{size}", ["taskset", "-c", SERVER_CPU] + argv, run)
        wait_port(self.port, self.proc)

    def _sumcached_argv(self, size):
        memory = SIZES[size][1]
        conf = {
            "node": {"id": "disk-bench"},
            "mode": "reverse",
            "reverse": {"origin": f"http://127.0.0.1:{ORIGIN_PORT}"},
            "workers": 1,
            "listen": [{"address": "127.0.0.1", "port": self.port}],
            "admin": {"address": "127.0.0.1", "port": self.port + 1},
            "cache": {"memory": {"max_bytes": f"{memory // MIB}MiB"},
                      "disk": {"path": f"{self.dir}/cache", "max_bytes": "4GiB"},
                      "max_object_bytes": f"{MAX_OBJECT // MIB}MiB"},
            "log": {"access_log": "", "error_log": f"{self.dir}/error.log", "level": "warn"},
        }
        path = os.path.join(self.dir, "sumcache.json")
        with open(path, "w") as f:
            json.dump(conf, f, indent=2)
        return [self.binary, "--config", path]

    def _nginx_argv(self):
        # As ../shared/bench/proxies/nginx.sh, with one worker process.
        d = self.dir
        conf = os.path.join(d, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""user root;
worker_processes 1;
worker_rlimit_nofile 200000;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  sendfile on; tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path {d}/tmp; proxy_temp_path {d}/tmp; fastcgi_temp_path {d}/tmp;
  uwsgi_temp_path {d}/tmp; scgi_temp_path {d}/tmp;
  proxy_cache_path {d}/cache levels=1:2 keys_zone=disk:64m max_size=8g inactive=1d
                   use_temp_path=off;
  upstream origin {{ server 127.0.0.1:{ORIGIN_PORT}; keepalive 32; }}
  server {{
    listen 127.0.0.1:{self.port};
    location / {{
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache disk;
      add_header X-Cache $upstream_cache_status;
    }}
  }}
}}
""")
        return ["nginx", "-p", d, "-e", f"{d}/error.log", "-c", conf, "-g", "daemon off;"]

    def stop(self):
        if self.proc is not None:
            stop(self.proc)
            self.proc = None

    def stats(self):
        """sumcached's /stats, or None (nginx, or an answer without the expected fields)."""
        if self.is_nginx:
            return None
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port + 1, timeout=5)
            conn.request("GET", "/stats")
            doc = json.loads(conn.getresponse().read())
            conn.close()
            return doc
        except (OSError, ValueError, http.client.HTTPException):
            return None

    def hits(self):
        doc = self.stats()
        try:
            return int(doc["hits"]["memory"]), int(doc["hits"]["disk"])
        except (TypeError, KeyError, ValueError):
            return None

    def wait_disk_writes(self, objects, secs=180):
        """Waits until the disk tier holds `objects` and no write is queued (bounded)."""
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline:
            doc = self.stats()
            try:
                disk = doc["store"]["disk"]
                if int(disk["objects"]) >= objects and int(disk["queued_bytes"]) == 0:
                    return
            except (TypeError, KeyError, ValueError):
                time.sleep(2)  # a build whose /stats differs: give the writer a moment
                return
            time.sleep(0.5)
        log(f"{self.label}: disk tier still short of {objects} objects after {secs} s")


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


# --- report ---


def med(runs, field):
    values = [r[field] for r in runs if field in r]
    return statistics.median(values) if values else None


def report(rows, labels, sizes, args):
    out = ["| server | size | URLs | req/s | × nginx | p50 ms | p99 ms | CPU µs/req "
           "| CPU × nginx | server CPU % | disk hits | req/s per round | origin reqs "
           "| foreign CPU % max |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for size in sizes:
        ref = rows.get(("disk", size, "nginx"))
        for label in labels:
            runs = rows.get(("disk", size, label))
            if not runs:
                continue
            rps, cpu = med(runs, "rps"), med(runs, "cpu_us")
            share = med(runs, "disk_share")
            share_text = "-" if share is None else f"{100 * share:.0f}%"
            per_round = " ".join(f"{r['rps'] / 1000:.1f}k" for r in runs)
            out.append(
                f"| {label} | {size} | {url_count(size)} | {rps:,.0f} "
                f"| {rps / med(ref, 'rps'):.2f} | {med(runs, 'p50_us') / 1000:.2f} "
                f"| {med(runs, 'p99_us') / 1000:.2f} | {cpu:.1f} | {cpu / med(ref, 'cpu_us'):.2f} "
                f"| {med(runs, 'server_cpu_pct'):.0f} | {share_text} | {per_round} "
                f"| {sum(int(r['origin_requests']) for r in runs)} "
                f"| {max(r['foreign_cpu_pct'] for r in runs):.0f} |")
    if ("hot-alone", "1k", labels[0]) in rows:
        out += ["", f"Memory hits of {HOT_PATH} ({args.hot_conns} connections), alone and while "
                f"{args.load_conns} other connections fetch random 1 MiB disk hits:", "",
                "| server | alone p50 ms | alone p99 ms | loaded p50 ms | loaded p99 ms "
                "| p99 × alone | hot req/s alone / loaded | 1 MiB load req/s "
                "| foreign CPU % max |",
                "|---|---:|---:|---:|---:|---:|---|---:|---:|"]
        for label in labels:
            alone, loaded = rows[("hot-alone", "1k", label)], rows[("hot-loaded", "1k", label)]
            a99, l99 = med(alone, "p99_us"), med(loaded, "p99_us")
            out.append(
                f"| {label} | {med(alone, 'p50_us') / 1000:.2f} | {a99 / 1000:.2f} "
                f"| {med(loaded, 'p50_us') / 1000:.2f} | {l99 / 1000:.2f} | {l99 / a99:.1f} "
                f"| {med(alone, 'rps'):,.0f} / {med(loaded, 'rps'):,.0f} "
                f"| {med(loaded, 'load_rps'):,.0f} "
                f"| {max(r['foreign_cpu_pct'] for r in alone + loaded):.0f} |")
    return "\n".join(out)


def read_raw(path):
    """The rows, server labels and sizes of an earlier run's raw.tsv."""
    rows, labels, sizes = {}, [], []
    with open(path) as f:
        fields = f.readline().rstrip("\n").split("\t")[4:]
        for line in f:
            cells = line.rstrip("\n").split("\t")
            key = tuple(cells[:3])
            rows.setdefault(key, []).append(
                {k: float(v) for k, v in zip(fields, cells[4:]) if v != "-"})
            if key[2] not in labels:
                labels.append(key[2])
            if key[0] == "disk" and key[1] not in sizes:
                sizes.append(key[1])
    return rows, labels, sizes


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
