#!/usr/bin/env python3
"""Malformed requests: each case must get its 4xx (or 501) and a closed connection,
the smuggled request inside it must never reach the origin, and good traffic on other
connections must go on unharmed. Prints one row per case."""

import sys

import harness


def cases(origin):
    url = f"http://127.0.0.1:{origin}"
    host = f"Host: 127.0.0.1:{origin}\r\n"
    smuggled = f"GET {url}/obj/smuggled HTTP/1.1\r\n{host}\r\n"
    chunk = f"{len(smuggled):x}\r\n{smuggled}\r\n0\r\n\r\n"

    def post(fields, body, version="1.1"):
        return (f"POST {url}/echo HTTP/{version}\r\n{host}{fields}\r\n{body}").encode()

    yield "TE: chunked, gzip", post("Transfer-Encoding: chunked, gzip\r\n", chunk), (400, 501)
    yield "TE: xchunked", post("Transfer-Encoding: xchunked\r\n", smuggled), (400,)
    yield "TE: gzip", post("Transfer-Encoding: gzip\r\n", smuggled), (400,)
    yield "TE: identity", post("Transfer-Encoding: identity\r\n", smuggled), (400,)
    yield ("TE: xchunked + CL", post(
        f"Transfer-Encoding: xchunked\r\nContent-Length: {len(smuggled)}\r\n", smuggled), (400,))
    yield ("TE: chunked + CL", post(
        f"Transfer-Encoding: chunked\r\nContent-Length: {len(chunk)}\r\n", chunk), (400,))
    yield "TE twice", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
                           chunk), (400, 501)
    yield "TE in HTTP/1.0", post("Transfer-Encoding: chunked\r\n", chunk, "1.0"), (400,)
    yield "TE empty", post("Transfer-Encoding: \r\n", smuggled), (400,)
    yield ("CL twice, differing", post(
        f"Content-Length: 0\r\nContent-Length: {len(smuggled)}\r\n", smuggled), (400,))
    yield ("CL list", post(f"Content-Length: {len(smuggled)}, {len(smuggled)}\r\n", smuggled),
           (400,))
    yield "CL with sign", post(f"Content-Length: +{len(smuggled)}\r\n", smuggled), (400,)
    yield "CL not a number", post("Content-Length: 12a\r\n", smuggled), (400,)
    yield "CL overflow", post("Content-Length: 99999999999999999999999\r\n", ""), (400, 413)
    yield ("obs-fold in TE", post("Transfer-Encoding: gzip,\r\n chunked\r\n", chunk),
           (400, 501))
    yield ("space before colon", post("Transfer-Encoding : chunked\r\n", chunk), (400,))
    yield "bare LF", (f"GET {url}/obj/a HTTP/1.1\n{host}\n").encode(), (400,)
    yield "NUL in a value", (f"GET {url}/obj/a HTTP/1.1\r\n{host}X-A: a\0b\r\n\r\n").encode(), (400,)
    yield "two Host fields", (f"GET {url}/obj/a HTTP/1.1\r\n{host}{host}\r\n").encode(), (400,)
    yield "no Host in 1.1", (f"GET {url}/obj/a HTTP/1.1\r\n\r\n").encode(), (400,)
    yield "bad version", (f"GET {url}/obj/a HTTP/9.9\r\n{host}\r\n").encode(), (400, 505)
    yield "bad method", (f"G(ET {url}/obj/a HTTP/1.1\r\n{host}\r\n").encode(), (400,)
    yield "space in target", (f"GET {url}/obj/a b HTTP/1.1\r\n{host}\r\n").encode(), (400,)
    yield ("chunk size overflow", post(
        "Transfer-Encoding: chunked\r\n", "ffffffffffffffffff\r\nx\r\n0\r\n\r\n"), (400, 413))
    yield "chunk size not hex", post("Transfer-Encoding: chunked\r\n", "zz\r\nx\r\n0\r\n\r\n"), (400,)
    yield ("head too large", (f"GET {url}/obj/a HTTP/1.1\r\n{host}X-Big: {'a' * 70000}\r\n\r\n")
           .encode(), (431, 400))


def main():
    with harness.temp_dir() as tmp:
        origin, origin_port = harness.start_origin(tmp)
        node, port, _ = harness.start_node(tmp, harness.node_config(tmp))
        try:
            good_url = f"http://127.0.0.1:{origin_port}/obj/good?max_age=600"
            harness.get(port, good_url)
            traffic = harness.GoodTraffic(port, good_url)
            failures = 0
            print(f"{'case':24} {'status':>6} {'closed':>6} {'smuggled':>8}  verdict")
            for name, data, expected in cases(origin_port):
                before = origin.count(r"request \S+ /obj/smuggled")
                response, closed, _ = harness.exchange(port, data, timeout=5.0)
                status = harness.status_of(response)
                smuggled = origin.count(r"request \S+ /obj/smuggled") - before
                ok = status in expected and closed and smuggled == 0
                failures += not ok
                print(f"{name:24} {status!s:>6} {closed!s:>6} {smuggled:>8}  "
                      f"{'ok' if ok else 'FAIL, expected ' + '/'.join(map(str, expected))}")
            good, bad = traffic.stop()
            print(f"good traffic meanwhile: {good} ok, {bad} failed")
            print(f"origin saw /echo {origin.count(r'request POST /echo')} times (must be 0)")
            failures += bad > 0
            failures += origin.count(r"request POST /echo") > 0
            return 1 if failures else 0
        finally:
            node.stop()
            origin.stop()


if __name__ == "__main__":
    sys.exit(main())
