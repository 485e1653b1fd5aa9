# rocmcheck candidate template: a ROCm base image without torch (HIP runtime and,
# with a -complete tag, hipBLAS).  The smoke payload runs its ctypes checks
# (runtime, hipBLAS, memory) and reports torch as not installed.  Only python3
# is added when the base lacks it; the payload is copied in at run time.
#
#   docker build -f rocm-base.Dockerfile \
#     --build-arg BASE_IMAGE=rocm/dev-ubuntu-24.04:7.2.4-complete .
ARG BASE_IMAGE=rocm/dev-ubuntu-24.04:7.2.4
FROM ${BASE_IMAGE}

LABEL org.rocmcheck.template="rocm-base"

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# The distribution's python3, whatever version the base ships.
# hadolint ignore=DL3008
RUN if ! command -v python3 >/dev/null 2>&1; then \
        apt-get update \
        && apt-get install -y --no-install-recommends python3 \
        && rm -rf /var/lib/apt/lists/*; \
    fi
