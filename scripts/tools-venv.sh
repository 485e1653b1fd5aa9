# Sourced: makes a venv with maturin, ziglang and cargo-zigbuild (all from PyPI) under target/ and
# puts its bin/ first on PATH. Nothing is installed system-wide. ROCMCHECK_TOOLS_VENV overrides.
VENV="${ROCMCHECK_TOOLS_VENV:-${CARGO_TARGET_DIR:-$PWD/target}/pkgtools}"
if ! { [ -x "$VENV/bin/maturin" ] && [ -x "$VENV/bin/cargo-zigbuild" ] && [ -x "$VENV/bin/python-zig" ]; }; then
    echo "installing maturin, ziglang, cargo-zigbuild into $VENV (pip)" >&2
    "${PYTHON:-python3}" -m venv "$VENV" >&2
    "$VENV/bin/pip" install --quiet --disable-pip-version-check maturin ziglang cargo-zigbuild >&2
fi
export PATH="$VENV/bin:$PATH"
export VENV
