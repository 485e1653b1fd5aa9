#!/usr/bin/env bash
# `rocmcheck matrix update` against a local server, and the start-up cost of the data sources
# (issue 21): `matrix version` with no cache (embedded data), with a cache that is not newer
# (header read only) and with a newer cache (decoded instead of the embedded data).
#
#   apt-get install hyperfine minisign (valgrind for the instruction counts, optional)
#   benches/update.sh      # writes benches/results/update.md and prints it
#
# The signing key is generated here, used once and deleted: a test-only key, passed with
# --trusted-key. The server is python3's http.server on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
for t in hyperfine minisign python3; do
    command -v "$t" >/dev/null || { echo "$t not found" >&2; exit 2; }
done
[ -n "${NO_BUILD:-}" ] || cargo build --release --quiet
RC=$PWD/target/release/rocmcheck
TMP=$(mktemp -d)
SERVER_PID=
cleanup() {
    [ -z "$SERVER_PID" ] || kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT

# A bundle whose data is newer than the embedded data, signed with a throwaway key.
mkdir -p "$TMP/www" "$TMP/newer"
cp matrix/*.yaml "$TMP/newer/"
sed -i 's/^data: .*/data: "2099-01-31"/' "$TMP/newer/matrix.yaml"
"$RC" --matrix "$TMP/newer" matrix bundle --serial 1 --out "$TMP/www/rocmcheck-data.tar" >/dev/null
minisign -G -W -p "$TMP/test.pub" -s "$TMP/test.key" >/dev/null
minisign -S -s "$TMP/test.key" -m "$TMP/www/rocmcheck-data.tar" >/dev/null
# The same data date as the embedded matrix: installed, but the embedded copy keeps answering.
"$RC" --matrix matrix matrix bundle --serial 1 --out "$TMP/same.tar" >/dev/null
minisign -S -s "$TMP/test.key" -m "$TMP/same.tar" >/dev/null

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$TMP/www" >/dev/null 2>&1 &
SERVER_PID=$!
URL=http://127.0.0.1:$PORT/rocmcheck-data.tar
for _ in $(seq 50); do curl -fsS -o /dev/null "$URL" 2>/dev/null && break; sleep 0.1; done

export ROCMCHECK_CACHE_DIR=$TMP/cache
UPDATE="$RC matrix update --from $URL --trusted-key $TMP/test.pub"
mkdir -p benches/results
hyperfine -N --warmup 2 --runs 20 --prepare "rm -rf $TMP/cache" \
    --export-markdown "$TMP/update.md" -n 'matrix update (local server, empty cache)' "$UPDATE" >/dev/null

# Start-up: three caches.
ROCMCHECK_CACHE_DIR=$TMP/c-none
ROCMCHECK_CACHE_DIR=$TMP/c-same "$RC" matrix update --from "$TMP/same.tar" --trusted-key "$TMP/test.pub" >/dev/null
ROCMCHECK_CACHE_DIR=$TMP/c-newer $UPDATE >/dev/null
for c in none same newer; do
    printf '%s: ' "$c"
    ROCMCHECK_CACHE_DIR=$TMP/c-$c "$RC" matrix version | tail -1
done
hyperfine -N --warmup 20 --runs 300 --export-markdown "$TMP/startup.md" \
    -n 'matrix version, no cache (embedded)' "env ROCMCHECK_CACHE_DIR=$TMP/c-none $RC matrix version" \
    -n 'matrix version, cache not newer (header only)' "env ROCMCHECK_CACHE_DIR=$TMP/c-same $RC matrix version" \
    -n 'matrix version, newer cache (decoded)' "env ROCMCHECK_CACHE_DIR=$TMP/c-newer $RC matrix version" \
    -n 'matrix version, pinned serial (ROCMCHECK_DATA_SERIAL=1)' "env ROCMCHECK_CACHE_DIR=$TMP/c-newer ROCMCHECK_DATA_SERIAL=1 $RC matrix version" >/dev/null

# lint --online against the same local server: pytorch.org's rocm7.14 pages for torch and rocm
# (the recorded fixtures), fetched on every run (http.server sends no Cache-Control or ETag).
mkdir -p "$TMP/www/whl/rocm7.14/torch" "$TMP/www/whl/rocm7.14/rocm"
cp tests/fixtures/sync/coresdk/pytorch/rocm7.14/torch.html "$TMP/www/whl/rocm7.14/torch/index.html"
cp tests/fixtures/sync/coresdk/pytorch/rocm7.14/rocm.html "$TMP/www/whl/rocm7.14/rocm/index.html"
printf 'FROM ubuntu:24.04\nRUN pip install --index-url https://download.pytorch.org/whl/rocm7.14 torch==2.14.0 "rocm[libraries,device-gfx1100]==7.14.0"\n' >"$TMP/Dockerfile"
ROCMCHECK_CACHE_DIR=$TMP/c-online "$RC" lint --online --index "http://127.0.0.1:$PORT/whl" "$TMP/Dockerfile" >/dev/null || true
hyperfine -N -i --warmup 3 --runs 50 --export-markdown "$TMP/online.md" \
    -n 'lint, one file' "env ROCMCHECK_CACHE_DIR=$TMP/c-online $RC lint $TMP/Dockerfile" \
    -n 'lint --online, one file (2 index pages fetched from 127.0.0.1)' \
    "env ROCMCHECK_CACHE_DIR=$TMP/c-online $RC lint --online --index http://127.0.0.1:$PORT/whl $TMP/Dockerfile" >/dev/null

{
    echo "# matrix update and data-source start-up ($(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1 /proc/loadavg))"
    echo
    cat "$TMP/update.md"
    echo
    cat "$TMP/startup.md"
    echo
    cat "$TMP/online.md"
    if command -v valgrind >/dev/null; then
        echo
        echo "| instructions (callgrind) | count |"
        echo "| --- | ---: |"
        for c in none same newer pinned; do
            dir=$c pin=
            if [ "$c" = pinned ]; then dir=newer pin=1; fi
            n=$({ env ROCMCHECK_CACHE_DIR="$TMP/c-$dir" ${pin:+ROCMCHECK_DATA_SERIAL=$pin} \
                valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" \
                "$RC" matrix version 2>&1 >/dev/null || true; } | sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
            echo "| \`matrix version\`, cache: $c | $n |"
        done
    fi
} > benches/results/update.md
cat benches/results/update.md
