#!/usr/bin/env bash
# Writes the benchmarks' 200 KB paste to $1: the triage corpus (tests/triage/corpus/*.txt, real
# pastes of every format) repeated and cut at 204,800 bytes. Used by benches/triage.sh and
# benches/instructions.sh so that both measure the same input.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: benches/paste-200k.sh OUT}
: > "$OUT"
while [ "$(stat -c %s "$OUT")" -lt 204800 ]; do cat tests/triage/corpus/*.txt >> "$OUT"; done
head -c 204800 "$OUT" > "$OUT.cut" && mv "$OUT.cut" "$OUT"
