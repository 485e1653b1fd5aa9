# Modelled on: community ComfyUI ROCm images (e.g. YanWenKun/ComfyUI-Docker's rocm variant) —
# rocm/pytorch base, ComfyUI from git, requirements installed on top.
# expect: RC107
# expect-not: RC401 RC402 RC403 RC404
FROM rocm/pytorch:rocm6.4.2_ubuntu22.04_py3.10_pytorch_release_2.5.1
RUN git clone https://github.com/comfyanonymous/ComfyUI /opt/ComfyUI
WORKDIR /opt/ComfyUI
RUN pip install --no-cache-dir -r requirements.txt
# ENV HSA_OVERRIDE_GFX_VERSION=10.3.0
# ENV AMD_SERIALIZE_KERNEL=3
CMD ["python3", "main.py", "--listen"]
