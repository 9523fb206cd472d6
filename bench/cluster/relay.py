"""The delaying relay (delay_relay, built from delay_relay.cc under SUMCACHE_BENCH)
as scale.py runs it: started with its routes, its CPU time read from /proc,
stopped by PID with its counters read back."""
import json
import os
import selectors
import signal
import subprocess
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid):
    """utime + stime of a whole process (its exited threads included)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def thread_cpu_seconds(pid):
    """CPU seconds per thread name (summed over the threads of one name), from
    schedstat (nanoseconds on CPU; stat's utime + stime count 10 ms ticks), and
    the whole process under "process" (stat: its exited threads included)."""
    out = {}
    task_dir = f"/proc/{pid}/task"
    for tid in os.listdir(task_dir):
        try:
            with open(f"{task_dir}/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"{task_dir}/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):  # the thread ended meanwhile
            continue
        out[name] = out.get(name, 0.0) + ns / 1e9
    out["process"] = process_cpu_seconds(pid)
    return out


class Relay:
    """tcp: [(face address, port, target port, delay ms)]; udp: [(face address,
    port, real port)], all at udp_delay_ms."""

    def __init__(self, binary, tcp, udp, udp_delay_ms, log_path, nice=0):
        # A link's delay does not grow with the proxies' CPU load: scale.py runs
        # the relay at a higher priority (nice -10) where it may, so that it
        # keeps its due times on a machine the nodes saturate. nice(1) execs the
        # relay in its own process, so the PID is the relay's.
        self.args = (["nice", "-n", str(nice)] if nice else []) + [binary]
        for address, port, target, delay_ms in tcp:
            self.args += ["--tcp", f"{address}:{port}={target}/{delay_ms}"]
        for address, port, real in udp:
            self.args += ["--udp", f"{address}:{port}={real}"]
        self.args += ["--udp-delay-ms", str(udp_delay_ms)]
        self.log_path = log_path
        self.proc = None

    def start(self, timeout_s=10.0):
        log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=log, text=True)
        log.close()
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        ready = sel.select(timeout_s)
        sel.close()
        line = self.proc.stdout.readline() if ready else ""
        if line.strip() != "ready":
            self.stop()
            raise RuntimeError(f"delay_relay did not start: {line!r}; see {self.log_path}")

    def cpu_seconds(self):
        return process_cpu_seconds(self.proc.pid)

    def stop(self, timeout_s=10.0):
        """Its counters (a dict), or {} when it had exited."""
        if self.proc is None:
            return {}
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate(timeout=5)
        for line in reversed(out.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        return {}


def wait_until(predicate, timeout_s, step_s=0.05):
    """Polls predicate() until true or timeout_s; returns whether it became true."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step_s)
    return False
