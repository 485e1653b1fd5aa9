#!/usr/bin/env bash
# `rocmcheck lint --fix` vs plain `rocmcheck lint` on the batch benchmark (tests/corpus repeated
# 20 times, as in benches/lint-vs-hadolint.sh). Goal (issue 12): --fix within 2x plain lint.
#
#   apt-get install hyperfine
#   benches/fix-batch.sh        # writes benches/results/fix-batch.{json,md} and prints the ratio
#
# --fix writes files, so each --fix run gets a fresh copy of the batch (hyperfine --prepare,
# not timed). --unsafe-fixes is measured too: it applies the most edits (more lint passes).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine not found (apt-get install hyperfine)" >&2; exit 2; }
cargo build --release --quiet
RC=$PWD/target/release/rocmcheck
mapfile -t FILES < <(ls tests/corpus/*Dockerfile* | sort)
SRC=$(mktemp -d)
WORK=$(mktemp -d)
trap 'rm -rf "$SRC" "$WORK"' EXIT
for i in $(seq 1 20); do for f in "${FILES[@]}"; do cp "$f" "$SRC/$i-$(basename "$f")"; done; done
NB=$(ls "$SRC" | wc -l)
mkdir -p benches/results
hyperfine -N -i --warmup 2 --runs 15 \
  --prepare "rm -rf $WORK/b && cp -r $SRC $WORK/b" \
  --export-json benches/results/fix-batch.json --export-markdown benches/results/fix-batch.md \
  -n "lint ($NB files)" "$RC lint --format json $WORK/b" \
  -n "lint --fix ($NB files)" "$RC lint --format json --fix $WORK/b" \
  -n "lint --unsafe-fixes ($NB files)" "$RC lint --format json --unsafe-fixes $WORK/b" \
  -n "lint --diff ($NB files)" "$RC lint --diff --unsafe-fixes $WORK/b"
# how much each run actually changed
rm -rf "$WORK/b" && cp -r "$SRC" "$WORK/b"
"$RC" lint --unsafe-fixes --fix-only "$WORK/b" 2>&1 | tail -1
echo "rocmcheck $($RC --version); $(nproc) CPUs; $(uname -srm)"
python3 - <<'PY'
import json
r = json.load(open("benches/results/fix-batch.json"))["results"]
base = r[0]["mean"]
for x in r:
    print(f"| {x['command']} | {x['mean']*1e3:.1f} ms ± {x['stddev']*1e3:.1f} | {x['mean']/base:.2f}x |")
PY
