# rocmcheck candidate template: AMD's rocm/pytorch image as it is (ROCm and an
# AMD-built torch).  Nothing is installed; the smoke payload is copied in at
# run time.
#
#   docker build -f rocm-pytorch.Dockerfile \
#     --build-arg BASE_IMAGE=rocm/pytorch:rocm6.4.4_ubuntu24.04_py3.12_pytorch_release_2.7.1 .
ARG BASE_IMAGE=rocm/pytorch:rocm6.4.4_ubuntu24.04_py3.12_pytorch_release_2.7.1
FROM ${BASE_IMAGE}

LABEL org.rocmcheck.template="rocm-pytorch"
