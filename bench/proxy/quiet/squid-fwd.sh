#!/bin/bash
# squid-fwd after sync: see quiet-start.sh.
exec "$(dirname "$0")/quiet-start.sh" squid-fwd "$@"
