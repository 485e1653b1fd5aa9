# Modelled on uv's pip interface docs (https://docs.astral.sh/uv/pip/compatibility/: uv uses the
# first index that has a package, `--index-strategy unsafe-best-match` restores pip's behaviour).
# An unpinned torch with the ROCm index as an extra index: pip would take PyPI's CUDA wheel (RC405),
# uv takes the ROCm index's.
# expect: RC403
# expect-not: RC405
FROM ubuntu:24.04
RUN uv pip install --system torch --extra-index-url https://download.pytorch.org/whl/rocm6.4
