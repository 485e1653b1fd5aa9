# Modelled on: Strix Halo (gfx1151) toolboxes (kyuz0/amd-strix-halo-toolboxes) — Fedora base,
# TheRock nightly ROCm and a nightly torch for gfx1151.
# expect:
# expect-not: RC401 RC403 RC404
FROM registry.fedoraproject.org/fedora:42
ENV PYTORCH_ROCM_ARCH=gfx1151
RUN python3 -m pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/rocm7.0
