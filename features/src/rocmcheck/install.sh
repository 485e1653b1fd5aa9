#!/usr/bin/env bash
# devcontainer Feature `rocmcheck`: installs the portable rocmcheck binary (glibc >= 2.17, x86_64
# or aarch64), or the wheel with pip where python3 exists, plus bash completions and man pages;
# sets up the optional `rocmcheck env` run on postCreateCommand.
#
# Options arrive as environment variables (Features spec): VERSION, RUNENVONCREATE, RELEASEREPO,
# DATA (newest | embedded | a data serial), DATAFROM (a mirror URL or file).
# Sources, first match wins:
#   ROCMCHECK_DIST=DIR   a directory with rocmcheck-VERSION-ARCH-unknown-linux-gnu.tar.gz and its
#                        .sha256 (offline installs, and the tests);
#   RELEASEREPO=o/r      the GitHub release of that repository (curl or wget; sha256 checked);
#   otherwise            `python3 -m pip install rocmcheck[==VERSION]` into /opt/rocmcheck-venv.
set -euo pipefail

VERSION="${VERSION:-latest}"
RUNENVONCREATE="${RUNENVONCREATE:-false}"
RELEASEREPO="${RELEASEREPO:-}"
DATA="${DATA:-newest}"
DATAFROM="${DATAFROM:-}"
SHARE=/usr/local/share/rocmcheck-feature
BIN=/usr/local/bin/rocmcheck

say() { printf 'rocmcheck feature: %s\n' "$*"; }
die() { say "error: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "install.sh must run as root (the devcontainer CLI does)"
case "$(uname -m)" in
    x86_64 | amd64) ARCH=x86_64 ;;
    aarch64 | arm64) ARCH=aarch64 ;;
    *) die "no portable rocmcheck for $(uname -m) (x86_64 and aarch64 only)" ;;
esac
TRIPLE="$ARCH-unknown-linux-gnu"

install_tarball() { # DIR containing the tarball and its .sha256
    local dir=$1 tgz
    if [ "$VERSION" = latest ]; then
        tgz="$(ls "$dir"/rocmcheck-*-"$TRIPLE".tar.gz 2>/dev/null | sort -V | tail -1 || true)"
    else
        tgz="$dir/rocmcheck-$VERSION-$TRIPLE.tar.gz"
    fi
    [ -n "$tgz" ] && [ -f "$tgz" ] || die "no rocmcheck-${VERSION/latest/*}-$TRIPLE.tar.gz in $dir"
    [ -f "$tgz.sha256" ] || die "$tgz.sha256 missing: refusing an unchecked download"
    (cd "$(dirname "$tgz")" && sha256sum -c "$(basename "$tgz").sha256" >/dev/null 2>&1) ||
        die "checksum mismatch for $tgz (sha256 in $tgz.sha256)"
    say "sha256 OK: $(basename "$tgz")"
    local tmp
    tmp="$(mktemp -d)"
    tar -xzf "$tgz" -C "$tmp"
    local top
    top="$(ls "$tmp")"
    install -m 0755 "$tmp/$top/rocmcheck" "$BIN"
    if [ -d "$tmp/$top/completions" ]; then
        install -D -m 0644 "$tmp/$top/completions/rocmcheck.bash" /usr/share/bash-completion/completions/rocmcheck
        install -D -m 0644 "$tmp/$top/completions/rocmcheck.zsh" /usr/local/share/zsh/site-functions/_rocmcheck
        install -D -m 0644 "$tmp/$top/completions/rocmcheck.fish" /usr/share/fish/vendor_completions.d/rocmcheck.fish
    fi
    if [ -d "$tmp/$top/man" ]; then
        mkdir -p /usr/local/share/man/man1
        cp "$tmp/$top"/man/*.1 /usr/local/share/man/man1/
    fi
    rm -rf "$tmp"
}

fetch() { # URL FILE
    if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
    else die "neither curl nor wget to download $1"; fi
}

if [ -n "${ROCMCHECK_DIST:-}" ]; then
    say "installing from $ROCMCHECK_DIST"
    install_tarball "$ROCMCHECK_DIST"
elif [ -n "$RELEASEREPO" ]; then
    base="https://github.com/$RELEASEREPO/releases"
    if [ "$VERSION" = latest ]; then url="$base/latest/download"; else url="$base/download/v$VERSION"; fi
    tmp="$(mktemp -d)"
    if [ "$VERSION" = latest ]; then
        # the asset names carry the version: read it from the latest release's redirect
        tag="$(curl -fsSLI -o /dev/null -w '%{url_effective}' "$base/latest" | sed 's#.*/tag/v##')"
        [ -n "$tag" ] || die "cannot resolve the latest release of $RELEASEREPO"
        VERSION="$tag"
        url="$base/download/v$VERSION"
    fi
    fetch "$url/rocmcheck-$VERSION-$TRIPLE.tar.gz" "$tmp/rocmcheck-$VERSION-$TRIPLE.tar.gz"
    fetch "$url/rocmcheck-$VERSION-$TRIPLE.tar.gz.sha256" "$tmp/rocmcheck-$VERSION-$TRIPLE.tar.gz.sha256"
    install_tarball "$tmp"
    rm -rf "$tmp"
elif command -v python3 >/dev/null 2>&1; then
    spec=rocmcheck
    [ "$VERSION" = latest ] || spec="rocmcheck==$VERSION"
    python3 -m venv /opt/rocmcheck-venv || die "python3 -m venv failed (install python3-venv)"
    /opt/rocmcheck-venv/bin/pip install --disable-pip-version-check -q "$spec"
    ln -sf /opt/rocmcheck-venv/bin/rocmcheck "$BIN"
else
    die "no source: set the releaseRepo option, or use an image with python3 (pip install rocmcheck)"
fi

"$BIN" --version >/dev/null || die "$BIN does not run here"
say "installed rocmcheck $("$BIN" --version | cut -d' ' -f2) at $BIN"

mkdir -p "$SHARE"
printf '%s\n' "$RUNENVONCREATE" >"$SHARE/run-env-on-create"
case "$DATA" in
    newest | embedded) ;;
    "" | *[!0-9]*) die "data must be newest, embedded or a data serial (digits), not '$DATA'" ;;
esac
case "$DATA" in *[!0-9]*) ;; *)
    # A pinned serial: every rocmcheck in the container refuses other data.
    printf 'export ROCMCHECK_DATA_SERIAL=%s\n' "$DATA" >/etc/profile.d/rocmcheck-data.sh ;;
esac
printf '%s\n' "$DATA" >"$SHARE/data"
printf '%s\n' "$DATAFROM" >"$SHARE/data-from"
# The data is fetched on postCreateCommand, as the container's user and into that user's cache
# (at image build time it would land in root's cache, and go stale in the image).
install -m 0755 "$(dirname "$0")/rocmcheck-data.sh" "$SHARE/rocmcheck-data.sh"
cat >"$SHARE/post-create.sh" <<'POST'
#!/bin/sh
# postCreateCommand of the rocmcheck Feature: brings the matrix data up to date (the `data`
# option: newest, embedded, or a pinned serial), then, with runEnvOnCreate=true, runs
# `rocmcheck env` once and keeps the report in ~/.local/state/rocmcheck/env-on-create.txt.
# Never fails the creation: a failed data update is a warning.
share=/usr/local/share/rocmcheck-feature
case "$(cat "$share/data" 2>/dev/null)" in "" | *[!0-9]*) ;; *) ROCMCHECK_DATA_SERIAL=$(cat "$share/data") && export ROCMCHECK_DATA_SERIAL ;; esac
sh "$share/rocmcheck-data.sh" rocmcheck "$(cat "$share/data" 2>/dev/null)" "$(cat "$share/data-from" 2>/dev/null)" ||
    echo "rocmcheck: warning: the pinned matrix data could not be installed; rocmcheck will refuse to run until it is (rocmcheck matrix update --serial N)"
[ "$(cat /usr/local/share/rocmcheck-feature/run-env-on-create 2>/dev/null)" = true ] || exit 0
dir="${XDG_STATE_HOME:-$HOME/.local/state}/rocmcheck"
mkdir -p "$dir" || exit 0
rocmcheck env --color never >"$dir/env-on-create.txt" 2>&1
rc=$?
echo "rocmcheck env (exit $rc): report in $dir/env-on-create.txt"
head -n 40 "$dir/env-on-create.txt"
exit 0
POST
chmod 0755 "$SHARE/post-create.sh"
