FROM rocm/pytorch
