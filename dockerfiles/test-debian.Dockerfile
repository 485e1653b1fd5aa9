# rocmcheck test template: FROM a local image made by
# tests/support/make-base-image.sh (debootstrapped Debian, no registry needed):
#   rocmcheck-test/debian-python:bookworm  python3 only  -> runtime-missing
#   rocmcheck-test/debian-hip:trixie       Debian's HIP runtime and hipBLAS
#                                          -> no-device (hipErrorNoDevice)
# Nothing is installed; the smoke payload is copied in at run time.
#
#   docker build -f test-debian.Dockerfile \
#     --build-arg BASE_IMAGE=rocmcheck-test/debian-hip:trixie .
ARG BASE_IMAGE=rocmcheck-test/debian-python:bookworm
FROM ${BASE_IMAGE}

LABEL org.rocmcheck.template="test-debian" \
      org.rocmcheck.test="1"

CMD ["python3", "--version"]
