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
exec "$bin" lint "$@"
