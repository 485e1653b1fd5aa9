# Modelled on exec-form RUN with an explicit shell (`RUN ["/bin/bash", "-c", "…"]`, as in the
# Dockerfile reference's exec-form example): the script is read like a shell-form RUN.
# expect: RC101
FROM rocm/dev-ubuntu-24.04:6.4.1
RUN ["/bin/bash", "-c", "pip install --break-system-packages torch==2.5.1 --index-url https://download.pytorch.org/whl/rocm6.4"]
