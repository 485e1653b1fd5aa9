# Modelled on: images that download wheels in a builder stage and install them in the runtime
# stage through a BuildKit bind mount (`RUN --mount=from=…`), with torch taken from PyPI there.
# expect: RC404
FROM python:3.12 AS wheels
RUN pip download torch==2.5.1 -d /wheels
FROM rocm/dev-ubuntu-24.04:6.4.1
RUN --mount=from=wheels,source=/wheels,target=/wheels pip install --no-index --find-links /wheels torch
