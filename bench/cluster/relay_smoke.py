#!/usr/bin/env python3
"""Smoke test of delay_relay (ctest delay_relay_smoke): through a relay of D ms,
TCP bytes arrive intact, a first answer takes at least 4 D (handshake, request,
answer) and a later one at least 2 D; a datagram from node a to node b's face
arrives from a's face, at least D later, and b's answer reaches a from b's face.
Loopback only; bounded; stops the relay it started, by PID.

  python3 bench/cluster/relay_smoke.py build/release/bench/cluster/delay_relay
"""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cluster import free_ports  # noqa: E402
from relay import Relay  # noqa: E402

DELAY_MS = 5.0
PAYLOAD = bytes(range(256)) * 1024  # 256 KiB: several chunks each way


def recv_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def main():
    binary = sys.argv[1]
    a, b, target = free_ports(3)
    server = socket.create_server(("127.0.0.1", target))
    server.settimeout(5)

    def echo():
        conn, _ = server.accept()
        conn.settimeout(5)
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    threading.Thread(target=echo, daemon=True).start()
    relay = Relay(binary, [("127.0.1.1", target, target, DELAY_MS)],
                  [("127.0.1.1", a, a), ("127.0.1.2", b, b)], DELAY_MS, os.devnull)
    relay.start()
    failures = []
    try:
        d = DELAY_MS / 1000
        start = time.monotonic()
        with socket.create_connection(("127.0.1.1", target), timeout=5) as c:
            c.sendall(PAYLOAD)
            got = recv_exactly(c, len(PAYLOAD))
            first = time.monotonic() - start
            start = time.monotonic()
            c.sendall(b"ping")
            again = recv_exactly(c, 4)
            second = time.monotonic() - start
        if got != PAYLOAD or again != b"ping":
            failures.append("tcp bytes changed")
        if first < 4 * d or second < 2 * d:
            failures.append(f"tcp too fast: {first:.4f} s, {second:.4f} s")
        ua = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        ub = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        with ua, ub:
            ua.bind(("127.0.0.1", a))
            ub.bind(("127.0.0.1", b))
            ua.settimeout(5)
            ub.settimeout(5)
            start = time.monotonic()
            ua.sendto(b"query", ("127.0.1.2", b))
            data, sender = ub.recvfrom(100)
            took = time.monotonic() - start
            if data != b"query" or sender != ("127.0.1.1", a) or took < d:
                failures.append(f"udp a->b: {data!r} from {sender} in {took:.4f} s")
            ub.sendto(b"reply", sender)
            data, sender = ua.recvfrom(100)
            if data != b"reply" or sender != ("127.0.1.2", b):
                failures.append(f"udp b->a: {data!r} from {sender}")
    finally:
        stats = relay.stop()
        server.close()
    if stats.get("udp_datagrams") != 2 or stats.get("tcp_connections") != 1:
        failures.append(f"counters: {stats}")
    print("\n".join(failures) or f"ok: {stats}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
