# Modelled on: vLLM-on-AMD attempts that start from AMD's PyTorch image and `pip install vllm`,
# whose PyPI wheel is the CUDA build pinning torch (vllm-project/vllm requirements/cuda.txt).
# expect: RC407
FROM rocm/pytorch:rocm6.4.2_ubuntu22.04_py3.10_pytorch_release_2.5.1
RUN pip install vllm
