#!/bin/bash
# hit_cost.sh [-r ROUNDS] [-d SECS] [-p PATH] [-m MODE] BINARY...: what one cache hit
# costs each sumcached build, in CPU microseconds of the server per request, measured
# side by side: the builds take turns in every round, under the harness's pinning
# (server on CPU 1, wrk -t1 -c64 on CPU 0) in front of the harness's origin. Where a
# row is bound by wrk's core, req/s hides a cheaper hit; CPU per request does not.
# Prints one line per run and the median per build. Runs only on 127.0.0.1, on the
# harness's ports: not while the harness runs.
set -euo pipefail
ROUNDS=3 SECS=5 URLPATH=/s/1k.bin MODE=reverse
while getopts r:d:p:m: o; do
  case $o in
  r) ROUNDS=$OPTARG ;; d) SECS=$OPTARG ;; p) URLPATH=$OPTARG ;; m) MODE=$OPTARG ;;
  *) sed -n '2,8p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,8p' "$0"; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
HARNESS=$(cd "$HERE/../../../shared/bench" && pwd)
export RUN=${RUN:-/tmp/sumcache-hit-cost}
PORT=19110
mkdir -p "$RUN"
for port in 19000 $PORT; do
  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
    echo "hit_cost: 127.0.0.1:$port is in use (is the harness running?)" >&2
    exit 1
  fi
done
"$HARNESS/origin.sh" start >/dev/null
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  "$HARNESS/origin.sh" stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

export BENCH_PATH=$URLPATH BENCH_PREFIX="" BENCH_HOST=""
if [ "$MODE" = forward ]; then
  export BENCH_PREFIX=http://127.0.0.1:19000 BENCH_HOST=127.0.0.1:19000
fi
wrk_run() { taskset -c 0 wrk -t1 -c64 -d"$1"s -s "$HARNESS/bench.lua" "http://127.0.0.1:$PORT"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ticks_per_second=$(getconf CLK_TCK)

results=$RUN/results.txt
: >"$results"
for ((round = 1; round <= ROUNDS; round++)); do
  for bin in "$@"; do
    SUMCACHED=$bin setsid taskset -c 1 "$HERE/sumcached-common.sh" "$MODE" $PORT \
      127.0.0.1:19000 "$RUN/server" >"$RUN/server.out" 2>&1 &
    server_pid=$!
    for ((i = 0; i < 100; i++)); do
      (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break
      sleep 0.1
    done
    wrk_run 2 >/dev/null  # fills the cache and warms up
    before=$(cpu_ticks "$server_pid")
    out=$(wrk_run "$SECS" | grep RESULT)
    after=$(cpu_ticks "$server_pid")
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
    requests=$(sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$out")
    rps=$(sed -E 's/.*rps=([0-9.]+).*/\1/' <<<"$out")
    p99=$(sed -E 's/.*p99_us=([0-9]+).*/\1/' <<<"$out")
    cost=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$ticks_per_second" \
      'BEGIN { printf "%.2f", t * 1e6 / hz / n }')
    echo "round $round $bin: $rps req/s, p99 $p99 us, $cost us CPU per request"
    echo "$bin $cost" >>"$results"
  done
done
echo "median CPU us per request:"
for bin in "$@"; do
  awk -v b="$bin" '$1 == b {print $2}' "$results" | sort -n |
    awk -v b="$bin" '{v[NR] = $1} END { printf "  %s %s\n", b, v[int((NR + 1) / 2)] }'
done
