#!/bin/sh
# Brings rocmcheck's matrix data up to date before a run: used by the GitHub Action
# (.github/actions/rocmcheck-lint, rocmcheck-triage), the pre-commit hook
# (scripts/pre-commit-lint.sh) and the devcontainer Feature (a byte-for-byte copy in
# features/src/rocmcheck/, which is packaged alone; tests/ci_actions.rs keeps the two equal).
#
#   rocmcheck-data.sh ROCMCHECK [DATA [FROM]]
#
# DATA  ""/newest (default): `rocmcheck matrix update`. A failure (network down, no release yet,
#       a bad signature) is one warning line and exit 0: the run goes on with the data at hand
#       (the cache's, else the binary's own), and the report stamps say which.
#       embedded: no download: the data of the binary (and a cache already there).
#       N (a data serial, digits): `rocmcheck matrix update --serial N`: exactly that bundle,
#       older than the cache's or not. A failure is exit 2: a pinned run never falls back to
#       other data. Run the commands with ROCMCHECK_DATA_SERIAL=N (or --data-serial N) so that
#       they too refuse any other data.
# FROM  a mirror URL or a bundle file (`--from`; `{serial}` in it is replaced by N); default:
#       $ROCMCHECK_DATA_FROM, else the project's data release.
#
# The data goes into $ROCMCHECK_CACHE_DIR (callers in CI set a run-specific one), else the user
# cache. ROCMCHECK_WARN_PREFIX prefixes the warning (`::warning::` in GitHub Actions). Prints
# `rocmcheck matrix version` (schema, data, serial, source) at the end, on stdout.
set -u
bin=${1:?usage: rocmcheck-data.sh ROCMCHECK [newest|embedded|SERIAL [FROM]]}
data=${2:-}
from=${3:-${ROCMCHECK_DATA_FROM:-}}
warn=${ROCMCHECK_WARN_PREFIX:-"warning: "}
set -- matrix update
if [ -n "$from" ]; then set -- "$@" --from "$from"; fi
case "$data" in
    "" | newest)
        # An inherited pin must not turn "newest" into a pinned update.
        if ! env -u ROCMCHECK_DATA_SERIAL "$bin" "$@" >&2; then
            echo "${warn}rocmcheck matrix update failed (see above): going on with the data at hand" >&2
        fi
        env -u ROCMCHECK_DATA_SERIAL "$bin" matrix version
        ;;
    embedded)
        env -u ROCMCHECK_DATA_SERIAL "$bin" matrix version
        ;;
    *[!0-9]*)
        echo "error: the data to use must be newest, embedded or a data serial (digits), not '$data'" >&2
        exit 2
        ;;
    *)
        if ! "$bin" "$@" --serial "$data" >&2; then
            echo "error: cannot install data serial $data (see above); a pinned run does not fall back to other data" >&2
            exit 2
        fi
        ROCMCHECK_DATA_SERIAL=$data "$bin" matrix version || exit 2
        ;;
esac
