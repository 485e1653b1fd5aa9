#!/usr/bin/env bash
# make-base-image.sh TAG [SUITE] [EXTRA_PACKAGES...]
#
# Builds a minimal Debian image for rocmcheck's tests without any container
# registry: debootstrap (variant minbase, plus python3 and EXTRA_PACKAGES) into
# a temporary folder, then `docker import` it as TAG, labelled
# org.rocmcheck.test=1.  Cached: if `docker image inspect TAG` succeeds,
# nothing is done.  Idempotent and safe to run concurrently (flock per tag).
#
# Installs nothing on the host: debootstrap (a shell-script package) is
# fetched as a .deb and unpacked with `dpkg-deb -x` into the tests' own cache
# folder, and run from there (DEBOOTSTRAP_DIR points it at its scripts).
# `scripts/clean-test-cache.sh` removes that folder and every labelled image.
#
# Environment:
#   ROCMCHECK_DEBIAN_MIRROR   mirror (default http://deb.debian.org/debian)
#   ROCMCHECK_TEST_CACHE      the tests' cache folder (default
#                             ${XDG_CACHE_HOME:-~/.cache}/rocmcheck-tests)
#   ROCMCHECK_DEBOOTSTRAP_CACHE  folder for downloaded .debs, reused between
#                             builds (default $ROCMCHECK_TEST_CACHE/debs)
#
# Images the tests use (build times measured 2026-11-22 on the developer
# machine, 2 cores, cold .deb cache unless noted):
#   make-base-image.sh rocmcheck-test/debian-python:bookworm bookworm
#       python3 only; 117 MB; 41 s.  The payload says runtime-missing.
#   make-base-image.sh rocmcheck-test/debian-hip:trixie trixie libamdhip64-5 libhipblas0
#       Debian's HIP 5.7 runtime and hipBLAS 5.5 (which pulls rocBLAS and
#       rocSOLVER: ~620 MB of .debs); 4.26 GB; 112 s.  The payload says
#       no-device with hipErrorNoDevice.  Bookworm has libamdhip64-5 (5.2.3)
#       but no libhipblas0, hence trixie.
#   make-base-image.sh rocmcheck-test/debian-hip-runtime:trixie trixie libamdhip64-5
#       lighter alternative without hipBLAS: 359 MB; 37 s (.debs cached).
#   A second call for an existing tag returns in ~0.02 s.
#
# Output: progress lines on stderr only; the full debootstrap log is printed
# only on failure.  Needs root (or passwordless sudo) for debootstrap, which
# makes device nodes and chroots into the new tree; wget or curl; dpkg-deb.
set -euo pipefail

say() { printf 'make-base-image: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -ge 1 ] || die "usage: $0 TAG [SUITE] [EXTRA_PACKAGES...]"
TAG=$1
SUITE=${2:-bookworm}
shift $(( $# >= 2 ? 2 : 1 ))
EXTRA=("$@")
MIRROR=${ROCMCHECK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
TEST_CACHE=${ROCMCHECK_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocmcheck-tests}
CACHE=${ROCMCHECK_DEBOOTSTRAP_CACHE:-$TEST_CACHE/debs}

# The debootstrap release run from the cache: bookworm's, fetched from the mirror's pool and
# checked against this digest (apt-get download of the host's own debootstrap is the fallback
# once the pool no longer has it; apt verifies that one against its signed index).
DBS_DEB=debootstrap_1.0.128+nmu2+deb12u2_all.deb
DBS_SHA256=63f354316e9bbe747b143b7b0d83e5f237c90314a17734fba9ff202c2ef02760

command -v docker >/dev/null 2>&1 || die "docker not found"

if docker image inspect "$TAG" >/dev/null 2>&1; then
    say "$TAG already present (cached)"
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "debootstrap needs root (or sudo)"
    SUDO=(sudo -n)
fi

# One build per tag at a time; a second caller waits, then finds the cache.
LOCKDIR=${TMPDIR:-/tmp}
LOCK="$LOCKDIR/rocmcheck-make-base-image.$(printf '%s' "$TAG" | tr -c 'A-Za-z0-9._-' '_').lock"
exec 9>"$LOCK"
if command -v flock >/dev/null 2>&1; then
    flock 9
    if docker image inspect "$TAG" >/dev/null 2>&1; then
        say "$TAG already present (built by a concurrent run)"
        exit 0
    fi
fi

# debootstrap, unpacked into $TEST_CACHE/debootstrap (once; a marker names the .deb it came from).
DBS_ROOT="$TEST_CACHE/debootstrap"
fetch() { # URL FILE
    if command -v curl >/dev/null 2>&1; then curl -fsSL --retry 2 -o "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
    else return 1; fi
}
if [ ! -f "$DBS_ROOT/.unpacked" ]; then
    command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found (needed to unpack debootstrap's .deb)"
    mkdir -p "$TEST_CACHE"
    DL=$(mktemp -d "$TEST_CACHE/.debootstrap-dl.XXXXXX")
    deb=""
    say "fetching $DBS_DEB into $DBS_ROOT"
    if fetch "$MIRROR/pool/main/d/debootstrap/$DBS_DEB" "$DL/$DBS_DEB" &&
        [ "$(sha256sum "$DL/$DBS_DEB" | cut -d' ' -f1)" = "$DBS_SHA256" ]; then
        deb="$DL/$DBS_DEB"
    elif command -v apt-get >/dev/null 2>&1 && (cd "$DL" && rm -f ./*.deb && apt-get download -q debootstrap >/dev/null 2>&1); then
        deb=$(ls "$DL"/debootstrap_*_all.deb 2>/dev/null | head -n 1)
        say "the mirror's pool lacks $DBS_DEB; using the host's ${deb##*/} (apt-get download)"
    fi
    [ -n "$deb" ] || { rm -rf "$DL"; die "cannot fetch debootstrap ($MIRROR/pool/main/d/debootstrap/$DBS_DEB, apt-get download)"; }
    rm -rf "$DBS_ROOT"
    dpkg-deb -x "$deb" "$DL/root" || { rm -rf "$DL"; die "dpkg-deb -x $deb failed"; }
    mv "$DL/root" "$DBS_ROOT"
    printf '%s\n' "${deb##*/}" >"$DBS_ROOT/.unpacked"
    rm -rf "$DL"
fi
DEBOOTSTRAP="$DBS_ROOT/usr/sbin/debootstrap"
DEBOOTSTRAP_DIR="$DBS_ROOT/usr/share/debootstrap"
[ -x "$DEBOOTSTRAP" ] && [ -f "$DEBOOTSTRAP_DIR/functions" ] || die "$DBS_ROOT does not hold debootstrap; remove it and retry"

# debootstrap downloads with wget; where only curl exists, a small wget stand-in (the two forms
# debootstrap uses: `wget [-nv|-q] [--...] -O FILE URL`) goes first on its PATH.
DBS_PATH=$PATH
if ! command -v wget >/dev/null 2>&1; then
    command -v curl >/dev/null 2>&1 || die "debootstrap needs wget or curl"
    mkdir -p "$TEST_CACHE/bin"
    cat >"$TEST_CACHE/bin/wget" <<'SHIM'
#!/bin/sh
# wget stand-in for debootstrap (written by tests/support/make-base-image.sh): -O FILE URL via curl
out=""; url=""
while [ $# -gt 0 ]; do
    case "$1" in
        -O) out=$2; shift ;;
        -*) ;;
        *) url=$1 ;;
    esac
    shift
done
[ -n "$url" ] || { echo "wget stand-in: no URL" >&2; exit 2; }
if [ -n "$out" ]; then exec curl -fsSL -o "$out" "$url"; else exec curl -fsSLO "$url"; fi
SHIM
    chmod +x "$TEST_CACHE/bin/wget"
    DBS_PATH="$TEST_CACHE/bin:$PATH"
fi

# An older debootstrap may not know a newer suite: use the sid script for it.
SCRIPT=()
if [ ! -e "$DEBOOTSTRAP_DIR/scripts/$SUITE" ]; then
    SCRIPT=("$DEBOOTSTRAP_DIR/scripts/sid")
fi

INCLUDE=python3
for p in "${EXTRA[@]}"; do INCLUDE="$INCLUDE,$p"; done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-base.XXXXXX")
cleanup() { "${SUDO[@]}" rm -rf "$WORK" 2>/dev/null || true; }
trap cleanup EXIT

start=$(date +%s)
say "building $TAG: debootstrap $SUITE (minbase, +$INCLUDE)"
"${SUDO[@]}" mkdir -p "$CACHE/$SUITE"
if ! "${SUDO[@]}" env DEBOOTSTRAP_DIR="$DEBOOTSTRAP_DIR" PATH="$DBS_PATH" "$DEBOOTSTRAP" --variant=minbase --components=main \
        --include="$INCLUDE" --cache-dir="$CACHE/$SUITE" \
        "$SUITE" "$WORK/root" "$MIRROR" "${SCRIPT[@]}" >"$WORK/debootstrap.log" 2>&1; then
    tail -n 40 "$WORK/debootstrap.log" >&2
    die "debootstrap failed for $TAG"
fi
t1=$(date +%s)
say "debootstrap done in $((t1 - start)) s; trimming"

# Trim what a test image does not need.
"${SUDO[@]}" rm -rf "$WORK/root/var/cache/apt/archives/"*.deb \
    "$WORK/root/var/lib/apt/lists/"* "$WORK/root/usr/share/doc/"* \
    "$WORK/root/usr/share/man/"* "$WORK/root/usr/share/locale/"* 2>/dev/null || true

say "importing into docker as $TAG"
"${SUDO[@]}" tar -C "$WORK/root" --numeric-owner -c . | docker import \
    --change 'LABEL org.rocmcheck.test=1' \
    --change "LABEL org.rocmcheck.suite=$SUITE" \
    --change "LABEL org.rocmcheck.packages=$INCLUDE" \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    - "$TAG" >/dev/null
end=$(date +%s)
say "built $TAG in $((end - start)) s (debootstrap $((t1 - start)) s, import $((end - t1)) s)"
