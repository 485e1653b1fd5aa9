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

# Throughput on each reader's worst input (benches/triage-worst.sh, with this binary).
RC="$RC" benches/triage-worst.sh
