# Modelled on public Dockerfiles that install TheRock torch wheels from AMD's per-family release
# index (https://repo.amd.com/rocm/whl/<family>/, ROCm/TheRock setup_venv.py@418cd5f6 and
# docs/packaging/legacy_per_family_releases.md@16adc4d8), here with the RDNA4 family index
# (gfx120X-all = gfx1200, gfx1201) for an RX 7900 (gfx1100).
# expect: RC109
FROM ubuntu:24.04
ENV PYTORCH_ROCM_ARCH=gfx1100
RUN pip install --break-system-packages --index-url https://repo.amd.com/rocm/whl/gfx120X-all/ torch==2.11.0+rocm7.13.0
