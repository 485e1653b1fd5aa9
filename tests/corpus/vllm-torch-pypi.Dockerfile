# Modelled on: user Dockerfiles reported on vLLM's issue tracker that start from a ROCm image and
# then `pip install torch` from PyPI (vllm-project/vllm discussions on ROCm installs).
# expect: RC404 RC107
# expect-not: RC401
FROM rocm/dev-ubuntu-22.04:6.2.4
RUN apt-get update && apt-get install -y python3-pip
RUN pip3 install torch==2.5.1 transformers
RUN pip3 install vllm
