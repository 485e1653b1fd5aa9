#!/usr/bin/env bash
# clean-test-cache.sh [--dry-run] [--test-id ID]
#
# Removes everything rocmcheck's test suite leaves on a machine, and nothing else:
#   - containers and images labelled org.rocmcheck.test (every test labels what it creates; the
#     cached base images rocmcheck-test/* carry the label too, so they go as well and the next
#     `cargo test` rebuilds them);
#   - the tests' cache folder ($ROCMCHECK_TEST_CACHE, default ~/.cache/rocmcheck-tests: the
#     unpacked debootstrap and the downloaded .debs);
#   - $ROCMCHECK_DEBOOTSTRAP_CACHE where set, and /var/cache/rocmcheck-debootstrap, where older
#     versions of tests/support/make-base-image.sh kept the .debs;
#   - the base-image lock files in ${TMPDIR:-/tmp}.
# Unlabelled containers and images are never touched, whatever their name. `cargo clean` removes
# target/ (the build, and the packaging tests' venv).
#
#   --dry-run     list what would be removed, remove nothing
#   --test-id ID  only containers and images labelled org.rocmcheck.test-id=ID (one test's things)
set -euo pipefail

say() { printf 'clean-test-cache: %s\n' "$*" >&2; }
DRY=0
FILTER=label=org.rocmcheck.test
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY=1 ;;
        --test-id) [ $# -ge 2 ] || { say "--test-id needs a value"; exit 2; }; FILTER="label=org.rocmcheck.test-id=$2"; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "unknown argument: $1 (expected --dry-run or --test-id ID)"; exit 2 ;;
    esac
    shift
done

TEST_CACHE=${ROCMCHECK_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocmcheck-tests}
LEGACY=${ROCMCHECK_LEGACY_DEBOOTSTRAP_CACHE:-/var/cache/rocmcheck-debootstrap}

# Docker: containers first (an image in use cannot go), then images.
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    mapfile -t containers < <(docker ps -aq --no-trunc --filter "$FILTER")
    mapfile -t images < <(docker images -q --no-trunc --filter "$FILTER" | sort -u)
    for c in "${containers[@]}"; do
        say "container $(docker inspect -f '{{.Name}} ({{.Config.Image}})' "$c" 2>/dev/null || echo "$c")"
    done
    for i in "${images[@]}"; do
        say "image $(docker image inspect -f '{{range .RepoTags}}{{.}} {{end}}{{.Id}}' "$i" 2>/dev/null || echo "$i")"
    done
    if [ "$DRY" = 0 ]; then
        [ "${#containers[@]}" = 0 ] || docker rm -f -v "${containers[@]}" >/dev/null
        [ "${#images[@]}" = 0 ] || docker rmi -f "${images[@]}" >/dev/null
    fi
else
    say "no Docker engine answers: containers and images were not looked at"
fi

# Folders and files.
status=0
paths=("$TEST_CACHE" "$LEGACY")
[ -z "${ROCMCHECK_DEBOOTSTRAP_CACHE:-}" ] || paths+=("$ROCMCHECK_DEBOOTSTRAP_CACHE")
shopt -s nullglob
paths+=("${TMPDIR:-/tmp}"/rocmcheck-make-base-image.*.lock)
for p in "${paths[@]}"; do
    [ -e "$p" ] || continue
    say "$p ($(du -sh "$p" 2>/dev/null | cut -f1))"
    [ "$DRY" = 1 ] || rm -rf -- "$p" 2>/dev/null ||
        { say "could not remove all of $p (debootstrap ran through sudo: run this script with sudo)"; status=1; }
done
[ "$DRY" = 1 ] && say "dry run: nothing removed" || say "done"
exit "$status"
