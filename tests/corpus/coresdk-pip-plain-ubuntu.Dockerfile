# Modelled on pytorch.org's install selector for torch 2.14 (ROCm 7.14 is its only ROCm variant,
# pytorch/pytorch#194367) and the wheel-based ROCm install of pytorch/pytorch#191688: a plain
# Ubuntu 24.04 image, torch from whl/rocm7.14, which pulls the `rocm` pip packages. Today's
# recommended install: nothing to report.
# expect-not: RC101 RC102 RC104 RC106 RC107 RC109 RC110 RC111 RC401 RC403 RC404
FROM ubuntu:24.04
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/* && python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
RUN pip install --no-cache-dir torch==2.14.0 --index-url https://download.pytorch.org/whl/rocm7.14
