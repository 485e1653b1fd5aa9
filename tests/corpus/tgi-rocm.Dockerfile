# Modelled on: text-generation-inference's Dockerfile_amd (huggingface/text-generation-inference)
# — ubuntu base, ROCm from repo.radeon.com, torch from the ROCm wheel index, PYTORCH_ROCM_ARCH.
# expect: RC107
# expect-not: RC401 RC403 RC404
FROM ubuntu:22.04 AS base
ARG ROCM=6.3.1
RUN apt-get update && apt-get install -y wget gnupg \
 && wget -qO- https://repo.radeon.com/rocm/rocm.gpg.key | gpg --dearmor > /etc/apt/keyrings/rocm.gpg \
 && echo "deb [signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/${ROCM} jammy main" \
      > /etc/apt/sources.list.d/rocm.list \
 && apt-get update && apt-get install -y rocm-dev hipblaslt
ENV PYTORCH_ROCM_ARCH="gfx90a;gfx942"
RUN pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/rocm6.3
