# Modelled on: vLLM's docker/Dockerfile.rocm (vllm-project/vllm) — a BASE_IMAGE ARG naming a
# rocm/vllm-dev style base, PYTORCH_ROCM_ARCH for the build, pip installs of requirements.
# expect:
# expect-not: RC401 RC402 RC403 RC404
ARG BASE_IMAGE=rocm/vllm-dev:base
FROM ${BASE_IMAGE} AS base
ARG ARG_PYTORCH_ROCM_ARCH=gfx90a;gfx942
ENV PYTORCH_ROCM_ARCH=${ARG_PYTORCH_ROCM_ARCH}
WORKDIR /vllm-workspace
COPY requirements/ requirements/
RUN python3 -m pip install --upgrade pip && pip install -r requirements/rocm.txt
RUN python3 setup.py bdist_wheel --dist-dir=dist
