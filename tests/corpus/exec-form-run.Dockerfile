# Modelled on exec-form RUN lines in public images (Dockerfile reference: `RUN ["executable",
# "param1", "param2"]`, no shell and no variable expansion) installing torch from a ROCm index.
# torch 2.5.1 was never built for ROCm 6.4.
# expect: RC101
FROM rocm/dev-ubuntu-24.04:6.4.1
RUN ["pip", "install", "--break-system-packages", "torch==2.5.1", "--index-url", "https://download.pytorch.org/whl/rocm6.4"]
