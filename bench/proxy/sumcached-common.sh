#!/bin/bash
# sumcached-common.sh MODE PORT ORIGIN DIR: writes a config under DIR and execs
# sumcached from this checkout's Release build (build it first: ./scripts/run
# or cmake --build build/release --target sumcached).
MODE=$1 PORT=$2 ORIGIN=$3 D=$4
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${SUMCACHED:-$ROOT/build/release/daemon/sumcached}
[ -x "$BIN" ] || { echo "no sumcached at $BIN: build Release first" >&2; exit 1; }
rm -rf "$D/cache"; mkdir -p "$D"
REVERSE=""
[ "$MODE" = reverse ] && REVERSE="\"reverse\": {\"origin\": \"http://$ORIGIN\"},"
cat >"$D/sumcache.json" <<CONF
{
  "node": {"id": "bench"},
  "mode": "$MODE",
  $REVERSE
  "listen": [{"address": "127.0.0.1", "port": $PORT}],
  "admin": {"address": "127.0.0.1", "port": $((PORT + 1))},
  "cache": {"memory": {"max_bytes": "2GiB"},
            "disk": {"path": "$D/cache", "max_bytes": "4GiB"}},
  "log": {"access_log": "", "error_log": "$D/error.log", "level": "warn"}
}
CONF
exec "$BIN" --config "$D/sumcache.json"
