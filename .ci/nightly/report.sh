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
#   FAIL_ON_INFRASTRUCTURE  true: infrastructure results (lost jobs, misconfigured runners,
#                  vanished jobs) fail the night too; default: reported in their own section
#   WATCH          candidate patterns (globs, space separated) whose jobs are reported in a Watch
#                  section and never fail the night (pre-release channels, experiments)
#   EXPORT_RESULT  the export job's result (`success`, `failure`, …); anything but success:
#                  no job list, so no job ran: a red infrastructure night, said in the summary
#                  (rocmcheck is not needed then)
#   RUN_URL        the workflow run, named in that message (optional)
#   TREND_NIGHTS   nights in the trend table, tonight included (default 7)
#   OUT_DIR        where current.json, junit.xml, gate.json and summary.md go (default .)
#   GITHUB_STEP_SUMMARY  the summary is appended there too when set
# Exit: 0 the night passes the gate; 1 it fails (the summary says why); 2 rocmcheck failed.
set -euo pipefail
ROCMCHECK=${ROCMCHECK:-rocmcheck}
out=${OUT_DIR:-.}
mkdir -p "$out"
summary="$out/summary.md"
: > "$summary"

if [ -n "${EXPORT_RESULT:-}" ] && [ "$EXPORT_RESULT" != success ]; then
    {
        echo "## rocmcheck nightly: infrastructure failure"
        echo
        echo "The export job ended \`$EXPORT_RESULT\`: no job list, so no candidate was built or smoked tonight."
        echo "This is not a product regression. See the export job's log${RUN_URL:+: $RUN_URL}"
        echo "(a matrix export with no job — targets, filters and available runner labels leaving nothing — ends this way too)."
    } > "$summary"
    printf '{"fails": true, "reasons": ["the export job ended %s: no job ran"], "infrastructure": [], "outages": [], "product": [], "watch": []}\n' \
        "$EXPORT_RESULT" > "$out/gate.json"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$summary" >> "$GITHUB_STEP_SUMMARY"; fi
    echo "::error::the export job ended $EXPORT_RESULT: no job ran tonight (infrastructure)" >&2
    exit 1
fi

mapfile -t files < <(find "${RESULTS_DIR:-results}" -type f -name '*.json' ! -name 'preflight-*' 2>/dev/null | sort)
merge=(report merge -o "$out/current.json")
if [ -n "${MATRIX_FILE:-}" ]; then merge+=(--expect "$MATRIX_FILE"); fi
"$ROCMCHECK" "${merge[@]}" "${files[@]}"
"$ROCMCHECK" report render "$out/current.json" --format markdown >> "$summary"

previous=()
if [ -n "${PREVIOUS_DIR:-}" ] && [ -d "$PREVIOUS_DIR" ]; then
    mapfile -t previous < <(find "$PREVIOUS_DIR" -mindepth 2 -maxdepth 2 -name current.json | sort)
fi
gate=(report gate "$out/current.json" --junit "$out/junit.xml")
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
case "${FAIL_ON_INFRASTRUCTURE:-false}" in
    true | 1 | yes) gate+=(--fail-on-infrastructure) ;;
    false | 0 | no | "") ;;
    *) echo "::error::FAIL_ON_INFRASTRUCTURE must be true or false (got '${FAIL_ON_INFRASTRUCTURE}')" >&2; exit 2 ;;
esac
read -r -a watch <<< "${WATCH:-}" # `read` splits without expanding globs
for w in "${watch[@]}"; do gate+=(--watch "$w"); done
echo >> "$summary"
set +e
"$ROCMCHECK" "${gate[@]}" >> "$summary"
rc=$?
# The same verdict as JSON, for the workflow (the infrastructure issue) and for tools.
"$ROCMCHECK" "${gate[@]}" --format json > "$out/gate.json" 2>/dev/null
set -e
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$summary" >> "$GITHUB_STEP_SUMMARY"; fi
exit "$rc"
