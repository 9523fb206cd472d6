#!/bin/bash
# Adapter for ../shared/bench: not a proxy but the ceiling a cache hit can reach,
# bench/ceiling/ceiling_server answering the origin's files from responses built
# at startup (one thread, epoll). Build it first:
# cmake --build build/release --target ceiling_server. It has no "many" row
# (the harness's warm-up wants the origin to see the URLs).
[ "$1" = mode ] && { echo reverse; exit; }
[ "$1" = start ] || { echo "usage: $0 mode | start PORT ORIGIN DIR" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$ROOT/build/release/bench/ceiling/ceiling_server
[ -x "$BIN" ] || { echo "no ceiling_server at $BIN: build Release first" >&2; exit 1; }
# The harness keeps the origin's files in $RUN/origin/www and gives us $RUN/NAME.
exec "$BIN" "$2" "$(dirname "$4")/origin/www"
