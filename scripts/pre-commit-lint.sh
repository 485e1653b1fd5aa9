#!/usr/bin/env bash
# The `rocmcheck-lint` pre-commit hook: builds rocmcheck from the hook's own checkout once, with
# `cargo install --locked` (the tested Cargo.lock; pre-commit's `language: rust` cannot pass
# --locked, pre-commit/pre-commit#3162), into that checkout, then lints the files pre-commit
# passes. Later runs reuse the binary; a new `rev:` is a new checkout, so a new build.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/.pre-commit-bin/bin/rocmcheck"
if [ ! -x "$bin" ]; then
    command -v cargo >/dev/null 2>&1 || {
        echo "rocmcheck-lint: cargo is needed to build rocmcheck (or use the rocmcheck-lint-system hook, or the wheel/container hooks in the README)" >&2
        exit 2
    }
    cargo install --locked --quiet --path "$here" --root "$here/.pre-commit-bin" >&2
fi
# The newest matrix data, at most once a day (a hook runs on every commit; `matrix update` is a
# download): a failure is a warning and the lint goes on with the data at hand. A pin
# (`args: [--data-serial, "N"]` in .pre-commit-config.yaml, or ROCMCHECK_DATA_SERIAL=N) installs
# exactly serial N once, and lint then refuses any other data. ROCMCHECK_OFFLINE=1: no download.
serial=${ROCMCHECK_DATA_SERIAL:-}
prev=
for a in "$@"; do
    case "$a" in --data-serial=*) serial=${a#--data-serial=} ;; esac
    if [ "$prev" = --data-serial ]; then serial=$a; fi
    prev=$a
done
offline=${ROCMCHECK_OFFLINE:-}
case "$offline" in "" | 0 | false | no | off) offline= ;; esac
if [ -z "$offline" ]; then
    if [ -n "$serial" ]; then
        ROCMCHECK_DATA_SERIAL=$serial "$bin" matrix version >/dev/null 2>&1 ||
            bash "$here/scripts/rocmcheck-data.sh" "$bin" "$serial" >/dev/null
    else
        cache=${ROCMCHECK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rocmcheck}
        stamp="$cache/pre-commit-update.stamp"
        if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
            mkdir -p "$cache" && touch "$stamp"
            bash "$here/scripts/rocmcheck-data.sh" "$bin" newest >/dev/null
        fi
    fi
fi
exec "$bin" lint "$@"
