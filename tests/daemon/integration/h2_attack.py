#!/usr/bin/env python3
"""Sends one HTTP/2 attack pattern to a server on 127.0.0.1 and says how the
server answered, for http2_attack_test.cc. Frames are written by hand (the
h2 package's state machine would refuse to send most of them); HPACK is the
hpack package's, which python3-h2 brings.

Usage: h2_attack.py PORT MODE COUNT
Modes: rapid_reset, settings_flood, ping_flood, priority_flood,
continuation_flood, big_headers, stall (a stream whose window never opens),
host_mismatch (a Host line naming another authority than :authority),
reset_mid_stream (a large download reset after its first DATA, then a small
request on the same connection), too_many_streams (COUNT streams opened and
left open, their bodies never sent).
Prints one line: "goaway CODE", "rst STREAM CODE", "status CODE" (the first
response's, for host_mismatch), "closed" or "timeout".
"""
import socket
import struct
import sys
import time

from hpack import Decoder, Encoder

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = (
    0, 1, 2, 3, 4, 6, 7, 8, 9)
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(
        ">I", stream) + payload


def request_block(encoder, path="/obj/h2-attack?size=64", extra=()):
    return encoder.encode([(":method", "GET"), (":scheme", "http"),
                           (":authority", "127.0.0.1"), (":path", path)] + list(extra))


enc = Encoder()


def attack(mode, count):
    # The initial window 0 for "stall": the server may send no DATA at all.
    window = 0 if mode == "stall" else 65535
    out = [PREFACE, frame(SETTINGS, 0, 0, struct.pack(">HI", 4, window))]
    if mode == "rapid_reset":
        for i in range(count):
            stream = 2 * i + 1
            out.append(frame(HEADERS, END_STREAM | END_HEADERS, stream, request_block(enc)))
            out.append(frame(RST_STREAM, 0, stream, struct.pack(">I", 8)))
    elif mode == "settings_flood":
        out += [frame(SETTINGS, 0, 0)] * count
    elif mode == "ping_flood":
        out += [frame(PING, 0, 0, b"12345678")] * count
    elif mode == "priority_flood":
        out += [frame(PRIORITY, 0, 1, struct.pack(">IB", 0, 16))] * count
    elif mode == "continuation_flood":
        out.append(frame(HEADERS, 0, 1, request_block(enc)))
        for _ in range(count):
            out.append(frame(CONTINUATION, 0, 1, enc.encode([("x-flood", "a" * 64)])))
    elif mode == "big_headers":
        fields = [("x-big-%d" % i, "b" * 1000) for i in range(count)]
        block = request_block(enc, extra=fields)
        first, rest = block[:16000], block[16000:]
        pieces = [rest[i:i + 16000] for i in range(0, len(rest), 16000)]
        out.append(frame(HEADERS, END_STREAM | (0 if pieces else END_HEADERS), 1, first))
        for i, piece in enumerate(pieces):
            out.append(frame(CONTINUATION, END_HEADERS if i == len(pieces) - 1 else 0, 1,
                             piece))
    elif mode == "too_many_streams":
        for i in range(count):
            out.append(frame(HEADERS, END_HEADERS, 2 * i + 1,
                             request_block(enc, "/echo", extra=[("content-length", "1")])))
    elif mode == "reset_mid_stream":
        out.append(frame(HEADERS, END_STREAM | END_HEADERS, 1,
                         request_block(enc, "/obj/h2-reset?size=4000000&max_age=600")))
    elif mode == "host_mismatch":
        out.append(frame(HEADERS, END_STREAM | END_HEADERS, 1,
                         request_block(enc, extra=[("host", "attacker.example")])))
    elif mode == "stall":
        out.append(frame(HEADERS, END_STREAM | END_HEADERS, 1,
                         request_block(enc, "/obj/h2-stall?size=100000&max_age=600")))
    return b"".join(out)


def main():
    port, mode, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        sock.sendall(attack(mode, count))
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    buffer = b""
    reset_sent = False
    decoder = Decoder()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            chunk = b""
        except socket.timeout:
            continue
        if not chunk:
            print("closed")
            return
        buffer += chunk
        while len(buffer) >= 9:
            length = struct.unpack(">I", b"\0" + buffer[:3])[0]
            if len(buffer) < 9 + length:
                break
            kind, flags = buffer[3], buffer[4]
            stream = struct.unpack(">I", buffer[5:9])[0] & 0x7FFFFFFF
            payload = buffer[9:9 + length]
            buffer = buffer[9 + length:]
            # Every head is decoded, in order: HPACK's table is the connection's.
            fields = dict(decoder.decode(payload)) if kind == HEADERS else {}
            if mode == "reset_mid_stream" and kind == DATA and stream == 1 and not reset_sent:
                reset_sent = True
                sock.sendall(frame(RST_STREAM, 0, 1, struct.pack(">I", 8)) +
                             frame(HEADERS, END_STREAM | END_HEADERS, 3,
                                   request_block(enc, "/obj/h2-after-reset?size=64")) +
                             frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 20)))
                continue
            if kind == HEADERS and (mode == "host_mismatch" or
                                    (mode == "reset_mid_stream" and stream == 3)):
                print("status %s" % fields.get(":status"))
                return
            if kind == GOAWAY:
                print("goaway %d" % struct.unpack(">I", payload[4:8])[0])
                return
            if kind == RST_STREAM and mode in ("big_headers", "stall", "too_many_streams"):
                print("rst %d %d" % (stream, struct.unpack(">I", payload)[0]))
                return
            if kind == SETTINGS and not flags & ACK:
                try:
                    sock.sendall(frame(SETTINGS, ACK, 0))
                except (BrokenPipeError, ConnectionResetError, socket.timeout):
                    pass
    print("timeout")


if __name__ == "__main__":
    main()
