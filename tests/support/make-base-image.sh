#!/usr/bin/env bash
# make-base-image.sh TAG [SUITE] [EXTRA_PACKAGES...]
#
# Builds a minimal Debian image for rocmcheck's tests without any container
# registry: debootstrap (variant minbase, plus python3 and EXTRA_PACKAGES) into
# a temporary folder, then `docker import` it as TAG, labelled
# org.rocmcheck.test=1.  Cached: if `docker image inspect TAG` succeeds,
# nothing is done.  Idempotent and safe to run concurrently (flock per tag).
#
# Environment:
#   ROCMCHECK_DEBIAN_MIRROR   mirror (default http://deb.debian.org/debian)
#   ROCMCHECK_DEBOOTSTRAP_CACHE  folder for downloaded .debs, reused between
#                             builds (default /var/cache/rocmcheck-debootstrap)
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
# only on failure.  Needs root (or passwordless sudo) for debootstrap.
set -euo pipefail

say() { printf 'make-base-image: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -ge 1 ] || die "usage: $0 TAG [SUITE] [EXTRA_PACKAGES...]"
TAG=$1
SUITE=${2:-bookworm}
shift $(( $# >= 2 ? 2 : 1 ))
EXTRA=("$@")
MIRROR=${ROCMCHECK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE=${ROCMCHECK_DEBOOTSTRAP_CACHE:-/var/cache/rocmcheck-debootstrap}

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

if ! command -v debootstrap >/dev/null 2>&1 && [ ! -x /usr/sbin/debootstrap ]; then
    say "installing debootstrap"
    "${SUDO[@]}" apt-get install -y -q debootstrap >/dev/null 2>&1 \
        || { "${SUDO[@]}" apt-get update -q >/dev/null 2>&1 && "${SUDO[@]}" apt-get install -y -q debootstrap >/dev/null; } \
        || die "cannot install debootstrap"
fi
DEBOOTSTRAP=$(command -v debootstrap || echo /usr/sbin/debootstrap)

# An older debootstrap may not know a newer suite: use the sid script for it.
SCRIPT=()
if [ ! -e "/usr/share/debootstrap/scripts/$SUITE" ]; then
    SCRIPT=(/usr/share/debootstrap/scripts/sid)
fi

INCLUDE=python3
for p in "${EXTRA[@]}"; do INCLUDE="$INCLUDE,$p"; done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-base.XXXXXX")
cleanup() { "${SUDO[@]}" rm -rf "$WORK" 2>/dev/null || true; }
trap cleanup EXIT

start=$(date +%s)
say "building $TAG: debootstrap $SUITE (minbase, +$INCLUDE)"
"${SUDO[@]}" mkdir -p "$CACHE/$SUITE"
if ! "${SUDO[@]}" "$DEBOOTSTRAP" --variant=minbase --components=main \
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
