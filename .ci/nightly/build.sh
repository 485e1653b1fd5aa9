#!/usr/bin/env bash
# Nightly build-once step (one job per distinct image, before the smoke jobs): build the
# candidate once — reusing last night's layers (`--cache-from`) — and, with a registry, push it
# so that the smoke jobs of every gfx pull the very same image by digest. The reusable workflow
# runs this file (input build-once), and tests/nightly.rs runs the same file.
#
# Environment:
#   CANDIDATE        the candidate (required; from the exported builds)
#   ROCMCHECK        the rocmcheck binary (default: rocmcheck on PATH)
#   REGISTRY         a repository to push to (ghcr.io/your-org/gpu-candidates); empty: the
#                    image stays on this engine (build and smoke jobs share one Docker host)
#   PRUNE_AFTER      first remove rocmcheck's candidate images (not in use) older than this
#                    (a `docker image prune --filter until=` duration, 168h); empty: keep all
#   BUILT_DIR        where the outcome goes (default built): BUILT_DIR/<candidate>.env with
#                    `image=<tag>` and, when pushed, `ref=<repository>@sha256:…` (or `failed=1`)
#   LOG_DIR, POLICY, CANDIDATES_FILE, TAG_PREFIX   as for job.sh
# Exit: 0 built (or a build failure recorded: the smoke jobs rebuild to report it with its
# log); 2 rocmcheck or Docker failed.
set -euo pipefail
: "${CANDIDATE:?CANDIDATE is required}"
ROCMCHECK=${ROCMCHECK:-rocmcheck}
logs=${LOG_DIR:-logs}
built=${BUILT_DIR:-built}
mkdir -p "$logs" "$built"
env_file="$built/$CANDIDATE.env"
args=(build --filter "candidate=$CANDIDATE" --log-dir "$logs" --format json)
case "${POLICY:-current}" in
    all) args+=(--all) ;;
    all-on-sunday) if [ "$(date -u +%u)" = 7 ]; then args+=(--all); fi ;;
esac
if [ -n "${CANDIDATES_FILE:-}" ]; then args+=(--candidates-file "$CANDIDATES_FILE"); fi
if [ -n "${TAG_PREFIX:-}" ]; then args+=(--tag-prefix "$TAG_PREFIX"); fi
if [ -n "${PRUNE_AFTER:-}" ]; then
    # Before the build: an image rebuilt from cache keeps its old creation date, and must not
    # be pruned between this build and its smoke jobs.
    docker image prune --all --force --filter "label=org.rocmcheck.managed=1" --filter "until=$PRUNE_AFTER"
fi
remote=""
if [ -n "${REGISTRY:-}" ]; then
    remote="$REGISTRY:$(printf '%s' "$CANDIDATE" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-128)"
    # Last night's push of this candidate: its layers make an unchanged rebuild a cache hit.
    if docker pull --quiet "$remote" >/dev/null 2>&1; then args+=(--cache-from "$remote"); fi
fi
set +e
"$ROCMCHECK" "${args[@]}" > "$built/$CANDIDATE.build.json"
rc=$?
set -e
if [ "$rc" -ge 2 ]; then exit "$rc"; fi
tag=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["builds"][0]["tag"])' "$built/$CANDIDATE.build.json")
if [ "$rc" = 1 ]; then
    echo "::warning::$CANDIDATE did not build; its smoke jobs rebuild it to report build-failed with the log"
    printf 'image=%s\nfailed=1\n' "$tag" > "$env_file"
    exit 0
fi
printf 'image=%s\n' "$tag" > "$env_file"
if [ -n "$remote" ]; then
    docker tag "$tag" "$remote"
    docker push --quiet "$remote" >/dev/null
    ref=$(docker image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$remote" | grep -F "$REGISTRY@" | head -1)
    printf 'ref=%s\n' "$ref" >> "$env_file"
    echo "pushed $tag as $ref"
fi
cat "$env_file"
