# Modelled on: Ollama's Dockerfile (ollama/ollama) — a rocm/dev-almalinux-8 build stage with
# AMDGPU_TARGETS, and a plain ubuntu runtime stage that copies the ROCm libraries in.
# expect:
# expect-not: RC401 RC402 RC107 RC403 RC404
ARG ROCMVERSION=7.2.1
FROM rocm/dev-almalinux-8:${ROCMVERSION}-complete AS base-amd64
RUN yum install -y yum-utils && dnf install -y ccache
ENV PATH=/opt/rh/gcc-toolset-11/root/usr/bin:$PATH
ARG AMDGPU_TARGETS="gfx900;gfx940;gfx941;gfx942;gfx1010;gfx1012;gfx1030;gfx1100;gfx1101;gfx1102;gfx1151;gfx1200;gfx1201"
RUN cmake --preset 'ROCm 6' -DAMDGPU_TARGETS="${AMDGPU_TARGETS}" && cmake --build --parallel --preset 'ROCm 6'

FROM ubuntu:24.04 AS rocm
COPY --from=base-amd64 /opt/rocm/lib /usr/lib/ollama/rocm
ENV OLLAMA_HOST=0.0.0.0:11434
ENTRYPOINT ["/bin/ollama"]
