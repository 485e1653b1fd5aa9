//! Installers whose input is a file of the build context rather than the RUN line itself:
//! pip requirements and constraints files ([`requirements`]) and uv projects ([`uv`]). Each
//! reads its format into entries with byte spans; the resolver locates the file through the
//! Dockerfile's `COPY`/`ADD`/bind mounts and turns the entries into install facts.

pub mod marker;
pub mod requirements;
pub mod uv;
