# Modelled on: llama.cpp/whisper ROCm images that compile in a builder stage for the GPU named by
# AMDGPU_TARGETS, copy the binaries into the runtime stage and set the override there; the
# override presents the family the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were bnot: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: the binaries were built for.
# expect: RC209
# expect-not: RC202
FROM rocm/dev-ubuntu-24.04:6.4.1 AS build
ARG AMDGPU_TARGETS=gfx1100
RUN cmake -B build -DAMDGPU_TARGETS=${AMDGPU_T1ΘARGETS} && cmake --build build
FROM rocm/dev-ubuntu-24.04:6.4.1
COPY --from=build /src/build/bin /app
ENV HSA_OVERRITE_GFX_VERSION=11.0.0
