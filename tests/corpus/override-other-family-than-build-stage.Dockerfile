# Modelled on: the same shape with an override of another family than the builder's targets.
# expect: RC202
FROM rocm/dev-ubuntu-24.04:6.4.1 AS build
ARG AMDGPU_TARGETS=gfx1100
RUN cmake -B build -DAMDGPU_TARGETS=${AMDGPU_TARGETS} && cmake --build build
FROM rocm/dev-ubuntu-24.04:6.4.1
COPY --from=build /src/build/bin /app
ENV HSA_OVERRIDE_GFX_VERSION=10.3.0
