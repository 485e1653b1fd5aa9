#!/usr/bin/env bash
# Peak memory (maximum resident set size, /usr/bin/time -v) and wall time of each command on
# its worst input shape for memory, at (or just under) the command's size limit; prints a
# Markdown table. The shapes come from `benches/worst-inputs.py --memory DIR` (see there).
# Also times lint of the worst YAML shape that is accepted (flow collections nested 64 deep,
# the most the YAML pre-scan lets through) per MB.
#
#   cargo build --release
#   benches/peak-memory.sh [BIN] [DIR]      # BIN: target/release/rocmcheck, DIR: a temp dir
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/rocmcheck}
BIN=$(realpath "$BIN")
DIR=${2:-$(mktemp -d)}
[ -e "$DIR/night.json" ] || python3 benches/worst-inputs.py --memory "$DIR"
# the worst accepted YAML: a compose file of many keys, each a flow sequence nested 64 deep
python3 - "$DIR/compose.yaml" <<'PY'
import sys
unit = "[" * 64 + "1" + "]" * 64
parts, n, total = ["services:\n  app:\n    image: rocm/pytorch:latest\n"], 0, 0
while total < (1 << 20) - 4096:
    s = f"x-n{n}: {unit}\n"
    parts.append(s); total += len(s); n += 1
open(sys.argv[1], "w").write("".join(parts))
PY
cd "$DIR"
row() {
  local label=$1; shift
  local rc=0
  /usr/bin/time -v -o time.txt "$BIN" "$@" > out.bin 2> err.txt || rc=$?
  local kb wall cpu
  kb=$(awk '/Maximum resident/ {print $NF}' time.txt)
  wall=$(awk '/Elapsed \(wall/ {print $NF}' time.txt)
  cpu=$(awk '/User time|System time/ {s += $NF} END {printf "%.2f", s}' time.txt)
  printf '| %s | `%s` | %d MiB | %s s | %s | %d | %d |\n' "$label" "rocmcheck $*" $((kb / 1024)) "$cpu" "$wall" "$rc" "$(stat -c %s out.bin)"
}
echo "| shape | command | peak RSS | CPU (user+sys) | wall | exit | stdout bytes |"
echo "|---|---|---|---|---|---|---|"
row "33 MB, 1M identical lines" triage --facts hsa-1m.txt
row "33 MB, CR-only line ends" triage --facts hsa-1m-cr.txt
row "66 MB, 2M identical lines" triage --format markdown hsa-64m.txt
row "66 MB, 2M identical lines" triage --format json hsa-64m.txt
row "66 MB, 2M identical lines" triage --format human hsa-64m.txt
row "64 MiB, 2.3M different settings" triage --facts env-distinct.txt
row "64 MiB, 2.3M different settings" triage --format markdown env-distinct.txt
row "16 MiB uv.lock of inline tables" lint --context lock lock/Dockerfile
row "64 MiB night of full results" report merge night.json
row "200k minimal results" report merge night-min.json
row "64 MiB of 256-byte ids" report merge night-long.json
row "64 MiB of 64-step results" report merge night-steps.json
row "two 64 MiB nights" report gate night.json --previous night-prev.json
row "64-step night, 256-byte-id previous" report gate night-steps.json --previous night-long.json
row "64 MiB of 256-byte ids, rendered" report render night-long.json --format markdown
row "64-step night, 256-byte-id previous, markdown" report gate night-steps.json --previous night-long.json --format markdown
row "two 64 MiB nights, JUnit" report gate night.json --previous night-prev.json --junit junit.xml
row "two 64 MiB nights of 256-byte ids (the trend's limit)" report trend night-long.json night-steps.json
row "diff of a 64-step night against 256-byte ids" report diff night-long.json night-steps.json
row "1 MiB compose, flow nesting 64 deep" lint compose.yaml
echo
echo "compose.yaml: $(stat -c %s compose.yaml) bytes"
