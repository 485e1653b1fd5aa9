#!/usr/bin/env bash
# Portable Linux release binaries (x86_64 statically linked; aarch64 at a glibc 2.17 baseline), packed as
#   DIST/rocmcheck-VERSION-ARCH-unknown-linux-gnu.tar.gz (+ .sha256)
# each holding the binary, README.md, completions/ (bash zsh fish powershell elvish) and man/,
# and the bare binary DIST/rocmcheck-ARCH-unknown-linux-gnu (+ .sha256).
#
# The binary is the one in the manylinux2014 wheel (scripts/build-wheel.sh: x86_64 statically
# linked; aarch64 through maturin --zig at glibc 2.17; stripped): one release build serves
# the wheel and the tarball, instead of two cold builds with different linker wrappers (cargo
# would rebuild every crate that compiles C, ring included, and all that depend on them).
#
#   scripts/build-portable.sh [ARCH...]      ARCH: x86_64 (default), aarch64
#   DIST defaults to target/dist. The last line printed is DIST.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
DIST="${DIST:-$TARGET_DIR/dist}"
mkdir -p "$DIST"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
[ $# -gt 0 ] || set -- x86_64
host_arch="$(uname -m)"

# The binary inside a wheel: rocmcheck-VERSION.data/scripts/rocmcheck.
extract() { # WHEEL DEST
    "${PYTHON:-python3}" - "$1" "$2" "rocmcheck-$version.data/scripts/rocmcheck" <<'PYEOF'
import os, shutil, sys, zipfile
whl, dest, member = sys.argv[1:4]
with zipfile.ZipFile(whl) as z, z.open(member) as src, open(dest + ".tmp", "wb") as out:
    shutil.copyfileobj(src, out)
os.chmod(dest + ".tmp", 0o755)
os.replace(dest + ".tmp", dest)
PYEOF
}

binary_for() { # ARCH -> path of its portable binary (cargo makes the rebuild a no-op)
    local arch=$1 dir="$TARGET_DIR/portable/$1-unknown-linux-gnu" whl
    mkdir -p "$dir"
    echo "scripts/build-wheel.sh $arch (maturin, manylinux2014)" >&2
    whl="$(scripts/build-wheel.sh "$arch" | tail -1)"
    extract "$whl" "$dir/rocmcheck"
    printf '%s\n' "$dir/rocmcheck"
}

for arch in "$@"; do
    case "$arch" in
        x86_64 | aarch64) ;;
        *) echo "usage: $0 [x86_64] [aarch64]" >&2; exit 2 ;;
    esac
    triple="$arch-unknown-linux-gnu"
    bin="$(binary_for "$arch")"
    name="rocmcheck-$version-$triple"
    stage="$(mktemp -d)"
    mkdir -p "$stage/$name/completions" "$stage/$name/man"
    cp "$bin" README.md "$stage/$name/"
    # completions and man pages come from a binary this machine can run (the host's)
    gen="$bin"
    [ "$arch" = "$host_arch" ] || gen="$(binary_for "$host_arch")"
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
