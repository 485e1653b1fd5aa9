#!/usr/bin/env bash
# Sets the GitHub owner of this repository everywhere it is written down.
#
# The ONE place the owner is kept is `repository` in Cargo.toml
# ("https://github.com/<owner>/rocmcheck" until the repository is created). The wheel's
# Project-URL is derived from it by maturin (pyproject.toml lists `urls` as dynamic) and the
# release workflow derives the image name from $GITHUB_REPOSITORY_OWNER at run time. The copies
# that cannot be derived (install commands in the README, `uses:` / `repo:` examples in comments,
# the devcontainer Feature's documentationURL and licenseURL) are rewritten here from that line;
# tests/supply.rs fails when one of them differs from Cargo.toml.
#
#   scripts/set-owner.sh NEW_OWNER       # e.g. scripts/set-owner.sh amd-tools
set -euo pipefail
cd "$(dirname "$0")/.."

new="${1:-}"
if ! [[ "$new" =~ ^[A-Za-z0-9]([A-Za-z0-9-]{0,38})$ ]]; then
    echo "usage: scripts/set-owner.sh NEW_OWNER (a GitHub user or organisation name)" >&2
    exit 2
fi
old="$(sed -nE 's|^repository = "https://github.com/([^/]+)/rocmcheck"$|\1|p' Cargo.toml)"
if [ -z "$old" ]; then
    echo "error: Cargo.toml: no line \`repository = \"https://github.com/OWNER/rocmcheck\"\`" >&2
    exit 2
fi
[ "$old" = "$new" ] && { echo "owner is already $new"; exit 0; }

lower="$(printf '%s' "$new" | tr '[:upper:]' '[:lower:]')" # ghcr.io names are lower case
esc() { printf '%s' "$1" | sed -e 's/[][\.*^$|/]/\\&/g'; }
o="$(esc "$old")"

# Every tracked text file that names the owner next to the repository name.
git ls-files -z | grep -zv -e '^scripts/set-owner.sh$' -e '^tests/supply.rs$' |
    xargs -0 grep -lIZ -e "$old/rocmcheck" -e "\`$old\` is the GitHub owner" 2>/dev/null |
    xargs -0 -r sed -i -E \
        -e "s/ghcr\.io\/$o\/rocmcheck/ghcr.io\/$lower\/rocmcheck/g" \
        -e "s/(^|[^A-Za-z0-9_-])$o\/rocmcheck/\1$new\/rocmcheck/g" \
        -e "s/\`$o\` is the GitHub owner/\`$new\` is the GitHub owner/g"
echo "owner: $old -> $new"
git grep -n -e "$old/rocmcheck" || true
