#!/bin/bash
# tls_cost.sh [-r ROUNDS] [-d SECS] [-w WORKERS] [-p http1|h2] [BINARY]: HTTPS cache hits on
# sumcached beside nginx configured the same way, in one run: a reverse proxy
# with one TLS listener, the same certificate (a P-256 key from
# scripts/cluster-ca), the same TLS 1.2 suites and TLS 1.3, the same number of
# workers (default 1, pinned to CPU 1; wrk -t1 on CPU 0; -w N: CPUs 0..N-1), in front of the
# harness's origin. Workloads: keep-alive hits at 1 KiB, 16 KiB and 256 KiB,
# then full handshakes (a new connection per request: Connection: close).
# -p h2: HTTP/2 by ALPN on both (nginx "http2" on its listener), h2load on 8
# connections with 64 streams each (-c8 -m64) instead of wrk, and no handshake
# workload. Each load run is bounded by `timeout` (64 connections of 64 streams
# of 256 KiB once kept nginx busy past h2load's -D).
# Prints req/s and the server's CPU microseconds per request per run, then the
# medians and sumcached/nginx ratios. Runs only on 127.0.0.1, on the harness's ports.
set -euo pipefail
ROUNDS=3 SECS=5 WORKERS=1 PROTO=http1
while getopts r:d:w:p: o; do
  case $o in
  r) ROUNDS=$OPTARG ;; d) SECS=$OPTARG ;; w) WORKERS=$OPTARG ;; p) PROTO=$OPTARG ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HARNESS=$(cd "$ROOT/../shared/bench" && pwd)
BIN=${1:-$ROOT/build/release/daemon/sumcached}
[ -x "$BIN" ] || { echo "tls_cost: no sumcached at $BIN: build Release first" >&2; exit 1; }
command -v nginx >/dev/null || { echo "tls_cost: nginx is not installed" >&2; exit 1; }
case $PROTO in
http1) NGINX_H2="" WORKLOADS="1k 16k 256k handshake" ;;
h2)
  command -v h2load >/dev/null || { echo "tls_cost: h2load is not installed" >&2; exit 1; }
  NGINX_H2=" http2" WORKLOADS="1k 16k 256k"
  ;;
*) echo "tls_cost: -p takes http1 or h2" >&2; exit 2 ;;
esac
export RUN=${RUN:-/tmp/sumcache-tls-cost}
PORT=19120
rm -rf "$RUN" && mkdir -p "$RUN"
for port in 19000 $PORT; do
  if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
    echo "tls_cost: 127.0.0.1:$port is in use (is the harness running?)" >&2
    exit 1
  fi
done
"$ROOT/scripts/cluster-ca" "$RUN/pki" bench=127.0.0.1 >/dev/null
CERT=$RUN/pki/bench.pem KEY=$RUN/pki/bench.key
CIPHERS="ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
# One worker: the server alone on CPU 1. More: CPUs 0..N-1, shared with wrk
# (a 2-core machine has no other core to give either).
CPUS=1
[ "$WORKERS" -gt 1 ] && CPUS=0-$((WORKERS - 1))

"$HARNESS/origin.sh" start >/dev/null
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -- -"$server_pid" 2>/dev/null || true
  "$HARNESS/origin.sh" stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

start_nginx() {
  local d=$RUN/nginx
  rm -rf "$d" && mkdir -p "$d/cache" "$d/tmp"
  cat >"$d/nginx.conf" <<CONF
user root;
worker_processes $WORKERS;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on; tcp_nopush on;
  keepalive_requests 1000000;
  open_file_cache max=10000 inactive=60s;  # nginx at its best: no open() per hit
  client_body_temp_path $d/tmp; proxy_temp_path $d/tmp; fastcgi_temp_path $d/tmp;
  uwsgi_temp_path $d/tmp; scgi_temp_path $d/tmp;
  proxy_cache_path $d/cache levels=1:2 keys_zone=bench:64m max_size=8g inactive=1d use_temp_path=off;
  upstream origin { server 127.0.0.1:19000; keepalive 32; }
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_ciphers $CIPHERS;
  ssl_prefer_server_ciphers on;
  ssl_session_cache shared:tls:10m;
  ssl_session_tickets off;
  server {
    listen 127.0.0.1:$PORT ssl$NGINX_H2;
    ssl_certificate $CERT;
    ssl_certificate_key $KEY;
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache bench;
    }
  }
}
CONF
  setsid taskset -c "$CPUS" nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" \
    -g 'daemon off;' >"$d/out" 2>&1 &
  server_pid=$!
}

start_sumcached() {
  local d=$RUN/sumcached
  rm -rf "$d" && mkdir -p "$d"
  cat >"$d/sumcache.json" <<CONF
{
  "node": {"id": "bench"}, "mode": "reverse", "workers": $WORKERS,
  "reverse": {"origin": "http://127.0.0.1:19000"},
  "listen": [{"address": "127.0.0.1", "port": $PORT,
              "tls": {"certificates": [{"cert_file": "$CERT", "key_file": "$KEY"}]}}],
  "admin": {"address": "127.0.0.1", "port": $((PORT + 1))},
  "cache": {"memory": {"max_bytes": "2GiB"}, "disk": {"path": "$d/cache", "max_bytes": "4GiB"}},
  "log": {"access_log": "", "error_log": "$d/error.log", "level": "warn"}
}
CONF
  setsid taskset -c "$CPUS" "$BIN" --config "$d/sumcache.json" >"$d/out" 2>&1 &
  server_pid=$!
}

# The server's CPU: every process of its group (nginx's master and workers).
cpu_ticks() {
  local total=0 pid
  for pid in $(pgrep -g "$server_pid"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
hz=$(getconf CLK_TCK)

# workload -> wrk arguments
declare -A WORKLOAD=(
  [1k]="-c64 /s/1k.bin" [16k]="-c64 /s/16k.bin" [256k]="-c64 /s/256k.bin"
  [handshake]="-c16 /s/1k.bin close"
)
wrk_run() {  # secs connections path [close]
  local headers=()
  [ "${4:-}" = close ] && headers=(-H "Connection: close")
  BENCH_PATH=$3 BENCH_PREFIX="" BENCH_HOST="" timeout $(($1 + 15)) taskset -c 0 wrk -t1 "$2" -d"$1"s \
    "${headers[@]}" -s "$HARNESS/bench.lua" "https://127.0.0.1:$PORT"
}
# The same workload over HTTP/2, printed as bench.lua's RESULT line.
h2load_run() {  # secs connections(unused: always 8) path
  local out
  out=$(timeout $(($1 + 15)) taskset -c 0 h2load -t1 -c 8 -m 64 -D "$1" \
    "https://127.0.0.1:$PORT$3" 2>&1 || true)
  awk '/^finished in/ { rps = $4 } /^requests:/ { done = $8 }
    END { printf "RESULT requests=%d rps=%s\n", done, rps }' <<<"$out"
}
load_run() {
  if [ "$PROTO" = h2 ]; then h2load_run "$1" "$2" "$3"; else wrk_run "$@"; fi
}

results=$RUN/results.txt
: >"$results"
for ((round = 1; round <= ROUNDS; round++)); do
  for server in nginx sumcached; do
    "start_$server"
    for ((i = 0; i < 100; i++)); do
      (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break
      sleep 0.1
    done
    for w in $WORKLOADS; do
      read -r conns path close <<<"${WORKLOAD[$w]}"
      load_run 2 "$conns" "$path" "$close" >/dev/null  # fills the cache and warms up
      before=$(cpu_ticks)
      out=$(load_run "$SECS" "$conns" "$path" "$close" | grep RESULT || true)
      after=$(cpu_ticks)
      requests=$(sed -E 's/.*requests=([0-9]+).*/\1/' <<<"$out")
      rps=$(sed -E 's/.*rps=([0-9.]+).*/\1/' <<<"$out")
      if [ -z "$requests" ] || [ "$requests" = 0 ]; then
        echo "round $round $server $w: no result"; continue
      fi
      cost=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$hz" \
        'BEGIN { printf "%.2f", t * 1e6 / hz / n }')
      echo "round $round $server $w: $rps req/s, $cost us CPU per request"
      echo "$server $w $rps $cost" >>"$results"
    done
    kill -- -"$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  done
done
median() { sort -n | awk '{v[NR] = $1} END { print v[int((NR + 1) / 2)] }'; }
echo "medians ($WORKERS worker(s), $PROTO): req/s and CPU us per request; ratio sumcached/nginx"
for w in $WORKLOADS; do
  nr=$(awk -v w=$w '$1 == "nginx" && $2 == w {print $3}' "$results" | median)
  nc=$(awk -v w=$w '$1 == "nginx" && $2 == w {print $4}' "$results" | median)
  sr=$(awk -v w=$w '$1 == "sumcached" && $2 == w {print $3}' "$results" | median)
  sc=$(awk -v w=$w '$1 == "sumcached" && $2 == w {print $4}' "$results" | median)
  awk -v w=$w -v nr="$nr" -v nc="$nc" -v sr="$sr" -v sc="$sc" 'BEGIN {
    printf "  %-9s nginx %9.0f req/s %7.2f us | sumcached %9.0f req/s %7.2f us | req/s x%.2f, CPU x%.2f\n",
      w, nr, nc, sr, sc, (nr > 0 ? sr / nr : 0), (nc > 0 ? sc / nc : 0) }'
done
