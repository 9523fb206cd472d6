#!/bin/bash
# Adapter for ../shared/bench: sumcached as a reverse proxy in front of ORIGIN.
# Usage from the harness: bench.sh ... /path/to/bench/proxy/sumcached-rev.sh
# Workers follow nproc (the harness's taskset mask); the access log is off, as
# in the harness's nginx adapter; the memory tier holds the working set.
[ "$1" = mode ] && { echo reverse; exit; }
[ "$1" = start ] || { echo "usage: $0 mode | start PORT ORIGIN DIR" >&2; exit 2; }
exec "$(dirname "$0")/sumcached-common.sh" reverse "$2" "$3" "$4"
