# syntax=docker/dockerfile:1.7
# Modelled on a public Strix Halo vLLM toolbox image (a `RUN cd vllm && python - <<'PY'` patch step
# after a TheRock torch install) and on BuildKit's heredoc forms after a command
# (https://docs.docker.com/reference/dockerfile/#here-documents: `RUN python3 <<EOF`,
# `RUN <<EOF1 <<EOF2`). The file was an input error before (the body parsed as instructions).
# expect: RC101 RC109
# expect-not: RC111
FROM ubuntu:24.04
ENV PYTORCH_ROCM_ARCH=gfx1151
RUN pip install --break-system-packages --index-url https://repo.amd.com/rocm/whl/gfx120X-all/ torch==2.11.0+rocm7.13.0
RUN cd /opt/vllm && python - <<'PY'
import pathlib
p = pathlib.Path("setup.py")
p.write_text(p.read_text().replace("gfx1100", "gfx1151"))
PY
RUN bash -ex <<EOF
pip install --break-system-packages torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.3
EOF
