# Modelled on: quick-start ComfyUI-on-AMD gists that build on rocm/pytorch:latest and override the
# gfx version for an RDNA2 card.
# expect: RC401
# expect-not: RC404
FROM rocm/pytorch:latest
ENV HSA_OVERRIDE_GFX_VERSION=10.3.0
RUN git clone https://github.com/comfyanonymous/ComfyUI /app
WORKDIR /app
RUN pip install -r requirements.txt
