# syntax=docker/dockerfile:1.7
# Modelled on: BuildKit heredoc RUNs as used in newer ROCm images (e.g. ROCm/TheRock dockerfiles).
# expect: RC404
# expect-not: RC403
FROM rocm/dev-ubuntu-24.04:7.2
RUN <<EOF
set -eux
apt-get update
pip install torch==2.12.0 numpy
EOF
