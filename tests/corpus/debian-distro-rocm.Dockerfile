# Modelled on: Debian's own ROCm packages used in llama.cpp/whisper.cpp builds on Debian
# (libamdhip64-dev, hipcc from the distribution); the distro's ROCm is not judged by RC107.
# expect:
# expect-not: RC401 RC402 RC106 RC107
FROM debian:trixie
RUN apt-get update && apt-get install -y hipcc libamdhip64-dev librocblas-dev cmake
