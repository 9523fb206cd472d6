"""sumcached processes on loopback (4 for run.py, any number for scale.py): their
configs, start, readiness, the admin endpoint, stop. Only the processes started
here are ever signalled, by PID."""
import http.client
import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field

SECRET = "evidence-bench-secret-0123456789"


@dataclass
class NodePorts:
    http: int
    admin: int
    peer: int
    icp: int


@dataclass
class ClusterParams:
    sharing: str                    # none | icp | summary
    threshold_percent: float = 1.0  # cluster.update_threshold_percent
    memory_bytes: int = 16 << 20
    expected_entries: int = 0       # filter.expected_entries; 0: the daemon derives it
    filter_settings: dict = field(default_factory=dict)  # bits_per_entry, hashes, target_fpr...
    update_max_interval_ms: int = 2000
    summary_expiry_ms: int = 30000
    peer_timeout_ms: int = 2000
    workers: int = 1
    miss_policy: str = "origin"     # cluster.miss_policy: origin | owner
    # scale.py: each node is seen by its peers at its face (face_address), where the
    # delaying relay listens on the node's own port numbers; None: 127.0.0.1 itself.
    faces: bool = False
    transport: str = "mesh"         # cluster.transport: mesh | redis
    redis: dict = field(default_factory=dict)  # cluster.redis (transport redis)


def free_ports(count):
    """Distinct ports the kernel reports free for both TCP and UDP right now."""
    held, ports = [], []
    try:
        while len(ports) < count:
            tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            tcp.bind(("127.0.0.1", 0))
            port = tcp.getsockname()[1]
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                udp.bind(("127.0.0.1", port))
            except OSError:
                udp.close()
                held.append(tcp)
                continue
            held += [tcp, udp]
            ports.append(port)
    finally:
        for s in held:
            s.close()
    return ports


def node_id(i):
    return f"node-{i}"


def face_address(i):
    """Node i's address as its peers see it (scale.py): 127.0.1.(i+1), on loopback."""
    if not 0 <= i < 254:
        raise ValueError(f"no face address for node {i}")
    return f"127.0.1.{i + 1}"


def node_config(i, ports, params):
    me = ports[i]
    host = face_address if params.faces else (lambda j: "127.0.0.1")
    config = {
        "node": {"id": node_id(i)},
        "mode": "forward",
        "workers": params.workers,
        "listen": [{"address": "127.0.0.1", "port": me.http}],
        "admin": {"address": "127.0.0.1", "port": me.admin, "allow": ["127.0.0.0/8"]},
        "access": {"allow_clients": ["127.0.0.0/8"]},
        "limits": {"drain_timeout_ms": 1000},
        "cache": {"memory": {"max_bytes": params.memory_bytes}, "disk": {"enabled": False},
                  "max_object_bytes": 1 << 20},
        "filter": {**params.filter_settings, "expected_entries": params.expected_entries},
        "log": {"access_log": "", "error_log": f"{node_id(i)}.err.log", "level": "info"},
        "cluster": {
            "sharing": params.sharing,
            "secret": SECRET,
            "peer_listen": {"address": "127.0.0.1", "port": me.peer},
            "icp_port": me.icp,
            "update_threshold_percent": params.threshold_percent,
            "update_max_interval_ms": params.update_max_interval_ms,
            "summary_expiry_ms": params.summary_expiry_ms,
            "peer_timeout_ms": params.peer_timeout_ms,
            "store_peer_hits": True,
            # The replay runs far faster than the paper's traces: at the listener's
            # default of 10 summaries a second a node's own 1% deltas would be
            # refused (429) and replaced by full summaries, and the experiment
            # would measure its throttling instead of the protocol.
            "peer_summary_rate": 200.0,
            "peer_summary_burst": 400,
            "miss_policy": params.miss_policy,
        },
        "peers": [{"id": node_id(j), "host": host(j), "http_port": p.http,
                   "peer_port": p.peer, "icp_port": p.icp}
                  for j, p in enumerate(ports) if j != i],
    }
    if params.faces:
        # Peers connect from 127.0.0.1 (through the relay), not from their faces.
        config["cluster"]["peer_allow"] = ["127.0.0.0/8"]
    if params.transport != "mesh":
        # Members come from Redis: no peers[]; they reach this node at its face.
        config["cluster"]["transport"] = params.transport
        config["cluster"]["redis"] = {**params.redis, "advertise_host": host(i)}
        config["peers"] = []
    return config


def http_get(port, path, timeout=5.0, headers=None):
    """(status, headers dict, body bytes) of one GET to 127.0.0.1:port, no proxy."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        conn.close()


def get_json(port, path):
    status, _, body = http_get(port, path)
    if status != 200:
        raise RuntimeError(f"GET {path} on :{port} answered {status}: {body[:200]!r}")
    return json.loads(body)


def _wait_tcp(port, deadline):
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Cluster:
    def __init__(self, binary, run_dir, nodes, params):
        self.binary = binary
        self.run_dir = run_dir
        self.params = params
        self.ports = [NodePorts(*p) for p in zip(*[iter(free_ports(4 * nodes))] * 4)]
        self.procs = []

    def start(self, timeout_s=20.0):
        os.makedirs(self.run_dir, exist_ok=True)
        for i in range(len(self.ports)):
            path = os.path.join(self.run_dir, f"{node_id(i)}.json")
            with open(path, "w") as f:
                json.dump(node_config(i, self.ports, self.params), f, indent=2)
            out = open(os.path.join(self.run_dir, f"{node_id(i)}.out.log"), "w")
            self.procs.append(subprocess.Popen([self.binary, "--config", path], cwd=self.run_dir,
                                               stdout=out, stderr=subprocess.STDOUT))
            out.close()
        deadline = time.monotonic() + timeout_s
        for i, p in enumerate(self.ports):
            for port in (p.http, p.admin):
                if not _wait_tcp(port, deadline):
                    self.stop()
                    raise RuntimeError(f"{node_id(i)} not listening on {port} within {timeout_s}s; "
                                       f"see {self.run_dir}")

    def wait_peers_ready(self, timeout_s=15.0):
        """Until every node sees every peer up (and, in summary mode, holds its summary).
        Returns the seconds it took, or None when the deadline passed first."""
        start = time.monotonic()
        while time.monotonic() - start < timeout_s:
            if all(self._peers_ready(p.admin) for p in self.ports):
                return time.monotonic() - start
            time.sleep(0.1)
        return None

    def _peers_ready(self, admin_port):
        try:
            peers = get_json(admin_port, "/peers")["peers"]
        except (OSError, RuntimeError, ValueError, KeyError):
            return False
        need_summary = self.params.sharing == "summary"
        # With transport redis the table fills as members join: count them too.
        return len(peers) == len(self.ports) - 1 and all(
            p["state"] == "up" and (p["has_summary"] or not need_summary) for p in peers)

    def collect(self):
        """Per node: /stats, /peers and /filter from the admin endpoint."""
        out = []
        for i, p in enumerate(self.ports):
            node = {"id": node_id(i)}
            for name in ("stats", "peers", "filter"):
                try:
                    node[name] = get_json(p.admin, "/" + name)
                except (OSError, RuntimeError, ValueError) as e:
                    node[name] = {"error": str(e)}
            out.append(node)
        return out

    def stop(self, timeout_s=15.0):
        for proc in self.procs:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(5)
        codes = [proc.returncode for proc in self.procs]
        self.procs = []
        return codes
