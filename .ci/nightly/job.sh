#!/usr/bin/env bash
# Nightly step 2 (one job per candidate × gfx, on a runner with that gfx's label): pre-flight the
# runner, then build and smoke the candidate. The reusable workflow runs this file, and
# tests/nightly.rs runs the same file.
#
# Environment:
#   CANDIDATE, GFX   the job (required; from the exported matrix)
#   ROCMCHECK        the rocmcheck binary (default: rocmcheck on PATH)
#   RESULTS_DIR      where the result goes (default results): RESULTS_DIR/<candidate>@<gfx>.json
#   LOG_DIR          build logs and the pre-flight facts (default logs)
#   RUNNER_ROOT      the root the pre-flight probes (default /; a captured tree in tests)
#   PREFLIGHT        auto (default: on, except with a remote DOCKER_HOST — tcp:// or ssh:// —
#                    where the GPU is on the engine's host, not this runner), on, off
#   ROCMCHECK_GPU    the render-node index this runner owns on a shared multi-GPU host (set in
#                    the runner's .env); the container then gets that GPU only
#   POLICY, CANDIDATES_FILE, TAG_PREFIX   as for export.sh (the same candidate set)
#   SMOKE_ARGS       extra `rocmcheck smoke` arguments, space separated
#   BUILT_ENV        build once: the build job's BUILT_DIR/<candidate>.env (build.sh): the
#                    image is pulled by digest when it was pushed, and smoked without building;
#                    when it is absent or its build failed, the job builds as without it
# Exit: 0 the job ran (whatever the candidate did: the report job judges) or the runner is
# misconfigured (a runner-misconfigured result is written; an ::error:: says so); 2 rocmcheck
# could not run the job (its result file may be empty: the report records it as missing).
set -euo pipefail
: "${CANDIDATE:?CANDIDATE is required}" "${GFX:?GFX is required}"
ROCMCHECK=${ROCMCHECK:-rocmcheck}
results=${RESULTS_DIR:-results}
logs=${LOG_DIR:-logs}
mkdir -p "$results" "$logs"
file="$results/$CANDIDATE@$GFX.json"
facts="$logs/preflight-$CANDIDATE@$GFX.json"

# 1. Pre-flight: the runner's own facts against what the job needs (/dev/kfd, a render node, a
#    GPU of this gfx, the GPU it was told to use). A misconfigured runner is an infrastructure
#    result, not a finding about the candidate.
preflight=${PREFLIGHT:-auto}
if [ "$preflight" = auto ]; then
    case "${DOCKER_HOST:-}" in
        tcp://* | ssh://* | http://* | https://*) preflight=off ;;
        *) preflight=on ;;
    esac
fi
rc=0
if [ "$preflight" = on ]; then
    "$ROCMCHECK" env --root "${RUNNER_ROOT:-/}" --no-python --facts > "$facts"
    set +e
    "$ROCMCHECK" report preflight "$facts" --candidate "$CANDIDATE" --gfx "$GFX" -o "$file"
    rc=$?
    set -e
else
    echo "pre-flight skipped (PREFLIGHT=${PREFLIGHT:-auto}, DOCKER_HOST=${DOCKER_HOST:-})"
fi
if [ "$rc" = 1 ]; then
    echo "::error::runner ${RUNNER_NAME:-?} is misconfigured for $GFX: $CANDIDATE not run (see $file)"
    exit 0
elif [ "$rc" != 0 ]; then
    exit "$rc"
fi

# 2. Build (cached layers make an unchanged candidate quick) and smoke. A failed build is a
#    build-failed result, not a job error. Built once already: pull by digest, smoke only.
args=(smoke --candidates --filter "candidate=$CANDIDATE" --filter "gfx=$GFX" --gfx "$GFX"
    --log-dir "$logs" --format json)
if [ -n "${BUILT_ENV:-}" ] && [ -f "$BUILT_ENV" ] && ! grep -q '^failed=1' "$BUILT_ENV"; then
    image=$(sed -n 's/^image=//p' "$BUILT_ENV")
    ref=$(sed -n 's/^ref=//p' "$BUILT_ENV")
    if [ -n "$ref" ] && ! { docker pull --quiet "$ref" >/dev/null && docker tag "$ref" "$image"; }; then
        echo "::warning::could not pull $ref: building $CANDIDATE here instead"
    else
        echo "built once: smoking $image${ref:+ (pulled as $ref)} without building"
        args+=(--no-build)
    fi
fi
case "${POLICY:-current}" in
    all) args+=(--all) ;;
    all-on-sunday) if [ "$(date -u +%u)" = 7 ]; then args+=(--all); fi ;;
esac
if [ -n "${ROCMCHECK_GPU:-}" ]; then args+=(--gpus "$ROCMCHECK_GPU"); fi
if [ -n "${CANDIDATES_FILE:-}" ]; then args+=(--candidates-file "$CANDIDATES_FILE"); fi
if [ -n "${TAG_PREFIX:-}" ]; then args+=(--tag-prefix "$TAG_PREFIX"); fi
read -r -a extra <<< "${SMOKE_ARGS:-}"
set +e
"$ROCMCHECK" "${args[@]}" "${extra[@]}" > "$file"
rc=$?
set -e
echo "smoke of $CANDIDATE on $GFX exited $rc"
if [ "$rc" -ge 2 ]; then exit "$rc"; fi
