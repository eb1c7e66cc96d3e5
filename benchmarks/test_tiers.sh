#!/usr/bin/env bash
# Time the test tiers as CONTRIBUTING.md names them, with /usr/bin/time, and keep pytest's durations report.
#   bash benchmarks/test_tiers.sh [fast|full|both]      (default both; from the repository root, after bootstrap test)
# Writes benchmarks/out/test_tiers_<tier>.log (pytest's output with its 40 slowest tests) and .xml (junit: every
# test's time, for benchmarks/fast_tier_outliers.py) and prints, per tier,
# the wall time, peak RSS of the pytest process and the summary line, for benchmarks/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
tiers=${1:-both}
mkdir -p benchmarks/out
run_tier() {
  local tier=$1; shift
  local log=benchmarks/out/test_tiers_$tier.log
  /usr/bin/time -f "%e s wall, %M KiB peak RSS (pytest's own process)" -o "$log.time" \
    .venv/bin/python -m pytest -p no:cacheprovider -n auto --durations=40 --junitxml="benchmarks/out/test_tiers_$tier.xml" \
    "$@" > "$log" 2>&1 || true
  echo "$tier: $(cat "$log.time"); $(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed)' "$log" | tail -1)"
}
case $tiers in
  fast) run_tier fast -m "not slow" ;;
  full) run_tier full ;;
  both) run_tier fast -m "not slow"; run_tier full ;;
  *) echo "usage: bash benchmarks/test_tiers.sh [fast|full|both]" >&2; exit 2 ;;
esac
