#!/usr/bin/env bash
# The matrix data of a night: the export job resolves it once (DATA: newest, embedded or a data
# serial, as the lint action's `data:` input), and every other job of the night pins the serial
# the export found (SERIAL), so that the job list and the jobs read the same data. The reusable
# workflow runs this file, and tests/ci_actions.rs runs the same file against signed bundles
# served on 127.0.0.1.
#
# Environment:
#   ROCMCHECK   the rocmcheck binary (default: rocmcheck on PATH)
#   DATA        the export job: newest (default) | embedded | a data serial (digits)
#   SERIAL      any other job: the export's serial (set, even empty, selects this mode); digits
#               pin that bundle (ROCMCHECK_DATA_SERIAL, so every command refuses other data);
#               anything else (`none`: the export ran on the binary's data) is the binary's data
#   DATA_FROM   a mirror URL or bundle file (`matrix update --from`; {serial} is replaced)
#   ROCMCHECK_CACHE_DIR  the data cache (default $RUNNER_TEMP/rocmcheck-data: this job only)
# Writes ROCMCHECK_CACHE_DIR (and ROCMCHECK_DATA_SERIAL when pinned) to $GITHUB_ENV and
# serial=<N|none> to $GITHUB_OUTPUT when they are set; prints `rocmcheck matrix version`.
# Exit 2: a pinned serial that cannot be installed (no fallback to other data).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${ROCMCHECK:-$(command -v rocmcheck || echo rocmcheck)}
cache=${ROCMCHECK_CACHE_DIR:-${RUNNER_TEMP:-.}/rocmcheck-data}
export ROCMCHECK_CACHE_DIR="$cache"
if [ -n "${SERIAL+set}" ]; then
    case "$SERIAL" in
        "" | *[!0-9]*) data=embedded ;;
        *) data=$SERIAL ;;
    esac
else
    data=${DATA:-newest}
fi
out=$(ROCMCHECK_WARN_PREFIX="${ROCMCHECK_WARN_PREFIX:-::warning::}" sh "$here/../../scripts/rocmcheck-data.sh" "$bin" "$data" "${DATA_FROM:-}")
printf '%s\n' "$out"
serial=$(printf '%s\n' "$out" | sed -n 's/^serial //p')
if [ -n "${GITHUB_ENV:-}" ]; then
    echo "ROCMCHECK_CACHE_DIR=$cache" >> "$GITHUB_ENV"
    case "$data" in *[!0-9]* | "") ;; *) echo "ROCMCHECK_DATA_SERIAL=$data" >> "$GITHUB_ENV" ;; esac
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "serial=${serial:-none}" >> "$GITHUB_OUTPUT"; fi
