# Modelled on: multi-stage ROCm images like vLLM's (a named base stage, a final `FROM base`) —
# the final stage inherits the ROCm and torch of its parent.
# expect: RC403
# expect-not: RC401 RC404
ARG ROCM=7.2
FROM rocm/dev-ubuntu-24.04:${ROCM} AS base
RUN pip install torch --index-url https://download.pytorch.org/whl/rocm7.2
FROM base AS final
RUN pip install accelerate
