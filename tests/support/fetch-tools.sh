#!/usr/bin/env bash
# fetch-tools.sh TOOL...   (TOOL: groff, objdump)
#
# Makes the command-line tools some tests need available WITHOUT installing a system package:
# for each TOOL missing from PATH, the Debian/Ubuntu packages that carry it (and the libraries
# it needs beyond a minimal system) are fetched with `apt-get download` (no root), unpacked with
# `dpkg-deb -x` into $ROCMCHECK_TEST_CACHE/tools (default ~/.cache/rocmcheck-tests/tools), and a
# wrapper that points the tool at its unpacked files is written to $ROCMCHECK_TEST_CACHE/tools/bin.
# Prints that bin folder on stdout (put it first on PATH); progress on stderr. A tool already on
# PATH is left alone (ROCMCHECK_FETCH_TOOLS_FORCE=1 fetches it anyway, to check this script).
# scripts/clean-test-cache.sh removes the folder.
set -euo pipefail

say() { printf 'fetch-tools: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

TEST_CACHE=${ROCMCHECK_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocmcheck-tests}
TOOLS="$TEST_CACHE/tools"
BIN="$TOOLS/bin"
mkdir -p "$BIN"

# unpack PKG...: each package's files under $TOOLS/root (once per package)
unpack() {
    local need=()
    for p in "$@"; do [ -f "$TOOLS/.unpacked-$p" ] || need+=("$p"); done
    [ "${#need[@]}" = 0 ] && return 0
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found: cannot fetch ${need[*]}"
    command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found: cannot unpack ${need[*]}"
    local dl
    dl=$(mktemp -d "$TOOLS/.dl.XXXXXX")
    say "fetching ${need[*]} (apt-get download)"
    (cd "$dl" && apt-get download -q "${need[@]}" >/dev/null 2>"$dl/apt.log") ||
        { cat "$dl/apt.log" >&2; rm -rf "$dl"; die "apt-get download ${need[*]} failed"; }
    for p in "${need[@]}"; do
        local deb
        deb=$(ls "$dl/${p}"_*.deb 2>/dev/null | head -n 1)
        [ -n "$deb" ] || { rm -rf "$dl"; die "no .deb for $p"; }
        dpkg-deb -x "$deb" "$TOOLS/root"
        : >"$TOOLS/.unpacked-$p"
    done
    rm -rf "$dl"
}

R="$TOOLS/root"
LIBS="$R/usr/lib/x86_64-linux-gnu:$R/usr/lib/$(uname -m)-linux-gnu:$R/usr/lib"
for tool in "$@"; do
    if [ -x "$BIN/$tool" ] || { [ -z "${ROCMCHECK_FETCH_TOOLS_FORCE:-}" ] && command -v "$tool" >/dev/null 2>&1; }; then
        continue
    fi
    case "$tool" in
        groff)
            unpack groff-base libuchardet0
            ver=$(ls "$R/usr/share/groff" | grep -E '^[0-9]' | head -n 1)
            [ -n "$ver" ] || die "groff-base unpacked without /usr/share/groff/VERSION"
            cat >"$BIN/groff" <<WRAP
#!/bin/sh
# groff from $R (written by tests/support/fetch-tools.sh)
LD_LIBRARY_PATH="$LIBS\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" \\
GROFF_BIN_PATH="$R/usr/bin" \\
GROFF_FONT_PATH="$R/usr/share/groff/$ver/font:$R/usr/share/groff/site-font" \\
GROFF_TMAC_PATH="$R/usr/share/groff/$ver/tmac:$R/usr/share/groff/site-tmac:$R/etc/groff" \\
exec "$R/usr/bin/groff" "\$@"
WRAP
            ;;
        objdump)
            unpack binutils-x86-64-linux-gnu libbinutils libctf0 libctf-nobfd0 libgprofng0 libjansson4
            real=$(ls "$R"/usr/bin/*-linux-gnu-objdump 2>/dev/null | head -n 1)
            [ -n "$real" ] || die "no objdump among the unpacked binutils"
            cat >"$BIN/objdump" <<WRAP
#!/bin/sh
# objdump from $R (written by tests/support/fetch-tools.sh)
LD_LIBRARY_PATH="$LIBS\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$real" "\$@"
WRAP
            ;;
        *) die "unknown tool $tool (known: groff, objdump)" ;;
    esac
    chmod +x "$BIN/$tool"
    "$BIN/$tool" --version >/dev/null 2>&1 || die "$tool from $R does not run"
    say "$tool from the cache: $("$BIN/$tool" --version 2>&1 | head -n 1)"
done
printf '%s\n' "$BIN"
