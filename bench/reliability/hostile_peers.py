#!/usr/bin/env python3
"""Hostile traffic on the peer listener of a summary-sharing node: 16 concurrent posts
declaring 60 MB each (zeros, sent as fast as the node reads them, 30 s at most), garbage,
and 2,000 connections. Prints the node's RSS (now and peak, from /proc) against idle,
how many connections it kept, and whether it still proxies.

  hostile_peers.py [--posts N] [--mb M] [--connections C]"""

import argparse
import os
import socket
import sys
import threading
import time
from pathlib import Path

import harness


def post_zeros(port, megabytes, deadline, results, secret, to):
    sent = 0
    answer = b""
    length = megabytes * 1000000
    auth = harness.channel_auth("POST", "/sumcache/v1/summary", "peer-b", to, length, secret)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall((f"POST /sumcache/v1/summary HTTP/1.1\r\nHost: x\r\n"
                       f"Sumcache-Channel-Auth: {auth}\r\n"
                       f"Content-Type: application/vnd.sumcache.summary\r\n"
                       f"Content-Length: {length}\r\n\r\n").encode())
            block = bytes(65536)
            s.settimeout(2)
            while sent < megabytes * 1000000 and time.monotonic() < deadline:
                try:
                    sent += s.send(block)
                except socket.timeout:
                    continue
                except OSError:
                    break
            s.settimeout(2)
            try:
                answer = s.recv(4096)
            except OSError:
                pass
    except OSError:
        pass
    results.append((sent, answer.split(b"\r\n")[0].decode(errors="replace")))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=16)
    parser.add_argument("--mb", type=int, default=60)
    parser.add_argument("--connections", type=int, default=2000)
    args = parser.parse_args()
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        secret = Path(tmp) / "cluster.secret"
        secret.write_text("a" * 64)
        os.chmod(secret, 0o600)
        peer_listen = socket.socket()
        peer_listen.bind(("127.0.0.1", 0))
        peer_port = peer_listen.getsockname()[1]
        peer_listen.close()
        config = harness.node_config(
            tmp,
            cluster={"sharing": "summary", "secret_file": str(secret),
                     "peer_listen": {"address": "127.0.0.1", "port": peer_port}},
            peers=[{"id": "peer-b", "host": "127.0.0.1", "http_port": 9, "peer_port": 9}])
        node, port, _ = harness.start_node(tmp, config)
        try:
            url = f"http://127.0.0.1:{origin_port}/obj/a?max_age=600"
            harness.get(port, url)
            time.sleep(1)
            idle_kib = harness.rss_kib(node.pid)

            results = []
            deadline = time.monotonic() + 30
            threads = [threading.Thread(target=post_zeros,
                                        args=(peer_port, args.mb, deadline, results,
                                              "a" * 64, config["node"]["id"]))
                       for _ in range(args.posts)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(40)
            peak_kib = harness.rss_kib(node.pid, "VmHWM")
            sent_mb = sum(r[0] for r in results) / 1e6
            answers = sorted({r[1] for r in results})
            print(f"{args.posts} x {args.mb} MB posts: {sent_mb:.1f} MB accepted by the kernel "
                  f"in all, answers {answers}; RSS idle {idle_kib // 1024} MiB, peak "
                  f"{peak_kib // 1024} MiB (+{(peak_kib - idle_kib) // 1024} MiB)")

            garbage, closed, _ = harness.exchange(peer_port, os.urandom(4096), timeout=5)
            first_line = garbage.split(b"\r\n")[0]
            print(f"garbage: answered {first_line!r}, closed {closed}")

            socks = []
            for _ in range(args.connections):
                try:
                    socks.append(socket.create_connection(("127.0.0.1", peer_port), timeout=2))
                except OSError:
                    break
            time.sleep(1)
            kept = 0
            for s in socks:
                s.setblocking(False)
                try:
                    s.recv(1)  # b"": the node closed it
                except BlockingIOError:
                    kept += 1
                except OSError:
                    pass
            status, _, _ = harness.get(port, url)
            print(f"{len(socks)} connections opened, {kept} still held by the node after 1 s; "
                  f"a proxy request meanwhile: {status}")
            for s in socks:
                s.close()
            bound_ok = (peak_kib - idle_kib) < 64 * 1024
            return 0 if bound_ok and status == 200 else 1
        finally:
            node.stop()
            origin.stop()


if __name__ == "__main__":
    sys.exit(main())
