//! Installers: each turns a resolved command (ARG/ENV substituted by
//! [`super::resolve`]) into install facts, taking the file and the stage it runs in from
//! [`super::stage`] and the build context's files from [`super::context`]. [`pip`] reads `pip
//! install`/`download`, `uv pip install` and `uv add`; [`uv_project`] reads `uv sync`/`uv run`;
//! [`system`] reads ROCm from AMD's apt/dnf repositories, `amdgpu-install` and distribution
//! packages; [`conda`] reads conda, mamba and micromamba installs and environment files (their
//! `pip:` sections through [`pip`]). `INSTALLERS` lists them in the order they read a RUN.
//! The files they read from the build context have their own readers: pip requirements and
//! constraints files ([`requirements`]), conda environment files ([`conda_env`]), uv's `pyproject.toml` and `uv.lock` ([`uv`]), PEP 508
//! markers ([`marker`]); each reads its format into entries with byte spans (pure: text in,
//! entries out).

pub mod conda;
pub mod conda_env;
pub mod dependents;
pub mod marker;
pub mod pip;
pub mod requirements;
pub mod system;
pub mod uv;
pub mod uv_project;

use super::parse::InputProblem;
use super::stage::{Ctx, Stage};

/// Reads one command of a RUN: its words with their byte offsets in the file, ARG/ENV
/// substituted. A command the installer does not run is left alone (`Ok` and no change).
pub(crate) type CommandReader = fn(&Ctx, &mut Stage, &[(usize, String)]) -> Result<(), InputProblem>;

/// Reads a shell-form RUN (or a heredoc a shell runs) as a whole: `(base, text, sub)`, the
/// offset of `text` in the file, the text as written and with ARG/ENV substituted.
pub(crate) type ScriptReader = fn(&Ctx, &mut Stage, usize, &str, &str);

/// An installer: what it reads of a RUN.
pub(crate) struct Installer {
    /// Reads the RUN's text as a whole, before its commands are read one by one (exec-form RUNs
    /// have no shell text and are not read this way).
    pub(crate) script: Option<ScriptReader>,
    /// Reads each command of the RUN, shell or exec form.
    pub(crate) command: Option<CommandReader>,
}

/// Every installer, in the order each RUN is read: the script readers first, then each command
/// through the command readers in this order (a later reader sees what an earlier one put into
/// the stage). Adding an installer is one entry here.
pub(crate) const INSTALLERS: &[Installer] = &[
    Installer {
        script: Some(system::rocm_packages),
        command: None,
    },
    Installer {
        script: None,
        command: Some(pip::pip_install),
    },
    Installer {
        script: None,
        command: Some(uv_project::uv_project),
    },
    Installer {
        script: None,
        command: Some(conda::conda_install),
    },
];
