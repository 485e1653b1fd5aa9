# Modelled on PyTorch's previous-versions page (pytorch/pytorch.github.io
# _get_started/previous-versions.md@e3f009bb, v2.3.1 "Conda" section: `conda install
# pytorch==… torchvision==… torchaudio==… -c pytorch`) run on a ROCm image: PyTorch's conda
# channel never had a ROCm build (its pages say ROCm is pip-only), so this is a CPU/CUDA torch.
# expect: RC406
# expect-not: RC403 RC404
FROM rocm/dev-ubuntu-22.04:6.2.4-complete
COPY --from=continuumio/miniconda3:latest /opt/conda /opt/conda
ENV PATH=/opt/conda/bin:$PATH
RUN conda install -y pytorch==2.3.1 torchvision==0.18.1 torchaudio==2.3.1 -c pytorch \
    && conda clean -afy
