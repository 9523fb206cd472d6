#!/bin/bash
# nginx after sync: see quiet-start.sh.
exec "$(dirname "$0")/quiet-start.sh" nginx "$@"
