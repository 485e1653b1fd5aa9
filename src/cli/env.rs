//! `rocmcheck env`: diagnose the running container or host ([`crate::commands::env`]).

use super::{Globals, PolicyArgs};
use crate::commands::env::Env;
use crate::exit::ExitStatus;
use crate::report::Format;
use std::io::Write;
use std::path::PathBuf;

/// Diagnose the running container or host (GPUs, devices, ROCm, driver, PyTorch, env vars).
#[derive(Debug, clap::Args)]
pub struct EnvArgs {
    /// Read sysfs, /proc, /dev and /opt under DIR instead of `/` (a tree captured elsewhere).
    #[arg(long, value_name = "DIR", default_value = "/")]
    pub root: PathBuf,
    /// The Python interpreter whose torch is checked.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: String,
    /// Do not run Python (no torch facts).
    #[arg(long, conflicts_with = "deep")]
    pub no_python: bool,
    /// Also initialise the GPU from torch (device properties, memory, a small GEMM).
    #[arg(long)]
    pub deep: bool,
    /// Time limit for the Python probe, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Print the probed facts as JSON and stop (for bug reports; re-check with `--from`).
    #[arg(long, conflicts_with = "from")]
    pub facts: bool,
    /// Evaluate facts recorded earlier with `--facts` instead of probing.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Severity threshold, ignored rules, configuration file.
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// Runs `rocmcheck env`.
pub fn run(g: &Globals, a: EnvArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<ExitStatus> {
    let matrix = match g.matrix(err) {
        Ok(m) => m,
        Err(s) => return Ok(s),
    };
    let config = match super::load_config(a.policy.config.as_deref(), &matrix, &a.policy.ignore, err) {
        Ok(c) => c,
        Err(s) => return Ok(s),
    };
    let e = Env {
        root: a.root,
        python: a.python,
        no_python: a.no_python,
        deep: a.deep,
        timeout: a.timeout,
        facts: a.facts,
        from: a.from,
        format: a.format,
        fail_on: a.policy.fail_on,
    };
    super::finish(crate::commands::env::env(&matrix, &config, &e, g.color, out, err), err)
}
