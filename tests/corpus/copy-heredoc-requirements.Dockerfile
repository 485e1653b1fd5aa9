# syntax=docker/dockerfile:1
# Modelled on public Dockerfiles that write their requirements file with a heredoc and install it
# in the next RUN (`COPY <<EOF /tmp/requirements.txt` … `RUN python -m pip install -r
# /tmp/requirements.txt`, a CUDA 12.1 video-model image found in the code index by that line; the
# index does not name its repository), moved to a ROCm base, with the torch pin through an ARG as
# pip's "Using environment variables" (`${NAME}` in a requirements file) allows, and on BuildKit's
# heredoc forms (https://docs.docker.com/reference/dockerfile/#here-documents). The body was not
# read before (a note said so); now torch 2.6.0 is checked: no wheel for ROCm 6.2.
# expect: RC101
# expect-not: RC403 RC404 RC405
FROM rocm/dev-ubuntu-22.04:6.2.4-complete
ARG TORCH_VERSION=2.6.0
RUN apt-get update && apt-get install -y --no-install-recommends python3-pip git \
    && rm -rf /var/lib/apt/lists/*
COPY <<'EOF' /tmp/requirements.txt
--index-url https://download.pytorch.org/whl/rocm6.2
torch==${TORCH_VERSION}
EOF
COPY <<EOF /tmp/extra.txt
numpy==1.26.4
einops
EOF
RUN python3 -m pip install -r /tmp/requirements.txt && python3 -m pip install -r /tmp/extra.txt
