# Modelled on: users extending AMD's rocm/vllm images (ROCm/vllm docs: FROM rocm/vllm:<tag>).
# expect: RC107
# expect-not: RC401 RC402 RC404
FROM rocm/vllm:rocm6.4.1_vllm_0.10.1_20250909
RUN pip install flash-attn --no-build-isolation
