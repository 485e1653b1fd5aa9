# Modelled on: the same with the wheels copied in (`COPY --from`) and installed by file name;
# the ROCm index in the builder keeps it clean.
# expect-not: RC404 RC403
FROM python:3.12 AS wheels
RUN pip download torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.2 -d /wheels
FROM rocm/dev-ubuntu-24.04:6.2.4
COPY --from=wheels /wheels /wheels
RUN pip install /wheels/torch-*.whl
