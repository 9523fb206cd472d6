"""Processes and CPU accounting for disk_hits.py: each server runs in a session of its own
(pgid = pid) and is stopped by that id; CPU time is read from /proc."""
import os
import resource
import signal
import socket
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


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
