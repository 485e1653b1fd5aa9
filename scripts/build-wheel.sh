#!/usr/bin/env bash
# Builds the rocmcheck wheel (manylinux2014, glibc 2.17) with maturin + zig, tools in a venv under
# target/ (nothing system-wide). Prints the wheel's path on the last line.
#   scripts/build-wheel.sh [ARCH] [--sdist]      ARCH: x86_64 (default) or aarch64
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/tools-venv.sh
. scripts/tools-venv.sh
out="${CARGO_TARGET_DIR:-target}/wheels"
mkdir -p "$out"
arch=x86_64
sdist=()
for a in "$@"; do
    case "$a" in
        --sdist) sdist=(--sdist) ;;
        x86_64 | aarch64) arch=$a ;;
        *) echo "usage: $0 [x86_64|aarch64] [--sdist]" >&2; exit 2 ;;
    esac
done
triple="$arch-unknown-linux-gnu"
rustup target list --installed 2>/dev/null | grep -qx "$triple" || rustup target add "$triple" >&2
"$VENV/bin/maturin" build --release --locked --zig --compatibility manylinux2014 --target "$triple" \
    --out "$out" "${sdist[@]}" >&2
ls -t "$out"/rocmcheck-*manylinux*"$arch".whl | head -1
