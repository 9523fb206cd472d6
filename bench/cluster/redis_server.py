"""A redis-server of Debian's (/usr/bin/redis-server) for scale.py: a temp dir, a
free loopback port, no persistence; started and stopped by PID."""
import os
import signal
import socket
import subprocess
import tempfile
import time

REDIS_SERVER = "/usr/bin/redis-server"


class RedisServer:
    def __init__(self, port, run_dir):
        self.port = port
        self.run_dir = run_dir
        self.proc = None

    def start(self, timeout_s=10.0):
        os.makedirs(self.run_dir, exist_ok=True)
        data = tempfile.mkdtemp(prefix="redis-", dir=self.run_dir)
        log = os.path.join(self.run_dir, "redis.log")
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", data, "--logfile", log, "--daemonize", "no",
             "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited ({self.proc.returncode}); see {log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server not answering on {self.port} within {timeout_s}s")

    def info(self, section):
        """INFO <section> as a dict (inline RESP, one short read loop, bounded)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(f"INFO {section}\r\n".encode())
            data = b""
            for _ in range(100):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                head, _, rest = data.partition(b"\r\n")
                if head.startswith(b"$") and len(rest) >= int(head[1:]):
                    break
        out = {}
        for line in data.decode(errors="replace").splitlines()[1:]:
            name, sep, value = line.partition(":")
            if sep:
                out[name] = value
        return out

    def stop(self, timeout_s=10.0):
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(5)
