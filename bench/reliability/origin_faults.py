#!/usr/bin/env python3
"""Origin faults through a forward-proxy node: an origin that refuses, stays silent,
closes mid-body, sends a bad status line or ambiguous framing, closes idle keep-alive
connections (then a POST), or sends unsolicited bytes on an idle connection. Prints
what the client got for each and whether anything wrong was cached."""

import socket
import sys
import threading
import time

import harness

IDLE_CLOSE_S = 1.0


class FaultOrigin:
    """A raw HTTP/1.1 origin on loopback whose behaviour is chosen by the path."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.requests = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def count(self, path):
        with self.lock:
            return sum(1 for p in self.requests if p == path)

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _read_request(self, conn, buf):
        while b"\r\n\r\n" not in buf:
            chunk = conn.recv(65536)
            if not chunk:
                return None, b""
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        lines = head.decode(errors="replace").split("\r\n")
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        while len(rest) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return None, b""
            rest += chunk
        return lines[0].split(" ")[1], rest[length:]

    def _serve(self, conn):
        conn.settimeout(IDLE_CLOSE_S)
        buf = b""
        try:
            while True:
                try:
                    path, buf = self._read_request(conn, buf)
                except socket.timeout:
                    return  # an idle keep-alive connection closed, as Node.js does after 5 s
                if path is None:
                    return
                with self.lock:
                    self.requests.append(path.split("?")[0])
                if not self._answer(conn, path):
                    return
        except OSError:
            return
        finally:
            conn.close()

    def _answer(self, conn, path):
        def ok(body, extra=""):
            conn.sendall((f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n"
                          f"Cache-Control: max-age=600\r\n{extra}\r\n").encode() + body)

        if path.startswith("/silent"):
            time.sleep(30)
            return False
        if path.startswith("/midbody"):
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n"
                         b"Cache-Control: max-age=600\r\n\r\n" + b"m" * 40000)
            time.sleep(0.2)
            return False
        if path.startswith("/badstatus"):
            conn.sendall(b"HTTP/1.1 abc Broken\r\nContent-Length: 2\r\n\r\nno")
            return False
        if path.startswith("/te-cl"):
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n"
                         b"Cache-Control: max-age=600\r\n\r\n5\r\npoison\r\n0\r\n\r\n")
            return False
        if path.startswith("/stray"):
            ok(b"the real answer")
            time.sleep(0.2)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n"
                         b"Cache-Control: max-age=600\r\n\r\nPOISON")
            return True
        ok(f"body of {path}".encode())
        return True

    def stop(self):
        self.sock.close()


def main():
    rows = []
    failures = 0
    with harness.temp_dir() as tmp:
        origin = FaultOrigin()
        config = harness.node_config(tmp, limits={"upstream_first_byte_timeout_ms": 2000})
        node, port, _ = harness.start_node(tmp, config)
        base = f"http://127.0.0.1:{origin.port}"
        try:
            closed = socket.socket()
            closed.bind(("127.0.0.1", 0))
            dead = closed.getsockname()[1]
            closed.close()
            status, _, _ = harness.get(port, f"http://127.0.0.1:{dead}/x")
            rows.append(("refused", status, status == 502))

            start = time.monotonic()
            status, _, _ = harness.get(port, f"{base}/silent", timeout=10)
            rows.append((f"silent ({time.monotonic() - start:.1f} s)", status, status == 504))

            data, closed_conn, _ = harness.exchange(
                port, f"GET {base}/midbody HTTP/1.1\r\nHost: x\r\n\r\n".encode(), timeout=5)
            body = len(data) - data.find(b"\r\n\r\n") - 4
            again, _, _ = harness.get(port, f"{base}/midbody")
            cached = origin.count("/midbody") < 2
            rows.append((f"closes mid-body ({body} of 40000 body bytes relayed)",
                         harness.status_of(data), body >= 40000 and closed_conn and not cached))

            status, _, _ = harness.get(port, f"{base}/badstatus")
            rows.append(("bad status line", status, status == 502))

            status, _, body = harness.get(port, f"{base}/te-cl")
            rows.append(("Transfer-Encoding + Content-Length", status,
                         status == 502 and b"poison" not in body))

            ok_posts = 0
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                for i in range(10):
                    s.sendall((f"POST {base}/post{i} HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
                               f"\r\nbody").encode())
                    data = b""
                    while b"\r\n\r\n" not in data:
                        data += s.recv(65536)
                    ok_posts += harness.status_of(data) == 200
                    head, _, rest = data.partition(b"\r\n\r\n")
                    length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                    while len(rest) < length:
                        rest += s.recv(65536)
                    time.sleep(IDLE_CLOSE_S * 1.5)
            rows.append((f"idle close, then POST: {ok_posts} of 10 ok", None, ok_posts == 10))

            harness.get(port, f"{base}/stray")
            time.sleep(0.5)
            status, _, body = harness.get(port, f"{base}/other")
            status2, _, body2 = harness.get(port, f"{base}/other")
            rows.append(("unsolicited bytes on an idle connection", status,
                         b"POISON" not in body and b"POISON" not in body2))
        finally:
            node.stop()
            origin.stop()
    print(f"{'fault':58} {'status':>6}  verdict")
    for name, status, ok in rows:
        failures += not ok
        print(f"{name:58} {status!s:>6}  {'ok' if ok else 'FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
