#!/usr/bin/env python3
"""scraper.py PORT RATE SECONDS [PATH]: GET PATH (default /metrics) from 127.0.0.1:PORT
RATE times a second for SECONDS on one keep-alive connection, as Prometheus does,
and print "scrapes=N errors=E bytes=B". Bounded: at most RATE * SECONDS requests,
each with a 2 s timeout."""
import http.client
import sys
import time


def main():
    port, rate, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    path = sys.argv[4] if len(sys.argv) > 4 else "/metrics"
    total = int(rate * seconds)
    scrapes = errors = size = 0
    conn = None
    start = time.monotonic()
    for i in range(total):
        delay = start + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            if response.status != 200:
                errors += 1
            else:
                scrapes += 1
                size += len(body)
        except (OSError, http.client.HTTPException):
            errors += 1
            conn = None
    print(f"scrapes={scrapes} errors={errors} bytes={size} "
          f"seconds={time.monotonic() - start:.2f}")


if __name__ == "__main__":
    main()
