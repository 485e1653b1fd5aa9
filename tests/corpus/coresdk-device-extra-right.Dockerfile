# Modelled on ROCm/TheRock RELEASES.md@16adc4d8 (device extras of the multi-arch index), with the
# target's own device extras.
# expect-not: RC109 RC110 RC111
FROM ubuntu:24.04
ENV PYTORCH_ROCM_ARCH=gfx1100
RUN pip install --break-system-packages --index-url https://repo.amd.com/rocm/whl-multi-arch/ \
    "torch[device-gfx1100]==2.12.0+rocm7.14.0" "rocm[libraries,device-gfx1100]==7.14.0"
