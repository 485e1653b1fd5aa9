# Modelled on the install command in conda-forge/conda-forge.github.io#1923 (2026-07-13) with
# the third-party channel left out and only conda-forge searched: conda-forge builds no ROCm
# variant of pytorch (conda-forge/pytorch-cpu-feedstock recipe/meta.yaml@74dd3d46), so the
# `*rocm*` build string cannot be met and the solve fails (RC406); no version is pinned (RC403).
# expect: RC403 RC406
FROM rocm/dev-ubuntu-22.04:6.2.4-complete
COPY --from=condaforge/miniforge3:latest /opt/conda /opt/conda
ENV PATH=/opt/conda/bin:$PATH
RUN mamba install -y --override-channels -c conda-forge "pytorch=*=*rocm*"
