#!/bin/bash
# varnish after sync: see quiet-start.sh.
exec "$(dirname "$0")/quiet-start.sh" varnish "$@"
