#!/usr/bin/env bash
# scrape_overhead.sh [-r ROUNDS] [-d SECS] [-c CONNS] [-s SCRAPES_PER_SEC] [-v pinned|shared]
#
# What scraping the admin endpoint costs the proxy: sumcached in reverse mode over
# test_origin_server, wrk on one cached 1 KiB object, runs without scraping (A) and
# with /metrics scraped SCRAPES_PER_SEC times a second (B, default 100), alternating
# A/B and B/A per round. Prints each run, each round's B/A ratio and the median loss.
# pinned (default): sumcached on CPU 1 with one worker, wrk and the scraper on CPU 0.
# Throughput on a shared machine is noisy, so it also measures what the scrapes cost
# in the daemon's own CPU time with no load (from /proc/PID/stat): that share of a core
# bounds the loss of a CPU-bound proxy, and other processes cannot inflate it.
# Needs a Release build (sumcached, test_origin_server), wrk, curl, python3.
# Stops only the processes it started, by PID; every wait is bounded.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${SUMCACHED:-$ROOT/build/release/daemon/sumcached}
ORIGIN_BIN=${TEST_ORIGIN_SERVER:-$ROOT/build/release/tests/support/test_origin_server}
ROUNDS=5 SECS=5 CONNS=32 RATE=100 VARIANT=pinned
while getopts "r:d:c:s:v:" opt; do
  case $opt in
    r) ROUNDS=$OPTARG ;; d) SECS=$OPTARG ;; c) CONNS=$OPTARG ;; s) RATE=$OPTARG ;;
    v) VARIANT=$OPTARG ;; *) sed -n '2,3p' "$0" >&2; exit 2 ;;
  esac
done
for tool in wrk curl python3; do
  command -v $tool >/dev/null || { echo "needs $tool (scripts/setup)" >&2; exit 1; }
done
for b in "$BIN" "$ORIGIN_BIN"; do
  [ -x "$b" ] || { echo "no $b: build Release (sumcached test_origin_server)" >&2; exit 1; }
done

RUN=$(mktemp -d /tmp/sumcache-scrape.XXXXXX)
PIDS=()
cleanup() {
  local pid i
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$RUN"
}
trap cleanup EXIT

SERVER_CPU=() CLIENT_CPU=() WORKERS=0 WRK_THREADS=2
if [ "$VARIANT" = pinned ]; then
  SERVER_CPU=(taskset -c 1) CLIENT_CPU=(taskset -c 0) WORKERS=1 WRK_THREADS=1
fi

# wait_line FILE REGEX: the first match's group 1, waiting at most 20 s.
wait_line() {
  local i v
  for ((i = 0; i < 200; i++)); do
    v=$(sed -nE "s/.*$2.*/\1/p" "$1" 2>/dev/null | head -n 1)
    [ -n "$v" ] && { echo "$v"; return 0; }
    sleep 0.1
  done
  echo "timed out waiting for '$2' in $1" >&2
  return 1
}

"$ORIGIN_BIN" --port 0 >"$RUN/origin.out" 2>/dev/null &
PIDS+=($!)
ORIGIN_PORT=$(wait_line "$RUN/origin.out" 'listening ([0-9]+)')

cat >"$RUN/sumcache.json" <<CONF
{
  "node": {"id": "scrape-bench"},
  "mode": "reverse",
  "reverse": {"origin": "http://127.0.0.1:$ORIGIN_PORT"},
  "workers": $WORKERS,
  "listen": [{"address": "127.0.0.1", "port": 0}],
  "admin": {"address": "127.0.0.1", "port": 0},
  "cache": {"memory": {"max_bytes": "256MiB"}, "disk": {"enabled": false}},
  "log": {"access_log": "", "error_log": "$RUN/error.log", "level": "info"}
}
CONF
"${SERVER_CPU[@]}" "$BIN" --config "$RUN/sumcache.json" >/dev/null 2>&1 &
DAEMON=$!
PIDS+=($DAEMON)
PORT=$(wait_line "$RUN/error.log" 'proxy listening on 127\.0\.0\.1:([0-9]+)')
ADMIN=$(wait_line "$RUN/error.log" 'admin listening on 127\.0\.0\.1:([0-9]+)')
URL="http://127.0.0.1:$PORT/obj/bench?size=1024&max_age=3600"

curl -sf -o /dev/null --max-time 5 "$URL"
curl -sf -D - -o /dev/null --max-time 5 "$URL" | grep -qi '^x-cache: HIT' ||
  { echo "the object is not a hit: check $RUN/error.log" >&2; exit 1; }
curl -sf -o /dev/null --max-time 5 "http://127.0.0.1:$ADMIN/metrics" ||
  { echo "GET /metrics failed on the admin port $ADMIN" >&2; exit 1; }
"${CLIENT_CPU[@]}" wrk -t"$WRK_THREADS" -c"$CONNS" -d2s "$URL" >/dev/null  # warm-up

# run A|B: prints req/s of one wrk run, scraping during B.
run() {
  local scraper=""
  if [ "$1" = B ]; then
    "${CLIENT_CPU[@]}" python3 "$ROOT/bench/admin/scraper.py" "$ADMIN" "$RATE" "$SECS" \
      >"$RUN/scraper.out" &
    scraper=$!
  fi
  local rps
  rps=$("${CLIENT_CPU[@]}" wrk -t"$WRK_THREADS" -c"$CONNS" -d"${SECS}s" "$URL" |
        awk '/^Requests\/sec:/ {print $2}')
  if [ -n "$scraper" ]; then
    wait "$scraper"
    echo "    scraper: $(cat "$RUN/scraper.out")" >&2
  fi
  echo "$rps"
}

# cpu_ticks: user + system clock ticks sumcached has used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$DAEMON/stat"; }

# idle_cpu RATE: the daemon's CPU share of one core over IDLE_SECS while scraped RATE times
# a second. 20 s: a clock tick (10 ms) is then 0.05% of a core.
IDLE_SECS=20
idle_cpu() {
  local before after
  before=$(cpu_ticks)
  if [ "$1" = 0 ]; then sleep "$IDLE_SECS"; else
    "${CLIENT_CPU[@]}" python3 "$ROOT/bench/admin/scraper.py" "$ADMIN" "$1" "$IDLE_SECS" >/dev/null
  fi
  after=$(cpu_ticks)
  python3 -c "print(f'{($after - $before) / $(getconf CLK_TCK) / $IDLE_SECS:.4f}')"
}

echo "variant=$VARIANT rounds=$ROUNDS secs=$SECS conns=$CONNS scrapes/s=$RATE" \
     "metrics bytes=$(curl -sf --max-time 5 "http://127.0.0.1:$ADMIN/metrics" | wc -c)"
ratios=()
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then a=$(run A); b=$(run B); else b=$(run B); a=$(run A); fi
  ratio=$(python3 -c "print(f'{$b / $a:.4f}')")
  ratios+=("$ratio")
  echo "round $r: without $a req/s, with scraping $b req/s, ratio $ratio"
done
idle=$(idle_cpu 0)
scraped=$(idle_cpu "$RATE")
echo "daemon CPU with no load: $idle of a core idle, $scraped while scraped $RATE/s"
python3 - "$idle" "$scraped" "${ratios[@]}" <<'PY'
import statistics, sys
idle, scraped = float(sys.argv[1]), float(sys.argv[2])
r = sorted(float(x) for x in sys.argv[3:])
m = statistics.median(r)
print(f"median throughput ratio {m:.4f} (min {r[0]:.4f}, max {r[-1]:.4f}): loss {100 * (1 - m):.1f}%")
print(f"scrape CPU: {100 * (scraped - idle):.2f}% of one core (bound on the loss of a CPU-bound proxy)")
PY
