FROM rocm/pytorch:latest
FROBNICATE x
