# Modelled on: hadolint-style file-wide ignores in CI images.
# rocmcheck global ignore=torch-unpinned
# expect:
# expect-not: RC403
FROM rocm/dev-ubuntu-24.04:7.2
RUN pip install torch --index-url https://download.pytorch.org/whl/rocm7.2
