#!/bin/bash
# Adapter for ../shared/bench: nginx as a static web server of the origin's own
# files (sendfile, open_file_cache), the cost of a file served with no proxying
# or cache lookup at all. No "many" row (the harness's warm-up wants the origin
# to see the URLs).
[ "$1" = mode ] && { echo reverse; exit; }
[ "$1" = start ] || { echo "usage: $0 mode | start PORT ORIGIN DIR" >&2; exit 2; }
PORT=$2 D=$4
mkdir -p "$D/tmp"
cat >"$D/nginx.conf" <<CONF
worker_processes $(nproc);
worker_rlimit_nofile 200000;
pid $D/nginx.pid;
error_log $D/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on; tcp_nopush on;
  keepalive_requests 1000000;
  open_file_cache max=10000 inactive=1h;
  client_body_temp_path $D/tmp; proxy_temp_path $D/tmp; fastcgi_temp_path $D/tmp;
  uwsgi_temp_path $D/tmp; scgi_temp_path $D/tmp;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$PORT;
    root $(dirname "$D")/origin/www;
  }
}
CONF
exec nginx -p "$D" -e "$D/error.log" -c "$D/nginx.conf" -g 'daemon off;'
