# Modelled on: llama.cpp's .devops/rocm.Dockerfile (ggml-org/llama.cpp) — an ARG'd
# rocm/dev-ubuntu base, GPU targets passed as a build arg, hipcc build with cmake.
# expect: RC107
# expect-not: RC401 RC402 RC403 RC404
ARG UBUNTU_VERSION=24.04
ARG ROCM_VERSION=6.4
ARG BASE_ROCM_DEV_CONTAINER=rocm/dev-ubuntu-${UBUNTU_VERSION}:${ROCM_VERSION}-complete

FROM ${BASE_ROCM_DEV_CONTAINER} AS build
ARG ROCM_DOCKER_ARCH="gfx908;gfx90a;gfx942;gfx1030;gfx1100;gfx1201"
ENV AMDGPU_TARGETS=${ROCM_DOCKER_ARCH}
RUN apt-get update && apt-get install -y build-essential cmake git libcurl4-openssl-dev
WORKDIR /app
COPY . .
RUN HIPCXX="$(hipconfig -l)/clang" HIP_PATH="$(hipconfig -R)" \
    cmake -S . -B build -DGGML_HIP=ON -DAMDGPU_TARGETS=$ROCM_DOCKER_ARCH -DCMAKE_BUILD_TYPE=Release \
 && cmake --build build --config Release -j$(nproc)

FROM ${BASE_ROCM_DEV_CONTAINER} AS server
COPY --from=build /app/build/bin/llama-server /app/
ENTRYPOINT ["/app/llama-server"]
