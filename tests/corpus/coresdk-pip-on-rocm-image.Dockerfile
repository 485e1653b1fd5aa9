# Modelled on pytorch/pytorch#191688: the same wheel-based torch (pytorch/pytorch#191688: the rocm7.14 wheel requires
# rocm[device-all,libraries]==7.14.*) on a legacy ROCm 7.2.4 image: two ROCm user spaces.
# expect: RC111
# expect-not: RC104 RC106
FROM rocm/dev-ubuntu-24.04:7.2.4
RUN pip install --break-system-packages torch==2.14.0 --index-url https://download.pytorch.org/whl/rocm7.14
