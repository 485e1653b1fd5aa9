# Modelled on: PyTorch's "get started" ROCm command with --extra-index-url and a +rocm local
# version, pinned (a matching torch/ROCm pair).
# expect:
# expect-not: RC403 RC404
FROM rocm/dev-ubuntu-24.04:7.2
RUN pip3 install "torch==2.12.0+rocm7.2" --extra-index-url https://download.pytorch.org/whl/rocm7.2
