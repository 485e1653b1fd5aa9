# rocmcheck candidate template: a ROCm base image plus an official PyTorch ROCm
# wheel from download.pytorch.org (index whl/rocmX.Y).  rocmcheck fills the
# ARGs from the compatibility matrix; the smoke payload is copied in at run
# time, so this image carries nothing of rocmcheck's.
#
#   docker build -f rocm-torch-wheel.Dockerfile \
#     --build-arg BASE_IMAGE=rocm/dev-ubuntu-24.04:7.2.4 \
#     --build-arg TORCH_VERSION=2.13.0 \
#     --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/rocm7.2 .
ARG BASE_IMAGE=rocm/dev-ubuntu-24.04:7.2.4
FROM ${BASE_IMAGE}

ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/rocm7.2

LABEL org.rocmcheck.template="rocm-torch-wheel" \
      org.rocmcheck.torch-version="${TORCH_VERSION}" \
      org.rocmcheck.torch-index-url="${TORCH_INDEX_URL}"

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# A virtual environment: Ubuntu 24.04's system Python refuses pip installs
# (PEP 668).  Distribution package versions differ per base image, so they are
# not pinned here; the wheel, which is what the check is about, is.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/venv

ENV PATH=/opt/venv/bin:$PATH \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN pip install --no-cache-dir --index-url "${TORCH_INDEX_URL}" "torch==${TORCH_VERSION}" \
    && python -c 'import torch; print(torch.__version__, torch.version.hip)'
