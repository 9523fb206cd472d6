#!/bin/bash
# sumcached-rev after sync: see quiet-start.sh.
exec "$(dirname "$0")/quiet-start.sh" "$(dirname "$0")/../sumcached-rev.sh" "$@"
