# Modelled on: uv-based PyTorch ROCm images (astral-sh/uv's PyTorch integration guide).
# expect:
# expect-not: RC403 RC404
FROM rocm/dev-ubuntu-24.04:7.2
COPY --from=ghcr.io/astral-sh/uv:latest /uv /bin/
RUN uv pip install --system torch==2.12.0 --index-url https://download.pytorch.org/whl/rocm7.2
