#!/bin/bash
# sumcached-fwd after sync: see quiet-start.sh.
exec "$(dirname "$0")/quiet-start.sh" "$(dirname "$0")/../sumcached-fwd.sh" "$@"
