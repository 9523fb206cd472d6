"""The origin: a real HTTP/1.1 server on 127.0.0.1, in a process of its own so
that it does not share the clients' interpreter lock. Every /obj/ URL is a
cacheable 200 (max-age=3600) whose body is derived from the URL, except that a
/obj/once-... URL is cacheable only the first time it is asked for (no-store
after: scale.py's convergence probe, which must not leave copies behind); GET
/_count answers how many object requests arrived (what the caches let through)."""
import json
import multiprocessing
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from workload import body_bytes


def _handler(workload, counter, lock, once):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive for the proxies' upstream pools
        disable_nagle_algorithm = True  # head and body are two writes: no 40 ms delayed ACK

        def do_GET(self):  # noqa: N802 (the standard library's name)
            path = self.path
            if "://" in path:  # absolute-form, should a client send one
                path = "/" + path.split("://", 1)[1].split("/", 1)[-1]
            if path == "/_count":
                with lock:
                    body = json.dumps({"requests": counter[0], "bytes": counter[1]}).encode()
                self._send(200, body, "application/json", cacheable=False)
                return
            if not path.startswith("/obj/"):
                self._send(404, b"not found\n", "text/plain", cacheable=False)
                return
            body = body_bytes(workload, path)
            with lock:
                counter[0] += 1
                counter[1] += len(body)
                cacheable = True
                if path.startswith("/obj/once-"):
                    cacheable = path not in once
                    once.add(path)
            self._send(200, body, "application/octet-stream", cacheable=cacheable)

        def _send(self, status, body, content_type, cacheable):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "max-age=3600" if cacheable else "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return Handler


def _serve(workload, conn):
    counter = [0, 0]
    lock = threading.Lock()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(workload, counter, lock, set()))
    server.daemon_threads = True
    conn.send(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        conn.recv()  # any message, or the parent's end closing: stop
    except EOFError:
        pass
    server.shutdown()


class OriginProcess:
    """An HTTP origin in a process of its own: target(*args, conn) sends its port
    on conn and serves until any message arrives. Start with start(); port is
    then set; stop() ends the process."""

    def __init__(self, target, *args):
        self._target = target
        self._args = args
        self.port = None
        self._proc = None
        self._conn = None

    def start(self):
        ctx = multiprocessing.get_context("fork")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=self._target, args=(*self._args, child), daemon=True)
        self._proc.start()
        if not self._conn.poll(10):
            raise RuntimeError("origin did not start within 10 s")
        self.port = self._conn.recv()

    def stop(self):
        if self._proc is None:
            return
        try:
            self._conn.send("stop")
        except OSError:
            pass
        self._proc.join(5)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(5)
        self._proc = None


class Origin(OriginProcess):
    """The workload's origin (_serve)."""

    def __init__(self, workload):
        super().__init__(_serve, workload)
        self.workload = workload
