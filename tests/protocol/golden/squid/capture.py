#!/usr/bin/env python3
"""Captures the golden files of Squid's cache digest from a real Squid
(docs/protocol.md, "Squid cache digests", "Golden files").

Starts Debian's squid on 127.0.0.1 from a generated squid.conf in a temp dir
(the config tests/support/squid_process.cc generates, with cache_store_log on,
strip_query_terms off, an empty MIME table so that no icons enter the store,
and a 3 s digest period), caches a fixed list of URLs from a local origin (python's http.server), waits
until Squid's digest counts them, then writes into this script's directory:

  store_digest.bin     the body of /squid-internal-periodic/store_digest
  store_digest.head    that response's status line and header fields
  store_digest.report  Squid's own report of the same digest (cache manager
                       action store_digest): bits on, util %
  store_keys.txt       "KEY URL" for every GET store.log logged as stored:
                       Squid's MD5 store key in hex beside its URL
  capture.txt          provenance: Squid's version, the date, the command

Stops Squid by its PID and the origin (a thread here). On failure the temp
dir is left for its logs and named. Run as root (Squid then drops to
Debian's `proxy` user, which must own the temp dir) or as a user who can run
squid. Usage: tests/protocol/golden/squid/capture.py [--keep]
"""

import datetime
import functools
import http.server
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

SQUID = "/usr/sbin/squid"
HERE = os.path.dirname(os.path.abspath(__file__))
HOSTNAME = "squid-under-test"
PERIOD_SECONDS = 3  # digest rebuild and rewrite period: seconds, not Squid's hour
DEADLINE_SECONDS = 90  # for the whole wait on Squid's digest
OBJECTS = 160  # files at the origin

# Paths cached through Squid; the origin serves every one of them (the query is
# ignored by http.server), so each is a distinct URL, hence store key.
PATHS = (
    ["/obj/%d" % i for i in range(OBJECTS)]
    + ["/obj/0?v=%d" % i for i in range(8)]
    + [
        "/obj/1?a=1&b=two",
        "/obj/2?q=%20space%2Fslash",
        "/obj/3?long=" + "x" * 300,
        "/obj/4?utf=%C3%A9t%C3%A9",
    ]
)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def squid_conf(d, http_port):
    # The directives of tests/support/squid_process.cc's config_text, with
    # cache_store_log on and the digest period short.
    return "\n".join(
        [
            "http_port 127.0.0.1:%d" % http_port,
            "icp_port 0",
            "udp_incoming_address 127.0.0.1",
            "htcp_port 0",
            "snmp_port 0",
            "pinger_enable off",
            "dns_nameservers 127.0.0.1",
            "visible_hostname " + HOSTNAME,
            "pid_filename %s/squid.pid" % d,
            "cache_log %s/cache.log" % d,
            "access_log stdio:%s/access.log squid" % d,
            "cache_store_log stdio:%s/store.log" % d,
            "strip_query_terms off",  # else the logs drop each URL's query
            "coredump_dir " + d,
            "cache_mem 16 MB",
            "cache_dir ufs %s/cache 32 4 4" % d,
            "digest_rebuild_period %d seconds" % PERIOD_SECONDS,
            "digest_rewrite_period %d seconds" % PERIOD_SECONDS,
            "shutdown_lifetime 0 seconds",
            "http_access allow localhost",
            "http_access deny all",
            "refresh_pattern . 60 50% 600",
            # No MIME table, so no icons in the store: the digest holds exactly
            # the URLs cached here (the golden test rebuilds its mask from them).
            "mime_table %s/mime.conf" % d,
            "",
        ]
    )


def give_to_proxy(d):
    if os.geteuid() != 0:
        return
    pw = pwd.getpwnam("proxy")
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            os.lchown(os.path.join(root, name), pw.pw_uid, pw.pw_gid)
    os.chown(d, pw.pw_uid, pw.pw_gid)


def wait_for_port(port, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def get(url, proxy_port=None, timeout=10):
    """(status, reason, head text, body) of a GET, direct or through Squid."""
    handlers = []
    if proxy_port is not None:
        handlers.append(urllib.request.ProxyHandler({"http": "http://127.0.0.1:%d" % proxy_port}))
    else:
        handlers.append(urllib.request.ProxyHandler({}))
    opener = urllib.request.build_opener(*handlers)
    with opener.open(urllib.request.Request(url), timeout=timeout) as r:
        body = r.read()
        version = "1.1" if r.version == 11 else "1.0"
        head = "HTTP/%s %d %s\n" % (version, r.status, r.reason) + "".join(
            "%s: %s\n" % (k, v) for k, v in r.headers.items()
        )
        return r.status, r.reason, head, body


def digest_holds(body, keys):
    """Whether the digest claims every key: a check of its own (the golden
    test checks the C++ codec); Squid's four probes, per docs/protocol.md."""
    if len(body) <= 128:
        return False
    mask = body[128:]
    bits = len(mask) * 8
    for key in keys:
        raw = bytes.fromhex(key)
        for i in range(4):
            b = int.from_bytes(raw[4 * i : 4 * i + 4], "big") % bits
            if not mask[b // 8] & (1 << (b % 8)):
                return False
    return True


def report_field(report, first, name):
    # "\t bits: per entry: 5 on: 123 capacity: 4560 util: 3%", "\t added: 95 rejected: 1 ..."
    for line in report.splitlines():
        words = line.split()
        if words[:1] == [first] and name in words:
            return int(words[words.index(name) + 1])
    return -1


def store_keys(store_log):
    """KEY URL for each GET store.log logged as stored (SWAPOUT), first seen."""
    pairs = {}
    with open(store_log, encoding="latin-1") as f:
        for line in f:
            words = line.split()
            # time action dirn filen key status date lastmod expires type len method url
            if len(words) >= 13 and words[1] == "SWAPOUT" and words[-2] == "GET":
                pairs.setdefault(words[-1], words[4])
    return [(key, url) for url, key in pairs.items()]


def main():
    keep = "--keep" in sys.argv
    version = subprocess.run([SQUID, "-v"], capture_output=True, text=True).stdout.splitlines()[0]
    work = tempfile.mkdtemp(prefix="squid-digest-capture-")
    os.chmod(work, 0o755)  # mkdtemp's 0700 would keep Squid's user out of squid_dir
    squid_dir = os.path.join(work, "squid")
    docroot = os.path.join(work, "origin")
    os.makedirs(os.path.join(squid_dir, "cache"))
    os.makedirs(os.path.join(docroot, "obj"))
    # Modified 30 days ago: Squid's heuristic (refresh_pattern's 50% of the
    # Last-Modified age) keeps each object fresh past the next rebuild, which
    # storeDigestAddable requires. Modified a second before the fetch, an object
    # would be stale within half a second and left out of the digest.
    month_ago = time.time() - 30 * 86400
    for i in range(OBJECTS):
        path = os.path.join(docroot, "obj", str(i))
        with open(path, "w") as f:
            f.write("object %d\n" % i)
        os.utime(path, (month_ago, month_ago))

    origin_port = free_port()
    handler = functools.partial(QuietHandler, directory=docroot)
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", origin_port), handler)
    threading.Thread(target=origin.serve_forever, daemon=True).start()

    http_port = free_port()
    conf = os.path.join(squid_dir, "squid.conf")
    with open(conf, "w") as f:
        f.write(squid_conf(squid_dir, http_port))
    open(os.path.join(squid_dir, "mime.conf"), "w").close()
    give_to_proxy(squid_dir)
    squid = None
    captured = None
    try:
        subprocess.run([SQUID, "-z", "-N", "-f", conf], check=True, timeout=60)
        squid = subprocess.Popen([SQUID, "-N", "-f", conf])
        if not wait_for_port(http_port, 20):
            raise RuntimeError("squid did not listen on %d" % http_port)

        digest_url = "http://127.0.0.1:%d/squid-internal-periodic/store_digest" % http_port
        report_url = "http://127.0.0.1:%d/squid-internal-mgr/store_digest" % http_port
        end = time.monotonic() + DEADLINE_SECONDS
        origin_url = "http://127.0.0.1:%d" % origin_port
        for path in PATHS:
            status = get(origin_url + path, proxy_port=http_port)[0]
            if status != 200:
                raise RuntimeError("%s: status %d" % (path, status))

        # Squid adds what it stored at a later rebuild and serves it at the
        # rewrite after: wait until store.log has every URL and the digest
        # claims every key; then the digest, Squid's report of it (bits on,
        # entries added) and a second digest must agree (no rebuild in
        # between) before they are kept.
        store_log = os.path.join(squid_dir, "store.log")
        while captured is None and time.monotonic() < end:
            time.sleep(1)
            keys = [k for k, u in store_keys(store_log) if u.startswith(origin_url + "/")]
            if len(keys) < len(PATHS):
                continue
            try:
                status, _, head, body = get(digest_url)
            except OSError:  # not built yet (404), or Squid busy: ask again
                continue
            if status != 200 or not digest_holds(body, keys):
                continue
            report = get(report_url)[3].decode("latin-1")
            again = get(digest_url)[3]
            bits_on = sum(bin(b).count("1") for b in body[128:])
            added = report_field(report, "added:", "added:")
            if again == body and report_field(report, "bits:", "on:") == bits_on and added == len(keys):
                captured = (head, body, report)
        if captured is None:
            raise RuntimeError("Squid's digest did not take the %d URLs in time" % len(PATHS))
    except BaseException:
        print("failed; Squid's files are in", squid_dir, file=sys.stderr)
        raise
    finally:
        if squid is not None:
            os.kill(squid.pid, signal.SIGTERM)
            try:
                squid.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(squid.pid, signal.SIGKILL)
                squid.wait()
        origin.shutdown()

    head, body, report = captured
    pairs = store_keys(store_log)
    with open(os.path.join(HERE, "store_digest.bin"), "wb") as f:
        f.write(body)
    with open(os.path.join(HERE, "store_digest.head"), "w") as f:
        f.write(head)
    with open(os.path.join(HERE, "store_digest.report"), "w") as f:
        f.write(report)
    with open(os.path.join(HERE, "store_keys.txt"), "w") as f:
        f.writelines("%s %s\n" % pair for pair in pairs)
    with open(os.path.join(HERE, "capture.txt"), "w") as f:
        f.write(
            "squid: %s (%s)\ncaptured: %s\ncommand: tests/protocol/golden/squid/capture.py\n"
            "origin: http://127.0.0.1:%d (python3 http.server), %d URLs cached\n"
            "digest: %d bytes, store.log: %d GET entries stored\n"
            % (
                version,
                SQUID,
                datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                origin_port,
                len(PATHS),
                len(body),
                len(pairs),
            )
        )
    if keep:
        print("kept", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    print("captured %d bytes of digest, %d keys" % (len(body), len(pairs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
