#!/bin/bash
# quiet-start.sh ADAPTER mode|start ARGS...: runs a harness adapter (a name
# under ../shared/bench/proxies/ or a path) after `sync`, so that its session
# starts with no dirty page cache left by the session before it. The harness
# runs sessions back to back, and a 100k-URL fill leaves 400-900 MB for the
# kernel to write back during whichever session comes next; a run where every
# adapter comes through this script measures tails without that writeback
# (docs/performance.md, "Tails and writeback").
ADAPTER=$1
shift
case $ADAPTER in
*/*) ;;
*) ADAPTER=$(cd "$(dirname "$0")/../../.." && pwd)/../shared/bench/proxies/$ADAPTER.sh ;;
esac
[ "$1" = start ] && sync
exec "$ADAPTER" "$@"
