#!/usr/bin/env bash
# Triage speed and memory on a 200 KB paste, with hyperfine.
#
#   apt-get install hyperfine
#   benches/triage.sh            # writes benches/results/triage.{md,json} and prints the table
#
# The paste is the triage corpus (tests/triage/corpus/*.txt: real pastes of every format) repeated
# until it is 200 KB, read as one file. Two baselines isolate the triage work from process
# start-up and loading the embedded matrix: `rocmcheck matrix version` (start-up + matrix) and
# `rocmcheck triage` on an empty file. Peak memory (max RSS) comes from GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine not found (apt-get install hyperfine)" >&2; exit 2; }
cargo build --release --quiet
RC=target/release/rocmcheck
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BIG=$TMP/paste-200k.txt
benches/paste-200k.sh "$BIG"
: > "$TMP/empty.txt"
echo "paste: $(stat -c %s "$BIG") bytes, $(wc -l < "$BIG") lines"
mkdir -p benches/results
hyperfine -N -i --warmup 5 --runs 50 \
  --export-json benches/results/triage.json --export-markdown benches/results/triage.md \
  -n "matrix version (start-up + matrix)" "$RC matrix version" \
  -n "triage empty file" "$RC triage --format json $TMP/empty.txt" \
  -n "triage 200 KB paste" "$RC triage --format json $BIG" \
  -n "triage 200 KB paste --facts" "$RC triage --facts $BIG"
cat benches/results/triage.md
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "max RSS, empty file: %M KiB" "$RC" triage --format json "$TMP/empty.txt" > /dev/null || true
  /usr/bin/time -f "max RSS, 200 KB paste: %M KiB" "$RC" triage --format json "$BIG" > /dev/null || true
  cat "$BIG" "$BIG" "$BIG" "$BIG" "$BIG" > "$TMP/1m.txt"
  /usr/bin/time -f "max RSS, 1 MB paste: %M KiB" "$RC" triage --format json "$TMP/1m.txt" > /dev/null || true
fi

# Issue 25: throughput on each reader's worst input (tests/triage/worst/*.txt grown to 1 MB and
# 10 MB by benches/worst-inputs.py), the fastest of WORST_RUNS (default 10) runs of the whole
# command (read, rules, JSON report): on a shared machine the fastest of three still moved a
# shape by 10-20 %. Written to benches/results/triage-worst.md.
python3 benches/worst-inputs.py "$TMP/w1" 1000000
python3 benches/worst-inputs.py "$TMP/w10" 10000000
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
