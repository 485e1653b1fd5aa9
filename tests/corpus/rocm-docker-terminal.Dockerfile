# Modelled on: AMD's ROCm-docker recipes (ROCm/ROCm-docker, dev/Dockerfile-ubuntu-22.04) —
# ubuntu base, amdgpu-install .deb from repo.radeon.com, rocm usecase.
# expect: RC107
# expect-not: RC401 RC404
FROM ubuntu:22.04
ARG AMDGPU_VERSION=6.2.4
ARG INSTALLER=amdgpu-install_6.2.60204-1_all.deb
RUN apt-get update && apt-get install -y wget \
 && wget https://repo.radeon.com/amdgpu-install/${AMDGPU_VERSION}/ubuntu/jammy/${INSTALLER} \
 && apt-get install -y ./${INSTALLER} \
 && amdgpu-install -y --usecase=rocm --no-dkms
