# Modelled on: a CPU-only service Dockerfile (python:latest) that must not be judged by ROCm rules.
# expect:
# expect-not: RC401 RC402 RC403 RC404
FROM python:latest
RUN pip install flask gunicorn
