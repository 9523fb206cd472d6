"""Processes and sockets for the reliability probes: a sumcached and a test origin
started from this checkout's Release build in a temp dir, on loopback only, stopped
by PID. Every wait is bounded."""

import hashlib
import hmac
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("SUMCACHE_BUILD", ROOT / "build" / "release"))
SUMCACHED = BUILD / "daemon" / "sumcached"
ORIGIN = BUILD / "tests" / "support" / "test_origin_server"


def channel_auth(method, path, node, to, length, secret, t=None, nonce=None):
    """A Sumcache-Channel-Auth value as peer `node` signs it for node `to` (docs/protocol.md,
    "Channel authentication"); t (Unix seconds) and the nonce may be given to age or replay it."""
    t = int(time.time()) if t is None else t
    nonce = os.urandom(16).hex() if nonce is None else nonce
    signed = "\n".join(["sumcache-channel-request-v1", method, path, node, to, str(t), nonce,
                         str(length)])
    mac = hmac.new(secret.encode(), signed.encode(), hashlib.sha256).hexdigest()
    return f"node={node}; to={to}; t={t}; n={nonce}; len={length}; mac={mac}"


def rss_kib(pid, field="VmRSS"):
    """A field of /proc/PID/status in KiB (VmRSS now, VmHWM the peak)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class Process:
    """A child whose output lines are collected on a thread; stopped by its own PID."""

    def __init__(self, argv, cwd):
        self.lines = []
        self.cond = threading.Condition()
        self.proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, errors="replace")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def wait_for(self, pattern, timeout=15.0):
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        seen = 0
        with self.cond:
            while True:
                for line in self.lines[seen:]:
                    m = rx.search(line)
                    if m:
                        return m
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise RuntimeError(f"no line matching {pattern!r}; last: {self.lines[-5:]}")
                self.cond.wait(left)

    def count(self, pattern):
        rx = re.compile(pattern)
        with self.cond:
            return sum(1 for line in self.lines if rx.search(line))

    @property
    def pid(self):
        return self.proc.pid

    def stop(self, sig=signal.SIGTERM, timeout=20.0):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def start_origin(tmp):
    origin = Process([str(ORIGIN), "--port", "0"], tmp)
    port = int(origin.wait_for(r"^listening (\d+)$").group(1))
    return origin, port


def node_config(tmp, **overrides):
    """A forward-proxy config on loopback port 0 with a memory and a disk tier."""
    config = {
        "node": {"id": "probe"},
        "mode": "forward",
        "workers": 1,
        "listen": [{"address": "127.0.0.1", "port": 0}],
        "admin": {"address": "127.0.0.1", "port": 0, "allow": ["127.0.0.0/8"]},
        "cache": {"memory": {"max_bytes": "64MiB"},
                  "disk": {"path": str(Path(tmp) / "cache"), "max_bytes": "256MiB"}},
        "log": {"access_log": "", "error_log": "-", "level": "info"},
    }
    for key, value in overrides.items():
        config[key] = value
    return config


def start_node(tmp, config, name="sumcache.json"):
    path = Path(tmp) / name
    path.write_text(json.dumps(config, indent=2))
    node = Process([str(SUMCACHED), "--config", str(path)], tmp)
    port = int(node.wait_for(r"proxy listening on [^ ]+:(\d+)").group(1))
    admin = None
    if "admin" in config:
        admin = int(node.wait_for(r"admin listening on [^ ]+:(\d+)").group(1))
    return node, port, admin


def exchange(port, data, timeout=5.0, read_all=True):
    """Sends raw bytes, returns (bytes received, closed by the server, seconds)."""
    start = time.monotonic()
    received = b""
    closed = False
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        deadline = start + timeout
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            received += chunk
            if not read_all and b"\r\n\r\n" in received:
                break
    return received, closed, time.monotonic() - start


def status_of(response):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", response)
    return int(m.group(1)) if m else None


def get(port, url, headers=None, timeout=10.0, proxy=True):
    """One GET on a fresh connection: (status, headers dict, body). Through a proxy the
    target is the absolute URL; otherwise (an origin, the admin port) its path."""
    target = url if proxy else "/" + url.split("/", 3)[3]
    head = f"GET {target} HTTP/1.1\r\nHost: {url.split('/')[2]}\r\nConnection: close\r\n"
    for k, v in (headers or {}).items():
        head += f"{k}: {v}\r\n"
    data, _, _ = exchange(port, (head + "\r\n").encode(), timeout)
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        return None, {}, b""
    fields = {}
    for line in data[:head_end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        fields[name.decode().strip().lower()] = value.decode(errors="replace").strip()
    body = data[head_end + 4:]
    if fields.get("transfer-encoding", "").lower() == "chunked":
        body = dechunk(body)
    return status_of(data), fields, body


def dechunk(body):
    out = b""
    while body:
        line, _, rest = body.partition(b"\r\n")
        size = int(line.split(b";")[0], 16)
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2:]
    return out


class GoodTraffic:
    """Requests a cached URL in a loop on a thread, counting answers, until stopped
    (bounded by `limit` seconds): good traffic that a probe must leave unharmed."""

    def __init__(self, port, url, limit=120.0):
        self.port, self.url, self.limit = port, url, limit
        self.ok = 0
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        end = time.monotonic() + self.limit
        while not self._stop.is_set() and time.monotonic() < end:
            try:
                status, _, _ = get(self.port, self.url, timeout=5.0)
            except OSError:
                status = None
            if status == 200:
                self.ok += 1
            else:
                self.failed += 1
            time.sleep(0.01)

    def stop(self):
        self._stop.set()
        self._thread.join(10)
        return self.ok, self.failed


def temp_dir():
    return tempfile.TemporaryDirectory(prefix="sumcache-reliability-")
