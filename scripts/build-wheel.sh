#!/usr/bin/env bash
# Builds the rocmcheck wheel (manylinux2014) with maturin, tools in a venv under target/ (nothing
# system-wide). Prints the wheel's path on the last line.
#
# x86_64: a statically linked binary (glibc linked in, `-C target-feature=+crt-static`, at a fixed
# address), so it needs no glibc at all on the machine it runs on and starts without the dynamic
# loader (one-file lint is compared with hadolint; a dynamic build's loading alone takes ~0.4 ms
# of a ~2 ms run). rocmcheck makes no NSS call but DNS (built into glibc for `files dns` since
# 2.34) and loads no library at run time. aarch64: maturin --zig at glibc 2.17 (a static build
# needs an aarch64 C toolchain with a static glibc).
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
if [ "$arch" = x86_64 ] && [ "$(uname -m)" = x86_64 ]; then
    # --target: RUSTFLAGS then reach what is built for the target, not build scripts or proc-macros
    # (which cannot be linked statically)
    RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
        "$VENV/bin/maturin" build --release --locked --compatibility manylinux2014 --target "$triple" \
        --out "$out" "${sdist[@]}" >&2
else
    "$VENV/bin/maturin" build --release --locked --zig --compatibility manylinux2014 --target "$triple" \
        --out "$out" "${sdist[@]}" >&2
fi
ls -t "$out"/rocmcheck-*manylinux*"$arch".whl | head -1
