# Modelled on public Strix Halo Dockerfiles: the family index (https://repo.amd.com/rocm/whl/gfx1151/, seen in public Dockerfiles;
# TheRock families: each target is a family of its own) for a gfx1151 build.
# expect: RC112
# expect-not: RC109 RC110 RC111
FROM ubuntu:24.04
ENV PYTORCH_ROCM_ARCH=gfx1151
RUN pip install --break-system-packages --index-url https://repo.amd.com/rocm/whl/gfx1151/ torch==2.11.0+rocm7.13.0
