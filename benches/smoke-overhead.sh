#!/usr/bin/env bash
# benches/smoke-overhead.sh [RUNS]
#
# 1. Smoke overhead: `rocmcheck smoke IMAGE` against a plain `docker run --rm` of the same payload
#    with the same container settings (no network, seccomp=unconfined, shm), on the test image
#    that carries Debian's HIP runtime (the payload reaches hipErrorNoDevice on a host without GPU).
# 2. Layer cache: `rocmcheck build` of a small candidate set cold (--no-cache) against rebuilding
#    it unchanged.
#
# Needs: the real Docker engine, the base images (tests/support/make-base-image.sh), a release
# build (cargo build --release). Everything created is labelled org.rocmcheck.test=1 and removed.
set -euo pipefail
RUNS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/target/release/rocmcheck
IMG=rocmcheck-test/debian-hip:trixie
PREFIX=rocmcheck-test/bench
export ROCMCHECK_TEST_LABEL=bench-$$
[ -x "$BIN" ] || { echo "build first: cargo build --release" >&2; exit 2; }
docker image inspect "$IMG" >/dev/null 2>&1 || { echo "make $IMG first (tests/support/make-base-image.sh)" >&2; exit 2; }
WORK=$(mktemp -d)
cleanup() {
    rm -rf "$WORK"
    # tagged candidates, and the images a --no-cache rebuild left untagged
    docker images -q --filter reference="$PREFIX" | xargs -r docker rmi -f >/dev/null
    docker images -q --filter label=org.rocmcheck.test-id="$ROCMCHECK_TEST_LABEL" | xargs -r docker rmi -f >/dev/null
}
trap cleanup EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
timeit() { # timeit RUNS cmd... -> median seconds
    local n=$1; shift; local i t0 t1
    for ((i = 0; i < n; i++)); do
        t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
        echo "$t1 - $t0" | bc -l
    done | median
}

cp "$ROOT/src/smoke/payload.py" "$WORK/payload.py"
"$BIN" smoke "$IMG" --payload-arg=--no-torch >/dev/null 2>&1 || true   # warm
plain=$(timeit "$RUNS" docker run --rm --network none --security-opt seccomp=unconfined --shm-size 8g \
    --label org.rocmcheck.test=1 -v "$WORK/payload.py:/tmp/p.py:ro" --entrypoint python3 "$IMG" /tmp/p.py --no-torch)
rc=$(timeit "$RUNS" "$BIN" smoke "$IMG" --payload-arg=--no-torch)
echo "smoke, $IMG, median of $RUNS: docker run ${plain}s, rocmcheck smoke ${rc}s, ratio $(echo "$rc / $plain" | bc -l | cut -c1-5)"

# A candidate set whose build does real work offline (no registry, no network).
cat > "$WORK/work.Dockerfile" <<'DF'
FROM rocmcheck-test/debian-python:bookworm
RUN python3 -c "import hashlib; h=b'x'; [h:=hashlib.sha256(h).digest() for _ in range(3_000_000)]; print(h.hex())"
RUN dd if=/dev/urandom of=/blob bs=1M count=200 status=none
RUN python3 -m compileall -q /usr/lib/python3* >/dev/null || true
DF
cat > "$WORK/c.yaml" <<'Y'
candidates:
  - {id: a, dockerfile: work.Dockerfile}
  - {id: b, dockerfile: work.Dockerfile, build_args: {UNUSED: "1"}}
  - {id: c, template: test-debian, build_args: {BASE_IMAGE: "rocmcheck-test/debian-hip:trixie"}}
Y
B=("$BIN" build --candidates-file "$WORK/c.yaml" --tag-prefix "$PREFIX" --jobs 3 --log-dir "$WORK/logs")
cold=$(timeit 1 "${B[@]}" --no-cache)
warm=$(timeit "$RUNS" "${B[@]}")
echo "build, 3 candidates: cold (--no-cache) ${cold}s, unchanged rebuild ${warm}s (median of $RUNS), speed-up $(echo "$cold / $warm" | bc -l | cut -c1-6)x"
echo "containers of this run left: $(docker ps -aq --filter label=org.rocmcheck.test-id="$ROCMCHECK_TEST_LABEL" | wc -l)"
