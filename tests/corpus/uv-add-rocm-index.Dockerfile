# Modelled on uv's PyTorch integration guide (https://docs.astral.sh/uv/guides/integration/pytorch/:
# `uv add torch --index pytorch=https://download.pytorch.org/whl/…`, indexes searched in order, the
# first that has the package wins). torch 2.5.1 was never built for ROCm 6.4 (RC101); the ROCm
# index given as an extra (`--index`) is not RC405's trap for uv, which does not mix indexes.
# expect: RC101
# expect-not: RC405
FROM ubuntu:24.04
RUN uv add torch==2.5.1 --index pytorch-rocm=https://download.pytorch.org/whl/rocm6.4
