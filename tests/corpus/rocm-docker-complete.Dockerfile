# Modelled on: AMD's ROCm-docker dev images used as a base (rocm/dev-ubuntu-24.04:<v>-complete).
# expect:
# expect-not: RC401 RC402 RC106 RC107
FROM docker.io/rocm/dev-ubuntu-24.04:7.2-complete
RUN apt-get update && apt-get install -y python3-venv
