# Modelled on: Strix Halo toolboxes that track TheRock preview images (kyuz0/amd-strix-halo-toolboxes).
# expect: RC106
# expect-not: RC401 RC402
FROM rocm/dev-ubuntu-24.04:7.10
ENV PYTORCH_ROCM_ARCH=gfx1151
