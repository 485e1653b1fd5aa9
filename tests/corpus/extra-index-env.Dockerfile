# Modelled on vllm-project/vllm#16080 ("not safe to just use --extra-index-url" for ROCm torch):
# the extra index set through the environment, torch unpinned.
# expect: RC405 RC403
# expect-not: RC404
FROM rocm/dev-ubuntu-24.04:6.4.4
ENV PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/rocm6.4
RUN pip install torch torchaudio
