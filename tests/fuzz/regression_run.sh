#!/usr/bin/env bash
# The regression run of one fuzz target (a ctest test of the fuzz build):
#   regression_run.sh TARGET_BINARY CORPUS_DIR RUNS SCRATCH_DIR
# Runs every seed, then RUNS mutated inputs from a fixed seed, so a run is
# repeatable. New inputs and any crash file go under SCRATCH_DIR, never into
# the repository's corpus. Exits non-zero on a crash, a leak, a sanitizer
# report or a timeout (libFuzzer's exit codes).
set -euo pipefail
binary=$1 corpus=$2 runs=$3 scratch=$4
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rm -rf "$scratch"
mkdir -p "$scratch/new"
exec "$binary" -runs="$runs" -seed=1 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$scratch/" -print_final_stats=1 "$scratch/new" "$corpus"
