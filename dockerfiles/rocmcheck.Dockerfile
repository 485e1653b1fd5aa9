# The rocmcheck container image (ghcr.io/<owner>/rocmcheck), like hadolint's:
#   docker run --rm -i ghcr.io/<owner>/rocmcheck lint - < Dockerfile
# Build context: this file and the portable binaries (scripts/build-portable.sh, glibc 2.17) named
# rocmcheck-amd64 / rocmcheck-arm64 (buildx sets TARGETARCH). The release uses distroless/cc
# (glibc, libgcc, CA certificates, no shell, nonroot);
# the tests build it on a base made from Debian's packages (--build-arg BASE=...), as no registry
# is reachable there. The binary needs only glibc >= 2.17 and libgcc_s.
ARG BASE=gcr.io/distroless/cc-debian12:nonroot
FROM ${BASE}
ARG TARGETARCH=amd64
COPY rocmcheck-${TARGETARCH} /usr/local/bin/rocmcheck
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/rocmcheck"]
CMD ["--help"]
