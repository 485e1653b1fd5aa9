# rocmcheck candidate template: AMD's rocm/pytorch image as it is (ROCm and an
# AMD-built torch).  Nothing is installed; the smoke payload is copied in at
# run time.
#
#   docker build -f rocm-pytorch.Dockerfile \
#     --build-arg BASE_IMAGE=rocm/pytorch:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0 .
ARG BASE_IMAGE=rocm/pytorch:rocm7.2.4_ubuntu24.04_py3.12_pytorch_release_2.10.0
FROM ${BASE_IMAGE}

LABEL org.rocmcheck.template="rocm-pytorch"
