"""Measurements the admin counters do not give: a full summary's size on the
wire, and the bytes of one peer request that ends in a false hit."""
import hashlib
import hmac
import os
import socket
import struct
import time

from cluster import SECRET, http_get

SUMMARY_PATH = "/sumcache/v1/summary"


def channel_auth(method, path, node, to, length, secret):
    """A Sumcache-Channel-Auth value (docs/protocol.md, "Channel authentication")."""
    t, nonce = int(time.time()), os.urandom(16).hex()
    signed = "\n".join(["sumcache-channel-request-v1", method, path, node, to, str(t), nonce,
                         str(length)])
    mac = hmac.new(secret.encode(), signed.encode(), hashlib.sha256).hexdigest()
    return f"node={node}; to={to}; t={t}; n={nonce}; len={length}; mac={mac}"


def full_summary(peer_port, as_node):
    """The node's current full summary as peer `as_node` would pull it (the peer
    listener answers only a configured peer's signed head, docs/peers.md): its
    size, and from its header (docs/protocol.md, "Layout") m, k, entries and the
    bits set."""
    auth = channel_auth("GET", SUMMARY_PATH, as_node, "*", 0, SECRET)
    status, _, body = http_get(peer_port, SUMMARY_PATH, headers={"Sumcache-Channel-Auth": auth})
    if status != 200 or len(body) < 84 or body[:4] != b"SCSM":
        return None
    kind, compression, flags = body[10], body[11], body[15]
    (k,) = struct.unpack_from("<I", body, 16)
    m, entries, count = struct.unpack_from("<QQQ", body, 52)
    if kind == 5:  # fingerprint_full: m is the universe, count the fingerprints
        return {"bytes": len(body), "m": m, "k": k, "entries": entries, "set_bits": count,
                "fingerprints": True}
    if compression == 0:  # raw: count is m; the set bits are in the payload
        header = struct.unpack_from("<H", body, 8)[0] + body[13]
        payload = body[header:header + (m + 7) // 8]
        set_bits = sum(bin(b).count("1") for b in payload)
    else:  # rice_gaps lists the ones, or with flag bit 0 the zeros
        set_bits = m - count if flags & 1 else count
    return {"bytes": len(body), "m": m, "k": k, "entries": entries, "set_bits": set_bits,
            "fingerprints": False}


def _read_response(sock, limit=1 << 20):
    data = b""
    while b"\r\n\r\n" not in data and len(data) < limit:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length and len(data) < limit:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
        data += chunk
    return data


def false_hit_exchange_bytes(proxy_port, origin_port, asking_node):
    """(request bytes, response bytes, status line) of one only-if-cached peer request
    for a URL no cache holds: what a false hit costs. The request carries the fields
    daemon/cache/peer_fetch.cc adds (absolute URI, only-if-cached, X-Sumcache-Peer, Via)."""
    host = f"127.0.0.1:{origin_port}"
    request = (f"GET http://{host}/obj/false-hit-probe HTTP/1.1\r\n"
               f"Host: {host}\r\n"
               "Cache-Control: only-if-cached\r\n"
               f"X-Sumcache-Peer: {asking_node}\r\n"
               f"Via: 1.1 {asking_node} (sumcached)\r\n"
               "\r\n").encode()
    with socket.create_connection(("127.0.0.1", proxy_port), timeout=5) as sock:
        sock.sendall(request)
        response = _read_response(sock)
    status_line = response.split(b"\r\n", 1)[0].decode(errors="replace")
    return len(request), len(response), status_line
