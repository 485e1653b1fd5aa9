# Modelled on: reproducible-build Dockerfiles pinning the base by digest and platform
# (as in ROCm/vllm's CI images).
# expect:
# expect-not: RC401 RC402
FROM --platform=linux/amd64 rocm/pytorch@sha256:0f4e3e0a5f7c6b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d
RUN pip install einops
