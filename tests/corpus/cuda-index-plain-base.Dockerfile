# Modelled on: the CUDA Dockerfile of a multi-backend project (a plain base, PyTorch's cu124
# index): not a ROCm stack, not judged.
# expect-not: RC404
FROM ubuntu:24.04
RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124
