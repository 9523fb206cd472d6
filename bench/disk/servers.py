"""The origin and the servers under test of disk_hits.py, and the working sets."""
import http.client
import json
import os
import shutil
import time

from procs import log, start, stop, wait_port

ORIGIN_PORT = 19300
FIRST_PORT = 19310  # server i listens on FIRST_PORT + 10 i, its admin endpoint on + 1
SERVER_CPU, CLIENT_CPU = "1", "0"  # the shared harness's pinned variant
MIB = 1 << 20
# size -> (body bytes, sumcached memory tier). Each size has 10 x memory tier / body URLs,
# so that at most a tenth of the working set fits in memory and most hits are disk hits.
SIZES = {"1k": (1024, 2 * MIB), "16k": (16 * 1024, 4 * MIB), "1m": (MIB, 64 * MIB)}
WORKING_SET_FACTOR = 10
MAX_OBJECT = 2 * MIB  # today the memory tier must hold max_object_bytes (configuration.md)
HOT_PATH = "/hot/1k.bin"


def url_count(size):
    body, memory = SIZES[size]
    return WORKING_SET_FACTOR * memory // body


def object_path(size, i):
    return f"/d/{size}/{i:05d}.bin"


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
