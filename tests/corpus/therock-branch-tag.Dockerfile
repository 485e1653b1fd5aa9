# Modelled on: ComfyUI-on-Strix-Halo Dockerfiles that build on TheRock's per-target dev image at
# its branch tag (ghcr.io/rocm/therock_pytorch_dev_ubuntu_24_04_gfx1151:main), republished on
# every push to TheRock's main branch.
# expect: RC401
FROM ghcr.io/rocm/therock_pytorch_dev_ubuntu_24_04_gfx1151:main
RUN git clone https://github.com/comfyanonymous/ComfyUI /app
WORKDIR /app
