# Modelled on uv's pip interface docs (https://docs.astral.sh/uv/pip/compatibility/): with
# `--index-strategy unsafe-best-match` uv mixes indexes like pip, so the extra-index trap is back.
# expect: RC405 RC403
FROM ubuntu:24.04
RUN uv pip install --system --index-strategy unsafe-best-match torch --extra-index-url https://download.pytorch.org/whl/rocm6.4
