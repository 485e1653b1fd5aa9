# Modelled on: the common shape that keeps the ROCm torch: torchvision pinned beside torch from
# the same index, range-requiring packages from PyPI, and a package installed with --no-deps.
# expect-not: RC407
FROM ubuntu:24.04
RUN pip install torch==2.5.1 torchvision==0.20.1 --index-url https://download.pytorch.org/whl/rocm6.2
RUN pip install transformers accelerate bitsandbytes
RUN pip install --no-deps vllm
