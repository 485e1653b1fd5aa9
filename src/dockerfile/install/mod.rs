//! Installers: each turns a resolved command (ARG/ENV substituted by
//! [`super::resolve`], which keeps stages, variables and the build context) into install
//! facts. [`pip`] reads `pip install`/`download`, `uv pip install` and `uv add`;
//! [`uv_project`] reads `uv sync`/`uv run`; [`system`] reads ROCm from AMD's apt/dnf
//! repositories, `amdgpu-install` and distribution packages; [`conda`] reads conda, mamba and
//! micromamba installs and environment files (their `pip:` sections through [`pip`]). The files they read from the build context have
//! their own readers: pip requirements and constraints files ([`requirements`]), uv's
//! `pyproject.toml` and `uv.lock` ([`uv`]), PEP 508 markers ([`marker`]); each reads its format
//! into entries with byte spans (pure: text in, entries out).

pub mod conda;
pub mod dependents;
pub mod marker;
pub mod pip;
pub mod requirements;
pub mod system;
pub mod uv;
pub mod uv_project;
