#!/usr/bin/env bash
# Portable Linux release binaries at a glibc 2.17 baseline (cargo-zigbuild; zig, maturin and
# cargo-zigbuild come from PyPI into a venv under target/, nothing system-wide), packed as
#   DIST/rocmcheck-VERSION-ARCH-unknown-linux-gnu.tar.gz (+ .sha256)
# each holding the binary, README.md, completions/ (bash zsh fish powershell elvish) and man/.
#
#   scripts/build-portable.sh [ARCH...]      ARCH: x86_64 (default), aarch64
#   DIST defaults to target/dist. The last line printed is DIST.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/tools-venv.sh
. scripts/tools-venv.sh
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
DIST="${DIST:-$TARGET_DIR/dist}"
mkdir -p "$DIST"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
[ $# -gt 0 ] || set -- x86_64
host_arch="$(uname -m)"
for arch in "$@"; do
    triple="$arch-unknown-linux-gnu"
    rustup target list --installed 2>/dev/null | grep -qx "$triple" || rustup target add "$triple" >&2
    echo "cargo zigbuild --release --locked --target $triple.2.17" >&2
    cargo zigbuild --release --locked --target "$triple.2.17" >&2
    bin="$TARGET_DIR/$triple/release/rocmcheck"
    name="rocmcheck-$version-$triple"
    stage="$(mktemp -d)"
    mkdir -p "$stage/$name/completions" "$stage/$name/man"
    cp "$bin" README.md "$stage/$name/"
    # completions and man pages come from a binary this machine can run (the host's build)
    gen="$bin"
    if [ "$arch" != "$host_arch" ]; then
        gen="$TARGET_DIR/$host_arch-unknown-linux-gnu/release/rocmcheck"
        [ -x "$gen" ] || cargo zigbuild --release --locked --target "$host_arch-unknown-linux-gnu.2.17" >&2
    fi
    for sh in bash zsh fish powershell elvish; do
        "$gen" completions "$sh" >"$stage/$name/completions/rocmcheck.$sh"
    done
    "$gen" man --out-dir "$stage/$name/man" >/dev/null
    tar -C "$stage" -czf "$DIST/$name.tar.gz" --owner=0 --group=0 "$name"
    cp "$bin" "$DIST/rocmcheck-$triple"
    (cd "$DIST" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256" &&
        sha256sum "rocmcheck-$triple" >"rocmcheck-$triple.sha256")
    if [ "$arch" = "$host_arch" ]; then
        # the completions and man pages alone, for packagers
        extra="rocmcheck-$version-completions-man"
        mkdir -p "$stage/$extra"
        cp -r "$stage/$name/completions" "$stage/$name/man" "$stage/$extra/"
        tar -C "$stage" -czf "$DIST/$extra.tar.gz" --owner=0 --group=0 "$extra"
        (cd "$DIST" && sha256sum "$extra.tar.gz" >"$extra.tar.gz.sha256")
    fi
    rm -rf "$stage"
    echo "built $DIST/$name.tar.gz ($(du -h "$bin" | cut -f1) binary)" >&2
done
echo "$DIST"
