# Modelled on ROCm/TheRock RELEASES.md: AMD's multi-arch index selects device code by extras (ROCm/TheRock RELEASES.md@16adc4d8:
# `pip install --index-url … "torch[device-gfx942]" …`; the device extras install
# amd-torch-device-<gfx>, which depend on rocm-sdk-device-<gfx>). MI300 extras for an RX 7900.
# expect: RC110
# expect-not: RC109 RC111
FROM ubuntu:24.04
ENV PYTORCH_ROCM_ARCH=gfx1100
RUN pip install --break-system-packages --index-url https://repo.amd.com/rocm/whl-multi-arch/ \
    "torch[device-gfx942]==2.12.0+rocm7.14.0" "rocm[libraries,device-gfx942]==7.14.0"
