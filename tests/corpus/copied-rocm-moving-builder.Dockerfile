# Modelled on: stable-diffusion.cpp / llama.cpp ROCm images that compile in a dev image on
# :latest and copy its /opt/rocm libraries into a slim runtime stage.
# expect: RC401
FROM rocm/dev-ubuntu-24.04:latest AS build
RUN cmake -B build -DGGML_HIP=ON && cmake --build build
FROM ubuntu:24.04
COPY --from=build /opt/rocm/lib /opt/rocm/lib
COPY --from=build /src/build/bin /app
