#!/usr/bin/env bash
# Installs rocmcheck from a GitHub release — the portable binary, never built from source —
# and verifies it: against the release's SHA256SUMS always, and against SHA256 (a checksum the
# caller pinned) when given. Used by the reusable nightly workflow.
#
# Environment:
#   VERSION     the release tag (v0.1.0) (required)
#   REPOSITORY  owner/name of the rocmcheck repository (required)
#   SHA256      the expected sha256 of this machine's binary (optional; pins it beyond SHA256SUMS)
#   DEST        where the binary goes (default $RUNNER_TEMP/rocmcheck-bin, else ./rocmcheck-bin)
#   BASE_URL    the download root (default https://github.com); the release is at
#               $BASE_URL/$REPOSITORY/releases/download/$VERSION/
# Prints the path; appends DEST to $GITHUB_PATH when set.
set -euo pipefail
: "${VERSION:?VERSION (a release tag) is required}" "${REPOSITORY:?REPOSITORY (owner/name) is required}"
dest=${DEST:-${RUNNER_TEMP:-.}/rocmcheck-bin}
case "$(uname -m)" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) echo "::error::no rocmcheck release binary for $(uname -m)"; exit 2 ;;
esac
asset="rocmcheck-$arch-unknown-linux-gnu"
url="${BASE_URL:-https://github.com}/$REPOSITORY/releases/download/$VERSION"
mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 --proto '=https,http' -o "$tmp/$asset" "$url/$asset"
curl -fsSL --retry 3 --proto '=https,http' -o "$tmp/SHA256SUMS" "$url/SHA256SUMS"
want=$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1 }' "$tmp/SHA256SUMS")
if [ -z "$want" ]; then
    echo "::error::$asset is not listed in the release's SHA256SUMS ($url/SHA256SUMS)"
    exit 2
fi
got=$(sha256sum "$tmp/$asset" | awk '{ print $1 }')
if [ "$got" != "$want" ]; then
    echo "::error::$asset: sha256 $got does not match the release's SHA256SUMS ($want)"
    exit 2
fi
if [ -n "${SHA256:-}" ] && [ "$got" != "$SHA256" ]; then
    echo "::error::$asset: sha256 $got is not the pinned $SHA256"
    exit 2
fi
install -m 0755 "$tmp/$asset" "$dest/rocmcheck"
"$dest/rocmcheck" --version
if [ -n "${GITHUB_PATH:-}" ]; then echo "$dest" >> "$GITHUB_PATH"; fi
echo "$dest/rocmcheck"
