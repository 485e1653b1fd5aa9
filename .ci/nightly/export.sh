#!/usr/bin/env bash
# Nightly step 1 (the export job): the list of jobs, one per candidate × gfx target, as a GitHub
# Actions strategy matrix. The reusable workflow (.github/workflows/rocmcheck-nightly.yml) runs
# this file, and tests/nightly.rs runs the same file, so the two cannot drift.
#
# Environment (all optional):
#   ROCMCHECK        the rocmcheck binary (default: rocmcheck on PATH)
#   TARGETS          gfx targets, space separated (default: .rocmcheck.yaml `targets:`, else all)
#   FILTERS          candidate filters KEY=VALUE, space separated (torch=2.9 rocm=7.1 …)
#   RUNNER_LABEL     runner label pattern (default gpu-{gfx})
#   AVAILABLE        runner labels that have runners, space or comma separated (default: all);
#                    jobs for other labels are left out rather than queued for a day
#   POLICY           current (the first answers of the ranking for the targets; default) | all (every release) |
#                    all-on-sunday (current on weekdays, all on Sundays, UTC)
#   CANDIDATES_FILE  take the candidates from this file instead of the matrix
#   TAG_PREFIX       repository part of the candidate image tags
#   MATRIX_FILE      where to write the matrix (default matrix.json)
#   BUILDS_FILE      where to write the distinct images to build once (default builds.json)
# Writes `matrix`, `count` and `builds` to $GITHUB_OUTPUT when it is set. Exit 1: no job; 2: refused
# (bad input, or past GitHub's 256-job limit: the message says how to narrow it).
set -euo pipefail
ROCMCHECK=${ROCMCHECK:-rocmcheck}
out=${MATRIX_FILE:-matrix.json}
default_label='gpu-{gfx}'
args=(matrix export --format github-matrix --runner-label "${RUNNER_LABEL:-$default_label}")
case "${POLICY:-current}" in
    current) ;;
    all) args+=(--all) ;;
    all-on-sunday) if [ "$(date -u +%u)" = 7 ]; then args+=(--all); fi ;;
    *) echo "::error::POLICY must be current, all or all-on-sunday (got '${POLICY}')"; exit 2 ;;
esac
for g in ${TARGETS:-}; do args+=(--gfx "$g"); done
for f in ${FILTERS:-}; do args+=(--filter "$f"); done
available=$(printf '%s' "${AVAILABLE:-}" | tr ' ' ',' | sed 's/,,*/,/g; s/^,//; s/,$//')
if [ -n "$available" ]; then args+=(--available "$available"); fi
if [ -n "${CANDIDATES_FILE:-}" ]; then args+=(--candidates-file "$CANDIDATES_FILE"); fi
if [ -n "${TAG_PREFIX:-}" ]; then args+=(--tag-prefix "$TAG_PREFIX"); fi
"$ROCMCHECK" "${args[@]}" > "$out"
# The distinct images of those jobs, for a build-once job before the smoke jobs.
builds_out=${BUILDS_FILE:-builds.json}
"$ROCMCHECK" "${args[@]/github-matrix/github-builds}" > "$builds_out"
count=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["include"]))' "$out")
echo "jobs: $count"
if [ "$count" = 0 ]; then
    echo "::error::the matrix export has no jobs (targets, filters and available runner labels leave nothing)"
    exit 1
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "matrix=$(cat "$out")"
        echo "count=$count"
        echo "builds=$(cat "$builds_out")"
    } >> "$GITHUB_OUTPUT"
fi
