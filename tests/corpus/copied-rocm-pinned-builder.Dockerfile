# Modelled on: the same multi-stage shape with a versioned builder tag; a `:main` image from
# another namespace and a non-ROCm copy are not judged.
# expect-not: RC401
FROM rocm/dev-ubuntu-24.04:6.4.1 AS build
RUN cmake -B build -DGGML_HIP=ON && cmake --build build
FROM ghcr.io/example/tools:main AS tools
FROM ubuntu:24.04
COPY --from=build /opt/rocm/lib /opt/rocm/lib
COPY --from=tools /usr/local/bin /usr/local/bin
COPY --from=python:latest /usr/local/lib /usr/local/lib
