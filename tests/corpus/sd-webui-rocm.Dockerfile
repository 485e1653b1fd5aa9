# Modelled on: AUTOMATIC1111 stable-diffusion-webui's AMD instructions (the wiki's Docker recipe)
# — rocm/pytorch base, TORCH_COMMAND pointing pip at the ROCm index.
# expect: RC107
# expect-not: RC401 RC403 RC404
FROM rocm/pytorch:rocm6.2.3_ubuntu22.04_py3.10_pytorch_release_2.3.0
ENV TORCH_COMMAND="pip install torch==2.3.0 torchvision==0.18.0 --index-url https://download.pytorch.org/whl/rocm6.0"
RUN git clone https://github.com/AUTOMATIC1111/stable-diffusion-webui /sd
WORKDIR /sd
RUN pip install torch==2.3.0 torchvision==0.18.0 --index-url https://download.pytorch.org/whl/rocm6.0
