# Modelled on: ROCm dev images where torch was installed with the command from a CUDA guide
# (`--index-url https://download.pytorch.org/whl/cu124`).
# expect: RC404
FROM rocm/dev-ubuntu-24.04:6.4.1
RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124
