#!/usr/bin/env bash
# Triage throughput on each reader's worst input: tests/triage/worst/*.txt grown to 1 MB and
# 10 MB by benches/worst-inputs.py, the fastest of WORST_RUNS (default 10) runs of the whole
# command (read, rules, JSON report); on a shared machine the fastest of three still moved a
# shape by 10-20 %. Writes benches/results/triage-worst.md and prints the table and the slowest
# shape. The done-when bar is >= 20 MB/s on every shape.
#
#   benches/triage-worst.sh                 # builds the release binary first
#   RC=path/to/rocmcheck benches/triage-worst.sh   # measures that binary (no build)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RC:-}" ]; then
  cargo build --release --quiet
  RC=target/release/rocmcheck
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 benches/worst-inputs.py "$TMP/w1" 1000000
python3 benches/worst-inputs.py "$TMP/w10" 10000000
mkdir -p benches/results
{
  echo "| worst input | 1 MB: s | 1 MB: MB/s | 10 MB: s | 10 MB: MB/s |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for f in "$TMP"/w1/*.txt; do
    n=$(basename "$f")
    row="| ${n%.txt}"
    for d in w1 w10; do
      g="$TMP/$d/$n"
      best=""
      for _ in $(seq "${WORST_RUNS:-10}"); do
        s=$(date +%s%N)
        "$RC" triage --format json "$g" > /dev/null || true
        e=$(( $(date +%s%N) - s ))
        if [ -z "$best" ] || [ "$e" -lt "$best" ]; then best=$e; fi
      done
      bytes=$(stat -c %s "$g")
      row="$row | $(awk -v e="$best" 'BEGIN{printf "%.3f", e/1e9}') | $(awk -v e="$best" -v b="$bytes" 'BEGIN{printf "%.1f", (b/1e6)/(e/1e9)}')"
    done
    echo "$row |"
  done
} | tee benches/results/triage-worst.md
awk -F'|' 'NR > 2 { for (c = 4; c <= 6; c += 2) if (min == "" || $c + 0 < min) { min = $c + 0; at = $2 } }
  END { printf "slowest: %s at %.1f MB/s\n", at, min }' benches/results/triage-worst.md
