# Modelled on the install command in conda-forge/conda-forge.github.io#1923 (traversaro,
# 2026-07-13): ROCm builds of pytorch from the third-party channel
# https://prefix.dev/rock-the-conda with conda-forge for the rest, asked for by build string.
# That channel's builds are not known to rocmcheck: no RC406 (matrix/research/2026-11-26-conda.md
# B5); the spec pins no version (RC403).
# expect: RC403
# expect-not: RC406
FROM rocm/dev-ubuntu-22.04:6.2.4-complete
COPY --from=mambaorg/micromamba:2.0.5 /bin/micromamba /usr/local/bin/micromamba
RUN micromamba create -y -n torch -c https://prefix.dev/rock-the-conda -c conda-forge "pytorch=*=*rocm*"
