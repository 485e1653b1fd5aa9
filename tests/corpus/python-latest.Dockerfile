# Modelled on: a CPU-only service Dockerfile (python:latest) that must not be judged by ROCm rules.
# expect:
# expect-not: RC401 RC402 RC405 RC406
FROM python:latest
RUN pip install flask gunicorn
