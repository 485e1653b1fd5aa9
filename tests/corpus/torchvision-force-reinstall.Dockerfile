# Modelled on: TTS server images that force-reinstall torchvision/torchaudio from an older ROCm
# index on top of AMD's image, which reinstalls the torch those releases pin.
# expect: RC407
FROM rocm/pytorch:rocm6.4.2_ubuntu22.04_py3.10_pytorch_release_2.5.1
RUN pip install --force-reinstall torchaudio torchvision --index-url https://download.pytorch.org/whl/rocm6.2
