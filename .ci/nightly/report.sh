#!/usr/bin/env bash
# Nightly step 3 (the report job): merge the jobs' results, write the step summary (results,
# diff against the previous night, trend of the last nights, gate) and JUnit, and judge the
# night. The reusable workflow runs this file, and tests/nightly.rs runs the same file.
#
# Environment:
#   ROCMCHECK      the rocmcheck binary (default: rocmcheck on PATH)
#   RESULTS_DIR    the jobs' result files, searched recursively (default results)
#   MATRIX_FILE    the exported matrix: a job with no result file at all is `missing` (optional)
#   PREVIOUS_DIR   earlier nights' runs, one folder per night (named so that they sort oldest
#                  first, e.g. by run number), each with current.json (optional)
#   ALLOW_FILE     the allow-list for the gate (optional; see `rocmcheck report gate --help`)
#   TREND_NIGHTS   nights in the trend table, tonight included (default 7)
#   OUT_DIR        where current.json, junit.xml and summary.md go (default .)
#   GITHUB_STEP_SUMMARY  the summary is appended there too when set
# Exit: 0 the night passes the gate; 1 it fails (the summary says why); 2 rocmcheck failed.
set -euo pipefail
ROCMCHECK=${ROCMCHECK:-rocmcheck}
out=${OUT_DIR:-.}
mkdir -p "$out"
summary="$out/summary.md"
: > "$summary"

mapfile -t files < <(find "${RESULTS_DIR:-results}" -type f -name '*.json' ! -name 'preflight-*' 2>/dev/null | sort)
merge=(report merge -o "$out/current.json")
if [ -n "${MATRIX_FILE:-}" ]; then merge+=(--expect "$MATRIX_FILE"); fi
"$ROCMCHECK" "${merge[@]}" "${files[@]}"
"$ROCMCHECK" report render "$out/current.json" --format markdown >> "$summary"
"$ROCMCHECK" report render "$out/current.json" --format junit > "$out/junit.xml"

previous=()
if [ -n "${PREVIOUS_DIR:-}" ] && [ -d "$PREVIOUS_DIR" ]; then
    mapfile -t previous < <(find "$PREVIOUS_DIR" -mindepth 2 -maxdepth 2 -name current.json | sort)
fi
gate=(report gate "$out/current.json")
if [ "${#previous[@]}" -gt 0 ]; then
    last="${previous[-1]}"
    { echo; echo "## Against the previous night"; echo; } >> "$summary"
    "$ROCMCHECK" report diff "$last" "$out/current.json" --format markdown >> "$summary"
    echo >> "$summary"
    "$ROCMCHECK" report trend "${previous[@]}" "$out/current.json" --last "${TREND_NIGHTS:-7}" --current-label tonight >> "$summary"
    gate+=(--previous "$last")
else
    { echo; echo "No previous night: this one sets the baseline."; } >> "$summary"
fi
if [ -n "${ALLOW_FILE:-}" ]; then gate+=(--allow "$ALLOW_FILE"); fi
echo >> "$summary"
set +e
"$ROCMCHECK" "${gate[@]}" >> "$summary"
rc=$?
set -e
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$summary" >> "$GITHUB_STEP_SUMMARY"; fi
exit "$rc"
