#!/bin/bash
# Adapter for ../shared/bench: sumcached as a forward proxy (absolute-form requests).
[ "$1" = mode ] && { echo forward; exit; }
[ "$1" = start ] || { echo "usage: $0 mode | start PORT ORIGIN DIR" >&2; exit 2; }
exec "$(dirname "$0")/sumcached-common.sh" forward "$2" "$3" "$4"
